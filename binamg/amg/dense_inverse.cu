#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "binamg/amg/dense_inverse.hpp"
#include "binamg/core/cuda_check.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/lower_bound.cuh"
#include "binamg/core/read_back.hpp"
#include "binamg/sparse/symmetry.hpp"

namespace binamg::coarse_detail {
namespace {

// Pivots swept per launch, and the side of a tile; a block of 256 threads
// per tile, four entries of it a thread (rows t mod 32, columns t/32 + 8q).
constexpr int kBlock = 32;
constexpr int kTileEntries = kBlock * kBlock;
constexpr int kStepThreads = 256;
constexpr int kEntriesPerThread = kTileEntries / kStepThreads;
constexpr int kFillThreads = 256;

// What the kernels found, read back once: the first reason to decline A (an
// InverseOutcome), whether a pivot was small, and the ∞-norms of A and of the
// inverse (the bits of nonnegative doubles, which order as the doubles do).
struct InverseStatus {
  int outcome;
  int small_pivot;
  unsigned long long matrix_norm;
  unsigned long long inverse_norm;
};

// The matrix is kept column-major N × N in double (entry (i, j) at [j·N + i]),
// N = n rounded up to whole tiles; the rows past n are the identity's, so every
// tile is whole and A⁻¹ is the leading n × n block of the padded inverse.

// A thread per entry of A: its value into the zeroed `dense`, and |a_ii| into
// `diagonal`; then a thread per row past n: the identity's 1. Flags columns
// out of range or not increasing, and entries that are not finite.
template <typename T>
__global__ void fill_dense(index_t n, index_t N, index_t entries,
                           const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
                           const T* __restrict__ values, double* __restrict__ dense,
                           double* __restrict__ diagonal, InverseStatus* status) {
  const index_t e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= entries) {
    const index_t i = n + (e - entries);
    if (i < N) dense[std::size_t(i) * N + i] = diagonal[i] = 1.0;
    return;
  }
  const index_t i = last_at_or_below(row_ptr, index_t(0), n - 1, e), j = col_idx[e];
  if (j < 0 || j >= n || (e > row_ptr[i] && col_idx[e - 1] >= j)) {
    atomicMax(&status->outcome, int(InverseOutcome::malformed));
    return;
  }
  const double value = double(values[e]);
  if (!isfinite(value)) atomicMax(&status->outcome, int(InverseOutcome::not_finite));
  dense[std::size_t(j) * N + i] = value;
  if (j == i) diagonal[i] = fabs(value);
}

// A thread per entry below the diagonal: find_asymmetry's test of the pair
// (i, j), (j, i), an absent entry being 0.
__global__ void check_symmetry(index_t n, index_t N, const double* __restrict__ dense,
                               const double* __restrict__ diagonal, double tolerance,
                               InverseStatus* status) {
  const std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= std::int64_t(n) * n) return;
  const index_t i = static_cast<index_t>(e % n), j = static_cast<index_t>(e / n);
  if (i <= j) return;
  const double value = dense[std::size_t(j) * N + i], transposed = dense[std::size_t(i) * N + j];
  // √|a_ii|·√|a_jj|: the product itself may overflow.
  const double scale = fabs(value) + fabs(transposed) + sqrt(diagonal[i]) * sqrt(diagonal[j]);
  if (fabs(value - transposed) > tolerance * scale)
    atomicMax(&status->outcome, int(InverseOutcome::not_symmetric));
}

using Tile = double[kBlock][kBlock + 1];  // +1: rows and columns both free of bank conflicts

// Pivot k of the tile sweep (sweep_tile): reads `from`, writes `to`. A pivot
// takes a_kk to −1/a_kk, the rest of its row and column to a_ik/a_kk, and
// every other entry to a_ij − a_ik·a_kj/a_kk. Entries (r, c) and (c, r) are
// both computed as the entry (max, min), from the same operands, so the tile
// stays exactly symmetric.
__device__ inline void sweep_pivot(const Tile& from, Tile& to, int k, double reciprocal) {
  const int t = threadIdx.x;
  // All four entries are read before any is written: `from` and `to` could be
  // one tile as far as the compiler knows, and a store between the loads would
  // make each entry wait for the one before.
  double value[kEntriesPerThread];
#pragma unroll
  for (int q = 0; q < kEntriesPerThread; ++q) {
    const int r = t % kBlock, c = t / kBlock + q * (kStepThreads / kBlock);
    const int i = max(r, c), j = min(r, c);
    if (i == k && j == k)
      value[q] = -reciprocal;
    else if (i == k || j == k)
      value[q] = from[i == k ? j : i][k] * reciprocal;
    else
      value[q] = fma(-from[i][k], from[j][k] * reciprocal, from[i][j]);
  }
#pragma unroll
  for (int q = 0; q < kEntriesPerThread; ++q)
    to[t % kBlock][t / kBlock + q * (kStepThreads / kBlock)] = value[q];
}

