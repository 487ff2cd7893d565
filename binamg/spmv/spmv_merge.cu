// Merge-based SpMV (k = 1) in tiles of a thread block, Merrill & Garland's own
// layout for the merge path of spmv/merge_path.cuh.
#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "binamg/core/cuda_check.hpp"
#include "binamg/core/device_buffer.hpp"
#include "binamg/spmv/merge_path.cuh"
#include "binamg/spmv/spmm_kernels.hpp"

namespace binamg::spmm_detail {
namespace {

// k = 1: a block per tile of the path, its threads walking items each. 256 × 4
// was the fastest of 128 × 8, 128 × 16, 256 × 2 and 512 × 2 on R-MAT, hub rows
// and stencils. The tile kernel is latency-bound: 6 blocks per SM (40 registers,
// a few bytes spilled) beat the 5 that 48 registers allow, but 7 or 8 were
// slower (docs/experiments.md).
struct VectorTile {
  static constexpr int threads = 256;
  static constexpr int items = 4;
  static constexpr int steps = threads * items;
  static constexpr int blocks_per_sm = 6;
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
// spmm_merge.cu's merge_walk), added by add_vector_carries.
template <typename T>
__global__ void __launch_bounds__(VectorTile::threads, VectorTile::blocks_per_sm)
    merge_tile_vector(index_t rows, const PathPoint* __restrict__ boundaries,
                      const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
                      const T* __restrict__ values, const T* __restrict__ x, T* __restrict__ y,
                      T* __restrict__ carries, index_t* __restrict__ carry_rows) {
  wait_for_prior_kernel();
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

// Tiles whose carries a warp of add_vector_carries reads per round of a run
// that continues past its chunk.
constexpr int carry_rounds = 8;

// Threads: a warp per chunk of 32 consecutive tiles; k = 1 only. Adds each run
// of tiles carrying the same row to y in one kernel (merge_chunk_sums and
// merge_fix_up, for any k, take two). The lane where a run starts sums the run's
// carries inside the chunk in tile order. A run still open at the chunk's end
// is continued by the whole warp, 32 · carry_rounds carries a round: the
// carries of one row are consecutive, so a tile belongs to the run exactly
// when it carries the run's row. Every sum has a fixed order and no two lanes
// touch the same row, so the bits repeat.
template <typename T>
__global__ void __launch_bounds__(VectorTile::threads)
    add_vector_carries(index_t tiles, const index_t* __restrict__ carry_rows,
                       const T* __restrict__ carries, T* __restrict__ y) {
  wait_for_prior_kernel();
  constexpr unsigned all = 0xffffffffu;
  const std::int64_t first = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32 * 32;
  if (first >= tiles) return;  // a whole warp leaves together
  const int lane = threadIdx.x % 32;
  const std::int64_t tile = first + lane;
  const index_t row = tile < tiles ? carry_rows[tile] : -1;
  const T carry = row >= 0 ? carries[tile] : T(0);
  index_t previous = __shfl_up_sync(all, row, 1);
  if (lane == 0) previous = first > 0 ? carry_rows[first - 1] : -1;
  index_t next = __shfl_down_sync(all, row, 1);
  if (lane == 31) next = first + 32 < tiles ? carry_rows[first + 32] : -1;
  const bool starts = row >= 0 && row != previous;
  const unsigned ends = __ballot_sync(all, row != next || lane == 31);
  const int last = lane + __ffs(ends >> lane) - 1;  // the run's last lane in the chunk
  T sum = T(0);
  for (int i = 0; i < 32; ++i) {
    const T c = __shfl_sync(all, carry, i);
    if (starts && i >= lane && i <= last) sum += c;
  }
  // The run that holds lane 31 goes on past the chunk: continued here if it
  // started here (otherwise the warp of its start continues it).
  const unsigned start_lanes = __ballot_sync(all, starts);
  const index_t open_row = __shfl_sync(all, row, 31);
  const bool continued = start_lanes != 0 && open_row >= 0 &&
                         __shfl_sync(all, next, 31) == open_row &&
                         __shfl_sync(all, row, 31 - __clz(start_lanes)) == open_row;
  T beyond = T(0);
  for (std::int64_t base = first + 32; continued;) {
    index_t rows[carry_rounds];
#pragma unroll
    for (int b = 0; b < carry_rounds; ++b) {
      const std::int64_t t = base + b * 32 + lane;
      rows[b] = t < tiles ? carry_rows[t] : -1;
    }
    T part = T(0);
#pragma unroll
    for (int b = 0; b < carry_rounds; ++b)
      if (rows[b] == open_row) part += carries[base + b * 32 + lane];
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) part += __shfl_down_sync(all, part, offset);
    beyond += part;  // lane 0's is the round's total
    if (__shfl_sync(all, rows[carry_rounds - 1], 31) != open_row) break;
    base += 32 * carry_rounds;
  }
  beyond = __shfl_sync(all, beyond, 0);
  if (starts) y[row] += row == open_row && continued ? sum + beyond : sum;
}

}  // namespace

template <typename T>
void merge_based_vector(const DeviceCsr<T>& A, const T* x, T* y, cudaStream_t stream) {
  MergePath<T> path(A, VectorTile::steps, 1, stream);
  search_path<32>(A, path, stream);
  launch_chained(merge_tile_vector<T>, path.segments, VectorTile::threads, 0, stream, A.rows,
                 path.boundaries.data(), A.row_ptr.data(), A.col_idx.data(), A.values.data(), x, y,
                 path.carries.data(), path.carry_rows.data());
  launch_chained(add_vector_carries<T>, blocks_for(path.segments, VectorTile::threads),
                 VectorTile::threads, 0, stream, path.segments, path.carry_rows.data(),
                 path.carries.data(), y);
}

template void merge_based_vector<float>(const DeviceCsr<float>&, const float*, float*,
                                        cudaStream_t);
template void merge_based_vector<double>(const DeviceCsr<double>&, const double*, double*,
                                         cudaStream_t);

}  // namespace binamg::spmm_detail
