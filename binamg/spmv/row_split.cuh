#pragma once
// Device side of the kernels that give each CSR row a group of L lanes, the
// row-split SpMV's layout (a warp reads whole rows at once): smoothers, the ρ
// estimate and the V-cycle's fused steps use it with their own epilogues.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "binamg/sparse/device_csr.hpp"
#include "binamg/spmv/spmm_kernels.hpp"

namespace binamg::row_split {

constexpr int threads = 256;  // per block; L divides it, so no group straddles a warp

/// The lanes of this thread's aligned group of L inside its warp.
template <int L>
__device__ unsigned group_mask() {
  if constexpr (L == 32) {
    return 0xffffffffu;
  } else {
    const unsigned first = (threadIdx.x % 32) / L * L;
    return ((1u << L) - 1u) << first;
  }
}

/// The row of the calling thread's group (past the last row: whole groups leave together).
template <int L>
__device__ std::int64_t group_row() {
  return (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / L;
}

/// Rows longer than this are summed by a whole block instead of a group of L
/// lanes (row_stream::row_sums_kernel, block_row_split::long_rows_kernel): more than 64
/// chunks of L nonzeros, and more than 16 mean rows, so that only outliers (the
/// hubs of a power-law graph, which one group would walk while the rest of the
/// GPU idles) qualify, and a matrix of uniformly long rows keeps a group per row.
inline index_t long_row_length(index_t rows, std::int64_t nnz, int L) {
  const double mean = rows > 0 ? double(nnz) / rows : 0;
  const double length = std::max(64.0 * L, 16.0 * mean);
  return static_cast<index_t>(std::min(length, double(std::numeric_limits<index_t>::max())));
}

/// The long-row length the kernels take to mean "no row of A is long": they skip
/// the check, and the launch or block barrier behind it, altogether.
constexpr index_t no_long_rows = std::numeric_limits<index_t>::max();

/// long_row_length for A, or no_long_rows when A's longest row is known and not
/// longer.
template <typename T>
index_t long_rows_of(const DeviceCsr<T>& A, int L) {
  const index_t length = long_row_length(A.rows, A.nnz(), L);
  return A.max_row_length >= 0 && A.max_row_length <= length ? no_long_rows : length;
}

/// Σ_k a_k·x_of(c_k) over [begin, end): lane l takes entries l, l+L, ... in order,
/// then the group adds its partials in a fixed shuffle tree; lane 0 holds the
/// sum. The same bits on every run. `Sum` is the accumulation type; col_idx and
/// values are the arrays or what indexes like them (row_stream.cuh's packed
/// columns and coded values).
template <typename Sum, int L, typename Cols, typename Vals, typename Gather>
__device__ Sum row_sum(index_t begin, index_t end, Cols col_idx, Vals values, Gather x_of) {
  const int lane = threadIdx.x % L;
  Sum sum = 0;
  for (index_t k = begin + lane; k < end; k += L) {
    const Sum x = x_of(col_idx[k]);
    sum += Sum(values[k]) * x;
  }
  if constexpr (L > 1) {
    const unsigned mask = group_mask<L>();
#pragma unroll
    for (int offset = L / 2; offset > 0; offset /= 2)
      sum += __shfl_down_sync(mask, sum, offset, L);
  }
  return sum;
}

/// The largest of the group's L values, in lane 0 (max is order-free, so any tree
/// gives the same result).
template <int L, typename V>
__device__ V group_max(V value) {
  if constexpr (L > 1) {
    const unsigned mask = group_mask<L>();
#pragma unroll
    for (int offset = L / 2; offset > 0; offset /= 2)
      value = max(value, __shfl_down_sync(mask, value, offset, L));
  }
  return value;
}

/// Calls launch(std::integral_constant<int, L>{}) with the SpMV's lanes per row
/// for A (the power of two at or above the mean row length, 2..32).
template <typename T, typename Launch>
void with_lanes(const DeviceCsr<T>& A, Launch&& launch) {
  switch (spmm_detail::spmv_lanes_per_row(A.rows, A.nnz())) {
    case 2: return launch(std::integral_constant<int, 2>{});
    case 4: return launch(std::integral_constant<int, 4>{});
    case 8: return launch(std::integral_constant<int, 8>{});
    case 16: return launch(std::integral_constant<int, 16>{});
    default: return launch(std::integral_constant<int, 32>{});
  }
}

/// Blocks for a group of L lanes per row.
inline unsigned blocks(index_t rows, int lanes) {
  return static_cast<unsigned>((std::int64_t(rows) * lanes + threads - 1) / threads);
}

}  // namespace binamg::row_split
