// Coarsest-level solve of the GPU hierarchy: the dense inverse applied by one
// small kernel of binamg's own, so no library handle is created per hierarchy
// and the summation order is ours to fix.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "binamg/amg/coarse_solve.hpp"
#include "binamg/amg/dense_inverse.hpp"
#include "binamg/core/chained_launch.cuh"
#include "binamg/core/device_buffer.hpp"
#include "binamg/core/launch.hpp"

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
  wait_for_prior_kernel();
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

// Entry (row, column) of an n × n column-major factor.
__device__ inline double entry(const double* columns, index_t n, index_t row, index_t column) {
  return columns[std::size_t(column) * n + row];
}

// Σ_{m ∈ [begin, end)} factor(row, m)·y[m] in four partial sums (by m − begin mod
// 4) added in a fixed order: four chains of loads and fmas in flight, not one.
__device__ inline double row_times_solved(const double* columns, index_t n, index_t row,
                                          index_t begin, index_t end, const double* y) {
  double sum[4] = {0, 0, 0, 0};
  index_t m = begin;
#pragma unroll 2
  for (; m + 4 <= end; m += 4)
#pragma unroll
    for (int r = 0; r < 4; ++r) sum[r] = fma(entry(columns, n, row, m + r), y[m + r], sum[r]);
  for (int r = 0; m < end; ++m, ++r) sum[r] = fma(entry(columns, n, row, m), y[m], sum[r]);
  return (sum[0] + sum[1]) + (sum[2] + sum[3]);
}

// Lane t holds row first + t's right-hand side less its products with the rows
// already solved; solves the diagonal block [first, first + width) of the factor
// (rows in increasing order for a lower factor, decreasing for an upper one),
// each solved entry broadcast by a shuffle. The block's entries and the
// reciprocal of the diagonal are loaded first, so only a multiply, a shuffle and
// an fma chain from one row to the next.
template <bool Lower>
__device__ double solve_diagonal_block(const double* columns, index_t n, index_t first, int width,
                                       bool unit_diagonal, double value) {
  const int lane = threadIdx.x;
  const index_t row = first + lane;
  double block[warp_size];
#pragma unroll
  for (int c = 0; c < warp_size; ++c)
    block[c] = lane < width && c < width ? entry(columns, n, row, first + c) : 0.0;
  const double reciprocal =
      lane < width && !unit_diagonal ? 1.0 / entry(columns, n, row, row) : 1.0;
#pragma unroll
  for (int step = 0; step < warp_size; ++step) {
    const int c = Lower ? step : warp_size - 1 - step;
    if (c >= width) continue;  // the same for the whole warp
    if (lane == c) value *= reciprocal;
    const double solved = __shfl_sync(0xffffffffu, value, c);
    if (Lower ? lane > c : lane < c) value = fma(-block[c], solved, value);
  }
  return value;
}

// One warp per column j of A⁻¹ = U⁻¹L⁻¹P, in double, by blocked substitution:
// y = e_{permutation[j]} in shared memory; blocks of 32 rows, top down with L,
// then bottom up with U. Lane t owns row first + t of a block: it adds up the
// products of its row with the solved part of y (the warp reads whole columns of
// the column-major factors), then the block's diagonal part is solved. Every sum
// runs in a fixed order, so the bits repeat run to run. (A warp-wide dot product
// per row, 2n dependent reductions, measured slower; docs/experiments.md.) y is
// zero above the unit entry, so the forward pass starts at its block and its
// sums at the unit row.
template <typename T>
__global__ void inverse_from_factors(index_t n, const double* __restrict__ lower_columns,
                                     const double* __restrict__ upper_columns, bool unit_lower,
                                     const index_t* __restrict__ permutation,
                                     T* __restrict__ inverse) {
  extern __shared__ double y[];
  const index_t j = blockIdx.x;
  const int lane = threadIdx.x;
  const index_t unit = permutation[j];
  for (index_t i = lane; i < n; i += warp_size) y[i] = 0.0;
  __syncwarp();
  for (index_t first = unit / warp_size * warp_size; first < n; first += warp_size) {
    const index_t row = first + lane;
    const int width = static_cast<int>(min(index_t(warp_size), n - first));
    double value = 0;
    if (lane < width)
      value = (row == unit ? 1.0 : 0.0) - row_times_solved(lower_columns, n, row, unit, first, y);
    value = solve_diagonal_block<true>(lower_columns, n, first, width, unit_lower, value);
    if (lane < width) y[row] = value;
    __syncwarp();
  }
  for (index_t first = (n - 1) / warp_size * warp_size; first >= 0; first -= warp_size) {
    const index_t row = first + lane;
    const int width = static_cast<int>(min(index_t(warp_size), n - first));
    double value = 0;
    if (lane < width) value = y[row] - row_times_solved(upper_columns, n, row, first + width, n, y);
    value = solve_diagonal_block<false>(upper_columns, n, first, width, false, value);
    if (lane < width) y[row] = value;
    __syncwarp();
  }
  for (index_t i = lane; i < n; i += warp_size) inverse[std::size_t(i) * n + j] = T(y[i]);
}

