// The binned path (SpgemmPath::binned): the symbolic pass, the numeric
// binning and the numeric pass of Liu & Vinter's framework, whose kernel
// families the fused path and spgemm_numeric launch through it too.
#include "binamg/spgemm/kernels/entrywise.cuh"
#include "binamg/spgemm/kernels/long_rows.cuh"
#include "binamg/spgemm/kernels/short_rows.cuh"
#include "binamg/spgemm/kernels/sorted_long_rows.cuh"
#include "binamg/spgemm/kernels/table_rows.cuh"
#include "binamg/spgemm/kernels/thread_rows.cuh"
#include "binamg/spgemm/paths/paths.cuh"

namespace binamg::spgemm_detail {
namespace {

/// Blocks for a long-row bin: enough to fill the GPU, no more than the
/// accumulator budget allows (at least one).
int global_blocks(const SpgemmTuning& tuning, index_t rows, std::size_t bytes_per_block) {
  const std::size_t by_budget = std::max<std::size_t>(
      1, tuning.global_memory_budget / std::max<std::size_t>(1, bytes_per_block));
  const std::size_t by_device = std::size_t(tuning.sm_count) * tuning.global_blocks_per_sm;
  return int(std::min({by_budget, by_device, std::size_t(rows)}));
}

/// Slices per long row in the numeric pass: 1 (one block per row) unless
/// the long rows are too few to fill the device, then as many as fill it
/// within split_memory_budget (one accumulator per slice).
int long_row_slices(const SpgemmTuning& tuning, index_t rows, std::size_t bytes_per_block) {
  const std::size_t by_device = std::size_t(tuning.sm_count) * tuning.global_blocks_per_sm;
  const std::size_t by_budget =
      tuning.split_memory_budget / std::max<std::size_t>(1, bytes_per_block);
  const std::size_t items = std::min(by_device, by_budget);
  if (rows <= 0 || std::size_t(rows) * 2 > items) return 1;
  return int(items / std::size_t(rows));
}

/// Stage 3, symbolic: nnz of each row of C into row_nnz (bins 1..global).
template <typename T>
void count_row_nnz(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const SpgemmTuning& tuning,
                   const Workspace& bins, index_t* row_nnz, cudaStream_t stream) {
  const SymbolicWalk walk = symbolic_walk(B.rows, B.nnz());
  const PatternOperands in{A.row_ptr.data(), A.col_idx.data(), B.row_ptr.data(), B.col_idx.data()};
  const int shared_bins = tuning.symbolic_shared_bins();
  bins.for_each_launch(
      1, shared_bins, few_rows(tuning), [&](int bin, const index_t* rows, index_t count) {
        if (bin == 1) {  // rows of at most min_table products
          symbolic_thread_rows_kernel<<<grid_for(count, kThreadRowBlock), kThreadRowBlock, 0,
                                        stream>>>(in, rows, count, row_nnz);
          BINAMG_CHECK_LAUNCH();
          return;
        }
        const BinLaunch launch = launch_of_bin(tuning, bin);
        // The bin's threads follow its product count; its table need not pass
        // the columns of B.
        const int table = std::min(launch.table, table_for_columns(tuning, B.cols));
        const std::size_t shared = std::size_t(launch.rows_per_block) * table * sizeof(index_t);
        with_group(launch.group, [&](auto g) {
          constexpr int G = decltype(g)::value;
          allow_shared_memory<symbolic_shared_kernel<G>>(tuning, shared);
          symbolic_shared_kernel<G>
              <<<grid_for(count, launch.rows_per_block), launch.block, shared, stream>>>(
                  in, rows, count, table, walk.sub_width, walk.balanced_length, row_nnz);
          BINAMG_CHECK_LAUNCH();
        });
      });
  const int global_bin = shared_bins + 1;
  const index_t count = bins.count(global_bin);
  if (count == 0) return;
  SortedLongRows<T> sorted(A, B, bins.rows_of(global_bin), count, stream);
  if (sorted.bytes_needed(false) <= std::int64_t(tuning.sorted_long_rows_budget)) {
    sorted.count_runs(row_nnz);
    return;
  }
  constexpr int Block = 1024;
  const int blocks = global_blocks(tuning, count, std::size_t(B.cols) * sizeof(index_t));
  DeviceBuffer<index_t> markers(std::size_t(blocks) * B.cols, stream,
                                "spgemm: column markers of long rows");
  BINAMG_CUDA_CHECK(
      cudaMemsetAsync(markers.data(), 0xff, markers.size() * sizeof(index_t), stream));
  symbolic_global_kernel<Block>
      <<<blocks, Block, 0, stream>>>(in, bins.rows_of(global_bin), count, markers.data(), B.cols,
                                     walk.sub_width, walk.balanced_length, row_nnz);
  BINAMG_CHECK_LAUNCH();
}

}  // namespace

template <typename T>
void fill_short_rows(const ProductOperands<T>& in, index_t b_cols, const index_t* c_row_ptr,
                     index_t* c_col, T* c_val, index_t* row_runs, const SpgemmTuning& tuning,
                     const Workspace& bins, int* error, cudaStream_t stream) {
  const bool narrow_keys = (std::int64_t(b_cols) << kShortPositionBits) < (std::int64_t(1) << 32);
  bins.for_each_launch(tuning.numeric_short_bin(0), tuning.numeric_short_bin(kShortWidths - 1),
                       few_rows(tuning), [&](int bin, const index_t* rows, index_t count) {
                         const int width_log2 = bin - tuning.numeric_short_bin(0);
                         if (width_log2 < kThreadRowWidths) {
                           numeric_thread_rows_kernel<T>
                               <<<grid_for(count, kThreadRowBlock), kThreadRowBlock, 0, stream>>>(
                                   in, rows, count, c_row_ptr, c_col, c_val, error, row_runs);
                           BINAMG_CHECK_LAUNCH();
                           return;
                         }
                         constexpr int Block = 256;
                         with_sub_warp(kShortMinWidth << width_log2, [&](auto w) {
                           constexpr int Width = decltype(w)::value;
                           const auto launch = [&](auto key) {
                             using Key = decltype(key);
                             numeric_short_rows_kernel<Block, Width, Key, T>
                                 <<<grid_for(count, Block / Width), Block, 0, stream>>>(
                                     in, rows, count, c_row_ptr, c_col, c_val, error, row_runs);
                             BINAMG_CHECK_LAUNCH();
                           };
                           if (narrow_keys)
                             launch(0u);
                           else
                             launch(0ull);
                         });
                       });
}

template <typename T>
void fill_shared_rows(const ProductOperands<T>& in, const index_t* c_row_ptr, index_t* c_col,
                      T* c_val, index_t* row_runs, const SpgemmTuning& tuning,
                      const Workspace& bins, int* error, cudaStream_t stream) {
  bins.for_each_launch(
      1, tuning.numeric_shared_bins(), few_rows(tuning),
      [&](int bin, const index_t* rows, index_t count) {
        const BinLaunch launch = numeric_launch_of_bin(tuning, bin, count);
        const std::size_t shared =
            std::size_t(launch.rows_per_block) * tuning.numeric_row_bytes(launch.table);
        allow_shared_memory<numeric_shared_kernel<kNumericItems, T>>(tuning, shared);
        numeric_shared_kernel<kNumericItems, T>
            <<<grid_for(count, launch.rows_per_block), launch.block, shared, stream>>>(
                in, rows, count, launch.table, c_row_ptr, c_col, c_val, error, row_runs);
        BINAMG_CHECK_LAUNCH();
      });
}

template <typename T>
void fill_rows(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
               const SpgemmTuning& tuning, const Workspace& bins, int* error, cudaStream_t stream) {
  const ProductOperands<T> in{A.row_ptr.data(), A.col_idx.data(), A.values.data(),
                              B.row_ptr.data(), B.col_idx.data(), B.values.data()};
  const int shared_bins = tuning.numeric_shared_bins();
  const index_t few = few_rows(tuning);
  fill_shared_rows(in, C.row_ptr.data(), C.col_idx.data(), C.values.data(), nullptr, tuning, bins,
                   error, stream);
  const int entrywise_offset = tuning.numeric_entrywise_bin(1) - 1;
  bins.for_each_launch(
      tuning.numeric_entrywise_bin(1), tuning.numeric_entrywise_bin(shared_bins), few,
      [&](int entrywise_bin, const index_t* rows, index_t count) {
        const BinLaunch launch = launch_of_bin(tuning, entrywise_bin - entrywise_offset);
        const std::size_t shared =
            std::size_t(launch.rows_per_block) * launch.table * (sizeof(index_t) + sizeof(T));
        with_group(launch.group, [&](auto g) {
          constexpr int G = decltype(g)::value;
          allow_shared_memory<numeric_entrywise_kernel<G, T>>(tuning, shared);
          numeric_entrywise_kernel<G, T>
              <<<grid_for(count, launch.rows_per_block), launch.block, shared, stream>>>(
                  in, rows, count, launch.table, C.row_ptr.data(), C.col_idx.data(),
                  C.values.data(), error);
          BINAMG_CHECK_LAUNCH();
        });
      });
  fill_short_rows(in, B.cols, C.row_ptr.data(), C.col_idx.data(), C.values.data(), nullptr, tuning,
                  bins, error, stream);
  const int global_bin = shared_bins + 1;
  const index_t count = bins.count(global_bin);
  if (count == 0) return;
  SortedLongRows<T> sorted(A, B, bins.rows_of(global_bin), count, stream);
  if (sorted.bytes_needed(true) <= std::int64_t(tuning.sorted_long_rows_budget)) {
    sorted.fill(C, error);
    return;
  }
  constexpr int Block = 256, Items = 4;
  const std::size_t bytes_per_block = std::size_t(B.cols) * (sizeof(index_t) + sizeof(T));
  const int slices = long_row_slices(tuning, count, bytes_per_block);
  const int blocks =
      slices > 1 ? int(count) * slices : global_blocks(tuning, count, bytes_per_block);
  DeviceBuffer<index_t> markers(std::size_t(blocks) * B.cols, stream,
                                "spgemm: column markers of long rows");
  DeviceBuffer<T> accumulators(std::size_t(blocks) * B.cols, stream,
                               "spgemm: dense accumulators of long rows");
  BINAMG_CUDA_CHECK(
      cudaMemsetAsync(markers.data(), 0xff, markers.size() * sizeof(index_t), stream));
  const int column_bits = radix_key_bits(B.cols);
  const index_t* long_rows = bins.rows_of(global_bin);
  numeric_long_rows_kernel<Block, Items, T><<<blocks, Block, 0, stream>>>(
      in, long_rows, count, slices, markers.data(), accumulators.data(), B.cols, column_bits,
      C.row_ptr.data(), C.col_idx.data(), C.values.data(), error);
  BINAMG_CHECK_LAUNCH();
  if (slices == 1) return;
  constexpr int MergeBlock = 256;
  merge_slices_kernel<T>
      <<<dim3(grid_for(B.cols, MergeBlock), unsigned(count)), MergeBlock, 0, stream>>>(
          long_rows, slices, markers.data(), accumulators.data(), B.cols);
  BINAMG_CHECK_LAUNCH();
  write_merged_rows_kernel<Block, T><<<unsigned(count), Block, 0, stream>>>(
      long_rows, slices, markers.data(), accumulators.data(), B.cols, C.row_ptr.data(),
      C.col_idx.data(), C.values.data(), error);
  BINAMG_CHECK_LAUNCH();
}

template <typename T>
unsigned long long bin_for_numeric(const DeviceCsr<T>& A, const DeviceCsr<T>& B,
                                   const index_t* row_sizes, bool sizes_are_offsets,
                                   bool classes_in_bins, index_t rows, const SpgemmTuning& tuning,
                                   Workspace& bins, cudaStream_t stream) {
  if (rows > 0) {
    const NumericClassRule classes{A.row_ptr.data(), A.col_idx.data(), B.row_ptr.data(),
                                   tuning.entrywise_min_b_length, classes_in_bins};
    bin_by_nnz_kernel<<<grid_for(rows, kThreadsPerRowKernel), kThreadsPerRowKernel, 0, stream>>>(
        row_sizes, sizes_are_offsets, rows, classes, numeric_bin_rule(tuning), bins.bin_of_row,
        bins.tallies(1), bins.tallies(1) + kMaxBins);
    BINAMG_CHECK_LAUNCH();
  }
  bins.distribute(1, rows, stream);
  return bins.host_tallies[kMaxBins];
}

template <typename T>
void binned_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                    const SpgemmTuning& tuning, Workspace& bins, std::size_t scan_bytes,
                    cudaStream_t stream) {
  const index_t rows = A.rows;
  bins.scatter(0, rows, stream);
  // Stage 3, symbolic: exact row lengths, held in row_ptr until the scan.
  count_row_nnz(A, B, tuning, bins, C.row_ptr.data(), stream);
  const unsigned long long total =
      bin_for_numeric(A, B, C.row_ptr.data(), false, true, rows, tuning, bins, stream);
  C.allocate_entries(checked_index(static_cast<std::int64_t>(total), "spgemm: nnz(C)"), stream,
                     "spgemm: entries of C");
  BINAMG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(bins.scan_storage, scan_bytes, C.row_ptr.data(),
                                                  C.row_ptr.data(), rows + 1, stream));
  // Stages 3-4, numeric: accumulate, sort and write each row.
  fill_rows(A, B, C, tuning, bins, &bins.counters->error, stream);
}

#define BINAMG_INSTANTIATE(T)                                                                    \
  template void fill_short_rows<T>(const ProductOperands<T>&, index_t, const index_t*, index_t*, \
                                   T*, index_t*, const SpgemmTuning&, const Workspace&, int*,    \
                                   cudaStream_t);                                                \
  template void fill_shared_rows<T>(const ProductOperands<T>&, const index_t*, index_t*, T*,     \
                                    index_t*, const SpgemmTuning&, const Workspace&, int*,       \
                                    cudaStream_t);                                               \
  template void fill_rows<T>(const DeviceCsr<T>&, const DeviceCsr<T>&, DeviceCsr<T>&,            \
                             const SpgemmTuning&, const Workspace&, int*, cudaStream_t);         \
  template unsigned long long bin_for_numeric<T>(const DeviceCsr<T>&, const DeviceCsr<T>&,       \
                                                 const index_t*, bool, bool, index_t,            \
                                                 const SpgemmTuning&, Workspace&, cudaStream_t); \
  template void binned_product<T>(const DeviceCsr<T>&, const DeviceCsr<T>&, DeviceCsr<T>&,       \
                                  const SpgemmTuning&, Workspace&, std::size_t, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg::spgemm_detail
