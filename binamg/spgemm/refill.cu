// spgemm_refill: a product's new values on its kept pattern, a thread per
// entry of C, each summed in A's row order as the row-order paths sum it.
#include <string>

#include "binamg/core/launch.hpp"
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
    index_t low = b_row_ptr[inner], high = b_row_ptr[inner + 1];
    while (low < high) {
      const index_t mid = low + (high - low) / 2;
      if (b_col[mid] < j) low = mid + 1; else high = mid;
    }
    if (low < b_row_ptr[inner + 1] && b_col[low] == j) {
      const T p = spgemm_detail::product(a_val[k], b_val[low]);
      sum = first ? p : sum + p;
      first = false;
    }
  }
  c_val[e] = sum;
}

constexpr int kWarp = 32;

// A warp per row i of C, scattering: for each entry a_ik of A's row in
// order, the lanes add a_ik·b_kj into C's entry (i, j) for the j of B's row k,
// found by binary search in C's row. B's row holds each j once, so a step has
// no conflicts, and __syncwarp orders one step's writes before the next's
// reads. C's row starts at -0.0, the identity of IEEE addition (-0 + p = p for
// every p, +0 included): the first product is taken as it is, as the
// row-order paths take it. A's entries are read 32 at a time, one per lane,
// and handed out by shuffles, which keeps them off each step's chain of loads.
template <typename T>
__global__ void refill_rows(index_t rows, const index_t* c_ptr, const index_t* c_col, T* c_val,
                            const index_t* a_row_ptr, const index_t* a_col, const T* a_val,
                            const index_t* b_row_ptr, const index_t* b_col, const T* b_val) {
  const index_t i = (index_t(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (i >= rows) return;  // the whole warp
  const index_t c_begin = c_ptr[i], c_end = c_ptr[i + 1];
  for (index_t e = c_begin + lane; e < c_end; e += kWarp) c_val[e] = T(-0.0);
  __syncwarp();
  const index_t a_begin = a_row_ptr[i], a_end = a_row_ptr[i + 1];
  for (index_t batch = a_begin; batch < a_end; batch += kWarp) {
    const index_t mine = batch + lane;
    T a = 0;
    index_t b_begin = 0, b_end = 0;
    if (mine < a_end) {
      a = a_val[mine];
      const index_t inner = a_col[mine];
      b_begin = b_row_ptr[inner];
      b_end = b_row_ptr[inner + 1];
    }
    const int count = int(min(index_t(kWarp), a_end - batch));
    for (int step = 0; step < count; ++step) {
      const T a_ik = __shfl_sync(0xffffffffu, a, step);
      const index_t begin = __shfl_sync(0xffffffffu, b_begin, step);
      const index_t end = __shfl_sync(0xffffffffu, b_end, step);
      for (index_t t = begin + lane; t < end; t += kWarp) {
        const index_t j = b_col[t];
        index_t low = c_begin, high = c_end;
        while (low < high) {
          const index_t mid = low + (high - low) / 2;
          if (c_col[mid] < j) low = mid + 1; else high = mid;
        }
        c_val[low] += spgemm_detail::product(a_ik, b_val[t]);
      }
      __syncwarp();
    }
  }
}

}  // namespace

bool sums_in_row_order(SpgemmPath path) {
  return path != SpgemmPath::sorted_whole && path != SpgemmPath::binned;
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

template <typename T>
void spgemm_refill_rows(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                        cudaStream_t stream) {
  require(A.cols == B.rows && C.rows == A.rows && C.cols == B.cols,
          "spgemm_refill_rows: C (" + std::to_string(C.rows) + " x " + std::to_string(C.cols) +
              ") is not a product of A (" + std::to_string(A.rows) + " x " +
              std::to_string(A.cols) + ") and B (" + std::to_string(B.rows) + " x " +
              std::to_string(B.cols) + ")");
  if (C.nnz() == 0) return;
  const std::int64_t threads = std::int64_t(C.rows) * kWarp;
  refill_rows<<<blocks_for(threads, refill_threads), refill_threads, 0, stream>>>(
      C.rows, C.row_ptr.data(), C.col_idx.data(), C.values.data(), A.row_ptr.data(),
      A.col_idx.data(), A.values.data(), B.row_ptr.data(), B.col_idx.data(), B.values.data());
  BINAMG_CHECK_LAUNCH();
}

template void spgemm_refill_rows<float>(const DeviceCsr<float>&, const DeviceCsr<float>&,
                                        DeviceCsr<float>&, cudaStream_t);
template void spgemm_refill_rows<double>(const DeviceCsr<double>&, const DeviceCsr<double>&,
                                         DeviceCsr<double>&, cudaStream_t);
template void spgemm_refill<float>(const DeviceCsr<float>&, const DeviceCsr<float>&,
                                   DeviceCsr<float>&, const DeviceBuffer<index_t>&, cudaStream_t);
template void spgemm_refill<double>(const DeviceCsr<double>&, const DeviceCsr<double>&,
                                    DeviceCsr<double>&, const DeviceBuffer<index_t>&,
                                    cudaStream_t);

}  // namespace binamg
