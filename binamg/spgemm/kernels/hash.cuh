#pragma once
// Device building blocks of the GPU SpGEMM: thread groups of G lanes that own
// one row of C, open-addressing hash tables in shared memory, and an in-table
// bitonic sort that leaves a row's entries in column order.
#include <cuda_runtime.h>

#include "binamg/core/rounded_product.cuh"
#include "binamg/core/types.hpp"

namespace binamg::spgemm_detail {

constexpr index_t kEmptyKey = -1;  // no column is negative
// Multiplicative hash (nsparse's constant): neighbouring columns, common in
// stencil matrices, land in different slots.
constexpr unsigned kHashScale = 107u;

/// Lanes of this thread's group of G (<= 32) inside its warp.
template <int G>
__device__ __forceinline__ unsigned group_mask() {
  if constexpr (G >= 32) {
    return 0xffffffffu;
  } else {
    return ((1u << G) - 1u) << ((threadIdx.x & 31u) & ~unsigned(G - 1));
  }
}

/// Barrier for the G lanes owning one row: a sub-warp, a warp or the block
/// (groups of more than 32 threads always fill their block alone).
template <int G>
__device__ __forceinline__ void group_sync() {
  if constexpr (G > 32) {
    __syncthreads();
  } else {
    __syncwarp(group_mask<G>());
  }
}

/// Inserts `col` into a table of mask+1 slots that has room for it; returns
/// true when this call added the key (so counting true results counts the
/// distinct keys whatever the interleaving of lanes).
__device__ __forceinline__ bool insert_key(index_t* keys, unsigned mask, index_t col) {
  unsigned slot = (unsigned(col) * kHashScale) & mask;
  while (true) {
    const index_t key = keys[slot];
    if (key == col) return false;
    if (key == kEmptyKey) {
      const index_t old = atomicCAS(&keys[slot], kEmptyKey, col);
      if (old == kEmptyKey) return true;
      if (old == col) return false;
    }
    slot = (slot + 1) & mask;
  }
}

/// Finds `col`'s slot in a table of mask+1 slots, claiming an empty one if
/// absent; `claimed` tells whether this call claimed it (among lanes racing
/// for one column, exactly one does). Returns -1 if the table is full
/// without `col` (the caller's nnz was wrong).
__device__ __forceinline__ int claim_slot(index_t* keys, unsigned mask, index_t col,
                                          bool& claimed) {
  unsigned slot = (unsigned(col) * kHashScale) & mask;
  for (unsigned probe = 0; probe <= mask; ++probe) {
    const index_t key = keys[slot];
    if (key == col) return int(slot);
    if (key == kEmptyKey) {
      const index_t old = atomicCAS(&keys[slot], kEmptyKey, col);
      if (old == kEmptyKey) {
        claimed = true;
        return int(slot);
      }
      if (old == col) return int(slot);
    }
    slot = (slot + 1) & mask;
  }
  return -1;
}

/// Adds `value` to `col`'s slot, claiming one if absent. Callers guarantee no
/// other lane touches `col` concurrently (a B row's columns are distinct and
/// A entries are taken one at a time), so the value needs no atomic. Returns
/// false if the table is full without `col` (the caller's nnz was wrong).
template <typename T>
__device__ __forceinline__ bool accumulate(index_t* keys, T* values, unsigned mask,
                                           index_t col, T value) {
  bool claimed = false;
  const int slot = claim_slot(keys, mask, col, claimed);
  if (slot < 0) return false;
  values[slot] = claimed ? value : values[slot] + value;
  return true;
}

/// Sorts a power-of-two table of `size` (key, value) slots by key, empty slots
/// (kEmptyKey read as unsigned, the largest) last. Bitonic network: each of
/// the size/2 compare-exchanges of a step goes to one lane, group barrier per step.
template <int G, typename T>
__device__ void sort_table(index_t* keys, T* values, int size, int lane) {
  const int half = size >> 1;
  for (int block = 2; block <= size; block <<= 1) {
    for (int stride = block >> 1; stride > 0; stride >>= 1) {
      for (int pair = lane; pair < half; pair += G) {
        const int low = ((pair & ~(stride - 1)) << 1) | (pair & (stride - 1));
        const int high = low + stride;
        const unsigned key_low = unsigned(keys[low]);
        const unsigned key_high = unsigned(keys[high]);
        const bool ascending = (low & block) == 0;
        if ((key_low > key_high) == ascending) {
          keys[low] = index_t(key_high);
          keys[high] = index_t(key_low);
          const T value = values[low];
          values[low] = values[high];
          values[high] = value;
        }
      }
      group_sync<G>();
    }
  }
}

/// Writes `count` distinct keys of a table (and their values) to out_col /
/// out_val in increasing key order, each at its rank among the keys. The
/// G lanes compare every key with all `count`: for the few dozen columns of
/// a typical Galerkin row that is cheaper than sort_table's barrier steps.
template <int G, typename T>
__device__ void write_by_rank(const index_t* keys, const T* values, index_t count, int lane,
                              index_t* out_col, T* out_val) {
  for (index_t i = lane; i < count; i += G) {
    const index_t key = keys[i];
    index_t rank = 0;
#pragma unroll 4
    for (index_t j = 0; j < count; ++j) rank += keys[j] < key;
    out_col[rank] = key;
    out_val[rank] = values[i];
  }
}

}  // namespace binamg::spgemm_detail
