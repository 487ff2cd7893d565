#pragma once
// Stage 3 of the binned SpGEMM: per-bin kernels for the symbolic phase (count
// each row's distinct columns) and the numeric phase (accumulate in A's row
// order, sort by column, write the row of C).
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cuda_runtime.h>

#include <cstddef>

#include "binamg/core/types.hpp"
#include "binamg/spgemm/kernels/hash.cuh"
#include "binamg/spgemm/tuning.hpp"

namespace binamg::spgemm_detail {

/// The sparsity patterns the symbolic kernels read.
struct PatternOperands {
  const index_t* a_row_ptr;
  const index_t* a_col;
  const index_t* b_row_ptr;
  const index_t* b_col;
};

/// The inputs the numeric kernels read.
template <typename T>
struct ProductOperands {
  const index_t* a_row_ptr;
  const index_t* a_col;
  const T* a_val;
  const index_t* b_row_ptr;
  const index_t* b_col;
  const T* b_val;
};

/// The A entry (lane of the G-lane group's batch) that product q of the
/// batch belongs to: the first lane whose inclusive end offset passes q.
/// All lanes of the group take part.
template <int G>
__device__ __forceinline__ int entry_of_product(index_t end_offset, index_t q, unsigned lanes) {
  int low = 0;
#pragma unroll
  for (int step = G / 2; step > 0; step >>= 1)
    if (__shfl_sync(lanes, end_offset, low + step - 1, G) <= q) low += step;
  return low;
}

/// Calls visit(column) for every product of A(row,:)·B with the block's Block
/// threads: A's entries Block at a time and a block scan of their B row
/// lengths. While no B row of the batch passes balanced_length, sub-groups
/// of sub_width lanes take the entries round robin, each sharing one B row
/// (RMerge-style partial warps); otherwise product q goes to thread
/// q % Block (its entry found by binary search in shared memory), so a row
/// whose products pile onto a few long B rows (power-law graphs) keeps
/// every thread busy. Order is free: callers count distinct columns.
template <int Block, typename Visit>
__device__ void for_each_product_of_row(const PatternOperands& in, index_t row, int sub_width,
                                        index_t balanced_length,
                                        index_t (&entry_end)[Block],
                                        index_t (&entry_b_begin)[Block],
                                        typename cub::BlockScan<index_t, Block>::TempStorage& scan,
                                        Visit&& visit) {
  const index_t a_end = in.a_row_ptr[row + 1];
  for (index_t k0 = in.a_row_ptr[row]; k0 < a_end; k0 += Block) {
    index_t b_begin = 0, length = 0;
    if (k0 + index_t(threadIdx.x) < a_end) {
      const index_t inner = in.a_col[k0 + threadIdx.x];
      b_begin = in.b_row_ptr[inner];
      length = in.b_row_ptr[inner + 1] - b_begin;
    }
    index_t end = 0, total = 0;
    cub::BlockScan<index_t, Block>(scan).InclusiveSum(length, end, total);
    entry_end[threadIdx.x] = end;
    entry_b_begin[threadIdx.x] = b_begin - (end - length);  // B position of product 0
    if (__syncthreads_and(length <= balanced_length)) {
      const int entries = a_end - k0 < Block ? int(a_end - k0) : Block;
      for (int e = int(threadIdx.x) / sub_width; e < entries; e += Block / sub_width) {
        const index_t start = e == 0 ? 0 : entry_end[e - 1];
        for (index_t q = start + threadIdx.x % sub_width; q < entry_end[e]; q += sub_width)
          visit(in.b_col[entry_b_begin[e] + q]);
      }
    } else {
      for (index_t q = threadIdx.x; q < total; q += Block) {
        int low = 0;  // first entry whose end passes q
#pragma unroll
        for (int step = Block / 2; step > 0; step >>= 1)
          if (entry_end[low + step - 1] <= q) low += step;
        visit(in.b_col[entry_b_begin[low] + q]);
      }
    }
    __syncthreads();  // the next batch rewrites the entries and the scan storage
  }
}

/// Threads of a symbolic block: the group for block-wide groups, else kSmallBlock.
template <int G>
constexpr int symbolic_block_threads() { return G > 32 ? G : kSmallBlock; }

/// Symbolic, shared-memory bins (`rows` lists the bin's rows; null: rows 0 ..
/// row_count-1). Each group of G lanes owns one row of the
/// bin (blockDim.x / G rows per block) and a table of `table_size` keys,
/// at least min(the row's product count, cols(B)), so it cannot overflow.
/// Groups of up to a warp take A's entries G at a time, lane e loading entry
/// e's B row bounds, and then the batch's products Items per lane (product
/// q's entry found by shuffles): the loads of a row are in flight together
/// rather than one A entry after another, which measured faster on 2D 9-point
/// squared than that or spreading over one entry's B row at a time
/// (docs/experiments.md).
/// Block-wide groups (one row per block) walk the row's products with
/// for_each_product_of_row. Writes nnz(C row). The launch bounds ask for 2048
/// resident threads per SM (32 registers), the occupancy the hash inserts'
/// latency needs.
template <int G>
__global__ void __launch_bounds__(symbolic_block_threads<G>(), 2048 / symbolic_block_threads<G>())
    symbolic_shared_kernel(PatternOperands in, const index_t* rows,
                                       index_t row_count, int table_size, int sub_width,
                                       index_t balanced_length, index_t* row_nnz) {
  constexpr int Items = 4;
  constexpr int BlockWide = G > 32 ? G : 1;  // shared arrays of block-wide groups
  extern __shared__ index_t symbolic_keys[];
  __shared__ index_t block_count;
  __shared__ index_t entry_end[BlockWide];
  __shared__ index_t entry_b_begin[BlockWide];
  __shared__ typename cub::BlockScan<index_t, BlockWide>::TempStorage scan;
  const int group = threadIdx.x / G;
  const int lane = threadIdx.x % G;
  const index_t slot_in_bin = index_t(blockIdx.x) * (blockDim.x / G) + group;
  if (slot_in_bin >= row_count) return;
  const index_t row = rows != nullptr ? rows[slot_in_bin] : slot_in_bin;
  index_t* keys = symbolic_keys + std::size_t(group) * table_size;
  const unsigned mask = unsigned(table_size - 1);
  for (int i = lane; i < table_size; i += G) keys[i] = kEmptyKey;
  if constexpr (G > 32) {
    if (lane == 0) block_count = 0;
  }
  group_sync<G>();

  index_t count = 0;
  if constexpr (G > 32) {
    for_each_product_of_row<G>(in, row, sub_width, balanced_length, entry_end, entry_b_begin,
                               scan, [&](index_t col) { count += insert_key(keys, mask, col); });
    atomicAdd(&block_count, count);
    __syncthreads();
    if (lane == 0) row_nnz[row] = block_count;
  } else {
    const unsigned lanes = group_mask<G>();
    const index_t a_end = in.a_row_ptr[row + 1];
    for (index_t k0 = in.a_row_ptr[row]; k0 < a_end; k0 += G) {
      index_t b_begin = 0, length = 0;
      if (k0 + lane < a_end) {
        const index_t inner = in.a_col[k0 + lane];
        b_begin = in.b_row_ptr[inner];
        length = in.b_row_ptr[inner + 1] - b_begin;
      }
      index_t end_offset = length;  // inclusive scan of the batch's B row lengths
#pragma unroll
      for (int step = 1; step < G; step <<= 1) {
        const index_t before = __shfl_up_sync(lanes, end_offset, step, G);
        if (lane >= step) end_offset += before;
      }
      const index_t total = __shfl_sync(lanes, end_offset, G - 1, G);
      for (index_t round = 0; round < total; round += G * Items) {
        index_t col[Items];
#pragma unroll
        for (int i = 0; i < Items; ++i) {
          const index_t q = round + i * G + lane;
          const int entry = entry_of_product<G>(end_offset, q, lanes);
          const index_t entry_end = __shfl_sync(lanes, end_offset, entry, G);
          const index_t entry_length = __shfl_sync(lanes, length, entry, G);
          const index_t p = __shfl_sync(lanes, b_begin, entry, G) + q - (entry_end - entry_length);
          col[i] = q < total ? in.b_col[p] : kEmptyKey;
        }
#pragma unroll
        for (int i = 0; i < Items; ++i)
          if (col[i] != kEmptyKey) count += insert_key(keys, mask, col[i]);
      }
    }
    count = __reduce_add_sync(lanes, unsigned(count));
    if (lane == 0) row_nnz[row] = count;
  }
}

/// Numeric, shared-memory bins (`rows` as in symbolic_shared_kernel). One
/// warp owns one row of C, a table of
/// `table_size` (key, value) slots (at least the row's nnz) and 32 staged
/// values. A's entries come 32 at a time (lane e holds entry e and the scan
/// of the B row lengths), their products in rounds of 32·Items in A order:
/// each lane first loads its Items products (index q = round + i·32 + lane),
/// so a round's loads are in flight together; then for each i the lanes claim
/// their columns' slots, and lanes that hit one slot (__match_any_sync) are
/// summed by the lowest of them in lane order onto the slot's running sum.
/// Lane order inside a step and steps in order are A's row order, so every
/// entry of C is summed exactly as the CPU does, with no barrier per A entry.
/// The occupied slots are then compacted and written in column order: each
/// at its rank among the row's columns while the row has at most
/// kRankedRowMax, else after a bitonic sort over the next power of two of nnz.
/// Sets *error if the row does not have exactly C's nnz; with `row_runs`,
/// c_row_ptr gives each row a room instead, the row's nnz goes to
/// row_runs[row] and *error is set (nothing written) if it passes the room
/// (see fused_product).
template <int Items, typename T>
__global__ void numeric_shared_kernel(ProductOperands<T> in, const index_t* rows,
                                      index_t row_count, int table_size,
                                      const index_t* c_row_ptr, index_t* c_col, T* c_val,
                                      int* error, index_t* row_runs) {
  constexpr unsigned kWarp = 0xffffffffu;
  extern __shared__ __align__(16) unsigned char numeric_table[];
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int warps = blockDim.x / 32;
  const index_t slot_in_bin = index_t(blockIdx.x) * warps + warp;
  if (slot_in_bin >= row_count) return;  // whole warps leave together
  const index_t row = rows != nullptr ? rows[slot_in_bin] : slot_in_bin;
  T* const all_values = reinterpret_cast<T*>(numeric_table);
  T* values = all_values + std::size_t(warp) * table_size;
  T* staged = all_values + std::size_t(warps) * table_size + 32 * warp;
  index_t* keys = reinterpret_cast<index_t*>(all_values + std::size_t(warps) * (table_size + 32)) +
                  std::size_t(warp) * table_size;
  const unsigned mask = unsigned(table_size - 1);
  for (int i = lane; i < table_size; i += 32) keys[i] = kEmptyKey;
  __syncwarp();

  bool fits = true;
  const index_t a_end = in.a_row_ptr[row + 1];
  for (index_t k0 = in.a_row_ptr[row]; k0 < a_end; k0 += 32) {
    index_t b_begin = 0, length = 0;
    T a = T(0);
    if (k0 + lane < a_end) {
      const index_t inner = in.a_col[k0 + lane];
      a = in.a_val[k0 + lane];
      b_begin = in.b_row_ptr[inner];
      length = in.b_row_ptr[inner + 1] - b_begin;
    }
    index_t end_offset = length;  // inclusive scan of the batch's B row lengths
    for (int step = 1; step < 32; step <<= 1) {
      const index_t before = __shfl_up_sync(kWarp, end_offset, step);
      if (lane >= step) end_offset += before;
    }
    const index_t total = __shfl_sync(kWarp, end_offset, 31);
    for (index_t round = 0; round < total; round += 32 * Items) {
      index_t col[Items];
      T value[Items];
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        const index_t q = round + i * 32 + lane;
        const int entry = entry_of_product<32>(end_offset, q, kWarp);
        const index_t entry_end = __shfl_sync(kWarp, end_offset, entry);
        const index_t entry_length = __shfl_sync(kWarp, length, entry);
        const index_t p = __shfl_sync(kWarp, b_begin, entry) + q - (entry_end - entry_length);
        const T entry_a = __shfl_sync(kWarp, a, entry);
        col[i] = kEmptyKey;
        value[i] = T(0);
        if (q < total) {
          col[i] = in.b_col[p];
          value[i] = rounded_product(entry_a, in.b_val[p]);
        }
      }
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        if (round + i * 32 >= total) break;  // warp-uniform
        bool claimed = false;
        int slot = col[i] == kEmptyKey ? -1 : claim_slot(keys, mask, col[i], claimed);
        fits &= col[i] == kEmptyKey || slot >= 0;
        // Idle lanes and a full table get keys of their own, so they never pair.
        const int match_key = slot >= 0 ? slot : -1 - lane;
        const unsigned peers = __match_any_sync(kWarp, match_key);
        const unsigned fresh = __ballot_sync(kWarp, claimed);
        staged[lane] = value[i];
        __syncwarp();
        if (slot >= 0 && lane == __ffs(peers) - 1) {
          T sum = (fresh & peers) != 0 ? value[i] : values[slot] + value[i];
          for (unsigned later = peers & (peers - 1); later != 0; later &= later - 1)
            sum += staged[__ffs(later) - 1];
          values[slot] = sum;
        }
        __syncwarp();
      }
    }
  }

  // Compact the occupied slots to the front: a step writes only below the
  // slots it has read, so one table suffices.
  index_t found = 0;
  for (int base = 0; base < table_size; base += 32) {
    const index_t key = keys[base + lane];
    const T value = values[base + lane];
    const unsigned used = __ballot_sync(kWarp, key != kEmptyKey);
    __syncwarp();
    if (key != kEmptyKey) {
      const index_t at = found + __popc(used & ((1u << lane) - 1u));
      keys[at] = key;
      values[at] = value;
    }
    found += __popc(used);
  }
  __syncwarp();

  const index_t start = c_row_ptr[row];
  const index_t room = c_row_ptr[row + 1] - start;
  const index_t nnz = row_runs != nullptr ? found : room;
  const bool all_fit = __all_sync(kWarp, fits);
  if (lane == 0 && (!all_fit || found != nnz || found > room)) atomicExch(error, 1);
  if (lane == 0 && row_runs != nullptr) row_runs[row] = found;
  if (found != nnz || found > room) return;
  if (found <= kRankedRowMax) {  // warp-uniform
    write_by_rank<32>(keys, values, found, lane, c_col + start, c_val + start);
    return;
  }
  int sorted = 1;
  while (sorted < found) sorted <<= 1;
  for (index_t i = found + lane; i < sorted; i += 32) keys[i] = kEmptyKey;
  __syncwarp();
  sort_table<32>(keys, values, sorted, lane);
  for (index_t i = lane; i < nnz; i += 32) {
    c_col[start + i] = keys[i];
    c_val[start + i] = values[i];
  }
}

