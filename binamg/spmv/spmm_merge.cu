// Merge-based CSR × dense for k > 1 (Merrill & Garland's merge path, as used
// for SpMM by Yang, Buluç & Owens 2018; spmv/merge_path.cuh): a group of
// lanes per segment of the path, a lane per column of Y. k = 1 takes tiles of
// a whole block instead (spmv/spmv_merge.cu).
#include <cstdint>

#include "binamg/core/cuda_check.hpp"
#include "binamg/core/device_buffer.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/spmv/merge_path.cuh"
#include "binamg/spmv/spmm_kernels.hpp"

namespace binamg::spmm_detail {
namespace {

// Threads: a group of L lanes per path segment; blockIdx.y is the pass over
// 64 columns of Y, lane l owning columns pass_base + l + r·L (as in row-split).
// The group walks its segment in path order: a row that ends inside the
// segment is written to Y (for a row begun in an earlier segment this is only
// the part after the boundary); the row left open at the segment's end is
// stored as carries[segment] with carry_rows[segment] = row, or -1 when no
// nonzero of an open row was consumed here. Each Y entry is written once here.
template <typename T, int L, int R, bool Exact>
__global__ void __launch_bounds__(SpmmPolicy::threads)
    merge_walk(index_t rows, index_t k, index_t segments, const PathPoint* __restrict__ boundaries,
               const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
               const T* __restrict__ values, const T* __restrict__ X, T* __restrict__ Y,
               T* __restrict__ carries, index_t* __restrict__ carry_rows) {
  wait_for_prior_kernel();
  const std::int64_t segment = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / L;
  if (segment >= segments) return;
  const int lane = threadIdx.x % L;
  const index_t first_column = blockIdx.y * SpmmPolicy::columns_per_pass + lane;
  const PathPoint stop = boundaries[segment + 1];
  index_t row = boundaries[segment].row;
  index_t nonzero = boundaries[segment].nonzero;

  T sum[R];
#pragma unroll
  for (int r = 0; r < R; ++r) sum[r] = T(0);
  bool open = false;  // a nonzero of `row` was consumed in this segment
  index_t row_end = row < rows ? row_ptr[row + 1] : 0;
  while (row < stop.row || nonzero < stop.nonzero) {
    if (nonzero < stop.nonzero && nonzero < row_end) {
      const T a = values[nonzero];
      const T* x = X + std::int64_t(col_idx[nonzero]) * k;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const index_t c = first_column + r * L;
        if (Exact || c < k) sum[r] += a * x[c];
      }
      ++nonzero;
      open = true;
    } else {
      T* y = Y + std::int64_t(row) * k;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const index_t c = first_column + r * L;
        if (Exact || c < k) y[c] = sum[r];
        sum[r] = T(0);
      }
      open = false;
      ++row;
      row_end = row < rows ? row_ptr[row + 1] : 0;
    }
  }
  if (lane == 0 && blockIdx.y == 0) carry_rows[segment] = open ? row : -1;
  if (open) {
    T* carry = carries + segment * k;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const index_t c = first_column + r * L;
      if (Exact || c < k) carry[c] = sum[r];
    }
  }
}

template <typename T, int L, int R, bool Exact>
void launch_merge(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, cudaStream_t stream) {
  MergePath<T> path(A, merge_segment_steps(A.rows, A.nnz()), k, stream);
  search_path<1>(A, path, stream);
  const dim3 grid(blocks_for(std::int64_t(path.segments) * L, SpmmPolicy::threads),
                  static_cast<unsigned>((k + SpmmPolicy::columns_per_pass - 1) /
                                        SpmmPolicy::columns_per_pass));
  launch_chained(merge_walk<T, L, R, Exact>, grid, SpmmPolicy::threads, 0, stream, A.rows, k,
                 path.segments, path.boundaries.data(), A.row_ptr.data(), A.col_idx.data(),
                 A.values.data(), X, Y, path.carries.data(), path.carry_rows.data());
  add_carries<T, L, R, Exact>(k, path.segments, path.carry_rows.data(), path.carries.data(), Y,
                              stream);
}

template <typename T, int L, int R>
void launch_merge(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, cudaStream_t stream) {
  if (k % (L * R) == 0 && (k <= L * R || k % SpmmPolicy::columns_per_pass == 0))
    launch_merge<T, L, R, true>(A, X, k, Y, stream);
  else
    launch_merge<T, L, R, false>(A, X, k, Y, stream);
}

}  // namespace

template <typename T>
void merge_based(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, cudaStream_t stream) {
  if (A.rows == 0) return;
  switch (lanes_for_columns(k)) {
    case 1: return merge_based_vector(A, X, Y, stream);
    case 2: return launch_merge<T, 2, 1>(A, X, k, Y, stream);
    case 4: return launch_merge<T, 4, 1>(A, X, k, Y, stream);
    case 8: return launch_merge<T, 8, 1>(A, X, k, Y, stream);
    case 16: return launch_merge<T, 16, 1>(A, X, k, Y, stream);
    default:
      if (k <= 32) return launch_merge<T, 32, 1>(A, X, k, Y, stream);
      return launch_merge<T, 32, 2>(A, X, k, Y, stream);
  }
}

template void merge_based<float>(const DeviceCsr<float>&, const float*, index_t, float*,
                                 cudaStream_t);
template void merge_based<double>(const DeviceCsr<double>&, const double*, index_t, double*,
                                  cudaStream_t);

}  // namespace binamg::spmm_detail

