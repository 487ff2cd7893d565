// The whole-sort path (SpgemmPath::sorted_whole).
#include "binamg/spgemm/kernels/sorted_long_rows.cuh"
#include "binamg/spgemm/paths/paths.cuh"

namespace binamg::spgemm_detail {

template <typename T>
void sort_whole_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, std::int64_t products,
                        DeviceCsr<T>& C, Workspace& bins, std::size_t scan_bytes,
                        cudaStream_t stream) {
  SortedLongRows<T> all(A, B, products, stream);
  all.count_runs(C.row_ptr.data(), true);  // row_ptr[rows] is 0 since the count pass
  allocate_from_counts(C, bins, scan_bytes, stream);
  all.fill(C, &bins.counters->error);
}

#define BINAMG_INSTANTIATE(T)                                                                 \
  template void sort_whole_product<T>(const DeviceCsr<T>&, const DeviceCsr<T>&, std::int64_t, \
                                      DeviceCsr<T>&, Workspace&, std::size_t, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg::spgemm_detail
