#pragma once
// The passes over A's rows of the strength graph and the filtered matrix
// (internal): a group of L lanes per row (spmv/row_split.cuh), walking the row
// L consecutive entries at a time, so that a warp reads whole runs of A.
#include <cstdint>
#include <type_traits>

#include "binamg/core/types.hpp"
#include "binamg/sparse/device_csr.hpp"
#include "binamg/spmv/row_split.cuh"

namespace binamg::row_groups {

/// The lanes per row: the smallest power of two at or above an eighth of the
/// mean row, 2 to 32. On an H200 (docs/experiments.md) two lanes beat one on
/// the 5- to 9-entry rows of the stencils' finest levels, and four beat the
/// SpMV's 32 on the 25- to 27-entry rows of the 27-point stencil and the P2
/// tetrahedra (a warp then walks eight rows at once, not one).
template <typename T, typename Launch>
void with_lanes(const DeviceCsr<T>& A, Launch&& launch) {
  const double mean_row = A.rows > 0 ? double(A.nnz()) / A.rows : 0;
  int lanes = 2;
  while (lanes < 32 && 8.0 * lanes < mean_row) lanes *= 2;
  switch (lanes) {
    case 2: return launch(std::integral_constant<int, 2>{});
    case 4: return launch(std::integral_constant<int, 4>{});
    case 8: return launch(std::integral_constant<int, 8>{});
    case 16: return launch(std::integral_constant<int, 16>{});
    default: return launch(std::integral_constant<int, 32>{});
  }
}

/// Entries k of [begin, end) for which keep(k) holds, numbered in order: each
/// lane tests its entry of the chunk and a ballot gives it the slot after the
/// kept entries of the lanes below. Calls place(k, slot) for each kept entry
/// (slots from 0) and returns the number kept, in every lane of the group. The
/// whole group calls it with the same row.
template <int L, typename Keep, typename Place>
__device__ index_t compact_row(index_t begin, index_t end, Keep keep, Place place) {
  const unsigned mask = row_split::group_mask<L>();
  const unsigned lower_lanes = (1u << (threadIdx.x % 32)) - 1u;
  index_t kept = 0;
  for (index_t base = begin; base < end; base += L) {
    const index_t k = base + threadIdx.x % L;
    const bool keeps = k < end && keep(k);
    const unsigned ballot = __ballot_sync(mask, keeps) & mask;
    if (keeps) place(k, kept + index_t(__popc(ballot & lower_lanes)));
    kept += __popc(ballot);
  }
  return kept;
}

/// Adds each warp's `count` (one per group's lane 0, 0 elsewhere) to *total:
/// one atomic per warp, since an atomic per row serialises on the one address
/// (1.6 ms on 2M rows). Integer sums, so the total does not depend on the order.
/// Every lane of the warp must call it.
__device__ inline void add_warp_total(unsigned long long count, unsigned long long* total) {
  for (int offset = 16; offset > 0; offset /= 2)
    count += __shfl_down_sync(0xffffffffu, count, offset);
  if (threadIdx.x % 32 == 0 && count > 0) atomicAdd(total, count);
}

}  // namespace binamg::row_groups
