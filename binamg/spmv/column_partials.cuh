#pragma once
// The second stage of the column reductions over row-major blocks: per-block
// partial sums of k columns (partial[b·k + column]) added into one value per
// column in a fixed order, so the result's bits depend only on the shape.
#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <cstdint>

#include "binamg/core/chained_launch.cuh"
#include "binamg/core/cuda_check.hpp"
#include "binamg/core/types.hpp"

namespace binamg::column_partials {

constexpr int threads = 256;
// Partials one block adds per column. More rows than this are added in two
// launches (segments of this many, then the segments' sums), so that a long
// column is read by many blocks instead of one.
constexpr unsigned segment_rows = 1024;

// Block (column, segment) adds entries b in [segment · rows_per_segment, +rows_per_segment)
// ∩ [0, rows) of the column, partial[b · step · k + column], in a fixed order, and
// writes result[segment · result_stride + column].
template <typename T>
__global__ void sum_kernel(unsigned rows, unsigned rows_per_segment, unsigned step, index_t k,
                           const T* partial, T* result, std::int64_t result_stride) {
  wait_for_prior_kernel();
  using Reduce = cub::BlockReduce<T, threads>;
  __shared__ typename Reduce::TempStorage storage;
  const index_t column = blockIdx.x;
  const unsigned begin = blockIdx.y * rows_per_segment;
  const unsigned end = min(rows, begin + rows_per_segment);
  T sum = T(0);
  for (unsigned b = begin + threadIdx.x; b < end; b += threads)
    sum += partial[std::int64_t(b) * step * k + column];
  const T total = Reduce(storage).Sum(sum);
  if (threadIdx.x == 0) result[blockIdx.y * result_stride + column] = total;
}

/// result[c] = Σ_b partial[b·k + c] over b < row_blocks, for c < k (device
/// memory). With more than segment_rows partials, the first launch leaves each
/// segment's sum in the segment's first partial row (partial is overwritten).
template <typename T>
void sum(unsigned row_blocks, index_t k, T* partial, T* result, cudaStream_t stream) {
  if (row_blocks <= segment_rows) {
    launch_chained(sum_kernel<T>, dim3(static_cast<unsigned>(k), 1), threads, 0, stream, row_blocks,
                   row_blocks, 1u, k, partial, result, std::int64_t(0));
    return;
  }
  const unsigned segments = (row_blocks + segment_rows - 1) / segment_rows;
  launch_chained(sum_kernel<T>, dim3(static_cast<unsigned>(k), segments), threads, 0, stream,
                 row_blocks, segment_rows, 1u, k, partial, partial, std::int64_t(segment_rows) * k);
  launch_chained(sum_kernel<T>, dim3(static_cast<unsigned>(k), 1), threads, 0, stream, segments,
                 segments, segment_rows, k, partial, result, std::int64_t(0));
}

}  // namespace binamg::column_partials
