#include <cmath>
#include <limits>

#include "binamg/amg/dense_cholesky.hpp"
#include "binamg/core/cuda_check.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"
#include "binamg/sparse/symmetry.hpp"

namespace binamg::coarse_detail {
namespace {

constexpr int kPanel = 32;  // columns factored per step
constexpr int kCholeskyThreads = 1024;
constexpr int kFillThreads = 256;

// A thread per row: A's entries into the zeroed column-major `dense` (entry
// (i, j) at [j·n + i]) and |a_ii| into `diagonal`; flags columns out of range
// or not increasing, and entries that are not finite.
template <typename T>
__global__ void fill_dense(index_t n, const index_t* __restrict__ row_ptr,
                           const index_t* __restrict__ col_idx, const T* __restrict__ values,
                           double* __restrict__ dense, double* __restrict__ diagonal,
                           int* outcome) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  index_t previous = -1;
  for (index_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
    const index_t j = col_idx[k];
    if (j <= previous || j >= n) {
      atomicMax(outcome, int(CholeskyOutcome::malformed));
      return;
    }
    previous = j;
    const double value = double(values[k]);
    if (!isfinite(value)) atomicMax(outcome, int(CholeskyOutcome::not_finite));
    dense[std::size_t(j) * n + i] = value;
    if (j == i) diagonal[i] = fabs(value);
  }
}

// A thread per entry below the diagonal: find_asymmetry's test of the pair
// (i, j), (j, i), an absent entry being 0.
__global__ void check_symmetry(index_t n, const double* __restrict__ dense,
                               const double* __restrict__ diagonal, double tolerance,
                               int* outcome) {
  const std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= std::int64_t(n) * n) return;
  const index_t i = static_cast<index_t>(e % n), j = static_cast<index_t>(e / n);
  if (i <= j) return;
  const double value = dense[std::size_t(j) * n + i], transposed = dense[std::size_t(i) * n + j];
  // √|a_ii|·√|a_jj|: the product itself may overflow.
  const double scale = fabs(value) + fabs(transposed) + sqrt(diagonal[i]) * sqrt(diagonal[j]);
  if (fabs(value - transposed) > tolerance * scale)
    atomicMax(outcome, int(CholeskyOutcome::not_symmetric));
}

// Entry (i, j) of the column-major n × n array a.
__device__ inline double& at(double* a, index_t n, index_t i, index_t j) {
  return a[std::size_t(j) * n + i];
}

// Blocked right-looking Cholesky of the lower triangle of `a`, in one block,
// panel after panel of 32 columns: warp 0 factors the diagonal block in shared
// memory (lane = row); each thread then solves a row below it against the
// block (TRSM) into shared memory (`panel`) and `a`; then the lower triangle of the trailing matrix
// loses the panel's products, four entries of a row per thread. Each entry's sums run in a fixed
// order. Stops at the first pivot <= 0 or small (CholeskyOutcome).
__global__ void __launch_bounds__(kCholeskyThreads)
    blocked_cholesky(index_t n, double* __restrict__ a, const double* __restrict__ diagonal,
                     double root_epsilon, double pivot_floor, int* outcome) {
  extern __shared__ double shared[];
  auto block = reinterpret_cast<double(*)[kPanel + 1]>(shared);  // +1: no bank conflicts
  auto panel = block + kPanel;
  __shared__ int failed;
  if (*outcome != 0) return;  // the fill or the symmetry test already declined A
  const int t = threadIdx.x, lane = t % kPanel;
  for (index_t p = 0; p < n; p += kPanel) {
    const int w = static_cast<int>(min(index_t(kPanel), n - p));
    if (t < kPanel) {
      for (int c = 0; c < w; ++c)
        block[lane][c] = lane < w && c <= lane ? at(a, n, p + lane, p + c) : 0;
      __syncwarp();
      int bad = 0;  // the same in every lane: all read the pivot from shared memory
      for (int k = 0; k < w; ++k) {
        const double pivot = block[k][k];
        if (!(pivot > 0)) {  // Eigen's LLT fails here too (NaN included)
          bad = int(CholeskyOutcome::not_positive);
          break;
        }
        const double l = sqrt(pivot);
        if (l * l <= root_epsilon * diagonal[p + k] || l * l <= pivot_floor) {
          bad = int(CholeskyOutcome::small_pivot);
          break;
        }
        __syncwarp();  // every lane has read the pivot
        if (lane == k) block[k][k] = l;
        if (lane > k && lane < w) block[lane][k] /= l;
        __syncwarp();
        if (lane > k && lane < w)
          for (int j = k + 1; j <= lane; ++j)
            block[lane][j] = fma(-block[lane][k], block[j][k], block[lane][j]);
        __syncwarp();
      }
      if (lane == 0) failed = bad;
      if (!bad && lane < w)
        for (int c = 0; c <= lane; ++c) at(a, n, p + lane, p + c) = block[lane][c];
    }
    __syncthreads();
    if (failed) {
      if (t == 0) atomicMax(outcome, failed);
      return;
    }
    const index_t below = n - p - w;  // rows under the block (w == kPanel when any)
    if (below == 0) break;
    for (index_t r = t; r < below; r += blockDim.x) {
      const index_t i = p + kPanel + r;
      for (int c = 0; c < kPanel; ++c) {
        double value = at(a, n, i, p + c);
        for (int m = 0; m < c; ++m) value = fma(-panel[r][m], block[c][m], value);
        panel[r][c] = value / block[c][c];
        at(a, n, i, p + c) = panel[r][c];
      }
    }
    __syncthreads();
    // Entries (r, q..q+3) of the trailing lower triangle, r the fastest (a
    // warp writes consecutive rows of a column); quads wholly above the
    // diagonal are skipped.
    const index_t quads = (below + 3) / 4;
    for (std::int64_t e = t; e < std::int64_t(below) * quads; e += blockDim.x) {
      const index_t r = static_cast<index_t>(e % below), q = static_cast<index_t>(e / below) * 4;
      if (q > r) continue;
      double sum[4] = {0, 0, 0, 0};
      for (int c = 0; c < kPanel; ++c) {
        const double left = panel[r][c];
#pragma unroll
        for (int u = 0; u < 4; ++u) sum[u] = fma(left, panel[min(q + u, r)][c], sum[u]);
      }
      const index_t first = p + kPanel;
#pragma unroll
      for (int u = 0; u < 4; ++u)
        if (q + u <= r) at(a, n, first + r, first + q + u) -= sum[u];
    }
    __syncthreads();
  }
}

}  // namespace

