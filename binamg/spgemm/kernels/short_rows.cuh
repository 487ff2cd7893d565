#pragma once
// Numeric pass for short rows (few products, e.g. small-stencil Poisson and
// the A·P of an AMG setup): a sub-warp per row, no hash table and no barrier
// per A entry. The row's products are expanded at once, sorted by (column,
// A-order position) and each run of equal columns is summed left to right,
// which is A's row order: the CPU reference's sum, bit for bit.
#include <cuda_runtime.h>

#include <cstring>

#include "binamg/spgemm/kernels/table_rows.cuh"
#include "binamg/spgemm/tuning.hpp"

namespace binamg::spgemm_detail {

/// kShortPositionBits bits number a product in its row (kShortMaxProducts at most).
constexpr int kShortPositionBits = 7;
static_assert((1 << kShortPositionBits) == kShortMaxProducts, "positions must fit their bits");

constexpr int log2_of_power(int value) { return value <= 1 ? 0 : 1 + log2_of_power(value / 2); }

/// Sorts the sub-warp's Width·Items keys ascending in registers,
/// blocked: lane l of the sub-warp holds elements l·Items .. l·Items+Items-1.
/// Bitonic network; pairs Items or more apart meet through a shuffle inside
/// the sub-warp (each lane keeps the minimum or the maximum), closer pairs
/// inside one lane. A lane's elements share the bits from Items up, so the
/// direction of a shuffle step, and of an in-lane step in blocks of Items or
/// more, is one predicate per lane rather than one per element. All 32
/// lanes of the warp take part.
template <int Items, int Width, typename Key>
__device__ __forceinline__ void sub_warp_sort_keys(Key (&keys)[Items], int lane) {
  constexpr int SizeLog2 = log2_of_power(Items * Width);
  static_assert((1 << SizeLog2) == Items * Width, "a power of two of keys");
  const int first = lane * Items;  // the lane's first element
  // Counted loops (not shifts) so that they unroll and keys[] stays in registers.
#pragma unroll
  for (int block_log2 = 1; block_log2 <= SizeLog2; ++block_log2) {
    const int block = 1 << block_log2;
#pragma unroll
    for (int stride_log2 = block_log2 - 1; stride_log2 >= 0; --stride_log2) {
      const int stride = 1 << stride_log2;
      if (stride >= Items) {
        const bool keep_min = ((first & stride) == 0) == ((first & block) == 0);
#pragma unroll
        for (int j = 0; j < Items; ++j) {
          const Key other =
              __shfl_xor_sync(0xffffffffu, keys[j], stride / Items, Width);
          const Key low = keys[j] < other ? keys[j] : other;
          const Key high = keys[j] < other ? other : keys[j];
          keys[j] = keep_min ? low : high;
        }
      } else {
#pragma unroll
        for (int j = 0; j < Items; ++j) {
          if ((j & stride) != 0) continue;
          const bool ascending = ((block >= Items ? first : first + j) & block) == 0;
          const Key low = keys[j] < keys[j + stride] ? keys[j] : keys[j + stride];
          const Key high = keys[j] < keys[j + stride] ? keys[j + stride] : keys[j];
          keys[j] = ascending ? low : high;
          keys[j + stride] = ascending ? high : low;
        }
      }
    }
  }
}

/// Stores a lane's kShortItems (4) consecutive slots with 16-byte stores:
/// the sub-warp's slots are contiguous, so the stores meet no bank conflict,
/// where four scalar stores kShortItems slots apart each meet a 4- to 8-way one.
template <typename V>
__device__ __forceinline__ void store_slots(V* to, const V (&from)[kShortItems]) {
  static_assert(kShortItems == 4 && (sizeof(V) == 4 || sizeof(V) == 8), "16-byte stores");
  if constexpr (sizeof(V) == 4) {
    uint4 packed;
    memcpy(&packed, from, sizeof(packed));
    *reinterpret_cast<uint4*>(to) = packed;
  } else {
    ulonglong2 low, high;
    memcpy(&low, from, sizeof(low));
    memcpy(&high, from + 2, sizeof(high));
    reinterpret_cast<ulonglong2*>(to)[0] = low;
    reinterpret_cast<ulonglong2*>(to)[1] = high;
  }
}

/// Numeric, short rows. Each sub-warp of Width lanes owns one row of the bin
/// (at most kShortMaxAEntries A entries and Width·kShortItems products and
/// entries; Block/Width rows per block) and shared slots for its entries and
/// products. The sub-warp scans the B row lengths, Width entries at a time,
/// and each entry writes its index into the slots of its products, so that
/// product q (A-order index) reads its entry. Lane l expands products
/// j·Width + l (j < kShortItems): a round's lanes gather consecutive products
/// of B, mostly from the same few rows, into consecutive slots. Keys are
/// (column << kShortPositionBits) | q, sorted in registers and stored back in
/// order with their values, so a run of equal columns is a range of slots
/// holding its products in A's order; lane r % Width sums run r's range left
/// to right (its bounds from the runs' first slots, placed by rank when the
/// heads are found), all runs at once, and writes it at rank r. Keys are
/// 32-bit when the columns leave room for the position (half the shuffles
/// and compares of 64-bit ones, the sort's cost). The kernel is bound by
/// its shared-memory wavefronts, shuffles and global tag lookups (ncu), so
/// the run heads come from registers and the sums read two slots per load.
/// Invariant: a run's sum equals the CPU's for that entry. Sub-warps past the
/// bin's end idle through their warp's shuffles. Sets *error if the number of
/// runs differs from C's nnz for the row; with `row_runs`, c_row_ptr gives
/// each row a room instead, the number of runs goes to row_runs[row] and
/// *error is set if they pass the room (which keeps the first; see
/// fused_product).
/// With 32-bit keys it keeps to 32 registers, so that 2048 threads fit an
/// SM (64-bit keys would spill).
template <int Block, int Width, typename Key, typename T>
__global__ void __launch_bounds__(Block, sizeof(Key) == 4 ? 2048 / Block : 1)
    numeric_short_rows_kernel(ProductOperands<T> in, const index_t* rows, index_t row_count,
                              const index_t* c_row_ptr, index_t* c_col, T* c_val, int* error,
                              index_t* row_runs) {
  constexpr unsigned kWarp = 0xffffffffu;
  constexpr int Rows = Block / Width;
  constexpr int Capacity = Width * kShortItems;
  constexpr int MaxEntries = Capacity < kShortMaxAEntries ? Capacity : kShortMaxAEntries;
  // A sub-warp's slots start Width banks after the previous one's, so that
  // the sub-warps of a warp reading slot j·Width + lane meet no bank conflict.
  constexpr int Stride = Width < 32 ? Capacity + Width : Capacity;
  __shared__ __align__(16) Key keys[Rows][Stride];
  __shared__ __align__(16) T values[Rows][Stride];
  // Per entry: B's position of its product q, less q, and its A value.
  __shared__ index_t entry_base[Rows][MaxEntries];
  __shared__ T entry_a[Rows][MaxEntries];
  // Each slot's entry until the products are expanded, then each run's first slot.
  __shared__ unsigned char slot_bytes[Rows][Capacity];
  static_assert(Capacity <= 256 && MaxEntries <= 256, "slots and entries fit a byte");
  const int group = threadIdx.x / Width;
  const int lane = threadIdx.x % Width;
  const index_t first_of_warp = index_t(blockIdx.x) * Rows + (threadIdx.x / 32) * (32 / Width);
  if (first_of_warp >= row_count) return;  // whole warps leave together
  const index_t slot = index_t(blockIdx.x) * Rows + group;
  const bool active = slot < row_count;
  const index_t row = active ? rows[slot] : 0;
  const index_t a_begin = active ? in.a_row_ptr[row] : 0;
  const int entries = active ? int(in.a_row_ptr[row + 1] - a_begin) : 0;
  // Loaded now, used at the end: their latency hides behind the row's work.
  const index_t start = active ? c_row_ptr[row] : 0;
  const index_t nnz = active ? c_row_ptr[row + 1] - start : 0;
  const unsigned sub_warp = group_mask<Width>();
  const unsigned lower_lanes = sub_warp & ((1u << (threadIdx.x % 32)) - 1u);

  // Offsets of the entries' products: a scan of the B row lengths, Width
  // entries per step (the loop runs to the warp's longest row: shuffles).
  const int warp_entries = int(__reduce_max_sync(kWarp, unsigned(entries)));
  index_t total = 0;
  for (int base = 0; base < warp_entries; base += Width) {
    const int e = base + lane;
    index_t b_begin = 0, length = 0;
    if (e < entries) {
      const index_t inner = in.a_col[a_begin + e];
      b_begin = in.b_row_ptr[inner];
      length = in.b_row_ptr[inner + 1] - b_begin;
      entry_a[group][e] = in.a_val[a_begin + e];
    }
    index_t inclusive = length;
#pragma unroll
    for (int step = 1; step < Width; step <<= 1) {
      const index_t before = __shfl_up_sync(kWarp, inclusive, step, Width);
      if (lane >= step) inclusive += before;
    }
    if (e < entries) {
      const index_t offset = total + inclusive - length;
      entry_base[group][e] = b_begin - offset;
      for (index_t q = offset; q < offset + length; ++q) slot_bytes[group][q] = (unsigned char)e;
    }
    total += __shfl_sync(kWarp, inclusive, Width - 1, Width);
  }
  __syncwarp();

  // Expand products j·Width + lane into sort keys (padding past `total` sorts
  // last) and their values.
  Key sorted[kShortItems];
#pragma unroll
  for (int j = 0; j < kShortItems; ++j) {
    const int q = j * Width + lane;
    sorted[j] = ~Key(0);
    if (q < total) {
      const int e = slot_bytes[group][q];
      const index_t p = entry_base[group][e] + q;
      values[group][q] = rounded_product(entry_a[group][e], in.b_val[p]);
      sorted[j] = (Key(unsigned(in.b_col[p])) << kShortPositionBits) | Key(q);
    }
  }
  __syncwarp();  // the values are read below by other lanes (racecheck)
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
  store_slots(&keys[group][lane * kShortItems], sorted);
  store_slots(&values[group][lane * kShortItems], ordered);

  // Run heads, the slots whose column differs from the previous slot's,
  // found in registers (the lane before holds the slot before a lane's
  // first): each goes to slot_bytes at its rank, the heads of lower lanes
  // (counted by bit planes of the lanes' head counts) and then its own.
  const Key last_before = __shfl_up_sync(kWarp, sorted[kShortItems - 1], 1, Width);
  unsigned own_heads = 0;
#pragma unroll
  for (int j = 0; j < kShortItems; ++j) {
    const int q = lane * kShortItems + j;
    const Key previous = j == 0 ? last_before : sorted[j - 1];
    const bool head = q < total && (q == 0 || (previous >> kShortPositionBits) !=
                                                  (sorted[j] >> kShortPositionBits));
    own_heads |= unsigned(head) << j;
  }
  const int own_runs = __popc(own_heads);
  int rank = 0, runs = 0;
#pragma unroll
  for (int bit = 0; (kShortItems >> bit) != 0; ++bit) {
    const unsigned set = __ballot_sync(kWarp, (own_runs >> bit) & 1) & sub_warp;
    rank += __popc(set & lower_lanes) << bit;
    runs += __popc(set) << bit;
  }
#pragma unroll
  for (int j = 0; j < kShortItems; ++j)
    if ((own_heads >> j) & 1) slot_bytes[group][rank++] = (unsigned char)(lane * kShortItems + j);
  __syncwarp();

  // Run r goes to lane r % Width: all runs are summed at once, each left to
  // right up to the next run's first slot (or the row's last product), two
  // slots per load, and written at rank r.
  struct alignas(2 * sizeof(T)) Pair {
    T first, second;
  };
  static_assert(Stride % 2 == 0, "a pair of slots from an even slot is aligned");
  for (int r = lane; r < runs && r < nnz; r += Width) {
    const int head = slot_bytes[group][r];
    const int end = r + 1 < runs ? int(slot_bytes[group][r + 1]) : int(total);
    T sum = values[group][head];
    int q = head + 1;
    if (q % 2 != 0 && q < end) sum += values[group][q++];
    for (; q + 1 < end; q += 2) {
      const Pair pair = *reinterpret_cast<const Pair*>(&values[group][q]);
      sum += pair.first;
      sum += pair.second;
    }
    if (q < end) sum += values[group][q];
    c_col[start + r] = index_t(keys[group][head] >> kShortPositionBits);
    c_val[start + r] = sum;
  }
  if (active && lane == 0) {
    if (row_runs != nullptr)
      row_runs[row] = runs;
    if (row_runs != nullptr ? runs > nnz : runs != nnz) atomicExch(error, 1);
  }
}

}  // namespace binamg::spgemm_detail
