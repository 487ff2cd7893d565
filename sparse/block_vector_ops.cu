// GPU column-wise operations on row-major blocks for the block CG.
#include <cub/block/block_reduce.cuh>

#include <string>

#include "core/launch.hpp"
#include "sparse/block_vector_ops.hpp"
#include "sparse/spmm_kernels.hpp"

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

template <typename T>
__global__ void block_cg_update_partials(index_t n, index_t k, int lanes, const int* active,
                                         const T* rz, const T* pq, const T* P, const T* Q, T* X,
                                         T* R, T* partial) {
  const ColumnWalk walk = column_walk(lanes);
  T sum = T(0);
  if (walk.column < k) {
    const index_t c = walk.column;
    const bool update = active[c] != 0;
    const T alpha = update ? static_cast<T>(double(rz[c]) / double(pq[c])) : T(0);
    const T minus_alpha = -alpha;
    for (std::int64_t i = walk.first_row; i < n; i += walk.row_stride) {
      const std::int64_t e = i * k + c;
      T ri = R[e];
      if (update) {
        X[e] += alpha * P[e];
        ri += minus_alpha * Q[e];
        R[e] = ri;
      }
      sum += ri * ri;
    }
  }
  store_block_partial(sum, lanes, k, partial);
}

// One block per column: the column's partials summed in a fixed order.
template <typename T>
__global__ void sum_column_partials(int row_blocks, index_t k, const T* partial, T* result) {
  using Reduce = cub::BlockReduce<T, block_threads>;
  __shared__ typename Reduce::TempStorage storage;
  const index_t column = blockIdx.x;
  T sum = T(0);
  for (int b = threadIdx.x; b < row_blocks; b += block_threads)
    sum += partial[std::int64_t(b) * k + column];
  const T total = Reduce(storage).Sum(sum);
  if (threadIdx.x == 0) result[column] = total;
}

template <typename T>
__global__ void block_cg_direction_kernel(std::int64_t entries, index_t k, const int* active,
                                          const T* rz_next, const T* rz, const T* Z, T* P) {
  const std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= entries) return;
  const index_t c = static_cast<index_t>(e % k);
  if (!active[c]) return;
  const T beta = static_cast<T>(double(rz_next[c]) / double(rz[c]));
  P[e] = Z[e] + beta * P[e];
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

template <typename T>
void sum_partials(const ReductionShape& shape, index_t k, const DeviceBuffer<T>& scratch,
                  T* result, cudaStream_t stream) {
  sum_column_partials<<<static_cast<unsigned>(k), block_threads, 0, stream>>>(
      static_cast<int>(shape.grid.x), k, scratch.data(), result);
  BINAMG_CHECK_LAUNCH();
}

}  // namespace

std::size_t block_reduction_scratch_size(index_t n, index_t k) {
  return std::size_t(reduction_shape(n, k).grid.x) * k;
}

template <typename T>
void column_dots(const DeviceBuffer<T>& X, const DeviceBuffer<T>& Y, index_t k, T* result,
                 DeviceBuffer<T>& scratch, cudaStream_t stream) {
  require_same_size(X, Y, "column_dots");
  const index_t n = rows_of(X, k, "column_dots");
  const ReductionShape shape = reduction_shape(n, k);
  require(scratch.size() >= block_reduction_scratch_size(n, k),
          "column_dots: the reduction scratch is too small");
  column_dot_partials<<<shape.grid, block_threads, 0, stream>>>(n, k, shape.lanes, X.data(),
                                                                Y.data(), scratch.data());
  BINAMG_CHECK_LAUNCH();
  sum_partials(shape, k, scratch, result, stream);
}

template <typename T>
void block_cg_update(const int* active, const T* rz, const T* pq, const DeviceBuffer<T>& P,
                     const DeviceBuffer<T>& Q, DeviceBuffer<T>& X, DeviceBuffer<T>& R, T* rr,
                     index_t k, DeviceBuffer<T>& scratch, cudaStream_t stream) {
  require_same_size(P, Q, "block_cg_update");
  require_same_size(P, X, "block_cg_update");
  require_same_size(P, R, "block_cg_update");
  const index_t n = rows_of(P, k, "block_cg_update");
  const ReductionShape shape = reduction_shape(n, k);
  require(scratch.size() >= block_reduction_scratch_size(n, k),
          "block_cg_update: the reduction scratch is too small");
  block_cg_update_partials<<<shape.grid, block_threads, 0, stream>>>(
      n, k, shape.lanes, active, rz, pq, P.data(), Q.data(), X.data(), R.data(), scratch.data());
  BINAMG_CHECK_LAUNCH();
  sum_partials(shape, k, scratch, rr, stream);
}

template <typename T>
void block_cg_direction(const int* active, const T* rz_next, const T* rz,
                        const DeviceBuffer<T>& Z, DeviceBuffer<T>& P, index_t k,
                        cudaStream_t stream) {
  require_same_size(Z, P, "block_cg_direction");
  rows_of(P, k, "block_cg_direction");
  const std::int64_t entries = static_cast<std::int64_t>(P.size());
  if (entries == 0) return;
  block_cg_direction_kernel<<<blocks_for(entries, block_threads), block_threads, 0, stream>>>(
      entries, k, active, rz_next, rz, Z.data(), P.data());
  BINAMG_CHECK_LAUNCH();
}

#define BINAMG_INSTANTIATE(T)                                                                  \
  template void column_dots<T>(const DeviceBuffer<T>&, const DeviceBuffer<T>&, index_t, T*,    \
                               DeviceBuffer<T>&, cudaStream_t);                                \
  template void block_cg_update<T>(const int*, const T*, const T*, const DeviceBuffer<T>&,     \
                                   const DeviceBuffer<T>&, DeviceBuffer<T>&, DeviceBuffer<T>&, \
                                   T*, index_t, DeviceBuffer<T>&, cudaStream_t);               \
  template void block_cg_direction<T>(const int*, const T*, const T*, const DeviceBuffer<T>&,  \
                                      DeviceBuffer<T>&, index_t, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
