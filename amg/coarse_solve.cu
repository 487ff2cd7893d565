// Coarsest-level solve of the GPU hierarchy: the dense inverse applied by one
// small kernel of binamg's own, so no library handle is created per hierarchy
// and the summation order is ours to fix.
#include <algorithm>
#include <cstdint>
#include <string>

#include "amg/coarse_solve.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.hpp"

namespace binamg {
namespace {

// Launch shape of apply_inverse. The coarsest matrix has a few hundred rows:
// a warp per row gives enough warps, and 8 right-hand sides per warp keep 8
// partial sums in registers while each A⁻¹ entry is loaded once per 8 columns.
constexpr int warp_size = 32;
constexpr int inverse_rows_per_block = 8;
constexpr int inverse_columns_per_warp = 8;
constexpr std::int64_t max_grid_y = 65535;

// One warp per row i of A⁻¹ (row-major n × n), `Columns` right-hand sides at a
// time, chunks strided over gridDim.y. Lane ℓ accumulates A⁻¹(i, l)·B(l, j) by
// fma over l ≡ ℓ (mod 32) in increasing l; a fixed xor-shuffle tree then adds
// the 32 partial sums. That order depends neither on k, Columns nor the grid,
// so column j of X has the bits of a one-vector solve of column j of B.
template <typename T, int Columns>
__global__ void apply_inverse(index_t n, const T* __restrict__ inverse, const T* __restrict__ B,
                              index_t k, T* __restrict__ X) {
  const index_t row = blockIdx.x * inverse_rows_per_block + threadIdx.x / warp_size;
  const int lane = threadIdx.x % warp_size;
  if (row >= n) return;  // a whole warp leaves together, so the shuffles stay full
  const T* inverse_row = inverse + std::size_t(row) * n;
  for (std::int64_t first = std::int64_t(blockIdx.y) * Columns; first < k;
       first += std::int64_t(gridDim.y) * Columns) {
    const int width = static_cast<int>(min(std::int64_t(Columns), k - first));
    T sum[Columns];
#pragma unroll
    for (int c = 0; c < Columns; ++c) sum[c] = T(0);
    for (index_t l = lane; l < n; l += warp_size) {
      const T entry = inverse_row[l];
      const T* b = B + std::size_t(l) * k + first;
#pragma unroll
      for (int c = 0; c < Columns; ++c)
        if (c < width) sum[c] = fma(entry, b[c], sum[c]);
    }
#pragma unroll
    for (int c = 0; c < Columns; ++c) {
      T total = sum[c];
      for (int offset = warp_size / 2; offset > 0; offset /= 2)
        total += __shfl_xor_sync(0xffffffffu, total, offset);
      if (lane == 0 && c < width) X[std::size_t(row) * k + first + c] = total;
    }
  }
}

// One warp per column j of A⁻¹ = U⁻¹L⁻¹P, in double: y = e_{permutation[j]} in
// shared memory, forward substitution with L, back substitution with U (rows of L
// and U are read contiguously by the lanes), then column j of the inverse rounded
// to T. Each dot product is summed by lane in increasing position and a fixed
// xor tree, so the bits repeat run to run. The forward substitution starts at
// the unit entry (y is zero above it) and its dots at the warp-aligned chunk
// that holds it: the skipped terms are exact zeros in every lane's sum.
template <typename T>
__global__ void inverse_from_factors(index_t n, const double* __restrict__ lower,
                                     const double* __restrict__ upper, bool unit_lower,
                                     const index_t* __restrict__ permutation,
                                     T* __restrict__ inverse) {
  extern __shared__ double y[];
  const index_t j = blockIdx.x;
  const int lane = threadIdx.x;
  for (index_t i = lane; i < n; i += warp_size) y[i] = i == permutation[j] ? 1.0 : 0.0;
  __syncwarp();
  auto row_dot = [&](const double* row, index_t begin, index_t end) {
    double sum = 0;
    for (index_t m = begin + lane; m < end; m += warp_size) sum = fma(row[m], y[m], sum);
    for (int offset = warp_size / 2; offset > 0; offset /= 2)
      sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    return sum;
  };
  const index_t unit = permutation[j];
  const index_t first_chunk = unit / warp_size * warp_size;
  for (index_t i = unit; i < n; ++i) {
    const double* row = lower + std::size_t(i) * n;
    const double sum = row_dot(row, first_chunk, i);
    if (lane == 0) y[i] = unit_lower ? y[i] - sum : (y[i] - sum) / row[i];
    __syncwarp();
  }
  for (index_t i = n - 1; i >= 0; --i) {
    const double* row = upper + std::size_t(i) * n;
    const double sum = row_dot(row, i + 1, n);
    if (lane == 0) y[i] = (y[i] - sum) / row[i];
    __syncwarp();
  }
  for (index_t i = lane; i < n; i += warp_size) inverse[std::size_t(i) * n + j] = T(y[i]);
}

bool ranges_overlap(const void* a, const void* b, std::size_t bytes) {
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + bytes && y < x + bytes;
}

}  // namespace

template <typename T>
struct DeviceCoarseSolver<T>::State {
  DeviceBuffer<T> inverse;  // row-major rows × rows
  std::string method;
};

template <typename T>
DeviceCoarseSolver<T>::DeviceCoarseSolver() = default;
template <typename T>
DeviceCoarseSolver<T>::~DeviceCoarseSolver() = default;
template <typename T>
DeviceCoarseSolver<T>::DeviceCoarseSolver(DeviceCoarseSolver&&) noexcept = default;
template <typename T>
DeviceCoarseSolver<T>& DeviceCoarseSolver<T>::operator=(DeviceCoarseSolver&&) noexcept = default;

template <typename T>
void DeviceCoarseSolver<T>::factor(const CsrMatrix<T>& A, cudaStream_t stream) {
  require(A.rows <= CoarseSolver<T>::dense_limit,
          "DeviceCoarseSolver: the coarsest matrix has " + std::to_string(A.rows) +
              " rows, more than the GPU coarse solve's dense limit " +
              std::to_string(CoarseSolver<T>::dense_limit) +
              "; coarsen further (raise max_levels, lower max_coarse_rows) or use the CPU");
  CoarseSolver<T> host;
  host.factor(A);  // validates, throws on a singular matrix
  const typename CoarseSolver<T>::DenseFactors factors = host.dense_factors();
  const index_t n = factors.n;
  auto state = std::make_unique<State>();
  state->inverse = DeviceBuffer<T>(std::size_t(n) * n, stream, "coarse inverse");
  {
    const DeviceBuffer<double> lower = to_device(factors.lower, stream);
    const DeviceBuffer<double> upper = to_device(factors.upper, stream);
    const DeviceBuffer<index_t> permutation = to_device(factors.permutation, stream);
    // y holds a column in shared memory: n ≤ dense_limit doubles, 32 KB at most.
    inverse_from_factors<T><<<n, warp_size, sizeof(double) * n, stream>>>(
        n, lower.data(), upper.data(), factors.unit_lower, permutation.data(),
        state->inverse.data());
    BINAMG_CHECK_LAUNCH();
  }
  state->method = "dense-inverse(" + host.method() + ")";
  state_ = std::move(state);
  rows_ = A.rows;
}

template <typename T>
void DeviceCoarseSolver<T>::solve(const T* b, T* x, cudaStream_t stream) const {
  solve(b, 1, x, stream);
}

template <typename T>
void DeviceCoarseSolver<T>::solve(const T* B, index_t k, T* X, cudaStream_t stream) const {
  require(state_ != nullptr, "DeviceCoarseSolver::solve: factor() has not been called");
  require(k >= 1, "DeviceCoarseSolver::solve: k = " + std::to_string(k) +
                      " right-hand sides; at least 1 is needed");
  const index_t entries =
      checked_index(std::int64_t(rows_) * k, "DeviceCoarseSolver::solve: rows × k");
  require(B != nullptr && X != nullptr, "DeviceCoarseSolver::solve: B and X must not be null");
  require(!ranges_overlap(B, X, std::size_t(entries) * sizeof(T)),
          "DeviceCoarseSolver::solve: B and X overlap; X = A⁻¹B reads all of B, so they "
          "must not alias");
  const std::int64_t chunks = (k + inverse_columns_per_warp - 1) / inverse_columns_per_warp;
  const dim3 grid(blocks_for(rows_, inverse_rows_per_block),
                  static_cast<unsigned>(std::min(chunks, max_grid_y)));
  const int threads = inverse_rows_per_block * warp_size;
  const T* inverse = state_->inverse.data();
  // k = 1 (every V-cycle) takes the one-column instance: the same arithmetic per
  // column, without the 7 idle partial sums.
  if (k == 1)
    apply_inverse<T, 1><<<grid, threads, 0, stream>>>(rows_, inverse, B, k, X);
  else
    apply_inverse<T, inverse_columns_per_warp><<<grid, threads, 0, stream>>>(rows_, inverse, B, k, X);
  BINAMG_CHECK_LAUNCH();
}

template <typename T>
std::string DeviceCoarseSolver<T>::method() const {
  return state_ ? state_->method : "none";
}

template class DeviceCoarseSolver<float>;
template class DeviceCoarseSolver<double>;

}  // namespace binamg
