// Merge-based CSR × dense (Merrill & Garland's merge path, as used for SpMM by
// Yang, Buluç & Owens 2018). The work is the merge of the row-end offsets
// row_ptr[1..rows] with the nonzero positions 0..nnz-1: each step either
// consumes a nonzero or ends a row. Cutting that path into segments of equal
// length gives every lane group the same work however the row lengths vary.
// A row cut by a segment boundary leaves a partial sum (a carry) that a
// second pass adds to Y in segment order, so the result is deterministic.
// For k = 1 a whole block takes a tile of the path (merge_tile_vector), as in
// Merrill & Garland's own SpMV.
#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/launch.hpp"
#include "sparse/spmm_kernels.hpp"

namespace binamg::spmm_detail {
namespace {

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
// tiles of merge_tile_vector). Invariant: boundaries are non-decreasing in
// both coordinates, the last is (rows, nnz).
template <int Lanes>
__global__ void merge_path_search(index_t rows, index_t nnz, index_t segments, index_t steps,
                                  const index_t* __restrict__ row_ptr,
                                  PathPoint* __restrict__ boundaries) {
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

// Threads: a group of L lanes per path segment; blockIdx.y is the pass over
// 64 columns of Y, lane l owning columns pass_base + l + r·L (as in row-split).
// The group walks its segment in path order: a row that ends inside the
// segment is written to Y (for a row begun in an earlier segment this is only
// the part after the boundary); the row left open at the segment's end is
// stored as carries[segment] with carry_rows[segment] = row, or -1 when no
// nonzero of an open row was consumed here. Each Y entry is written once here.
template <typename T, int L, int R, bool Exact>
__global__ void __launch_bounds__(SpmmPolicy::threads)
    merge_walk(index_t rows, index_t k, index_t segments, const PathPoint* __restrict__ boundaries,
               const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
               const T* __restrict__ values, const T* __restrict__ X, T* __restrict__ Y,
               T* __restrict__ carries, index_t* __restrict__ carry_rows) {
  const std::int64_t segment = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / L;
  if (segment >= segments) return;
  const int lane = threadIdx.x % L;
  const index_t first_column = blockIdx.y * SpmmPolicy::columns_per_pass + lane;
  const PathPoint stop = boundaries[segment + 1];
  index_t row = boundaries[segment].row;
  index_t nonzero = boundaries[segment].nonzero;

  T sum[R];
#pragma unroll
  for (int r = 0; r < R; ++r) sum[r] = T(0);
  bool open = false;  // a nonzero of `row` was consumed in this segment
  index_t row_end = row < rows ? row_ptr[row + 1] : 0;
  while (row < stop.row || nonzero < stop.nonzero) {
    if (nonzero < stop.nonzero && nonzero < row_end) {
      const T a = values[nonzero];
      const T* x = X + std::int64_t(col_idx[nonzero]) * k;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const index_t c = first_column + r * L;
        if (Exact || c < k) sum[r] += a * x[c];
      }
      ++nonzero;
      open = true;
    } else {
      T* y = Y + std::int64_t(row) * k;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const index_t c = first_column + r * L;
        if (Exact || c < k) y[c] = sum[r];
        sum[r] = T(0);
      }
      open = false;
      ++row;
      row_end = row < rows ? row_ptr[row + 1] : 0;
    }
  }
  if (lane == 0 && blockIdx.y == 0) carry_rows[segment] = open ? row : -1;
  if (open) {
    T* carry = carries + segment * k;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const index_t c = first_column + r * L;
      if (Exact || c < k) carry[c] = sum[r];
    }
  }
}

// k = 1: a block per tile of the path, its threads walking items each. 256 × 4
// was the fastest of 128 × 8, 128 × 16, 256 × 2 and 512 × 2 on R-MAT, hub rows
// and stencils (bench/results/2026-11-24-h100-spmv-merge-tiles.md).
struct VectorTile {
  static constexpr int threads = 256;
  static constexpr int items = 4;
  static constexpr int steps = threads * items;
};

