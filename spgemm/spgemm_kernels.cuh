#pragma once
// Stage 3 of the binned SpGEMM: per-bin kernels for the symbolic phase (count
// each row's distinct columns) and the numeric phase (accumulate in A's row
// order, sort by column, write the row of C).
#include <cub/block/block_reduce.cuh>
#include <cuda_runtime.h>

#include <cstddef>

#include "core/types.hpp"
#include "spgemm/spgemm_hash.cuh"

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

/// Symbolic, shared-memory bins. Each group of G lanes owns one row of the
/// bin (blockDim.x / G rows per block) and a table of `table_size` keys,
/// which is at least the row's product count, so it cannot overflow. The
/// group splits into G/sub_width sub-groups taking A's entries round robin,
/// the sub_width lanes of a sub-group sharing one B row (RMerge-style
/// partial warps: short B rows keep all lanes busy). Writes nnz(C row).
template <int G>
__global__ void symbolic_shared_kernel(PatternOperands in, const index_t* rows,
                                       index_t row_count, int table_size, int sub_width,
                                       index_t* row_nnz) {
  extern __shared__ index_t symbolic_keys[];
  __shared__ index_t block_count;  // used only when G > 32 (one row per block)
  const int group = threadIdx.x / G;
  const int lane = threadIdx.x % G;
  const index_t slot_in_bin = index_t(blockIdx.x) * (blockDim.x / G) + group;
  if (slot_in_bin >= row_count) return;
  const index_t row = rows[slot_in_bin];
  index_t* keys = symbolic_keys + std::size_t(group) * table_size;
  const unsigned mask = unsigned(table_size - 1);
  for (int i = lane; i < table_size; i += G) keys[i] = kEmptyKey;
  if constexpr (G > 32) {
    if (lane == 0) block_count = 0;
  }
  group_sync<G>();

  const int sub = lane / sub_width;
  const int sub_lane = lane % sub_width;
  const int subs = G / sub_width;
  index_t count = 0;
  for (index_t k = in.a_row_ptr[row] + sub; k < in.a_row_ptr[row + 1]; k += subs) {
    const index_t inner = in.a_col[k];
    const index_t end = in.b_row_ptr[inner + 1];
    for (index_t p = in.b_row_ptr[inner] + sub_lane; p < end; p += sub_width)
      count += insert_key(keys, mask, in.b_col[p]);
  }
  if constexpr (G > 32) {
    atomicAdd(&block_count, count);
    __syncthreads();
    if (lane == 0) row_nnz[row] = block_count;
  } else {
    count = __reduce_add_sync(group_mask<G>(), unsigned(count));
    if (lane == 0) row_nnz[row] = count;
  }
}

/// Numeric, shared-memory bins. Each group of G lanes owns one row of C and a
/// table of `table_size` (key, value) slots, more than the row's nnz. A's
/// entries are taken strictly in order, the G lanes spreading over B's row
/// (distinct columns: no two lanes share a slot in one step) with a group
/// barrier between entries, so each entry of C is summed in A's row order,
/// as the CPU reference does. The table is then sorted and its first nnz
/// slots written. Sets *error if the row does not have exactly C's nnz.
template <int G, typename T>
__global__ void numeric_shared_kernel(ProductOperands<T> in, const index_t* rows,
                                      index_t row_count, int table_size,
                                      const index_t* c_row_ptr, index_t* c_col, T* c_val,
                                      int* error) {
  extern __shared__ __align__(16) unsigned char numeric_table[];
  const int group = threadIdx.x / G;
  const int lane = threadIdx.x % G;
  const int rows_per_block = blockDim.x / G;
  const index_t slot_in_bin = index_t(blockIdx.x) * rows_per_block + group;
  if (slot_in_bin >= row_count) return;
  const index_t row = rows[slot_in_bin];
  T* values = reinterpret_cast<T*>(numeric_table) + std::size_t(group) * table_size;
  index_t* keys = reinterpret_cast<index_t*>(reinterpret_cast<T*>(numeric_table) +
                                             std::size_t(rows_per_block) * table_size) +
                  std::size_t(group) * table_size;
  const unsigned mask = unsigned(table_size - 1);
  for (int i = lane; i < table_size; i += G) keys[i] = kEmptyKey;
  group_sync<G>();

  bool fits = true;
  for (index_t k = in.a_row_ptr[row]; k < in.a_row_ptr[row + 1]; ++k) {
    const index_t inner = in.a_col[k];
    const T a = in.a_val[k];
    const index_t end = in.b_row_ptr[inner + 1];
    for (index_t p = in.b_row_ptr[inner] + lane; p < end; p += G)
      fits &= accumulate(keys, values, mask, in.b_col[p], product(a, in.b_val[p]));
    group_sync<G>();
  }
  sort_table<G>(keys, values, table_size, lane);

  const index_t start = c_row_ptr[row];
  const index_t nnz = c_row_ptr[row + 1] - start;
  const bool count_matches = nnz <= table_size && (nnz == 0 || keys[nnz - 1] != kEmptyKey) &&
                             (nnz == table_size || keys[nnz] == kEmptyKey);
  if (!fits || (lane == 0 && !count_matches)) atomicExch(error, 1);
  if (!count_matches) return;
  for (index_t i = lane; i < nnz; i += G) {
    c_col[start + i] = keys[i];
    c_val[start + i] = values[i];
  }
}

/// Symbolic, long rows (more products than the largest shared table). One
/// block per row, blocks striding over the bin; each block owns a dense
/// marker array of cols(B) entries in global memory holding the id of the
/// last row that saw the column (rows of one block are distinct, so it is
/// never cleared). A column counts once: only the lane whose exchange
/// replaces another row's id counts it.
template <int Block>
__global__ void symbolic_global_kernel(PatternOperands in, const index_t* rows,
                                       index_t row_count, index_t* markers, index_t cols,
                                       int sub_width, index_t* row_nnz) {
  using Reduce = cub::BlockReduce<index_t, Block>;
  __shared__ typename Reduce::TempStorage reduce_storage;
  index_t* marker = markers + std::size_t(blockIdx.x) * cols;
  const int sub = threadIdx.x / sub_width;
  const int sub_lane = threadIdx.x % sub_width;
  const int subs = Block / sub_width;
  for (index_t slot = blockIdx.x; slot < row_count; slot += gridDim.x) {
    const index_t row = rows[slot];
    index_t count = 0;
    for (index_t k = in.a_row_ptr[row] + sub; k < in.a_row_ptr[row + 1]; k += subs) {
      const index_t inner = in.a_col[k];
      const index_t end = in.b_row_ptr[inner + 1];
      for (index_t p = in.b_row_ptr[inner] + sub_lane; p < end; p += sub_width)
        count += atomicExch(&marker[in.b_col[p]], row) != row;
    }
    const index_t total = Reduce(reduce_storage).Sum(count);
    if (threadIdx.x == 0) row_nnz[row] = total;
    __syncthreads();  // reduce_storage is reused by the next row
  }
}

}  // namespace binamg::spgemm_detail
