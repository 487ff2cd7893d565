#pragma once
// The second stage of the column reductions over row-major blocks: per-block
// partial sums of k columns (partial[b·k + column]) added into one value per
// column in a fixed order, so the result's bits depend only on the shape.
#include <cub/block/block_reduce.cuh>

#include <cstdint>

#include "core/cuda_check.hpp"
#include "core/types.hpp"

namespace binamg::column_partials {

constexpr int threads = 256;

// One block per column: the column's partials summed in a fixed order.
template <typename T>
__global__ void sum_kernel(unsigned row_blocks, index_t k, const T* partial, T* result) {
  using Reduce = cub::BlockReduce<T, threads>;
  __shared__ typename Reduce::TempStorage storage;
  const index_t column = blockIdx.x;
  T sum = T(0);
  for (unsigned b = threadIdx.x; b < row_blocks; b += threads)
    sum += partial[std::int64_t(b) * k + column];
  const T total = Reduce(storage).Sum(sum);
  if (threadIdx.x == 0) result[column] = total;
}

/// result[c] = Σ_b partial[b·k + c] over b < row_blocks, for c < k (device memory).
template <typename T>
void sum(unsigned row_blocks, index_t k, const T* partial, T* result, cudaStream_t stream) {
  sum_kernel<<<static_cast<unsigned>(k), threads, 0, stream>>>(row_blocks, k, partial, result);
  BINAMG_CHECK_LAUNCH();
}

}  // namespace binamg::column_partials