/// A partial sum of one row: what a thread leaves open at its end.
template <typename T>
struct RowPartial {
  index_t row;
  T sum;
};

/// The segmented-scan operator over threads in path order: partials of the
/// same row add, a new row starts afresh.
struct AddWithinRow {
  template <typename T>
  __device__ RowPartial<T> operator()(const RowPartial<T>& earlier,
                                      const RowPartial<T>& later) const {
    return {later.row, earlier.row == later.row ? earlier.sum + later.sum : later.sum};
  }
};

// Threads: VectorTile::threads per tile of VectorTile::steps path steps
// (boundaries from merge_path_search). The block first stages the tile's
// products a·x and row ends in shared memory: coalesced loads of values and
// columns, every gather of x in flight at once (a thread walking its own
// segment would issue them one by one). Each thread then walks `items` steps
// from shared memory. The rows it ends after its first are its own and go
// straight to y; the first also holds the partials of the threads before it
// that share that row, which a block-wide segmented scan of (row, partial)
// hands it in a fixed tree order. The tile's open row is its carry (as in
// merge_walk), added by merge_fix_up.
template <typename T>
__global__ void __launch_bounds__(VectorTile::threads)
    merge_tile_vector(index_t rows, const PathPoint* __restrict__ boundaries,
                      const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
                      const T* __restrict__ values, const T* __restrict__ x, T* __restrict__ y,
                      T* __restrict__ carries, index_t* __restrict__ carry_rows) {
  using Scan = cub::BlockScan<RowPartial<T>, VectorTile::threads>;
  __shared__ typename Scan::TempStorage scan_storage;
  __shared__ T products[VectorTile::steps];
  __shared__ index_t row_ends[VectorTile::steps];  // relative to the tile's first nonzero
  const PathPoint begin = boundaries[blockIdx.x];
  const PathPoint end = boundaries[blockIdx.x + 1];
  const index_t tile_rows = end.row - begin.row;  // the rows that end in this tile
  const index_t tile_nonzeros = end.nonzero - begin.nonzero;
  // A tile holds at most `steps` nonzeros and row ends: `items` strided
  // loads per thread, all issued before their first use.
  index_t columns[VectorTile::items];
  T entries[VectorTile::items];
#pragma unroll
  for (int j = 0; j < VectorTile::items; ++j) {
    const index_t i = threadIdx.x + j * VectorTile::threads;
    if (i < tile_nonzeros) {
      columns[j] = col_idx[begin.nonzero + i];
      entries[j] = values[begin.nonzero + i];
    }
    if (i < tile_rows) row_ends[i] = row_ptr[begin.row + 1 + i] - begin.nonzero;
  }
#pragma unroll
  for (int j = 0; j < VectorTile::items; ++j) {
    const index_t i = threadIdx.x + j * VectorTile::threads;
    if (i < tile_nonzeros) products[i] = entries[j] * x[columns[j]];
  }
  __syncthreads();

  // The thread's start on the tile's path, searched as in merge_path_search.
  const index_t path = tile_rows + tile_nonzeros;
  const index_t diagonal = min(index_t(threadIdx.x) * VectorTile::items, path);
  index_t low = max(diagonal - tile_nonzeros, index_t(0));
  index_t high = min(diagonal, tile_rows);
  while (low < high) {
    const index_t mid = low + (high - low) / 2;
    if (row_ends[mid] <= diagonal - mid - 1)
      low = mid + 1;
    else
      high = mid;
  }
  index_t row = low, nonzero = diagonal - low;
  const index_t first_row = row;
  const index_t stop = min(diagonal + VectorTile::items, path);
  T sum = T(0), first_sum = T(0);
  bool ends_a_row = false;
  for (index_t step = diagonal; step < stop; ++step) {
    if (row < tile_rows && row_ends[row] <= nonzero) {
      if (ends_a_row) y[begin.row + row] = sum;
      else first_sum = sum;
      ends_a_row = true;
      sum = T(0);
      ++row;
    } else {
      sum += products[nonzero];
      ++nonzero;
    }
  }

  RowPartial<T> before, tile_total;
  Scan(scan_storage).ExclusiveScan(RowPartial<T>{begin.row + row, sum}, before,
                                   RowPartial<T>{-1, T(0)}, AddWithinRow{}, tile_total);
  if (ends_a_row) {
    const index_t r = begin.row + first_row;
    y[r] = before.row == r ? before.sum + first_sum : first_sum;
  }
  if (threadIdx.x == 0) {
    // The open row began at the last row end here, or before the tile.
    const index_t open_from = tile_rows > 0 ? row_ends[tile_rows - 1] : 0;
    const bool open = end.row < rows && tile_nonzeros > open_from;
    carry_rows[blockIdx.x] = open ? end.row : -1;
    if (open) carries[blockIdx.x] = tile_total.sum;
  }
}

