// GPU column-wise operations on row-major blocks for the block CG.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

#include "binamg/core/chained_launch.cuh"
#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"
#include "binamg/spmv/block_row_split.cuh"
#include "binamg/spmv/column_partials.cuh"
#include "binamg/spmv/spmm_kernels.hpp"
#include "binamg/vector/block_vector_ops.hpp"
#include "binamg/vector/safe_norms.hpp"

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
  wait_for_prior_kernel();
  const ColumnWalk walk = column_walk(lanes);
  T sum = T(0);
  if (walk.column < k)
    for (std::int64_t i = walk.first_row; i < n; i += walk.row_stride)
      sum += X[i * k + walk.column] * Y[i * k + walk.column];
  store_block_partial(sum, lanes, k, partial);
}

// Bits of |x| ordered as unsigned integers: for non-negative floating-point
// values (NaN included, above ∞) the integer order is the value order, so an
// atomic max on them is exact and independent of the order of arrival.
template <typename T>
using BitsOf = std::conditional_t<sizeof(T) == 8, unsigned long long, unsigned int>;

__device__ inline unsigned long long abs_bits(double x) {
  return static_cast<unsigned long long>(__double_as_longlong(fabs(x)));
}
__device__ inline unsigned int abs_bits(float x) { return __float_as_uint(fabsf(x)); }

// Columns whose maxima a block gathers in shared memory before raising the
// global ones (an atomic per entry to one address serialises: 12.5 ms for a
// 16.7 M-entry column on an H200, against a read of 0.05 ms).
constexpr index_t max_shared_columns = 2048;
constexpr int max_abs_blocks = 1024;

// Thread t walks entries t, t + stride, ... with stride a multiple of k, so all
// its entries lie in column t mod k and it keeps their maximum in a register;
// the block's threads then meet per column in shared memory (for k up to
// max_shared_columns, else in global memory), and each block raises each
// column's maximum once.
template <typename T>
__global__ void column_max_abs_kernel(std::int64_t entries, index_t k, std::int64_t stride,
                                      const T* X, BitsOf<T>* largest) {
  extern __shared__ unsigned char shared_bytes[];
  const bool in_shared = k <= max_shared_columns;
  BitsOf<T>* block_largest = in_shared ? reinterpret_cast<BitsOf<T>*>(shared_bytes) : largest;
  if (in_shared)
    for (index_t c = threadIdx.x; c < k; c += blockDim.x) block_largest[c] = 0;
  __syncthreads();
  const std::int64_t first = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (first < stride && first < entries) {
    BitsOf<T> mine = 0;
    for (std::int64_t e = first; e < entries; e += stride) mine = max(mine, abs_bits(X[e]));
    atomicMax(&block_largest[first % k], mine);
  }
  if (!in_shared) return;
  __syncthreads();
  for (index_t c = threadIdx.x; c < k; c += blockDim.x)
    if (block_largest[c] != 0) atomicMax(&largest[c], block_largest[c]);
}

template <typename T>
__global__ void scale_columns_kernel(std::int64_t entries, index_t k, const int* exponents,
                                     T* X) {
  const std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < entries) X[e] = scalbn(X[e], exponents[e % k]);
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
  wait_for_prior_kernel();
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
  wait_for_prior_kernel();
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
  launch_chained(block_cg_step_kernel<T>, shape.grid, block_threads, 0, stream,
                 index_t(P.size() / k), k, shape.lanes, stepped, continuing, rz_next, rz, pq, Z,
                 P.data(), P_next, X.data());
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
  launch_chained(column_dot_partials<T>, shape.grid, block_threads, 0, stream,
                 index_t(X.size() / k), k, shape.lanes, X.data(), Y.data(), scratch.data());
  column_partials::sum(shape.grid.x, k, scratch.data(), result, stream);
}

