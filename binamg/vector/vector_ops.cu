#include <cub/block/block_reduce.cuh>

#include <cmath>

#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"
#include "binamg/vector/block_vector_ops.hpp"
#include "binamg/vector/safe_norms.hpp"
#include "binamg/vector/vector_ops.hpp"

namespace binamg {
namespace {

constexpr int reduce_threads = 256;
constexpr int max_reduce_blocks = 1024;  // partial sums, reduced by one block

/// Blocks for a length-n reduction: a function of n alone, so the summation
/// tree (and the bits of the result) never depend on timing.
int reduce_blocks(index_t n) {
  const int wanted = static_cast<int>(blocks_for(n, reduce_threads * 4));
  return wanted < 1 ? 1 : (wanted > max_reduce_blocks ? max_reduce_blocks : wanted);
}

// Block b sums entries b, b + stride, ... per thread (fixed order), then the
// block's threads in CUB's fixed tree; partial[b] holds the block's sum.
template <typename T>
__global__ void dot_partials(index_t n, const T* x, const T* y, T* partial) {
  using Reduce = cub::BlockReduce<T, reduce_threads>;
  __shared__ typename Reduce::TempStorage storage;
  T sum = T(0);
  const index_t stride = gridDim.x * blockDim.x;
  for (index_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) sum += x[i] * y[i];
  const T block_sum = Reduce(storage).Sum(sum);
  if (threadIdx.x == 0) partial[blockIdx.x] = block_sum;
}

// One block: sums the partials in a fixed order into result[0].
template <typename T>
__global__ void sum_partials(int count, const T* partial, T* result) {
  using Reduce = cub::BlockReduce<T, reduce_threads>;
  __shared__ typename Reduce::TempStorage storage;
  T sum = T(0);
  for (int i = threadIdx.x; i < count; i += reduce_threads) sum += partial[i];
  const T total = Reduce(storage).Sum(sum);
  if (threadIdx.x == 0) result[0] = total;
}

// One thread per entry.
template <typename T>
__global__ void axpy_kernel(index_t n, T alpha, const T* x, T* y) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += alpha * x[i];
}

template <typename T>
__global__ void xpby_kernel(index_t n, const T* x, T beta, T* y) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + beta * y[i];
}

// axpy_kernel twice and dot_partials on the new r in one pass: the same grid,
// per-thread order and block tree as dot_partials, so the partials are its bits.
template <typename T>
__global__ void cg_update_partials(index_t n, const T* rz, const T* pq, const T* p, const T* q,
                                   T* x, T* r, T* partial) {
  using Reduce = cub::BlockReduce<T, reduce_threads>;
  __shared__ typename Reduce::TempStorage storage;
  const T alpha = static_cast<T>(double(*rz) / double(*pq));
  const T minus_alpha = -alpha;
  T sum = T(0);
  const index_t stride = gridDim.x * blockDim.x;
  for (index_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    x[i] += alpha * p[i];
    T ri = r[i];
    ri += minus_alpha * q[i];
    r[i] = ri;
    sum += ri * ri;
  }
  const T block_sum = Reduce(storage).Sum(sum);
  if (threadIdx.x == 0) partial[blockIdx.x] = block_sum;
}

template <typename T>
__global__ void cg_direction_kernel(index_t n, const T* rz_next, const T* rz, const T* z, T* p) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const T beta = static_cast<T>(double(*rz_next) / double(*rz));
  if (i < n) p[i] = z[i] + beta * p[i];
}

template <typename T>
void require_same_length(const DeviceBuffer<T>& x, const DeviceBuffer<T>& y, const char* what) {
  require(x.size() == y.size(), std::string(what) + ": vectors differ in length");
  checked_index(static_cast<std::int64_t>(x.size()), std::string(what) + ": vector length");
}

}  // namespace

std::size_t reduction_scratch_size(index_t n) { return reduce_blocks(n); }

template <typename T>
void dot(const DeviceBuffer<T>& x, const DeviceBuffer<T>& y, T* result, DeviceBuffer<T>& scratch,
         cudaStream_t stream) {
  require_same_length(x, y, "dot");
  const index_t n = static_cast<index_t>(x.size());
  const int blocks = reduce_blocks(n);
  require(scratch.size() >= std::size_t(blocks), "dot: the reduction scratch is too small");
  dot_partials<<<blocks, reduce_threads, 0, stream>>>(n, x.data(), y.data(), scratch.data());
  BINAMG_CHECK_LAUNCH();
  sum_partials<<<1, reduce_threads, 0, stream>>>(blocks, scratch.data(), result);
  BINAMG_CHECK_LAUNCH();
}

