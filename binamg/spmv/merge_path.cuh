#pragma once
// Internal to spmv/spmm_merge.cu and spmv/spmv_merge.cu: the merge path of
// Merrill & Garland, and the carries that rows cut by it leave. The work of
// Y = A X is the merge of the row-end offsets row_ptr[1..rows] with the nonzero
// positions 0..nnz-1: each step either consumes a nonzero or ends a row.
// Cutting that path into pieces of equal length (segments of a lane group for
// k > 1, tiles of a block for k = 1) gives each the same work however the row
// lengths vary. A row cut by a boundary leaves a partial sum (a carry) that
// add_carries (k > 1) or spmv_merge.cu's add_vector_carries (k = 1) adds to Y
// in path order, so the result is deterministic.
#include <cuda_runtime.h>

#include <cstdint>

#include "binamg/core/chained_launch.cuh"
#include "binamg/core/cuda_check.hpp"
#include "binamg/core/device_buffer.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/spmv/spmm_kernels.hpp"

namespace binamg::spmm_detail {

/// Where the merge path crosses a diagonal: rows ended and nonzeros consumed.
struct PathPoint {
  index_t row;
  index_t nonzero;
};

// Lanes threads (1, or a whole warp) per segment boundary s in [0, segments]:
// searches the diagonal rows+nonzeros = min(s·steps, rows+nnz) for the path
// point. Row `mid` ends before nonzero `diagonal-mid-1` is consumed when its
// end offset is at most that position: true for the rows before the point,
// false from it on. Each round the lanes test Lanes pivots that cut the range
// into Lanes + 1 equal parts and keep the part where the test turns false: a
// binary search for one lane; for a warp, 5 bits of the row per round, so few
// dependent loads where the boundaries are too few to hide their latency (the
// tiles of spmv_merge.cu). Invariant: boundaries are non-decreasing in
// both coordinates, the last is (rows, nnz).
template <int Lanes>
__global__ void merge_path_search(index_t rows, index_t nnz, index_t segments, index_t steps,
                                  const index_t* __restrict__ row_ptr,
                                  PathPoint* __restrict__ boundaries) {
  wait_for_prior_kernel();
  static_assert(Lanes == 1 || Lanes == 32, "one lane or a whole warp per boundary");
  const std::int64_t s = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / Lanes;
  if (s > segments) return;  // a whole warp leaves together, so the ballots stay full
  const int lane = threadIdx.x % Lanes;
  const std::int64_t diagonal = min(s * steps, std::int64_t(rows) + nnz);
  std::int64_t low = max(diagonal - nnz, std::int64_t(0));
  std::int64_t high = min(diagonal, std::int64_t(rows));
  while (low < high) {
    const std::int64_t part = (high - low + Lanes) / (Lanes + 1);  // ceil(range / (Lanes + 1))
    const std::int64_t pivot = low + (lane + 1) * part - 1;
    const bool before = pivot < high && row_ptr[pivot + 1] <= diagonal - pivot - 1;
    int passed = before;  // pivots before the point: a prefix of the lanes
    if constexpr (Lanes == 32) passed = __popc(__ballot_sync(0xffffffffu, before));
    const std::int64_t next_low = low + passed * part;
    if (passed < Lanes) high = min(next_low + part - 1, high);
    low = next_low;
  }
  if (lane == 0)
    boundaries[s] = PathPoint{static_cast<index_t>(low), static_cast<index_t>(diagonal - low)};
}

// Consecutive segments per chunk of carries (merge_chunk_sums).
constexpr int segments_per_chunk = 32;
// Carries merge_fix_up reads at once between chunk starts.
constexpr int fix_up_batch = 8;

// Threads: a group of L lanes per chunk of segments_per_chunk consecutive
// segments, columns as in merge_walk (spmm_merge.cu). A chunk whose segments
// all carry one row (a row longer than a chunk's nonzeros: the hub of a
// power-law graph) gets chunk_rows[chunk] = that row and chunk_sums[chunk] =
// its carries added in segment order; any other chunk gets chunk_rows[chunk] = -1.
template <typename T, int L, int R, bool Exact>
__global__ void __launch_bounds__(SpmmPolicy::threads)
    merge_chunk_sums(index_t k, index_t segments, const index_t* __restrict__ carry_rows,
                     const T* __restrict__ carries, T* __restrict__ chunk_sums,
                     index_t* __restrict__ chunk_rows) {
  wait_for_prior_kernel();
  const std::int64_t chunk = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / L;
  const std::int64_t first = chunk * segments_per_chunk;
  if (first >= segments) return;
  const index_t row = carry_rows[first];
  bool one_row = row >= 0 && first + segments_per_chunk <= segments;
  // Most chunks hold several rows and leave at their first change of row (a
  // fixed-count check of all 32 measured slower on R-MAT; docs/experiments.md).
  for (int i = 1; one_row && i < segments_per_chunk; ++i) one_row = carry_rows[first + i] == row;
  if (threadIdx.x % L == 0 && blockIdx.y == 0) chunk_rows[chunk] = one_row ? row : -1;
  if (!one_row) return;
  const index_t first_column = blockIdx.y * SpmmPolicy::columns_per_pass + threadIdx.x % L;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const index_t c = first_column + r * L;
    if (!Exact && c >= k) continue;
    T total = T(0);
    // A fixed trip count: the chunk's 32 carries load at once.
#pragma unroll
    for (int i = 0; i < segments_per_chunk; ++i) total += carries[(first + i) * k + c];
    chunk_sums[chunk * k + c] = total;
  }
}

