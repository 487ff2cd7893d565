// Merge-based SpMV (k = 1) in tiles of a thread block, Merrill & Garland's own
// layout for the merge path of sparse/merge_path.cuh.
#include <cub/block/block_scan.cuh>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "sparse/merge_path.cuh"
#include "sparse/spmm_kernels.hpp"

namespace binamg::spmm_detail {
namespace {

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
// spmm_merge.cu's merge_walk), added by add_carries.
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

}  // namespace

template <typename T>
void merge_based_vector(const DeviceCsr<T>& A, const T* x, T* y, cudaStream_t stream) {
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

template void merge_based_vector<float>(const DeviceCsr<float>&, const float*, float*,
                                        cudaStream_t);
template void merge_based_vector<double>(const DeviceCsr<double>&, const double*, double*,
                                         cudaStream_t);

}  // namespace binamg::spmm_detail