// Whether pivot k of the tile sweep is acceptable: 0, or why A is declined.
// `floor` holds √ε·|a_ii| of the tile's rows, or −1 for the identity's rows past n.
__device__ inline int pivot_verdict(double pivot, double floor, double pivot_floor) {
  if (floor < 0) return 0;
  if (!(pivot > 0)) return int(InverseOutcome::not_positive);  // NaN included
  if (pivot <= floor || pivot <= pivot_floor) return int(InverseOutcome::small_pivot);
  return 0;
}

// Sweeps the 32 pivots of the symmetric tile d in turn, alternating between d
// and `scratch` (one barrier a pivot; the result ends in d). The tile's pivots
// are A's Cholesky pivots for its rows `first`…, tested as CoarseSolver tests
// them. Returns 0; small_pivot when one was small (the sweep goes on: A may
// still be far from singular, which dense_inverse then bounds); or
// not_positive, stopping there. The same in every thread.
__device__ int sweep_tile(Tile& d, Tile& scratch, index_t first, index_t n, const double* diagonal,
                          double root_epsilon, double pivot_floor) {
  // Loaded once: the pivots form a chain of dependent steps.
  __shared__ double relative_floor[kBlock];
  const int t = threadIdx.x;
  if (t < kBlock) relative_floor[t] = first + t < n ? root_epsilon * diagonal[first + t] : -1.0;
  __syncthreads();
  int small = 0;
  for (int k = 0; k < kBlock; k += 2) {
    const double pivot = d[k][k];
    int verdict = pivot_verdict(pivot, relative_floor[k], pivot_floor);
    if (verdict == int(InverseOutcome::not_positive)) return verdict;
    small |= verdict;
    sweep_pivot(d, scratch, k, 1.0 / pivot);
    __syncthreads();
    const double following = scratch[k + 1][k + 1];
    verdict = pivot_verdict(following, relative_floor[k + 1], pivot_floor);
    if (verdict == int(InverseOutcome::not_positive)) return verdict;
    small |= verdict;
    sweep_pivot(scratch, d, k + 1, 1.0 / following);
    __syncthreads();
  }
  return small ? int(InverseOutcome::small_pivot) : 0;
}

// Lower tile (I, J), I >= J, number b in the row-by-row order of the lower triangle.
__device__ inline void lower_tile(index_t b, index_t& I, index_t& J) {
  index_t row = static_cast<index_t>((sqrt(8.0 * double(b) + 1.0) - 1.0) / 2.0);
  while (row * (row + 1) / 2 > b) --row;
  while ((row + 1) * (row + 2) / 2 <= b) ++row;
  I = row;
  J = b - row * (row + 1) / 2;
}

// dst[e / 32][e % 32] = src[e] for the 1024 entries of a row-major tile.
__device__ inline void load_tile(Tile& dst, const double* src) {
#pragma unroll
  for (int q = 0; q < kEntriesPerThread; ++q) {
    const int e = threadIdx.x + q * kStepThreads;
    dst[e / kBlock][e % kBlock] = src[e];
  }
}

