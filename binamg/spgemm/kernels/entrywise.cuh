#pragma once
// Numeric pass for rows whose B rows are long (SpgemmTuning::
// entrywise_min_b_length products per A entry or more on average, typical of
// squaring banded, block and power-law matrices): A's entries one at a time,
// a group of lanes spread over the entry's B row.
#include <cuda_runtime.h>

#include <cstddef>

#include "binamg/spgemm/kernels/hash.cuh"
#include "binamg/spgemm/kernels/table_rows.cuh"

namespace binamg::spgemm_detail {

/// Numeric, entry-wise bins. Each group of G lanes owns one row of C and a
/// table of `table_size` (key, value) slots, more than the row's nnz. A's
/// entries are taken strictly in order, the G lanes spreading over B's row
/// (distinct columns: no two lanes share a slot in one step) with a group
/// barrier between entries, so each entry of C is summed in A's row order,
/// as the CPU reference does. The table is then sorted and its first nnz
/// slots written. Sets *error if the row does not have exactly C's nnz.
template <int G, typename T>
__global__ void numeric_entrywise_kernel(ProductOperands<T> in, const index_t* rows,
                                         index_t row_count, int table_size,
                                         const index_t* c_row_ptr, index_t* c_col, T* c_val,
                                         int* error) {
  extern __shared__ __align__(16) unsigned char entrywise_table[];
  const int group = threadIdx.x / G;
  const int lane = threadIdx.x % G;
  const int rows_per_block = blockDim.x / G;
  const index_t slot_in_bin = index_t(blockIdx.x) * rows_per_block + group;
  if (slot_in_bin >= row_count) return;  // whole groups leave together
  const index_t row = rows[slot_in_bin];
  T* values = reinterpret_cast<T*>(entrywise_table) + std::size_t(group) * table_size;
  index_t* keys = reinterpret_cast<index_t*>(reinterpret_cast<T*>(entrywise_table) +
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
      fits &= accumulate(keys, values, mask, in.b_col[p], rounded_product(a, in.b_val[p]));
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

}  // namespace binamg::spgemm_detail
