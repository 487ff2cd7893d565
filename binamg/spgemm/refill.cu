// spgemm_refill: a product's new values on its kept pattern, a thread per
// entry of C, each summed in A's row order as the row-order paths sum it.
#include <string>

#include "binamg/core/launch.hpp"
#include "binamg/core/lower_bound.cuh"
#include "binamg/spgemm/kernels/hash.cuh"
#include "binamg/spgemm/refill.hpp"

namespace binamg {
namespace {

constexpr int refill_threads = 256;

// Entry e of C (row rows[e], column j): Σ_k a_ik·b_kj over row i of A in
// order, b_kj found by binary search in B's sorted row k. The first product
// is taken as it is and each next one added, each product rounded alone:
// exactly the sums of the row-order paths (spgemm_detail::accumulate).
template <typename T>
__global__ void refill_entries(index_t nnz, const index_t* rows, const index_t* c_col, T* c_val,
                               const index_t* a_row_ptr, const index_t* a_col, const T* a_val,
                               const index_t* b_row_ptr, const index_t* b_col, const T* b_val) {
  const index_t e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= nnz) return;
  const index_t i = rows[e], j = c_col[e];
  T sum = 0;
  bool first = true;
  for (index_t k = a_row_ptr[i]; k < a_row_ptr[i + 1]; ++k) {
    const index_t inner = a_col[k];
    const index_t low = lower_bound_in(b_col, b_row_ptr[inner], b_row_ptr[inner + 1], j);
    if (low < b_row_ptr[inner + 1] && b_col[low] == j) {
      const T p = rounded_product(a_val[k], b_val[low]);
      sum = first ? p : sum + p;
      first = false;
    }
  }
  c_val[e] = sum;
}

}  // namespace

bool sums_in_row_order(SpgemmPath path) {
  return path != SpgemmPath::sorted_whole && path != SpgemmPath::binned &&
         path != SpgemmPath::window_split_rows;
}

bool spgemm_refill_pays(index_t a_rows, index_t b_rows, std::int64_t b_nnz, std::int64_t c_nnz) {
  // Measured per level on 3D 7-pt 128³ and 2D 5-pt 2048² (docs/experiments.md).
  constexpr std::int64_t kMinEntries = 100000;
  constexpr double kMaxReadsPerProduct = 3;
  return c_nnz >= kMinEntries &&
         double(c_nnz) * double(b_rows) <= kMaxReadsPerProduct * double(a_rows) * double(b_nnz);
}

template <typename T>
void spgemm_refill(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                   const DeviceBuffer<index_t>& rows, cudaStream_t stream) {
  require(A.cols == B.rows && C.rows == A.rows && C.cols == B.cols &&
              rows.size() == std::size_t(C.nnz()),
          "spgemm_refill: C (" + std::to_string(C.rows) + " x " + std::to_string(C.cols) +
              ", " + std::to_string(rows.size()) + " entry rows for nnz " +
              std::to_string(C.nnz()) + ") is not a product of A (" + std::to_string(A.rows) +
              " x " + std::to_string(A.cols) + ") and B (" + std::to_string(B.rows) + " x " +
              std::to_string(B.cols) + ")");
  if (C.nnz() == 0) return;
  refill_entries<<<blocks_for(C.nnz(), refill_threads), refill_threads, 0, stream>>>(
      C.nnz(), rows.data(), C.col_idx.data(), C.values.data(), A.row_ptr.data(), A.col_idx.data(),
      A.values.data(), B.row_ptr.data(), B.col_idx.data(), B.values.data());
  BINAMG_CHECK_LAUNCH();
}

template void spgemm_refill<float>(const DeviceCsr<float>&, const DeviceCsr<float>&,
                                   DeviceCsr<float>&, const DeviceBuffer<index_t>&, cudaStream_t);
template void spgemm_refill<double>(const DeviceCsr<double>&, const DeviceCsr<double>&,
                                    DeviceCsr<double>&, const DeviceBuffer<index_t>&,
                                    cudaStream_t);

}  // namespace binamg