// Step s sweeps the pivots of block K = s on the lower triangle, a block per
// tile (I, J). With C = the column block K before the step (`panel`, N × 32
// row-major) and E = D⁻¹ of its diagonal block D (`block_inverse`), the block
// sweep sets A_KK ← −E, A_iK ← C_i·E, and every other entry A_ij ← A_ij −
// (C_i·E)·C_jᵀ. It also prepares step s + 1: the tiles holding column block
// s + 1 copy their new values into `next_panel`, and the block of tile
// (s + 1, s + 1) sweeps that tile (sweep_tile) into −E_{s+1} and stores E_{s+1}
// in `next_block_inverse`, testing its pivots. s = −1 only prepares step 0.
// Each entry's sums run over k in order. A diagonal tile's entries (r, c) and
// (c, r) are both computed as the entry (max, min), so those tiles stay
// exactly symmetric.
__global__ void __launch_bounds__(kStepThreads)
    sweep_step(index_t n, index_t N, index_t s, double* __restrict__ a,
               const double* __restrict__ panel, double* __restrict__ next_panel,
               const double* __restrict__ block_inverse, double* __restrict__ next_block_inverse,
               const double* __restrict__ diagonal, double root_epsilon, double pivot_floor,
               InverseStatus* status) {
  __shared__ Tile E, CI, CJ, W;
  __shared__ int declined;
  const int t = threadIdx.x, r = t % kBlock;
  // Read once per block: the tile (s + 1, s + 1) of this launch may set it meanwhile.
  if (t == 0) declined = *reinterpret_cast<volatile int*>(&status->outcome);
  __syncthreads();
  if (declined) return;
  index_t I, J;
  lower_tile(blockIdx.x, I, J);
  const index_t next = s + 1;
  const bool prepares = next < N / kBlock && (I == next || J == next);
  if (s < 0 && !prepares) return;
  int c[kEntriesPerThread], x[kEntriesPerThread], y[kEntriesPerThread];
  double value[kEntriesPerThread];
#pragma unroll
  for (int q = 0; q < kEntriesPerThread; ++q) {
    c[q] = t / kBlock + q * (kStepThreads / kBlock);
    x[q] = I == J ? max(r, c[q]) : r;
    y[q] = I == J ? min(r, c[q]) : c[q];
    value[q] = a[std::size_t(J * kBlock + y[q]) * N + I * kBlock + x[q]];
  }
  if (s >= 0) {
    load_tile(E, block_inverse);
    load_tile(CI, panel + std::size_t(I) * kTileEntries);  // rows I·32… of C
    load_tile(CJ, panel + std::size_t(J) * kTileEntries);
    __syncthreads();
    if (I == s && J == s) {
#pragma unroll
      for (int q = 0; q < kEntriesPerThread; ++q) value[q] = -E[x[q]][y[q]];
    } else if (I == s) {  // J < s: A_Kj ← E·C_jᵀ
      double sum[kEntriesPerThread] = {};
      for (int m = 0; m < kBlock; ++m)
#pragma unroll
        for (int q = 0; q < kEntriesPerThread; ++q) sum[q] = fma(CJ[y[q]][m], E[m][x[q]], sum[q]);
#pragma unroll
      for (int q = 0; q < kEntriesPerThread; ++q) value[q] = sum[q];
    } else {  // I > s, or I < s and J < s: (C_I·E) first
      double w[kEntriesPerThread] = {};
      for (int m = 0; m < kBlock; ++m) {
        const double left = CI[r][m];
#pragma unroll
        for (int q = 0; q < kEntriesPerThread; ++q) w[q] = fma(left, E[m][c[q]], w[q]);
      }
#pragma unroll
      for (int q = 0; q < kEntriesPerThread; ++q) W[r][c[q]] = w[q];
      __syncthreads();
      if (J == s) {
#pragma unroll
        for (int q = 0; q < kEntriesPerThread; ++q) value[q] = W[x[q]][y[q]];
      } else {
        double sum[kEntriesPerThread] = {};
        for (int k = 0; k < kBlock; ++k)
#pragma unroll
          for (int q = 0; q < kEntriesPerThread; ++q) sum[q] = fma(W[x[q]][k], CJ[y[q]][k], sum[q]);
#pragma unroll
        for (int q = 0; q < kEntriesPerThread; ++q) value[q] -= sum[q];
      }
    }
#pragma unroll
    for (int q = 0; q < kEntriesPerThread; ++q)
      a[std::size_t(J * kBlock + c[q]) * N + I * kBlock + r] = value[q];
  }
  if (!prepares) return;
#pragma unroll
  for (int q = 0; q < kEntriesPerThread; ++q) {
    if (J == next)  // rows I·32 + r of column block s + 1
      next_panel[std::size_t(I * kBlock + r) * kBlock + c[q]] = value[q];
    else  // I == s + 1 > J: by symmetry, rows J·32 + c of it
      next_panel[std::size_t(J * kBlock + c[q]) * kBlock + r] = value[q];
  }
  if (I == next && J == next) {
    __syncthreads();  // W and CI are free again
#pragma unroll
    for (int q = 0; q < kEntriesPerThread; ++q) W[r][c[q]] = value[q];
    __syncthreads();
    const int verdict = sweep_tile(W, CI, next * kBlock, n, diagonal, root_epsilon, pivot_floor);
    if (verdict == int(InverseOutcome::not_positive)) {
      if (t == 0) atomicMax(&status->outcome, verdict);
      return;
    }
    if (verdict != 0 && t == 0) status->small_pivot = 1;
#pragma unroll
    for (int q = 0; q < kEntriesPerThread; ++q) {
      const int e = t + q * kStepThreads;
      next_block_inverse[e] = -W[e / kBlock][e % kBlock];
    }
  }
}

