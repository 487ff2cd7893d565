#include <cub/device/device_scan.cuh>

#include <cstdint>

#include "binamg/core/cuda_check.hpp"
#include "binamg/core/device_buffer.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"
#include "binamg/core/scan.hpp"

namespace binamg {
namespace {

constexpr int scan_threads = 256;

__global__ void widen(index_t n, const index_t* counts, std::int64_t* wide) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) wide[i] = counts[i];
}

// One thread per offset; values are known to fit (checked on the host first).
__global__ void narrow(index_t n, const std::int64_t* inclusive, index_t* offsets) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) offsets[0] = 0;
  if (i < n) offsets[i + 1] = static_cast<index_t>(inclusive[i]);
}

}  // namespace

index_t offsets_from_counts(const index_t* counts, index_t n, index_t* offsets,
                            const std::string& what, cudaStream_t stream) {
  if (n == 0) {
    BINAMG_CUDA_CHECK(cudaMemsetAsync(offsets, 0, sizeof(index_t), stream));
    return 0;
  }
  DeviceBuffer<std::int64_t> wide(n, stream, "offsets scan input");
  DeviceBuffer<std::int64_t> inclusive(n, stream, "offsets scan output");
  widen<<<blocks_for(n, scan_threads), scan_threads, 0, stream>>>(n, counts, wide.data());
  BINAMG_CHECK_LAUNCH();
  std::size_t temp_bytes = 0;
  BINAMG_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, wide.data(),
                                                  inclusive.data(), n, stream));
  DeviceBuffer<unsigned char> temp(temp_bytes, stream, "offsets scan scratch");
  BINAMG_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.data(), temp_bytes, wide.data(),
                                                  inclusive.data(), n, stream));
  const std::int64_t total = read_back(inclusive.data() + n - 1, stream);
  const index_t checked_total = checked_index(total, what);
  narrow<<<blocks_for(n, scan_threads), scan_threads, 0, stream>>>(n, inclusive.data(), offsets);
  BINAMG_CHECK_LAUNCH();
  return checked_total;
}

}  // namespace binamg
