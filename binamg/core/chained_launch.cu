#include "binamg/core/chained_launch.cuh"

#include <atomic>

namespace binamg {

bool device_chains_launches() {
  // Per device id: 0 not yet asked, 1 no, 2 yes. Devices past the table are
  // asked every time (a plain answer, just slower).
  constexpr int known_devices = 64;
  static std::atomic<signed char> answers[known_devices] = {};
  int device = 0;
  BINAMG_CUDA_CHECK(cudaGetDevice(&device));
  if (device >= 0 && device < known_devices) {
    const signed char known = answers[device].load(std::memory_order_relaxed);
    if (known != 0) return known == 2;
  }
  int major = 0;
  BINAMG_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  const bool chains = major >= 9;
  if (device >= 0 && device < known_devices)
    answers[device].store(chains ? 2 : 1, std::memory_order_relaxed);
  return chains;
}

}  // namespace binamg