// inverse (row-major n × n, T) = −(the swept matrix), read from its lower
// triangle: a block per 32 × 32 tile of the output, through a shared tile so
// that both the read and the write are whole rows.
template <typename T>
__global__ void store_inverse(index_t n, index_t N, const double* __restrict__ a,
                              T* __restrict__ inverse) {
  __shared__ Tile tile;
  const index_t Ti = blockIdx.y, Tj = blockIdx.x, high = max(Ti, Tj), low = min(Ti, Tj);
  const int t = threadIdx.x, r = t % kBlock, c = t / kBlock;
  tile[r][c] = a[std::size_t(low * kBlock + c) * N + high * kBlock + r];
  __syncthreads();
  const int x = c, y = r;  // the output entry (Ti·32 + x, Tj·32 + y)
  const double value = Ti > Tj ? tile[x][y] : Ti < Tj ? tile[y][x] : tile[max(x, y)][min(x, y)];
  const index_t i = Ti * kBlock + x, j = Tj * kBlock + y;
  if (i < n && j < n) inverse[std::size_t(i) * n + j] = static_cast<T>(-value);
}

// A warp per row i < n: Σ_j |A⁻¹_ij| and Σ_j |a_ij|, each in a fixed order
// (lane-strided sums, then a shuffle tree), into the status's maxima. Only a
// small pivot asks for them: otherwise the kernel leaves at once.
constexpr int kNormThreads = 256;
template <typename T>
__global__ void infinity_norms(index_t n, const index_t* __restrict__ row_ptr,
                               const T* __restrict__ values, const T* __restrict__ inverse,
                               InverseStatus* status) {
  if (status->outcome != 0 || status->small_pivot == 0) return;
  const index_t row = blockIdx.x * (kNormThreads / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= n) return;  // whole warps leave together
  double inverse_sum = 0, matrix_sum = 0;
  for (index_t j = lane; j < n; j += 32)
    inverse_sum += fabs(double(inverse[std::size_t(row) * n + j]));
  for (index_t k = row_ptr[row] + lane; k < row_ptr[row + 1]; k += 32)
    matrix_sum += fabs(double(values[k]));
  for (int offset = 16; offset > 0; offset /= 2) {
    inverse_sum += __shfl_xor_sync(0xffffffffu, inverse_sum, offset);
    matrix_sum += __shfl_xor_sync(0xffffffffu, matrix_sum, offset);
  }
  if (lane == 0) {
    atomicMax(&status->inverse_norm,
              static_cast<unsigned long long>(__double_as_longlong(inverse_sum)));
    atomicMax(&status->matrix_norm,
              static_cast<unsigned long long>(__double_as_longlong(matrix_sum)));
  }
}

double from_bits(unsigned long long bits) {
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

}  // namespace