// out[i·n + j] = in[j·n + i] for n × n arrays, through a shared tile so both
// sides are read and written in whole rows.
constexpr int transpose_tile = 32;
__global__ void transpose_square(index_t n, const double* __restrict__ in,
                                 double* __restrict__ out) {
  __shared__ double tile[transpose_tile][transpose_tile + 1];  // +1: no bank conflicts
  const index_t tile_row = blockIdx.y * transpose_tile, tile_column = blockIdx.x * transpose_tile;
  for (int y = threadIdx.y; y < transpose_tile; y += blockDim.y) {
    const index_t i = tile_row + threadIdx.x, j = tile_column + y;
    if (i < n && j < n) tile[y][threadIdx.x] = in[std::size_t(j) * n + i];
  }
  __syncthreads();
  for (int y = threadIdx.y; y < transpose_tile; y += blockDim.y) {
    const index_t i = tile_row + y, j = tile_column + threadIdx.x;
    if (i < n && j < n) out[std::size_t(i) * n + j] = tile[threadIdx.x][y];
  }
}

// inverse −= N·Nᵀ/scale on the row-major n × n inverse, N column-major n × d:
// B⁻¹ becomes A⁺ for a singular A (CoarseSolver::PackedFactors). One thread per entry.
template <typename T>
__global__ void subtract_null_part(index_t n, index_t d, const double* __restrict__ basis,
                                   double scale, T* __restrict__ inverse) {
  const std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= std::int64_t(n) * n) return;
  const index_t i = static_cast<index_t>(e / n), j = static_cast<index_t>(e % n);
  double outer = 0;
  for (index_t c = 0; c < d; ++c)
    outer = fma(basis[std::size_t(c) * n + i], basis[std::size_t(c) * n + j], outer);
  inverse[e] = static_cast<T>(double(inverse[e]) - outer / scale);
}

bool ranges_overlap(const void* a, const void* b, std::size_t bytes) {
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + bytes && y < x + bytes;
}

