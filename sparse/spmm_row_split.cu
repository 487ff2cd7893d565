// Row-split CSR × dense (Yang, Buluç & Owens 2018, "row split"): each row of A
// belongs to one group of L lanes; the lanes load up to L of the row's
// nonzeros at once (coalesced), then broadcast each (column, value) to the
// group by shuffles while every lane updates its own columns of the row of Y,
// reading the matching row of X contiguously across the group.
#include "core/cuda_check.hpp"
#include "core/launch.hpp"
#include "sparse/spmm_kernels.hpp"

namespace binamg::spmm_detail {
namespace {

/// The lanes of this thread's aligned group of L inside its warp.
template <int L>
__device__ unsigned group_mask() {
  if constexpr (L == 32) {
    return 0xffffffffu;
  } else {
    const unsigned first = (threadIdx.x % 32) / L * L;
    return ((1u << L) - 1u) << first;
  }
}

// Threads: a group of L lanes per row (row = global thread / L); blockIdx.y is
// the pass over columns [64·y, 64·y + 64) of Y, lane l owning columns
// pass_base + l + r·L for r < R. Invariant: each Y entry is written once, by
// its lane, as the sum over the row's nonzeros in increasing position.
// Exact: k is a multiple of L·R, so no column needs a bounds check.
template <typename T, int L, int R, bool Exact>
__global__ void __launch_bounds__(SpmmPolicy::threads)
    row_split_kernel(index_t rows, index_t k, const index_t* __restrict__ row_ptr,
                     const index_t* __restrict__ col_idx, const T* __restrict__ values,
                     const T* __restrict__ X, T* __restrict__ Y) {
  const std::int64_t row = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / L;
  if (row >= rows) return;  // whole groups leave together: rows are per group
  const int lane = threadIdx.x % L;
  const unsigned mask = group_mask<L>();
  const index_t first_column = blockIdx.y * SpmmPolicy::columns_per_pass + lane;

  T sum[R];
#pragma unroll
  for (int r = 0; r < R; ++r) sum[r] = T(0);
  const index_t begin = row_ptr[row], end = row_ptr[row + 1];
  for (index_t base = begin; base < end; base += L) {
    index_t my_column = 0;
    T my_value = T(0);
    if (base + lane < end) {
      my_column = col_idx[base + lane];
      my_value = values[base + lane];
    }
    const int count = min(L, end - base);
    for (int t = 0; t < count; ++t) {
      const index_t column = __shfl_sync(mask, my_column, t, L);
      const T a = __shfl_sync(mask, my_value, t, L);
      const T* x = X + std::int64_t(column) * k;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const index_t c = first_column + r * L;
        if (Exact || c < k) sum[r] += a * x[c];
      }
    }
  }
  T* y = Y + row * k;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const index_t c = first_column + r * L;
    if (Exact || c < k) y[c] = sum[r];
  }
}

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

template <typename T, int L, int R, bool Exact>
void launch_row_split(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, cudaStream_t stream) {
  const dim3 grid(blocks_for(std::int64_t(A.rows) * L, SpmmPolicy::threads),
                  static_cast<unsigned>((k + SpmmPolicy::columns_per_pass - 1) /
                                        SpmmPolicy::columns_per_pass));
  row_split_kernel<T, L, R, Exact><<<grid, SpmmPolicy::threads, 0, stream>>>(
      A.rows, k, A.row_ptr.data(), A.col_idx.data(), A.values.data(), X, Y);
  BINAMG_CHECK_LAUNCH();
}

template <typename T, int L, int R>
void launch_row_split(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, cudaStream_t stream) {
  // Exact needs every pass full: k = L·R (one pass) or a multiple of 64.
  if (k % (L * R) == 0 && (k <= L * R || k % SpmmPolicy::columns_per_pass == 0))
    launch_row_split<T, L, R, true>(A, X, k, Y, stream);
  else
    launch_row_split<T, L, R, false>(A, X, k, Y, stream);
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
  // Fast paths by k (8, 32, 64 run with Exact); beyond 64, passes of 64 columns.
  switch (lanes_for_columns(k)) {
    case 2: return launch_row_split<T, 2, 1>(A, X, k, Y, stream);
    case 4: return launch_row_split<T, 4, 1>(A, X, k, Y, stream);
    case 8: return launch_row_split<T, 8, 1>(A, X, k, Y, stream);
    case 16: return launch_row_split<T, 16, 1>(A, X, k, Y, stream);
    default:
      if (k <= 32) return launch_row_split<T, 32, 1>(A, X, k, Y, stream);
      return launch_row_split<T, 32, 2>(A, X, k, Y, stream);
  }
}

#define BINAMG_INSTANTIATE(T)                                                              \
  template void row_split<T>(const DeviceCsr<T>&, const T*, index_t, T*, cudaStream_t);    \
  template void row_split_vector<T>(const DeviceCsr<T>&, const T*, const T*, T*, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg::spmm_detail