template <typename T>
CholeskyOutcome dense_cholesky(const DeviceCsr<T>& A, double pivot_floor,
                               DeviceBuffer<double>& dense, cudaStream_t stream) {
  const index_t n = A.rows;
  require(A.rows == A.cols && n > 0 && n <= kDeviceCholeskyRows,
          "dense_cholesky: A must be square with 1.." + std::to_string(kDeviceCholeskyRows) +
              " rows, got " + std::to_string(A.rows) + " x " + std::to_string(A.cols));
  const std::size_t entries = std::size_t(n) * n;
  dense = DeviceBuffer<double>(entries, stream, "coarse factor");
  DeviceBuffer<double> diagonal(n, stream, "coarse diagonal");
  DeviceBuffer<int> outcome(1, stream, "coarse factor outcome");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(dense.data(), 0, sizeof(double) * entries, stream));
  BINAMG_CUDA_CHECK(cudaMemsetAsync(diagonal.data(), 0, sizeof(double) * n, stream));
  BINAMG_CUDA_CHECK(cudaMemsetAsync(outcome.data(), 0, sizeof(int), stream));
  fill_dense<<<blocks_for(n, kFillThreads), kFillThreads, 0, stream>>>(
      n, A.row_ptr.data(), A.col_idx.data(), A.values.data(), dense.data(), diagonal.data(),
      outcome.data());
  BINAMG_CHECK_LAUNCH();
  check_symmetry<<<blocks_for(std::int64_t(entries), kFillThreads), kFillThreads, 0, stream>>>(
      n, dense.data(), diagonal.data(), symmetry_tolerance<T>(), outcome.data());
  BINAMG_CHECK_LAUNCH();
  const int bytes = static_cast<int>(sizeof(double) * (kPanel + 1) * std::max(n, index_t(kPanel)));
  BINAMG_CUDA_CHECK(
      cudaFuncSetAttribute(blocked_cholesky, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  blocked_cholesky<<<1, kCholeskyThreads, bytes, stream>>>(
      n, dense.data(), diagonal.data(), std::sqrt(std::numeric_limits<double>::epsilon()),
      pivot_floor, outcome.data());
  BINAMG_CHECK_LAUNCH();
  return static_cast<CholeskyOutcome>(read_back(outcome.data(), stream));
}

template CholeskyOutcome dense_cholesky<float>(const DeviceCsr<float>&, double,
                                               DeviceBuffer<double>&, cudaStream_t);
template CholeskyOutcome dense_cholesky<double>(const DeviceCsr<double>&, double,
                                                DeviceBuffer<double>&, cudaStream_t);

}  // namespace binamg::coarse_detail