// Consecutive segments per chunk of carries (merge_chunk_sums).
constexpr int segments_per_chunk = 32;
// Carries merge_fix_up reads at once between chunk starts.
constexpr int fix_up_batch = 8;

// Threads: a group of L lanes per chunk of segments_per_chunk consecutive
// segments, columns as in merge_walk. A chunk whose segments all carry one row
// (a row longer than a chunk's nonzeros: the hub of a power-law graph) gets
// chunk_rows[chunk] = that row and chunk_sums[chunk] = its carries added in
// segment order; any other chunk gets chunk_rows[chunk] = -1.
template <typename T, int L, int R, bool Exact>
__global__ void __launch_bounds__(SpmmPolicy::threads)
    merge_chunk_sums(index_t k, index_t segments, const index_t* __restrict__ carry_rows,
                     const T* __restrict__ carries, T* __restrict__ chunk_sums,
                     index_t* __restrict__ chunk_rows) {
  const std::int64_t chunk = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / L;
  const std::int64_t first = chunk * segments_per_chunk;
  if (first >= segments) return;
  const index_t row = carry_rows[first];
  bool one_row = row >= 0 && first + segments_per_chunk <= segments;
  // Most chunks hold several rows and leave at their first change of row (a
  // fixed-count check of all 32 took 5.7 against 3.7 µs per SpMV on R-MAT).
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

/// Segments (or tiles) of `steps` path steps each, and their boundaries.
template <int Lanes, typename T>
index_t search_path(const DeviceCsr<T>& A, index_t steps, DeviceBuffer<PathPoint>& boundaries,
                    cudaStream_t stream) {
  const std::int64_t path = std::int64_t(A.rows) + A.nnz;
  const index_t segments = checked_index((path + steps - 1) / steps, "spmm merge segments");
  boundaries = DeviceBuffer<PathPoint>(std::size_t(segments) + 1, stream, "spmm merge path");
  merge_path_search<Lanes>
      <<<blocks_for((std::int64_t(segments) + 1) * Lanes, SpmmPolicy::threads),
         SpmmPolicy::threads, 0, stream>>>(A.rows, A.nnz, segments, steps, A.row_ptr.data(),
                                           boundaries.data());
  BINAMG_CHECK_LAUNCH();
  return segments;
}

/// Adds the segments' carries to Y (merge_chunk_sums, then merge_fix_up).
template <typename T, int L, int R, bool Exact>
void add_carries(index_t k, index_t segments, const index_t* carry_rows, const T* carries, T* Y,
                 cudaStream_t stream) {
  const unsigned passes = static_cast<unsigned>((k + SpmmPolicy::columns_per_pass - 1) /
                                                SpmmPolicy::columns_per_pass);
  const std::int64_t chunks = (std::int64_t(segments) + segments_per_chunk - 1) / segments_per_chunk;
  DeviceBuffer<T> chunk_sums(std::size_t(chunks) * k, stream, "spmm merge chunk sums");
  DeviceBuffer<index_t> chunk_rows(std::size_t(chunks), stream, "spmm merge chunk rows");
  merge_chunk_sums<T, L, R, Exact>
      <<<dim3(blocks_for(chunks * L, SpmmPolicy::threads), passes), SpmmPolicy::threads, 0,
         stream>>>(k, segments, carry_rows, carries, chunk_sums.data(), chunk_rows.data());
  BINAMG_CHECK_LAUNCH();
  merge_fix_up<T, L, R, Exact>
      <<<dim3(blocks_for(std::int64_t(segments) * L, SpmmPolicy::threads), passes),
         SpmmPolicy::threads, 0, stream>>>(k, segments, carry_rows, carries, chunk_rows.data(),
                                           chunk_sums.data(), Y);
  BINAMG_CHECK_LAUNCH();
}

template <typename T, int L, int R, bool Exact>
void launch_merge(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, cudaStream_t stream) {
  DeviceBuffer<PathPoint> boundaries;
  const index_t segments =
      search_path<1>(A, merge_segment_steps(A.rows, A.nnz), boundaries, stream);
  DeviceBuffer<T> carries(std::size_t(segments) * k, stream, "spmm merge carries");
  DeviceBuffer<index_t> carry_rows(segments, stream, "spmm merge carry rows");
  const dim3 grid(blocks_for(std::int64_t(segments) * L, SpmmPolicy::threads),
                  static_cast<unsigned>((k + SpmmPolicy::columns_per_pass - 1) /
                                        SpmmPolicy::columns_per_pass));
  merge_walk<T, L, R, Exact><<<grid, SpmmPolicy::threads, 0, stream>>>(
      A.rows, k, segments, boundaries.data(), A.row_ptr.data(), A.col_idx.data(),
      A.values.data(), X, Y, carries.data(), carry_rows.data());
  BINAMG_CHECK_LAUNCH();
  add_carries<T, L, R, Exact>(k, segments, carry_rows.data(), carries.data(), Y, stream);
}

template <typename T>
void launch_merge_vector(const DeviceCsr<T>& A, const T* x, T* y, cudaStream_t stream) {
  DeviceBuffer<PathPoint> boundaries;
  const index_t tiles = search_path<32>(A, VectorTile::steps, boundaries, stream);
  DeviceBuffer<T> carries(tiles, stream, "spmv merge carries");
  DeviceBuffer<index_t> carry_rows(tiles, stream, "spmv merge carry rows");
  merge_tile_vector<T><<<tiles, VectorTile::threads, 0, stream>>>(
      A.rows, boundaries.data(), A.row_ptr.data(), A.col_idx.data(), A.values.data(), x, y,
      carries.data(), carry_rows.data());
  BINAMG_CHECK_LAUNCH();
  add_carries<T, 1, 1, true>(1, tiles, carry_rows.data(), carries.data(), y, stream);
}

template <typename T, int L, int R>
void launch_merge(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, cudaStream_t stream) {
  if (k % (L * R) == 0 && (k <= L * R || k % SpmmPolicy::columns_per_pass == 0))
    launch_merge<T, L, R, true>(A, X, k, Y, stream);
  else
    launch_merge<T, L, R, false>(A, X, k, Y, stream);
}

}  // namespace

template <typename T>
void merge_based(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, cudaStream_t stream) {
  if (A.rows == 0) return;
  switch (lanes_for_columns(k)) {
    case 1: return launch_merge_vector(A, X, Y, stream);
    case 2: return launch_merge<T, 2, 1>(A, X, k, Y, stream);
    case 4: return launch_merge<T, 4, 1>(A, X, k, Y, stream);
    case 8: return launch_merge<T, 8, 1>(A, X, k, Y, stream);
    case 16: return launch_merge<T, 16, 1>(A, X, k, Y, stream);
    default:
      if (k <= 32) return launch_merge<T, 32, 1>(A, X, k, Y, stream);
      return launch_merge<T, 32, 2>(A, X, k, Y, stream);
  }
}

template void merge_based<float>(const DeviceCsr<float>&, const float*, index_t, float*,
                                 cudaStream_t);
template void merge_based<double>(const DeviceCsr<double>&, const double*, index_t, double*,
                                  cudaStream_t);

}  // namespace binamg::spmm_detail