// The row-major inverse in T of P·A = L·U from its column-major factor
// `packed` on the device (CoarseSolver::PackedFactors: L's and LU's U are
// columns of it; LLT's U = Lᵀ has its columns in its rows, so that one takes a
// transposed copy: the substitutions read both factors by columns).
// `permutation` is on the device.
template <typename T>
DeviceBuffer<T> inverse_of_factors(index_t n, const double* packed, bool cholesky,
                                   const index_t* permutation, cudaStream_t stream) {
  const std::size_t entries = std::size_t(n) * n;
  DeviceBuffer<T> inverse(entries, stream, "coarse inverse");
  DeviceBuffer<double> transposed;
  const double* upper_columns = packed;
  if (cholesky) {
    transposed = DeviceBuffer<double>(entries, stream, "coarse factor, transposed");
    const unsigned tiles = blocks_for(n, transpose_tile);
    transpose_square<<<dim3(tiles, tiles), dim3(transpose_tile, 8), 0, stream>>>(n, packed,
                                                                                 transposed.data());
    BINAMG_CHECK_LAUNCH();
    upper_columns = transposed.data();
  }
  // y holds a column in shared memory: n ≤ dense_limit doubles, 32 KB at most.
  inverse_from_factors<T><<<n, warp_size, sizeof(double) * n, stream>>>(
      n, packed, upper_columns, !cholesky, permutation, inverse.data());
  BINAMG_CHECK_LAUNCH();
  return inverse;
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
void DeviceCoarseSolver<T>::factor(const CsrMatrix<T>& A, double scale, cudaStream_t stream) {
  require(A.rows <= CoarseSolver<T>::dense_limit,
          "DeviceCoarseSolver: the coarsest matrix has " + std::to_string(A.rows) +
              " rows, more than the GPU coarse solve's dense limit " +
              std::to_string(CoarseSolver<T>::dense_limit) +
              "; coarsen further (raise max_levels, lower max_coarse_rows) or use the CPU");
  CoarseSolver<T> host;
  host.factor(A, scale);  // validates; throws on a singular matrix it cannot pseudo-invert
  const typename CoarseSolver<T>::PackedFactors factors = host.packed_factors();
  const index_t n = factors.n;
  const std::size_t entries = std::size_t(n) * n;
  auto state = std::make_unique<State>();
  {
    // Eigen's column-major factor goes up as it is (repacking it on the host
    // measurably lengthened the setup).
    DeviceBuffer<double> packed(entries, stream, "coarse factor");
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(packed.data(), factors.packed, sizeof(double) * entries,
                                      cudaMemcpyHostToDevice, stream));
    const DeviceBuffer<index_t> permutation = to_device(factors.permutation, stream);
    state->inverse =
        inverse_of_factors<T>(n, packed.data(), factors.cholesky, permutation.data(), stream);
    if (factors.nullity > 0) {  // A⁺ = B⁻¹ − N·Nᵀ/s
      const std::size_t basis_entries = std::size_t(n) * factors.nullity;
      DeviceBuffer<double> basis(basis_entries, stream, "coarse null space basis");
      BINAMG_CUDA_CHECK(cudaMemcpyAsync(basis.data(), factors.null_basis,
                                        sizeof(double) * basis_entries, cudaMemcpyHostToDevice,
                                        stream));
      subtract_null_part<T><<<blocks_for(std::int64_t(entries), 256), 256, 0, stream>>>(
          n, factors.nullity, basis.data(), factors.null_scale, state->inverse.data());
      BINAMG_CHECK_LAUNCH();
    }
  }
  state->method = "dense-inverse(" + host.method() + ")";
  state_ = std::move(state);
  rows_ = A.rows;
  nullity_ = host.nullity();
}

template <typename T>
void DeviceCoarseSolver<T>::factor(const DeviceCsr<T>& A, double scale, cudaStream_t stream) {
  require_consistent(A, "DeviceCoarseSolver: the coarsest matrix");
  require(scale >= 0 && std::isfinite(scale),
          "coarse matrix: the scale " + std::to_string(scale) + " is not finite and >= 0");
  const index_t n = A.rows;
  if (n > 0 && n == A.cols && n <= CoarseSolver<T>::dense_limit) {
    // CoarseSolver's rank floor: ε_T·scale (CoarseSolver::factor).
    const double rank_floor = double(std::numeric_limits<T>::epsilon()) * scale;
    auto state = std::make_unique<State>();
    if (coarse_detail::dense_inverse(A, rank_floor, state->inverse, stream) ==
        coarse_detail::InverseOutcome::inverted) {
      state->method = "dense-inverse(sweep)";
      state_ = std::move(state);
      rows_ = n;
      nullity_ = 0;
      return;
    }
  }
  factor(to_host(A), scale, stream);  // the host's checks, eigenvalue test and messages
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
    launch_chained(apply_inverse<T, 1>, grid, threads, 0, stream, rows_, inverse, B, k, X);
  else
    launch_chained(apply_inverse<T, inverse_columns_per_warp>, grid, threads, 0, stream, rows_,
                   inverse, B, k, X);
}

template <typename T>
std::string DeviceCoarseSolver<T>::method() const {
  return state_ ? state_->method : "none";
}

template class DeviceCoarseSolver<float>;
template class DeviceCoarseSolver<double>;

}  // namespace binamg
