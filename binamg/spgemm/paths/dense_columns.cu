// The dense-columns path (SpgemmPath::dense_columns).
#include "binamg/spgemm/kernels/dense_columns.cuh"
#include "binamg/spgemm/paths/paths.cuh"

namespace binamg::spgemm_detail {

template <typename T>
void dense_columns_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                           Workspace& bins, std::size_t scan_bytes, cudaStream_t stream) {
  const unsigned rows = unsigned(A.rows);
  constexpr int block = kDenseBlock;
  dense_columns_count_kernel<<<rows, block, 0, stream>>>(
      PatternOperands{A.row_ptr.data(), A.col_idx.data(), B.row_ptr.data(), B.col_idx.data()},
      C.row_ptr.data());
  BINAMG_CHECK_LAUNCH();
  BINAMG_CUDA_CHECK(cudaMemsetAsync(C.row_ptr.data() + A.rows, 0, sizeof(index_t), stream));
  allocate_from_counts(C, bins, scan_bytes, stream);
  dense_columns_fill_kernel<T><<<rows, block, 0, stream>>>(
      ProductOperands<T>{A.row_ptr.data(), A.col_idx.data(), A.values.data(), B.row_ptr.data(),
                         B.col_idx.data(), B.values.data()},
      C.row_ptr.data(), C.col_idx.data(), C.values.data(), &bins.counters->error);
  BINAMG_CHECK_LAUNCH();
}

#define BINAMG_INSTANTIATE(T)                                                                     \
  template void dense_columns_product<T>(const DeviceCsr<T>&, const DeviceCsr<T>&, DeviceCsr<T>&, \
                                         Workspace&, std::size_t, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg::spgemm_detail
