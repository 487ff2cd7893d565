// GPU column-wise operations on row-major blocks for the block CG.
#include <algorithm>
#include <string>

#include "binamg/core/launch.hpp"
#include "binamg/spmv/block_row_split.cuh"
#include "binamg/spmv/column_partials.cuh"
#include "binamg/spmv/spmm_kernels.hpp"
#include "binamg/vector/block_vector_ops.hpp"

namespace binamg {
namespace {

constexpr int block_threads = 256;
constexpr int max_row_blocks = 1024;  // partial sums per column, reduced by one block each

// The reduction's shape, a function of (n, k) alone so that the summation tree
// (and the bits) never depend on timing: `lanes` threads cover consecutive columns
// of a row (so a warp reads whole rows contiguously), block_threads / lanes rows
// are in flight per block, blockIdx.y walks passes of `lanes` columns.
struct ReductionShape {
  int lanes, rows_per_step;
  dim3 grid;
};

ReductionShape reduction_shape(index_t n, index_t k) {
  ReductionShape shape;
  shape.lanes = spmm_detail::lanes_for_columns(k);
  shape.rows_per_step = block_threads / shape.lanes;
  const std::int64_t wanted = blocks_for(n, shape.rows_per_step * 4);
  shape.grid.x = static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>(wanted, max_row_blocks)));
  shape.grid.y = static_cast<unsigned>((k + shape.lanes - 1) / shape.lanes);
  return shape;
}

// The calling thread's column, and its first row and row stride.
struct ColumnWalk {
  index_t column;
  std::int64_t first_row, row_stride;
};

__device__ ColumnWalk column_walk(int lanes) {
  const int rows_per_step = blockDim.x / lanes;
  return {index_t(blockIdx.y * lanes + threadIdx.x % lanes),
          std::int64_t(blockIdx.x) * rows_per_step + threadIdx.x / lanes,
          std::int64_t(gridDim.x) * rows_per_step};
}

// Adds the per-thread sums of the block's threads of one column in a fixed tree
// (halving the rows in flight) and writes partial[blockIdx.x · k + column].
template <typename T>
__device__ void store_block_partial(T sum, int lanes, index_t k, T* partial) {
  __shared__ T shared[block_threads];
  shared[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = block_threads / 2; stride >= lanes; stride /= 2) {
    if (threadIdx.x < stride) shared[threadIdx.x] += shared[threadIdx.x + stride];
    __syncthreads();
  }
  const index_t column = blockIdx.y * lanes + threadIdx.x;
  if (threadIdx.x < lanes && column < k)
    partial[std::int64_t(blockIdx.x) * k + column] = shared[threadIdx.x];
}

template <typename T>
__global__ void column_dot_partials(index_t n, index_t k, int lanes, const T* X, const T* Y,
                                    T* partial) {
  const ColumnWalk walk = column_walk(lanes);
  T sum = T(0);
  if (walk.column < k)
    for (std::int64_t i = walk.first_row; i < n; i += walk.row_stride)
      sum += X[i * k + walk.column] * Y[i * k + walk.column];
  store_block_partial(sum, lanes, k, partial);
}

// α or β of column c, in the precision of the host-side iteration.
template <typename T>
__device__ T ratio(const T* numerator, const T* denominator, index_t c) {
  return static_cast<T>(double(numerator[c]) / double(denominator[c]));
}

template <typename T>
__global__ void block_cg_residual_partials(index_t n, index_t k, int lanes, const int* active,
                                           const T* rz, const T* pq, const T* Q, T* R,
                                           T* partial) {
  const ColumnWalk walk = column_walk(lanes);
  T sum = T(0);
  if (walk.column < k) {
    const index_t c = walk.column;
    const bool update = active[c] != 0;
    const T minus_alpha = update ? -ratio(rz, pq, c) : T(0);
    for (std::int64_t i = walk.first_row; i < n; i += walk.row_stride) {
      const std::int64_t e = i * k + c;
      T ri = R[e];
      if (update) {
        ri += minus_alpha * Q[e];
        R[e] = ri;
      }
      sum += ri * ri;
    }
  }
  store_block_partial(sum, lanes, k, partial);
}

// X += αP for the stepped columns, then P_next = Z + βP for the continuing ones
// (Z null: the step alone). P is read once for both; P_next may be P.
template <typename T>
__global__ void block_cg_step_kernel(index_t n, index_t k, int lanes, const int* stepped,
                                     const int* continuing, const T* rz_next, const T* rz,
                                     const T* pq, const T* Z, const T* P, T* P_next, T* X) {
  const ColumnWalk walk = column_walk(lanes);
  if (walk.column >= k) return;
  const index_t c = walk.column;
  const bool step = stepped[c] != 0, turn = Z != nullptr && continuing[c] != 0;
  if (!step && !turn) return;
  const T alpha = step ? ratio(rz, pq, c) : T(0);
  const T beta = turn ? ratio(rz_next, rz, c) : T(0);
  for (std::int64_t i = walk.first_row; i < n; i += walk.row_stride) {
    const std::int64_t e = i * k + c;
    const T pi = P[e];
    if (step) X[e] += alpha * pi;
    if (turn) P_next[e] = Z[e] + beta * pi;
  }
}