/// Symbolic, long rows (more products than the largest shared table). One
/// block per row, blocks striding over the bin, walking the row's products
/// with for_each_product_of_row; each block owns a dense marker
/// array of cols(B) entries in global memory holding the id of the last row
/// that saw the column (rows of one block are distinct, so it is never
/// cleared). A column counts once: only the lane whose exchange replaces
/// another row's id counts it.
template <int Block>
__global__ void __launch_bounds__(Block)
    symbolic_global_kernel(PatternOperands in, const index_t* rows, index_t row_count,
                           index_t* markers, index_t cols, int sub_width,
                           index_t balanced_length, index_t* row_nnz) {
  using Reduce = cub::BlockReduce<index_t, Block>;
  __shared__ typename Reduce::TempStorage reduce_storage;
  __shared__ index_t entry_end[Block];
  __shared__ index_t entry_b_begin[Block];
  __shared__ typename cub::BlockScan<index_t, Block>::TempStorage scan;
  index_t* marker = markers + std::size_t(blockIdx.x) * cols;
  for (index_t slot = blockIdx.x; slot < row_count; slot += gridDim.x) {
    const index_t row = rows[slot];
    index_t count = 0;
    for_each_product_of_row<Block>(in, row, sub_width, balanced_length, entry_end,
                                   entry_b_begin, scan, [&](index_t col) {
                                     count += atomicExch(&marker[col], row) != row;
                                   });
    const index_t total = Reduce(reduce_storage).Sum(count);
    if (threadIdx.x == 0) row_nnz[row] = total;
    __syncthreads();  // reduce_storage is reused by the next row
  }
}

}  // namespace binamg::spgemm_detail
