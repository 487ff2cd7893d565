#pragma once
// Numeric pass for short rows (few products, e.g. small-stencil Poisson and
// the A·P of an AMG setup): a sub-warp per row, no hash table and no barrier
// per A entry. The row's products are expanded at once, sorted by (column,
// A-order position) and each run of equal columns is summed left to right,
// which is A's row order: the CPU reference's sum, bit for bit.
#include <cuda_runtime.h>

#include "spgemm/spgemm_kernels.cuh"
#include "spgemm/spgemm_policy_gpu.hpp"

namespace binamg::spgemm_detail {

/// kShortPositionBits bits number a product in its row (kShortMaxProducts at most).
constexpr int kShortPositionBits = 7;
static_assert((1 << kShortPositionBits) == kShortMaxProducts, "positions must fit their bits");

constexpr int log2_of_power(int value) { return value <= 1 ? 0 : 1 + log2_of_power(value / 2); }

/// Position of the n-th (from 0) set bit of the Words·32-bit mask `bits`
/// (word w holds bits 32w ..); the mask has more than n set bits.
template <int Words>
__device__ __forceinline__ int nth_set_bit(const unsigned (&bits)[Words], int n) {
  int word = 0;
  unsigned mask = bits[0];
#pragma unroll
  for (int w = 1; w < Words; ++w) {
    const int below = __popc(mask);
    if (word == w - 1 && n >= below) {
      n -= below;
      word = w;
      mask = bits[w];
    }
  }
  int position = 0;
#pragma unroll
  for (int width = 16; width > 0; width >>= 1) {
    const int low = __popc(mask & ((1u << width) - 1u));
    if (n >= low) {
      n -= low;
      mask >>= width;
      position += width;
    }
  }
  return word * 32 + position;
}

/// Sorts the sub-warp's Width·Items keys ascending in registers,
/// blocked: lane l of the sub-warp holds elements l·Items .. l·Items+Items-1.
/// Bitonic network; pairs Items or more apart meet through a shuffle inside
/// the sub-warp (each lane keeps the minimum or the maximum), closer pairs
/// inside one lane. All 32 lanes of the warp take part.
template <int Items, int Width, typename Key>
__device__ __forceinline__ void sub_warp_sort_keys(Key (&keys)[Items], int lane) {
  constexpr int SizeLog2 = log2_of_power(Items * Width);
  static_assert((1 << SizeLog2) == Items * Width, "a power of two of keys");
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
          const Key other =
              __shfl_xor_sync(0xffffffffu, keys[j], stride / Items, Width);
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
            const Key low = keys[j];
            keys[j] = keys[j + stride];
            keys[j + stride] = low;
          }
        }
      }
    }
  }
}

