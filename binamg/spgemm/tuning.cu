// The tuning of the current device: its properties queried once per (device,
// value size) and cached (spgemm/tuning.cpp derives the numbers from them).
#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <utility>

#include "binamg/core/cuda_check.hpp"
#include "binamg/spgemm/tuning.hpp"

namespace binamg::spgemm_detail {

const SpgemmTuning& spgemm_tuning(std::size_t value_bytes) {
  int device = 0;
  BINAMG_CUDA_CHECK(cudaGetDevice(&device));
  static std::mutex mutex;
  static std::map<std::pair<int, std::size_t>, SpgemmTuning> tunings;  // never erased
  const std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(device, value_bytes);
  auto found = tunings.find(key);
  if (found == tunings.end()) {
    int sm_count = 0, shared = 0;
    BINAMG_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    BINAMG_CUDA_CHECK(
        cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    found = tunings
                .emplace(key, tuning_for_device(device, sm_count, static_cast<std::size_t>(shared),
                                                value_bytes))
                .first;
  }
  return found->second;
}

}  // namespace binamg::spgemm_detail