template <typename T>
index_t rows_of(const DeviceBuffer<T>& X, index_t k, const char* what) {
  require(k > 0, std::string(what) + ": the number of columns k must be positive");
  require(X.size() % std::size_t(k) == 0, std::string(what) + ": a block of " +
                                              std::to_string(X.size()) +
                                              " entries is not n x " + std::to_string(k));
  return checked_index(static_cast<std::int64_t>(X.size() / k), std::string(what) + ": rows");
}

template <typename T>
void require_same_size(const DeviceBuffer<T>& X, const DeviceBuffer<T>& Y, const char* what) {
  require(X.size() == Y.size(), std::string(what) + ": blocks differ in size");
}

// The shape of a reduction over the rows of X, its scratch checked.
template <typename T>
ReductionShape checked_reduction(const DeviceBuffer<T>& X, index_t k,
                                 const DeviceBuffer<T>& scratch, const char* what) {
  const ReductionShape shape = reduction_shape(rows_of(X, k, what), k);
  require(scratch.size() >= std::size_t(shape.grid.x) * k,
          std::string(what) + ": the reduction scratch is too small");
  return shape;
}

template <typename T>
void step(const int* stepped, const int* continuing, const T* rz_next, const T* rz, const T* pq,
          const T* Z, const DeviceBuffer<T>& P, T* P_next, DeviceBuffer<T>& X, index_t k,
          cudaStream_t stream, const char* what) {
  require_same_size(P, X, what);
  const ReductionShape shape = reduction_shape(rows_of(P, k, what), k);
  if (P.size() == 0) return;
  block_cg_step_kernel<<<shape.grid, block_threads, 0, stream>>>(
      index_t(P.size() / k), k, shape.lanes, stepped, continuing, rz_next, rz, pq, Z, P.data(),
      P_next, X.data());
  BINAMG_CHECK_LAUNCH();
}

}  // namespace

std::size_t block_reduction_scratch_size(index_t n, index_t k) {
  return std::max<std::size_t>(std::size_t(reduction_shape(n, k).grid.x) * k,
                               block_row_split::column_sums_scratch_size(n, k));
}

template <typename T>
void column_dots(const DeviceBuffer<T>& X, const DeviceBuffer<T>& Y, index_t k, T* result,
                 DeviceBuffer<T>& scratch, cudaStream_t stream) {
  require_same_size(X, Y, "column_dots");
  const ReductionShape shape = checked_reduction(X, k, scratch, "column_dots");
  column_dot_partials<<<shape.grid, block_threads, 0, stream>>>(
      index_t(X.size() / k), k, shape.lanes, X.data(), Y.data(), scratch.data());
  BINAMG_CHECK_LAUNCH();
  column_partials::sum(shape.grid.x, k, scratch.data(), result, stream);
}

template <typename T>
void block_cg_residual_update(const int* active, const T* rz, const T* pq,
                              const DeviceBuffer<T>& Q, DeviceBuffer<T>& R, T* rr, index_t k,
                              DeviceBuffer<T>& scratch, cudaStream_t stream) {
  require_same_size(Q, R, "block_cg_residual_update");
  const ReductionShape shape = checked_reduction(R, k, scratch, "block_cg_residual_update");
  block_cg_residual_partials<<<shape.grid, block_threads, 0, stream>>>(
      index_t(R.size() / k), k, shape.lanes, active, rz, pq, Q.data(), R.data(), scratch.data());
  BINAMG_CHECK_LAUNCH();
  column_partials::sum(shape.grid.x, k, scratch.data(), rr, stream);
}

template <typename T>
void block_cg_step_and_direction(const int* stepped, const int* continuing, const T* rz_next,
                                 const T* rz, const T* pq, const DeviceBuffer<T>& Z,
                                 DeviceBuffer<T>& P, DeviceBuffer<T>& X, index_t k,
                                 cudaStream_t stream) {
  require_same_size(Z, P, "block_cg_step_and_direction");
  step(stepped, continuing, rz_next, rz, pq, Z.data(), P, P.data(), X, k, stream,
       "block_cg_step_and_direction");
}

template <typename T>
void block_cg_step(const int* stepped, const T* rz, const T* pq, const DeviceBuffer<T>& P,
                   DeviceBuffer<T>& X, index_t k, cudaStream_t stream) {
  step<T>(stepped, nullptr, nullptr, rz, pq, nullptr, P, nullptr, X, k, stream,
          "block_cg_step");
}

#define BINAMG_INSTANTIATE(T)                                                                   \
  template void column_dots<T>(const DeviceBuffer<T>&, const DeviceBuffer<T>&, index_t, T*,     \
                               DeviceBuffer<T>&, cudaStream_t);                                 \
  template void block_cg_residual_update<T>(const int*, const T*, const T*,                     \
                                            const DeviceBuffer<T>&, DeviceBuffer<T>&, T*,       \
                                            index_t, DeviceBuffer<T>&, cudaStream_t);           \
  template void block_cg_step_and_direction<T>(const int*, const int*, const T*, const T*,      \
                                               const T*, const DeviceBuffer<T>&,                \
                                               DeviceBuffer<T>&, DeviceBuffer<T>&, index_t,     \
                                               cudaStream_t);                                   \
  template void block_cg_step<T>(const int*, const T*, const T*, const DeviceBuffer<T>&,        \
                                 DeviceBuffer<T>&, index_t, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
