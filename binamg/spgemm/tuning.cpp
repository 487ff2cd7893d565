#include "binamg/spgemm/tuning.hpp"

#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <utility>

#include "binamg/core/cuda_check.hpp"
#include "binamg/core/error.hpp"

namespace binamg::spgemm_detail {

SpgemmTuning tuning_for_device(int device, int sm_count, std::size_t shared_per_block_optin,
                               std::size_t value_bytes) {
  SpgemmTuning tuning;
  tuning.device = device;
  tuning.sm_count = sm_count;
  tuning.shared_per_block = shared_per_block_optin;
  // Static shared memory of the kernels (a counter, cub storage) is small;
  // keep 1 KiB of headroom for it.
  tuning.shared_usable = tuning.shared_per_block - 1024;
  tuning.value_bytes = value_bytes;
  int table = tuning.min_table;
  while (true) {
    const int next = table * 2;
    const int group = tuning.group_of_table(next);
    const int rows = group <= 32 ? kSmallBlock / group : 1;
    if (std::size_t(rows) * next * sizeof(index_t) > tuning.shared_usable) break;
    table = next;
  }
  tuning.symbolic_max_table = table;
  table = tuning.min_table;
  while (tuning.numeric_row_bytes(table * 2) <= tuning.shared_usable) table *= 2;
  tuning.numeric_max_table = table;
  require(tuning.min_table <= kThreadRowMaxProducts,
          "spgemm: the first symbolic bin holds more products than a thread row");
  require(tuning.symbolic_shared_bins() + 1 < kMaxBins && tuning.numeric_last_bin() < kMaxBins,
          "spgemm: device shared memory gives more bins than kMaxBins");
  return tuning;
}

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