// Threads: a group of L lanes per segment, columns as in merge_walk. Only the
// first segment of a run of consecutive segments carrying the same row acts:
// it adds the run's carries in segment order, whole chunks by their chunk sums
// (so a run of thousands of segments is a few dozen dependent steps), and then
// adds that total to the row of Y (which the segment ending the row wrote). The
// grouping depends only on the run's position, so the bits repeat. Rows are
// distinct across runs, so no two groups touch the same Y entry.
template <typename T, int L, int R, bool Exact>
__global__ void __launch_bounds__(SpmmPolicy::threads)
    merge_fix_up(index_t k, index_t segments, const index_t* __restrict__ carry_rows,
                 const T* __restrict__ carries, const index_t* __restrict__ chunk_rows,
                 const T* __restrict__ chunk_sums, T* __restrict__ Y) {
  wait_for_prior_kernel();
  const std::int64_t segment = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / L;
  if (segment >= segments) return;
  const index_t row = carry_rows[segment];
  if (row < 0 || (segment > 0 && carry_rows[segment - 1] == row)) return;
  const int lane = threadIdx.x % L;
  const index_t first_column = blockIdx.y * SpmmPolicy::columns_per_pass + lane;
  T total[R];
#pragma unroll
  for (int r = 0; r < R; ++r) total[r] = T(0);
  // s is in the run at the top of each round.
  for (std::int64_t s = segment;;) {
    const std::int64_t chunk = s / segments_per_chunk;
    if (s % segments_per_chunk == 0 && chunk_rows[chunk] == row) {
      const T* sum = chunk_sums + chunk * k;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const index_t c = first_column + r * L;
        if (Exact || c < k) total[r] += sum[c];
      }
      s += segments_per_chunk;
    } else {
      // Single segments up to the next chunk start: fix_up_batch rows and
      // carries read at once, not one dependent load after another.
      index_t ahead[fix_up_batch];
#pragma unroll
      for (int i = 0; i < fix_up_batch; ++i) ahead[i] = s + i < segments ? carry_rows[s + i] : -1;
      int taken = 1;
      bool open = true;
#pragma unroll
      for (int i = 1; i < fix_up_batch; ++i) {
        open = open && (s + i) % segments_per_chunk != 0 && ahead[i] == row;
        taken += open;
      }
#pragma unroll
      for (int i = 0; i < fix_up_batch; ++i) {
        if (i >= taken) break;
        const T* carry = carries + (s + i) * k;
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const index_t c = first_column + r * L;
          if (Exact || c < k) total[r] += carry[c];
        }
      }
      s += taken;
    }
    if (s >= segments || carry_rows[s] != row) break;
  }
  T* y = Y + std::int64_t(row) * k;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const index_t c = first_column + r * L;
    if (Exact || c < k) y[c] += total[r];
  }
}

/// A merge-based product's storage: the path cut into segments (or tiles) of
/// `steps` steps, their boundaries, and each segment's carry (k values) and
/// carry row (-1 where none). All of it is allocated before the first launch,
/// so the kernels follow one another without host work between them.
template <typename T>
struct MergePath {
  MergePath(const DeviceCsr<T>& A, index_t steps, index_t k, cudaStream_t stream)
      : steps(steps),
        segments(checked_index((std::int64_t(A.rows) + A.nnz() + steps - 1) / steps,
                               "spmm merge segments")),
        boundaries(std::size_t(segments) + 1, stream, "spmm merge path"),
        carries(std::size_t(segments) * k, stream, "spmm merge carries"),
        carry_rows(segments, stream, "spmm merge carry rows") {}

  index_t steps;
  index_t segments;
  DeviceBuffer<PathPoint> boundaries;
  DeviceBuffer<T> carries;
  DeviceBuffer<index_t> carry_rows;
};

/// Searches the boundaries of `path`'s segments, Lanes threads each.
template <int Lanes, typename T>
void search_path(const DeviceCsr<T>& A, MergePath<T>& path, cudaStream_t stream) {
  launch_chained(merge_path_search<Lanes>,
                 blocks_for((std::int64_t(path.segments) + 1) * Lanes, SpmmPolicy::threads),
                 SpmmPolicy::threads, 0, stream, A.rows, A.nnz(), path.segments, path.steps,
                 A.row_ptr.data(), path.boundaries.data());
}

/// Adds the segments' carries to Y (merge_chunk_sums, then merge_fix_up).
template <typename T, int L, int R, bool Exact>
void add_carries(index_t k, index_t segments, const index_t* carry_rows, const T* carries, T* Y,
                 cudaStream_t stream) {
  const unsigned passes = static_cast<unsigned>((k + SpmmPolicy::columns_per_pass - 1) /
                                                SpmmPolicy::columns_per_pass);
  const std::int64_t chunks =
      (std::int64_t(segments) + segments_per_chunk - 1) / segments_per_chunk;
  DeviceBuffer<T> chunk_sums(std::size_t(chunks) * k, stream, "spmm merge chunk sums");
  DeviceBuffer<index_t> chunk_rows(std::size_t(chunks), stream, "spmm merge chunk rows");
  launch_chained(merge_chunk_sums<T, L, R, Exact>,
                 dim3(blocks_for(chunks * L, SpmmPolicy::threads), passes), SpmmPolicy::threads, 0,
                 stream, k, segments, carry_rows, carries, chunk_sums.data(), chunk_rows.data());
  launch_chained(merge_fix_up<T, L, R, Exact>,
                 dim3(blocks_for(std::int64_t(segments) * L, SpmmPolicy::threads), passes),
                 SpmmPolicy::threads, 0, stream, k, segments, carry_rows, carries,
                 chunk_rows.data(), chunk_sums.data(), Y);
}

}  // namespace binamg::spmm_detail
