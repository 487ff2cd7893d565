#pragma once
// Numeric pass for short rows (few products, e.g. small-stencil Poisson): one
// warp per row, no hash table and no barrier per A entry. The row's products
// are expanded at once, sorted by (column, A-order position) and each run of
// equal columns is summed left to right, which is A's row order: the CPU
// reference's sum, bit for bit.
#include <cuda_runtime.h>

#include "spgemm/spgemm_kernels.cuh"

namespace binamg::spgemm_detail {

/// Rows go to the short-row kernel when they have at most this many A
/// entries (one per lane) and at most kShortCapacity products (the warp's
/// shared buffer); kShortPositionBits bits number a product in its row.
constexpr int kShortMaxAEntries = 32;
constexpr int kShortCapacity = 128;
constexpr int kShortPositionBits = 7;
static_assert((1 << kShortPositionBits) == kShortCapacity, "positions must fit their bits");

/// Sorts the warp's 32·Items 64-bit keys ascending in registers, blocked:
/// lane l holds elements l·Items .. l·Items+Items-1. Bitonic network; pairs
/// Items or more apart meet through a shuffle (each lane keeps the minimum
/// or the maximum), closer pairs inside one lane. All 32 lanes take part.
template <int Items>
__device__ __forceinline__ void warp_sort_keys(unsigned long long (&keys)[Items], int lane) {
  constexpr int SizeLog2 = Items == 1 ? 5 : Items == 2 ? 6 : 7;
  static_assert(Items == 1 || Items == 2 || Items == 4, "32, 64 or 128 keys");
  // Counted loops (not shifts) so that they unroll and keys[] stays in registers.
#pragma unroll
  for (int block_log2 = 1; block_log2 <= SizeLog2; ++block_log2) {
    const int block = 1 << block_log2;
#pragma unroll
    for (int stride_log2 = block_log2 - 1; stride_log2 >= 0; --stride_log2) {
      const int stride = 1 << stride_log2;
      if (stride >= Items) {
#pragma unroll
        for (int j = 0; j < Items; ++j) {
          const int element = lane * Items + j;
          const unsigned long long other =
              __shfl_xor_sync(0xffffffffu, keys[j], stride / Items);
          const bool ascending = (element & block) == 0;
          const bool lower = (element & stride) == 0;
          keys[j] = (lower == ascending) ? (keys[j] < other ? keys[j] : other)
                                         : (keys[j] < other ? other : keys[j]);
        }
      } else {
#pragma unroll
        for (int j = 0; j < Items; ++j) {
          if ((j & stride) != 0) continue;
          const bool ascending = ((lane * Items + j) & block) == 0;
          if ((keys[j] > keys[j + stride]) == ascending) {
            const unsigned long long low = keys[j];
            keys[j] = keys[j + stride];
            keys[j + stride] = low;
          }
        }
      }
    }
  }
}

/// Expands products lane·Items+j of the warp's row into sort keys (padding
/// past `total` sorts last), values[q] = a·b of product q; sorts the keys
/// and stores them, in order, to `sorted`.
template <int Items, typename T>
__device__ __forceinline__ void expand_and_sort(const ProductOperands<T>& in, int entries,
                                                int total, const index_t* entry_offset,
                                                const index_t* entry_b_begin,
                                                const T* entry_a, T* values,
                                                unsigned long long* sorted, int lane) {
  using Key = unsigned long long;
  Key keys[Items];
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const int q = lane * Items + j;
    keys[j] = ~Key(0);
    if (q < total) {
      int low = 0, high = entries - 1;  // last entry starting at or before q
      while (low < high) {
        const int mid = (low + high + 1) / 2;
        if (entry_offset[mid] <= q) low = mid; else high = mid - 1;
      }
      const index_t p = entry_b_begin[low] + (q - entry_offset[low]);
      values[q] = product(entry_a[low], in.b_val[p]);
      keys[j] = (Key(unsigned(in.b_col[p])) << kShortPositionBits) | Key(q);
    }
  }
  warp_sort_keys<Items>(keys, lane);
#pragma unroll
  for (int j = 0; j < Items; ++j) sorted[lane * Items + j] = keys[j];
}

