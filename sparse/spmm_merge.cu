// Merge-based CSR × dense (Merrill & Garland's merge path, as used for SpMM by
// Yang, Buluç & Owens 2018). The work is the merge of the row-end offsets
// row_ptr[1..rows] with the nonzero positions 0..nnz-1: each step either
// consumes a nonzero or ends a row. Cutting that path into segments of equal
// length gives every lane group the same work however the row lengths vary.
// A row cut by a segment boundary leaves a partial sum (a carry) that a
// second pass adds to Y in segment order, so the result is deterministic.
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

// One thread per segment boundary s in [0, segments]: binary search along the
// diagonal rows+nonzeros = min(s·steps, rows+nnz) for the path point. Invariant:
// boundaries are non-decreasing in both coordinates, the last is (rows, nnz).
__global__ void merge_path_search(index_t rows, index_t nnz, index_t segments, index_t steps,
                                  const index_t* __restrict__ row_ptr,
                                  PathPoint* __restrict__ boundaries) {
  const std::int64_t s = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s > segments) return;
  const std::int64_t diagonal = min(s * steps, std::int64_t(rows) + nnz);
  std::int64_t low = max(diagonal - nnz, std::int64_t(0));
  std::int64_t high = min(diagonal, std::int64_t(rows));
  // Row `mid` ends before nonzero `diagonal-mid-1` is consumed when its end
  // offset is at most that position.
  while (low < high) {
    const std::int64_t mid = low + (high - low) / 2;
    if (row_ptr[mid + 1] <= diagonal - mid - 1)
      low = mid + 1;
    else
      high = mid;
  }
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

// Consecutive segments per chunk of carries (merge_chunk_sums).
constexpr int segments_per_chunk = 32;

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
  const std::int64_t last = first + segments_per_chunk;
  const index_t row = carry_rows[first];
  bool one_row = row >= 0 && last <= segments;
  for (std::int64_t s = first + 1; one_row && s < last; ++s) one_row = carry_rows[s] == row;
  if (threadIdx.x % L == 0 && blockIdx.y == 0) chunk_rows[chunk] = one_row ? row : -1;
  if (!one_row) return;
  const index_t first_column = blockIdx.y * SpmmPolicy::columns_per_pass + threadIdx.x % L;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const index_t c = first_column + r * L;
    if (!Exact && c >= k) continue;
    T total = T(0);
    for (std::int64_t s = first; s < last; ++s) total += carries[s * k + c];
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
  std::int64_t s = segment;
  while (s < segments && carry_rows[s] == row) {
    const std::int64_t chunk = s / segments_per_chunk;
    const bool whole_chunk = s % segments_per_chunk == 0 && chunk_rows[chunk] == row;
    const T* carry = whole_chunk ? chunk_sums + chunk * k : carries + s * k;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const index_t c = first_column + r * L;
      if (Exact || c < k) total[r] += carry[c];
    }
    s += whole_chunk ? segments_per_chunk : 1;
  }
  T* y = Y + std::int64_t(row) * k;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const index_t c = first_column + r * L;
    if (Exact || c < k) y[c] += total[r];
  }
}

template <typename T, int L, int R, bool Exact>
void launch_merge(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, cudaStream_t stream) {
  const index_t steps = merge_segment_steps(A.rows, A.nnz, k);
  const std::int64_t path = std::int64_t(A.rows) + A.nnz;
  const index_t segments = checked_index((path + steps - 1) / steps, "spmm merge segments");
  DeviceBuffer<PathPoint> boundaries(std::size_t(segments) + 1, stream, "spmm merge path");
  DeviceBuffer<T> carries(std::size_t(segments) * k, stream, "spmm merge carries");
  DeviceBuffer<index_t> carry_rows(segments, stream, "spmm merge carry rows");

  merge_path_search<<<blocks_for(std::int64_t(segments) + 1, SpmmPolicy::threads),
                      SpmmPolicy::threads, 0, stream>>>(A.rows, A.nnz, segments, steps,
                                                        A.row_ptr.data(), boundaries.data());
  BINAMG_CHECK_LAUNCH();
  const dim3 grid(blocks_for(std::int64_t(segments) * L, SpmmPolicy::threads),
                  static_cast<unsigned>((k + SpmmPolicy::columns_per_pass - 1) /
                                        SpmmPolicy::columns_per_pass));
  merge_walk<T, L, R, Exact><<<grid, SpmmPolicy::threads, 0, stream>>>(
      A.rows, k, segments, boundaries.data(), A.row_ptr.data(), A.col_idx.data(),
      A.values.data(), X, Y, carries.data(), carry_rows.data());
  BINAMG_CHECK_LAUNCH();
  const std::int64_t chunks = (std::int64_t(segments) + segments_per_chunk - 1) / segments_per_chunk;
  DeviceBuffer<T> chunk_sums(std::size_t(chunks) * k, stream, "spmm merge chunk sums");
  DeviceBuffer<index_t> chunk_rows(std::size_t(chunks), stream, "spmm merge chunk rows");
  merge_chunk_sums<T, L, R, Exact>
      <<<dim3(blocks_for(chunks * L, SpmmPolicy::threads), grid.y), SpmmPolicy::threads, 0,
         stream>>>(k, segments, carry_rows.data(), carries.data(), chunk_sums.data(),
                   chunk_rows.data());
  BINAMG_CHECK_LAUNCH();
  merge_fix_up<T, L, R, Exact><<<grid, SpmmPolicy::threads, 0, stream>>>(
      k, segments, carry_rows.data(), carries.data(), chunk_rows.data(), chunk_sums.data(), Y);
  BINAMG_CHECK_LAUNCH();
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
    case 1: return launch_merge<T, 1, 1>(A, X, k, Y, stream);
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
