// The narrow path (SpgemmPath::narrow).
#include "binamg/spgemm/kernels/table_rows.cuh"
#include "binamg/spgemm/paths/paths.cuh"

namespace binamg::spgemm_detail {

template <typename T>
void narrow_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                    const SpgemmTuning& tuning, Workspace& bins, std::size_t scan_bytes,
                    cudaStream_t stream) {
  const index_t rows = A.rows;
  const int table = table_for_columns(tuning, B.cols);
  const SymbolicWalk walk = symbolic_walk(B.rows, B.nnz());
  constexpr int Group = 32;
  constexpr int symbolic_rows_per_block = kSmallBlock / Group;
  const std::size_t symbolic_shared =
      std::size_t(symbolic_rows_per_block) * table * sizeof(index_t);
  allow_shared_memory<symbolic_shared_kernel<Group>>(tuning, symbolic_shared);
  symbolic_shared_kernel<Group>
      <<<grid_for(rows, symbolic_rows_per_block), kSmallBlock, symbolic_shared, stream>>>(
          PatternOperands{A.row_ptr.data(), A.col_idx.data(), B.row_ptr.data(), B.col_idx.data()},
          nullptr, rows, table, walk.sub_width, walk.balanced_length, C.row_ptr.data());
  BINAMG_CHECK_LAUNCH();
  BINAMG_CUDA_CHECK(cudaMemsetAsync(C.row_ptr.data() + rows, 0, sizeof(index_t), stream));
  allocate_from_counts(C, bins, scan_bytes, stream);

  const BinLaunch launch =
      numeric_launch_of_bin(tuning, log2_of(table / tuning.min_table) + 1, rows);
  const std::size_t numeric_shared =
      std::size_t(launch.rows_per_block) * tuning.numeric_row_bytes(launch.table);
  allow_shared_memory<numeric_shared_kernel<kNumericItems, T>>(tuning, numeric_shared);
  numeric_shared_kernel<kNumericItems, T>
      <<<grid_for(rows, launch.rows_per_block), launch.block, numeric_shared, stream>>>(
          ProductOperands<T>{A.row_ptr.data(), A.col_idx.data(), A.values.data(), B.row_ptr.data(),
                             B.col_idx.data(), B.values.data()},
          nullptr, rows, launch.table, C.row_ptr.data(), C.col_idx.data(), C.values.data(),
          &bins.counters->error, nullptr);
  BINAMG_CHECK_LAUNCH();
}

#define BINAMG_INSTANTIATE(T)                                                              \
  template void narrow_product<T>(const DeviceCsr<T>&, const DeviceCsr<T>&, DeviceCsr<T>&, \
                                  const SpgemmTuning&, Workspace&, std::size_t, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg::spgemm_detail
