#include "binamg/spgemm/tuning.hpp"

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

}  // namespace binamg::spgemm_detail