/// Numeric, short rows. Each sub-warp of Width lanes owns one row of the bin
/// (at most kShortMaxAEntries A entries and Width·kShortItems products and
/// entries; Block/Width rows per block) and shared slots for its entries and
/// products. The sub-warp scans the B row lengths, Width entries at a time,
/// and each entry marks the slot of its first product, so that product q
/// (A-order index) finds its entry by a running maximum over the slots. Keys
/// are (column << kShortPositionBits) | q, sorted in registers and stored
/// back in order with their values, so a run of equal columns is a range of
/// slots holding its products in A's order; lane r % Width sums run r's range
/// left to right (its bounds from the run heads' bits), all runs at once,
/// and writes it at rank r. Keys are 32-bit when the columns leave room for the
/// position (half the shuffles and compares of 64-bit ones, the sort's cost).
/// Invariant: a run's sum equals the CPU's for that entry. Sub-
/// warps past the bin's end idle through their warp's shuffles. Sets *error
/// if the number of runs differs from C's nnz for the row; with `row_runs`,
/// c_row_ptr gives each row room for its products instead, and the number of
/// runs goes to row_runs[row] (see fused_short_product).
template <int Block, int Width, typename Key, typename T>
__global__ void __launch_bounds__(Block)
    numeric_short_rows_kernel(ProductOperands<T> in, const index_t* rows, index_t row_count,
                              const index_t* c_row_ptr, index_t* c_col, T* c_val, int* error,
                              index_t* row_runs) {
  constexpr unsigned kWarp = 0xffffffffu;
  constexpr int Rows = Block / Width;
  constexpr int Capacity = Width * kShortItems;
  constexpr int MaxEntries = Capacity < kShortMaxAEntries ? Capacity : kShortMaxAEntries;
  __shared__ Key keys[Rows][Capacity];
  __shared__ T values[Rows][Capacity];
  __shared__ index_t entry_offset[Rows][MaxEntries];
  __shared__ index_t entry_b_begin[Rows][MaxEntries];
  __shared__ T entry_a[Rows][MaxEntries];
  const int group = threadIdx.x / Width;
  const int lane = threadIdx.x % Width;
  const index_t first_of_warp = index_t(blockIdx.x) * Rows + (threadIdx.x / 32) * (32 / Width);
  if (first_of_warp >= row_count) return;  // whole warps leave together
  const index_t slot = index_t(blockIdx.x) * Rows + group;
  const bool active = slot < row_count;
  const index_t row = active ? rows[slot] : 0;
  const index_t a_begin = active ? in.a_row_ptr[row] : 0;
  const int entries = active ? int(in.a_row_ptr[row + 1] - a_begin) : 0;

  // Offsets of the entries' products: a scan of the B row lengths, Width
  // entries per step (the loop runs to the warp's longest row: shuffles).
  const int warp_entries = int(__reduce_max_sync(kWarp, unsigned(entries)));
  index_t total = 0;
  for (int base = 0; base < warp_entries; base += Width) {
    const int e = base + lane;
    index_t length = 0;
    if (e < entries) {
      const index_t inner = in.a_col[a_begin + e];
      const index_t b_begin = in.b_row_ptr[inner];
      length = in.b_row_ptr[inner + 1] - b_begin;
      entry_b_begin[group][e] = b_begin;
      entry_a[group][e] = in.a_val[a_begin + e];
    }
    index_t inclusive = length;
#pragma unroll
    for (int step = 1; step < Width; step <<= 1) {
      const index_t before = __shfl_up_sync(kWarp, inclusive, step, Width);
      if (lane >= step) inclusive += before;
    }
    if (e < entries) entry_offset[group][e] = total + inclusive - length;
    total += __shfl_sync(kWarp, inclusive, Width - 1, Width);
  }
  __syncwarp();

  // The entry of product q, the last entry starting at or before q: each
  // entry marks the slot of its first product (of the entries starting
  // there, only the last has products), and a running maximum over the
  // slots, lane·kShortItems+j in order, carries it on. `keys` holds the marks
  // until the sorted keys replace them.
#pragma unroll
  for (int j = 0; j < kShortItems; ++j) keys[group][lane * kShortItems + j] = Key(0);
  __syncwarp();
  for (int e = lane; e < entries; e += Width) {
    const index_t offset = entry_offset[group][e];
    if (offset < total && (e + 1 == entries || entry_offset[group][e + 1] != offset))
      keys[group][offset] = Key(e);
  }
  __syncwarp();
  int entry_of[kShortItems];
  int running = 0;
#pragma unroll
  for (int j = 0; j < kShortItems; ++j) {
    running = max(running, int(keys[group][lane * kShortItems + j]));
    entry_of[j] = running;
  }
#pragma unroll
  for (int step = 1; step < Width; step <<= 1) {
    const int before = __shfl_up_sync(kWarp, running, step, Width);
    if (lane >= step) running = max(running, before);
  }
  const int from_before = __shfl_up_sync(kWarp, running, 1, Width);  // every lane shuffles
  const int before_lane = lane > 0 ? from_before : 0;

  // Expand products lane·kShortItems+j into sort keys (padding past `total`
  // sorts last) and their values, sort, store the keys in order.
  Key sorted[kShortItems];
#pragma unroll
  for (int j = 0; j < kShortItems; ++j) {
    const int q = lane * kShortItems + j;
    sorted[j] = ~Key(0);
    if (q < total) {
      const int e = max(entry_of[j], before_lane);
      const index_t p = entry_b_begin[group][e] + (q - entry_offset[group][e]);
      values[group][q] = product(entry_a[group][e], in.b_val[p]);
      sorted[j] = (Key(unsigned(in.b_col[p])) << kShortPositionBits) | Key(q);
    }
  }
  sub_warp_sort_keys<kShortItems, Width, Key>(sorted, lane);
  // Keys and values in sorted order: a run of equal columns is then a range
  // of consecutive slots, its values read without going through its keys.
  constexpr Key position_mask = (Key(1) << kShortPositionBits) - 1;
  T ordered[kShortItems];
#pragma unroll
  for (int j = 0; j < kShortItems; ++j) {
    const int q = lane * kShortItems + j;
    ordered[j] = q < total ? values[group][sorted[j] & position_mask] : T(0);
  }
  __syncwarp();  // every value is read before any is overwritten
#pragma unroll
  for (int j = 0; j < kShortItems; ++j) {
    keys[group][lane * kShortItems + j] = sorted[j];
    values[group][lane * kShortItems + j] = ordered[j];
  }
  __syncwarp();

  // Run heads as bits of the sub-warp's slots, word q / 32, bit q % 32.
  constexpr int HeadWords = (Capacity + 31) / 32;
  const unsigned warp_lane = threadIdx.x % 32;
  const unsigned sub_warp = group_mask<Width>();
  const unsigned group_shift = warp_lane & ~unsigned(Width - 1);
  unsigned head_bits[HeadWords] = {};
#pragma unroll
  for (int base = 0; base < Capacity; base += Width) {
    const int q = base + lane;
    const bool head =
        q < total && (q == 0 || (keys[group][q - 1] >> kShortPositionBits) !=
                                    (keys[group][q] >> kShortPositionBits));
    const unsigned heads = (__ballot_sync(kWarp, head) & sub_warp) >> group_shift;
    head_bits[base / 32] |= heads << (base % 32);
  }

  // Run r goes to lane r % Width: all runs are summed at once, each left to
  // right up to the next head (or the row's last product), and written at
  // rank r.
  int runs = 0;
#pragma unroll
  for (int w = 0; w < HeadWords; ++w) runs += __popc(head_bits[w]);
  const index_t start = active ? c_row_ptr[row] : 0;
  const index_t nnz = active ? c_row_ptr[row + 1] - start : 0;
  for (int r = lane; r < runs && r < nnz; r += Width) {
    const int head = nth_set_bit(head_bits, r);
    const int end = r + 1 < runs ? nth_set_bit(head_bits, r + 1) : int(total);
    T sum = values[group][head];
    for (int q = head + 1; q < end; ++q) sum += values[group][q];
    c_col[start + r] = index_t(keys[group][head] >> kShortPositionBits);
    c_val[start + r] = sum;
  }
  if (active && lane == 0) {
    if (row_runs != nullptr)
      row_runs[row] = runs;
    else if (runs != nnz)
      atomicExch(error, 1);
  }
}

}  // namespace binamg::spgemm_detail