/// Numeric, short rows. Each warp owns one row of the bin (rows of at most
/// kShortMaxAEntries A entries and kShortCapacity products) and a shared
/// buffer of kShortCapacity (key, value) slots. Lane k reads A entry k; the
/// warp scans the B row lengths so that product q (A-order index) knows its
/// entry by binary search. Keys are (column << kShortPositionBits) | q,
/// sorted in registers (warp_sort_keys) and stored back in order, so a run of
/// equal columns lists its products in A's order; the run's first slot sums
/// the run left to right and writes it at the rank of the run. Invariant: a run's sum equals the CPU's for that entry.
/// Sets *error if the number of runs differs from C's nnz for the row.
template <int Block, typename T>
__global__ void __launch_bounds__(Block)
    numeric_short_rows_kernel(ProductOperands<T> in, const index_t* rows, index_t row_count,
                              const index_t* c_row_ptr, index_t* c_col, T* c_val, int* error) {
  using Key = unsigned long long;
  constexpr int Warps = Block / 32;
  __shared__ Key keys[Warps][kShortCapacity];
  __shared__ T values[Warps][kShortCapacity];
  __shared__ index_t entry_offset[Warps][kShortMaxAEntries];
  __shared__ index_t entry_b_begin[Warps][kShortMaxAEntries];
  __shared__ T entry_a[Warps][kShortMaxAEntries];
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const index_t slot = index_t(blockIdx.x) * Warps + warp;
  if (slot >= row_count) return;  // whole warps leave together
  const index_t row = rows[slot];

  const index_t a_begin = in.a_row_ptr[row];
  const int entries = int(in.a_row_ptr[row + 1] - a_begin);
  index_t length = 0;
  if (lane < entries) {
    const index_t inner = in.a_col[a_begin + lane];
    const index_t b_begin = in.b_row_ptr[inner];
    length = in.b_row_ptr[inner + 1] - b_begin;
    entry_b_begin[warp][lane] = b_begin;
    entry_a[warp][lane] = in.a_val[a_begin + lane];
  }
  index_t inclusive = length;
  for (int step = 1; step < 32; step <<= 1) {
    const index_t before = __shfl_up_sync(0xffffffffu, inclusive, step);
    if (lane >= step) inclusive += before;
  }
  if (lane < entries) entry_offset[warp][lane] = inclusive - length;
  const int total = __shfl_sync(0xffffffffu, inclusive, 31);
  __syncwarp();

  // Warp-uniform choice of the register sort's size (32, 64 or 128 keys).
  if (total <= 32)
    expand_and_sort<1>(in, entries, total, entry_offset[warp], entry_b_begin[warp],
                       entry_a[warp], values[warp], keys[warp], lane);
  else if (total <= 64)
    expand_and_sort<2>(in, entries, total, entry_offset[warp], entry_b_begin[warp],
                       entry_a[warp], values[warp], keys[warp], lane);
  else
    expand_and_sort<4>(in, entries, total, entry_offset[warp], entry_b_begin[warp],
                       entry_a[warp], values[warp], keys[warp], lane);
  __syncwarp();

  const index_t start = c_row_ptr[row];
  const index_t nnz = c_row_ptr[row + 1] - start;
  constexpr Key position_mask = (Key(1) << kShortPositionBits) - 1;
  index_t written = 0;
  for (int base = 0; base < total; base += 32) {
    const int q = base + lane;
    const Key key = q < total ? keys[warp][q] : ~Key(0);
    const Key column = key >> kShortPositionBits;
    const bool head =
        q < total && (q == 0 || (keys[warp][q - 1] >> kShortPositionBits) != column);
    const unsigned heads = __ballot_sync(0xffffffffu, head);
    if (head) {
      T sum = values[warp][key & position_mask];
      for (int r = q + 1; r < total && (keys[warp][r] >> kShortPositionBits) == column; ++r)
        sum += values[warp][keys[warp][r] & position_mask];
      const index_t rank = written + __popc(heads & ((1u << lane) - 1u));
      if (rank < nnz) {
        c_col[start + rank] = index_t(column);
        c_val[start + rank] = sum;
      }
    }
    written += __popc(heads);
  }
  if (lane == 0 && written != nnz) atomicExch(error, 1);
}

}  // namespace binamg::spgemm_detail
