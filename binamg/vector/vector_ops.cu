#include <cub/block/block_reduce.cuh>

#include <cmath>

#include "binamg/core/chained_launch.cuh"
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

// Block b sums term(i) for i = b, b + stride, ... per thread (fixed order), then
// the block's threads in CUB's fixed tree; partial[b] holds the block's sum. A
// term may also store entries of its own index (the fused CG steps), so every
// reduction of one length has dot's tree and bits.
template <typename T, typename Term>
__global__ void reduce_partials(index_t n, Term term, T* partial) {
  wait_for_prior_kernel();
  using Reduce = cub::BlockReduce<T, reduce_threads>;
  __shared__ typename Reduce::TempStorage storage;
  T sum = T(0);
  const index_t stride = gridDim.x * blockDim.x;
  for (index_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) sum += term(i);
  const T block_sum = Reduce(storage).Sum(sum);
  if (threadIdx.x == 0) partial[blockIdx.x] = block_sum;
}

// One block: sums the partials in a fixed order and hands the total to store.
template <typename T, typename Store>
__global__ void sum_partials(int count, const T* partial, Store store) {
  wait_for_prior_kernel();
  using Reduce = cub::BlockReduce<T, reduce_threads>;
  __shared__ typename Reduce::TempStorage storage;
  T sum = T(0);
  for (int i = threadIdx.x; i < count; i += reduce_threads) sum += partial[i];
  const T total = Reduce(storage).Sum(sum);
  if (threadIdx.x == 0) store(total);
}

template <typename T>
struct StoreSum {
  T* result;
  __device__ void operator()(T total) const { result[0] = total; }
};

// store(Σ term(i) over i < n): reduce_partials, then sum_partials.
template <typename T, typename Term, typename Store>
void reduce_into(index_t n, const Term& term, const Store& store, DeviceBuffer<T>& scratch,
                 const char* who, cudaStream_t stream) {
  const int blocks = reduce_blocks(n);
  require(scratch.size() >= std::size_t(blocks),
          std::string(who) + ": the reduction scratch is too small");
  launch_chained(reduce_partials<T, Term>, blocks, reduce_threads, 0, stream, n, term,
                 scratch.data());
  launch_chained(sum_partials<T, Store>, 1, reduce_threads, 0, stream, blocks, scratch.data(),
                 store);
}

// *result = Σ term(i) over i < n.
template <typename T, typename Term>
void reduce(index_t n, const Term& term, T* result, DeviceBuffer<T>& scratch, const char* who,
            cudaStream_t stream) {
  reduce_into(n, term, StoreSum<T>{result}, scratch, who, stream);
}

template <typename T>
struct DotTerm {
  const T* __restrict__ x;
  const T* __restrict__ y;
  __device__ T operator()(index_t i) const { return x[i] * y[i]; }
};

// r −= alpha·q, the term rᵀr of the new r (axpy_kernel's expression).
template <typename T>
struct ResidualUpdateTerm {
  const T* __restrict__ rz;
  const T* __restrict__ pq;
  const T* __restrict__ q;
  T* __restrict__ r;
  __device__ T operator()(index_t i) const {
    const T minus_alpha = -static_cast<T>(double(*rz) / double(*pq));
    T ri = r[i];
    ri += minus_alpha * q[i];
    r[i] = ri;
    return ri * ri;
  }
};

// z = double(z_float), the term rᵀz.
struct WidenTerm {
  const float* __restrict__ z_float;
  double* __restrict__ z;
  const double* __restrict__ r;
  __device__ double operator()(index_t i) const {
    const double zi = z_float[i];
    z[i] = zi;
    return r[i] * zi;
  }
};

// One thread per entry.
template <typename T>
__global__ void axpy_kernel(index_t n, T alpha, const T* x, T* y) {
  wait_for_prior_kernel();
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += alpha * x[i];
}

template <typename T>
__global__ void xpby_kernel(index_t n, const T* x, T beta, T* y) {
  wait_for_prior_kernel();
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + beta * y[i];
}

// x += alpha·p with alpha = rz / pq, then (with z) p_next = z + beta·p with
// beta = rz_next / rz: axpy_kernel's and xpby_kernel's expressions. p_next is p
// itself or null (no z): each entry is read before it is written.
template <typename T>
__global__ void cg_step_kernel(index_t n, const T* rz_next, const T* rz, const T* pq, const T* z,
                               const T* p, T* p_next, T* x) {
  wait_for_prior_kernel();
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const T alpha = static_cast<T>(double(*rz) / double(*pq));
  const T pi = p[i];
  x[i] += alpha * pi;
  if (z) p_next[i] = z[i] + static_cast<T>(double(*rz_next) / double(*rz)) * pi;
}