template <typename T>
T dot(const DeviceBuffer<T>& x, const DeviceBuffer<T>& y, cudaStream_t stream) {
  const std::size_t blocks = reduction_scratch_size(static_cast<index_t>(x.size()));
  DeviceBuffer<T> partial(blocks + 1, stream, "dot partial sums");
  dot(x, y, partial.data() + blocks, partial, stream);
  return read_back(partial.data() + blocks, stream);
}

template <typename T>
void cg_update(const T* rz, const T* pq, const DeviceBuffer<T>& p, const DeviceBuffer<T>& q,
               DeviceBuffer<T>& x, DeviceBuffer<T>& r, T* rr, DeviceBuffer<T>& scratch,
               cudaStream_t stream) {
  require_same_length(p, q, "cg_update");
  require_same_length(p, x, "cg_update");
  require_same_length(p, r, "cg_update");
  const index_t n = static_cast<index_t>(p.size());
  const int blocks = reduce_blocks(n);
  require(scratch.size() >= std::size_t(blocks), "cg_update: the reduction scratch is too small");
  cg_update_partials<<<blocks, reduce_threads, 0, stream>>>(n, rz, pq, p.data(), q.data(),
                                                            x.data(), r.data(), scratch.data());
  BINAMG_CHECK_LAUNCH();
  sum_partials<<<1, reduce_threads, 0, stream>>>(blocks, scratch.data(), rr);
  BINAMG_CHECK_LAUNCH();
}

template <typename T>
void cg_direction(const T* rz_next, const T* rz, const DeviceBuffer<T>& z, DeviceBuffer<T>& p,
                  cudaStream_t stream) {
  require_same_length(z, p, "cg_direction");
  const index_t n = static_cast<index_t>(p.size());
  if (n == 0) return;
  cg_direction_kernel<<<blocks_for(n, reduce_threads), reduce_threads, 0, stream>>>(
      n, rz_next, rz, z.data(), p.data());
  BINAMG_CHECK_LAUNCH();
}

template <typename T>
T norm2(const DeviceBuffer<T>& x, cudaStream_t stream) {
  return static_cast<T>(vector_detail::column_norms_with<T>(
      1, [&] { return std::vector<T>{dot(x, x, stream)}; },
      [&] { return column_max_abs(x, 1, stream); },
      [&](const std::vector<int>& exponent) {
        const DeviceBuffer<T> scaled = scaled_copy(x, 1, exponent, stream);
        return std::vector<T>{dot(scaled, scaled, stream)};
      })[0]);
}

template <typename T>
void axpy(T alpha, const DeviceBuffer<T>& x, DeviceBuffer<T>& y, cudaStream_t stream) {
  require_same_length(x, y, "axpy");
  const index_t n = static_cast<index_t>(x.size());
  if (n == 0) return;
  axpy_kernel<<<blocks_for(n, reduce_threads), reduce_threads, 0, stream>>>(n, alpha, x.data(),
                                                                             y.data());
  BINAMG_CHECK_LAUNCH();
}

template <typename T>
void xpby(const DeviceBuffer<T>& x, T beta, DeviceBuffer<T>& y, cudaStream_t stream) {
  require_same_length(x, y, "xpby");
  const index_t n = static_cast<index_t>(x.size());
  if (n == 0) return;
  xpby_kernel<<<blocks_for(n, reduce_threads), reduce_threads, 0, stream>>>(n, x.data(), beta,
                                                                             y.data());
  BINAMG_CHECK_LAUNCH();
}

#define BINAMG_INSTANTIATE(T)                                                               \
  template T dot<T>(const DeviceBuffer<T>&, const DeviceBuffer<T>&, cudaStream_t);          \
  template void dot<T>(const DeviceBuffer<T>&, const DeviceBuffer<T>&, T*, DeviceBuffer<T>&, \
                       cudaStream_t);                                                      \
  template void cg_update<T>(const T*, const T*, const DeviceBuffer<T>&,                    \
                             const DeviceBuffer<T>&, DeviceBuffer<T>&, DeviceBuffer<T>&, T*,  \
                             DeviceBuffer<T>&, cudaStream_t);                               \
  template void cg_direction<T>(const T*, const T*, const DeviceBuffer<T>&, DeviceBuffer<T>&, \
                                cudaStream_t);                                              \
  template T norm2<T>(const DeviceBuffer<T>&, cudaStream_t);                                \
  template void axpy<T>(T, const DeviceBuffer<T>&, DeviceBuffer<T>&, cudaStream_t);         \
  template void xpby<T>(const DeviceBuffer<T>&, T, DeviceBuffer<T>&, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
