// Row-split CSR × dense (Yang, Buluç & Owens 2018, "row split"): each row of A
// belongs to one group of L lanes; the lanes load up to L of the row's
// nonzeros at once (coalesced), then broadcast each (column, value) to the
// group by shuffles while every lane updates its own columns of the row of Y,
// reading the matching row of X contiguously across the group.
#include "core/cuda_check.hpp"
#include "core/launch.hpp"
#include "sparse/block_row_split.cuh"
#include "sparse/spmm_kernels.hpp"

namespace binamg::spmm_detail {
namespace {

using row_split::group_mask;

// The SpMM's epilogue: Y(row, c) = the row's sum.
template <typename T>
struct StoreEntry {
  T* __restrict__ Y;
  index_t k;
  __device__ void operator()(index_t row, index_t c, T sum) const { Y[std::int64_t(row) * k + c] = sum; }
};

// Threads: a group of L lanes per row. Lane l sums the row's nonzeros at
// positions l, l+L, ... in order, then the group adds the L partial sums in a
// fixed tree (shuffle-down by L/2, ..., 1): the same bits on every run.
// Lane 0 writes y[row] = sum, or b[row] - sum for the residual.
template <typename T, int L, bool Residual>
__global__ void __launch_bounds__(SpmmPolicy::threads)
    row_split_vector_kernel(index_t rows, const index_t* __restrict__ row_ptr,
                            const index_t* __restrict__ col_idx, const T* __restrict__ values,
                            const T* __restrict__ x, const T* __restrict__ b,
                            T* __restrict__ y) {
  const std::int64_t row = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / L;
  if (row >= rows) return;
  const int lane = threadIdx.x % L;
  const unsigned mask = group_mask<L>();
  T sum = T(0);
  const index_t end = row_ptr[row + 1];
  for (index_t e = row_ptr[row] + lane; e < end; e += L) sum += values[e] * x[col_idx[e]];
#pragma unroll
  for (int offset = L / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(mask, sum, offset, L);
  if (lane == 0) y[row] = Residual ? b[row] - sum : sum;
}

template <typename T, int L, bool Residual>
void launch_vector(const DeviceCsr<T>& A, const T* x, const T* b, T* y, cudaStream_t stream) {
  row_split_vector_kernel<T, L, Residual>
      <<<blocks_for(std::int64_t(A.rows) * L, SpmmPolicy::threads), SpmmPolicy::threads, 0,
         stream>>>(A.rows, A.row_ptr.data(), A.col_idx.data(), A.values.data(), x, b, y);
  BINAMG_CHECK_LAUNCH();
}

template <typename T, bool Residual>
void launch_vector(const DeviceCsr<T>& A, const T* x, const T* b, T* y, cudaStream_t stream) {
  switch (spmv_lanes_per_row(A.rows, A.nnz)) {
    case 2: return launch_vector<T, 2, Residual>(A, x, b, y, stream);
    case 4: return launch_vector<T, 4, Residual>(A, x, b, y, stream);
    case 8: return launch_vector<T, 8, Residual>(A, x, b, y, stream);
    case 16: return launch_vector<T, 16, Residual>(A, x, b, y, stream);
    default: return launch_vector<T, 32, Residual>(A, x, b, y, stream);
  }
}

}  // namespace

template <typename T>
void row_split_vector(const DeviceCsr<T>& A, const T* x, const T* b, T* y, cudaStream_t stream) {
  if (A.rows == 0) return;
  if (b != nullptr)
    launch_vector<T, true>(A, x, b, y, stream);
  else
    launch_vector<T, false>(A, x, b, y, stream);
}

template <typename T>
void row_split(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, cudaStream_t stream) {
  if (A.rows == 0) return;
  if (k == 1) return row_split_vector<T>(A, X, nullptr, Y, stream);
  block_row_split::launch(A, k, block_row_split::BlockEntry<T>{X, k}, StoreEntry<T>{Y, k},
                          stream);
}

#define BINAMG_INSTANTIATE(T)                                                              \
  template void row_split<T>(const DeviceCsr<T>&, const T*, index_t, T*, cudaStream_t);    \
  template void row_split_vector<T>(const DeviceCsr<T>&, const T*, const T*, T*, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg::spmm_detail