template <typename T>
void cg_step(index_t n, const T* rz_next, const T* rz, const T* pq, const T* z, const T* p,
             T* p_next, T* x, cudaStream_t stream) {
  if (n == 0) return;
  launch_chained(cg_step_kernel<T>, blocks_for(n, reduce_threads), reduce_threads, 0, stream, n,
                 rz_next, rz, pq, z, p, p_next, x);
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
  reduce(static_cast<index_t>(x.size()), DotTerm<T>{x.data(), y.data()}, result, scratch, "dot",
         stream);
}

template <typename T>
T dot(const DeviceBuffer<T>& x, const DeviceBuffer<T>& y, cudaStream_t stream) {
  const std::size_t blocks = reduction_scratch_size(static_cast<index_t>(x.size()));
  DeviceBuffer<T> partial(blocks + 1, stream, "dot partial sums");
  dot(x, y, partial.data() + blocks, partial, stream);
  return read_back(partial.data() + blocks, stream);
}

template <typename T>
void cg_residual_update(const T* rz, const T* pq, const DeviceBuffer<T>& q, DeviceBuffer<T>& r,
                        T* rr, DeviceBuffer<T>& scratch, cudaStream_t stream) {
  require_same_length(q, r, "cg_residual_update");
  reduce(static_cast<index_t>(r.size()), ResidualUpdateTerm<T>{rz, pq, q.data(), r.data()}, rr,
         scratch, "cg_residual_update", stream);
}

template <typename T>
void cg_direction(const T* rz_next, const T* rz, const T* pq, const DeviceBuffer<T>& z,
                  DeviceBuffer<T>& p, DeviceBuffer<T>& x, cudaStream_t stream) {
  require_same_length(z, p, "cg_direction");
  require_same_length(p, x, "cg_direction");
  cg_step(static_cast<index_t>(p.size()), rz_next, rz, pq, z.data(), p.data(), p.data(), x.data(),
          stream);
}

template <typename T>
void cg_last_step(const T* rz, const T* pq, const DeviceBuffer<T>& p, DeviceBuffer<T>& x,
                  cudaStream_t stream) {
  require_same_length(p, x, "cg_last_step");
  cg_step<T>(static_cast<index_t>(p.size()), nullptr, rz, pq, nullptr, p.data(), nullptr, x.data(),
             stream);
}

void widen_with_dot(const DeviceBuffer<float>& z_float, DeviceBuffer<double>& z,
                    const DeviceBuffer<double>& r, double* rz, DeviceBuffer<double>& scratch,
                    cudaStream_t stream) {
  require(z_float.size() == z.size(), "widen_with_dot: vectors differ in length");
  require_same_length(z, r, "widen_with_dot");
  reduce(static_cast<index_t>(z.size()), WidenTerm{z_float.data(), z.data(), r.data()}, rz, scratch,
         "widen_with_dot", stream);
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
  launch_chained(axpy_kernel<T>, blocks_for(n, reduce_threads), reduce_threads, 0, stream, n, alpha,
                 x.data(), y.data());
}

template <typename T>
void xpby(const DeviceBuffer<T>& x, T beta, DeviceBuffer<T>& y, cudaStream_t stream) {
  require_same_length(x, y, "xpby");
  const index_t n = static_cast<index_t>(x.size());
  if (n == 0) return;
  launch_chained(xpby_kernel<T>, blocks_for(n, reduce_threads), reduce_threads, 0, stream, n,
                 x.data(), beta, y.data());
}

#define BINAMG_INSTANTIATE(T)                                                                 \
  template T dot<T>(const DeviceBuffer<T>&, const DeviceBuffer<T>&, cudaStream_t);            \
  template void dot<T>(const DeviceBuffer<T>&, const DeviceBuffer<T>&, T*, DeviceBuffer<T>&,  \
                       cudaStream_t);                                                         \
  template void cg_residual_update<T>(const T*, const T*, const DeviceBuffer<T>&,             \
                                      DeviceBuffer<T>&, T*, DeviceBuffer<T>&, cudaStream_t);  \
  template void cg_direction<T>(const T*, const T*, const T*, const DeviceBuffer<T>&,         \
                                DeviceBuffer<T>&, DeviceBuffer<T>&, cudaStream_t);            \
  template void cg_last_step<T>(const T*, const T*, const DeviceBuffer<T>&, DeviceBuffer<T>&, \
                                cudaStream_t);                                                \
  template T norm2<T>(const DeviceBuffer<T>&, cudaStream_t);                                  \
  template void axpy<T>(T, const DeviceBuffer<T>&, DeviceBuffer<T>&, cudaStream_t);           \
  template void xpby<T>(const DeviceBuffer<T>&, T, DeviceBuffer<T>&, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