template <typename T>
InverseOutcome dense_inverse(const DeviceCsr<T>& A, double rank_floor, DeviceBuffer<T>& inverse,
                             cudaStream_t stream) {
  const index_t n = A.rows;
  require(A.rows == A.cols && n > 0, "dense_inverse: A must be square and not empty, got " +
                                         std::to_string(A.rows) + " x " + std::to_string(A.cols));
  const index_t tiles = (n + kBlock - 1) / kBlock, N = tiles * kBlock;
  const std::size_t entries = std::size_t(N) * N;
  DeviceBuffer<double> dense(entries, stream, "coarse sweep matrix");
  DeviceBuffer<double> diagonal(N, stream, "coarse diagonal");
  DeviceBuffer<double> panels(std::size_t(2) * N * kBlock, stream, "coarse sweep panels");
  DeviceBuffer<double> block_inverses(2 * kTileEntries, stream, "coarse sweep block inverses");
  DeviceBuffer<InverseStatus> status(1, stream, "coarse inverse status");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(dense.data(), 0, sizeof(double) * entries, stream));
  BINAMG_CUDA_CHECK(cudaMemsetAsync(diagonal.data(), 0, sizeof(double) * N, stream));
  BINAMG_CUDA_CHECK(cudaMemsetAsync(status.data(), 0, sizeof(InverseStatus), stream));
  const index_t fill_threads = A.nnz() + (N - n);
  fill_dense<<<blocks_for(fill_threads, kFillThreads), kFillThreads, 0, stream>>>(
      n, N, A.nnz(), A.row_ptr.data(), A.col_idx.data(), A.values.data(), dense.data(),
      diagonal.data(), status.data());
  BINAMG_CHECK_LAUNCH();
  check_symmetry<<<blocks_for(std::int64_t(n) * n, kFillThreads), kFillThreads, 0, stream>>>(
      n, N, dense.data(), diagonal.data(), symmetry_tolerance<T>(), status.data());
  BINAMG_CHECK_LAUNCH();
  const double root_epsilon = std::sqrt(std::numeric_limits<double>::epsilon());
  const double pivot_floor = n * rank_floor;  // CoarseSolver's
  const unsigned lower_tiles = static_cast<unsigned>(tiles * (tiles + 1) / 2);
  // Step s reads the panel and block inverse of parity s & 1 and writes those of s + 1.
  auto panel = [&](index_t s) { return panels.data() + std::size_t(s & 1) * N * kBlock; };
  auto block_inverse = [&](index_t s) { return block_inverses.data() + (s & 1) * kTileEntries; };
  for (index_t s = -1; s < tiles; ++s) {
    sweep_step<<<lower_tiles, kStepThreads, 0, stream>>>(
        n, N, s, dense.data(), panel(s), panel(s + 1), block_inverse(s), block_inverse(s + 1),
        diagonal.data(), root_epsilon, pivot_floor, status.data());
    BINAMG_CHECK_LAUNCH();
  }
  inverse = DeviceBuffer<T>(std::size_t(n) * n, stream, "coarse inverse");
  store_inverse<T>
      <<<dim3(tiles, tiles), kTileEntries, 0, stream>>>(n, N, dense.data(), inverse.data());
  BINAMG_CHECK_LAUNCH();
  infinity_norms<T><<<blocks_for(std::int64_t(n) * 32, kNormThreads), kNormThreads, 0, stream>>>(
      n, A.row_ptr.data(), A.values.data(), inverse.data(), status.data());
  BINAMG_CHECK_LAUNCH();
  const InverseStatus found = read_back(status.data(), stream);
  if (found.outcome != 0) return static_cast<InverseOutcome>(found.outcome);
  if (!found.small_pivot) return InverseOutcome::inverted;
  // A small pivot asks CoarseSolver's eigenvalue test: null at or below
  // max(n·ε·max|λ|, rank_floor). For symmetric A, λ_min ≥ 1/‖A⁻¹‖_∞ and
  // max|λ| ≤ ‖A‖_∞, so an inverse whose norm puts λ_min above that cut is of
  // a matrix the host would find nonsingular and factor by Cholesky.
  const double cut = std::max(
      n * std::numeric_limits<double>::epsilon() * from_bits(found.matrix_norm), rank_floor);
  return 1.0 / from_bits(found.inverse_norm) > cut ? InverseOutcome::inverted
                                                   : InverseOutcome::small_pivot;
}

template InverseOutcome dense_inverse<float>(const DeviceCsr<float>&, double, DeviceBuffer<float>&,
                                             cudaStream_t);
template InverseOutcome dense_inverse<double>(const DeviceCsr<double>&, double,
                                              DeviceBuffer<double>&, cudaStream_t);

}  // namespace binamg::coarse_detail