template <typename T>
std::vector<T> column_max_abs(const DeviceBuffer<T>& X, index_t k, cudaStream_t stream) {
  rows_of(X, k, "column_max_abs");
  DeviceBuffer<BitsOf<T>> bits(k, stream, "column_max_abs result");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(bits.data(), 0, sizeof(BitsOf<T>) * k, stream));
  const std::int64_t entries = static_cast<std::int64_t>(X.size());
  if (entries > 0) {
    // Enough threads for every column; a stride of whole rows.
    const std::int64_t blocks = std::max<std::int64_t>(
        std::min<std::int64_t>(blocks_for(entries, block_threads), max_abs_blocks),
        (std::int64_t(k) + block_threads - 1) / block_threads);
    const std::int64_t stride = blocks * block_threads / k * k;
    const std::size_t shared = k <= max_shared_columns ? sizeof(BitsOf<T>) * k : 0;
    column_max_abs_kernel<<<static_cast<unsigned>(blocks), block_threads, shared, stream>>>(
        entries, k, stride, X.data(), bits.data());
    BINAMG_CHECK_LAUNCH();
  }
  std::vector<BitsOf<T>> host_bits(k);
  read_back(host_bits.data(), bits.data(), sizeof(BitsOf<T>) * k, stream);
  std::vector<T> largest(k);
  for (index_t j = 0; j < k; ++j) std::memcpy(&largest[j], &host_bits[j], sizeof(T));
  return largest;
}

template <typename T>
void scale_columns(DeviceBuffer<T>& X, index_t k, const std::vector<int>& exponents,
                   cudaStream_t stream) {
  rows_of(X, k, "scale_columns");
  require(exponents.size() == std::size_t(k), "scale_columns: exponents must have k entries");
  const std::int64_t entries = static_cast<std::int64_t>(X.size());
  if (entries == 0) return;
  DeviceBuffer<int> device_exponents = to_device(exponents, stream);
  scale_columns_kernel<<<blocks_for(entries, block_threads), block_threads, 0, stream>>>(
      entries, k, device_exponents.data(), X.data());
  BINAMG_CHECK_LAUNCH();
  // `exponents` is pageable host memory: the upload has completed when
  // cudaMemcpyAsync returns, and the buffer is freed in stream order.
}

template <typename T>
DeviceBuffer<T> scaled_copy(const DeviceBuffer<T>& X, index_t k, const std::vector<int>& exponents,
                            cudaStream_t stream) {
  DeviceBuffer<T> scaled(X.size(), stream, "scaled copy");
  if (X.size() > 0)
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(scaled.data(), X.data(), sizeof(T) * X.size(),
                                      cudaMemcpyDeviceToDevice, stream));
  scale_columns(scaled, k, exponents, stream);
  return scaled;
}

template <typename T>
std::vector<double> column_norms(const DeviceBuffer<T>& X, index_t k, cudaStream_t stream) {
  const index_t n = rows_of(X, k, "column_norms");
  DeviceBuffer<T> scratch(block_reduction_scratch_size(n, k) + k, stream, "column_norms scratch");
  T* const result = scratch.data() + scratch.size() - k;
  auto dots = [&](const DeviceBuffer<T>& Y) {
    column_dots(Y, Y, k, result, scratch, stream);
    std::vector<T> host(k);
    read_back(host.data(), result, sizeof(T) * k, stream);
    return host;
  };
  return vector_detail::column_norms_with<T>(
      k, [&] { return dots(X); }, [&] { return column_max_abs(X, k, stream); },
      [&](const std::vector<int>& exponents) {
        return dots(scaled_copy(X, k, exponents, stream));
      });
}

template <typename T>
void block_cg_residual_update(const int* active, const T* rz, const T* pq,
                              const DeviceBuffer<T>& Q, DeviceBuffer<T>& R, T* rr, index_t k,
                              DeviceBuffer<T>& scratch, cudaStream_t stream) {
  require_same_size(Q, R, "block_cg_residual_update");
  const ReductionShape shape = checked_reduction(R, k, scratch, "block_cg_residual_update");
  launch_chained(block_cg_residual_partials<T>, shape.grid, block_threads, 0, stream,
                 index_t(R.size() / k), k, shape.lanes, active, rz, pq, Q.data(), R.data(),
                 scratch.data());
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
  template std::vector<double> column_norms<T>(const DeviceBuffer<T>&, index_t, cudaStream_t);  \
  template std::vector<T> column_max_abs<T>(const DeviceBuffer<T>&, index_t, cudaStream_t);     \
  template void scale_columns<T>(DeviceBuffer<T>&, index_t, const std::vector<int>&,            \
                                 cudaStream_t);                                                 \
  template DeviceBuffer<T> scaled_copy<T>(const DeviceBuffer<T>&, index_t,                      \
                                          const std::vector<int>&, cudaStream_t);               \
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
