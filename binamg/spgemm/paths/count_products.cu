// Stages 1-2 of the binned framework: each row's product count, its symbolic
// bin and numeric class, in one pass (kernels/binning.cuh); the tallies the
// counted paths are chosen by.
#include <limits>

#include "binamg/spgemm/paths/paths.cuh"

namespace binamg::spgemm_detail {

template <typename T>
ProductTally count_products(const DeviceCsr<T>& A, const DeviceCsr<T>& B,
                            const SpgemmTuning& tuning, bool fused_binning, Workspace& bins,
                            index_t* row_products, cudaStream_t stream) {
  const index_t rows = A.rows;
  const int shared_bins = tuning.symbolic_shared_bins();
  const int max_bin = table_for_columns(tuning, B.cols) <= tuning.symbolic_max_table
                          ? shared_bins
                          : shared_bins + 1;
  // Rows that would fill the largest table past its load limit go global
  // (when there is a global bin: else B's columns bound every row's table).
  const std::int64_t global_above = max_bin > shared_bins
                                        ? std::int64_t(tuning.symbolic_max_table) *
                                              tuning.symbolic_load_num / tuning.symbolic_load_den
                                        : std::numeric_limits<std::int64_t>::max();
  const FusedBinning fused{numeric_bin_rule(tuning),
                           fused_binning ? bins.fused_bin_of_row : nullptr,
                           bins.tallies(Workspace::kFusedBinning)};
  const auto launch = [&](auto lanes) {
    constexpr int Width = decltype(lanes)::value;
    constexpr int Block = kThreadsPerRowKernel;
    // As many blocks as fit the device at once, at most one per Block / Width rows.
    const unsigned resident = unsigned(tuning.sm_count) * (2048 / Block);
    const unsigned blocks = std::min(grid_for(std::int64_t(rows) * Width, Block), resident);
    bin_by_products_kernel<Block, Width><<<blocks, Block, 0, stream>>>(
        A.row_ptr.data(), A.col_idx.data(), B.row_ptr.data(), rows, rule_for(tuning, shared_bins),
        max_bin, global_above, tuning.entrywise_min_b_length, row_products, bins.bin_of_row,
        bins.tallies(0), fused);
    BINAMG_CHECK_LAUNCH();
  };
  // Lanes per row of A from its mean length and its rows: one thread for
  // stencil rows, a warp for the few long rows of a coarse R·A.
  const double mean_a_row = double(A.nnz()) / double(rows);
  if (mean_a_row <= tuning.product_count_thread_max ||
      (mean_a_row <= tuning.product_count_many_rows_max &&
       rows >= mean_a_row * tuning.sm_count * tuning.product_count_rows_per_entry))
    launch(std::integral_constant<int, 1>{});
  else if (mean_a_row <= tuning.product_count_sub_warp_max)
    launch(std::integral_constant<int, 8>{});
  else
    launch(std::integral_constant<int, 32>{});
  if (fused_binning)
    bins.read_count_and_fused_tallies(stream);
  else
    bins.read_tallies(0, stream);

  ProductTally tally;
  tally.products = std::int64_t(bins.host_tallies[kMaxBins]);
  tally.entrywise_rows = std::int64_t(bins.rows_entrywise());
  tally.largest_row_bound = 1;  // bound of the largest non-empty bin
  for (int bin = 1; bin <= max_bin; ++bin)
    if (bins.count(bin) > 0) tally.largest_row_bound = std::int64_t(tuning.min_table) << (bin - 1);
  return tally;
}

#define BINAMG_INSTANTIATE(T)                                                              \
  template ProductTally count_products<T>(const DeviceCsr<T>&, const DeviceCsr<T>&,        \
                                          const SpgemmTuning&, bool, Workspace&, index_t*, \
                                          cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg::spgemm_detail
