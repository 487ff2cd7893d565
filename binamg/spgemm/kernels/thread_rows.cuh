#pragma once
// A thread per row for the tiniest rows: the symbolic pass of rows of at
// most kThreadRowMaxProducts products (the level-0 A·P of a 2D or 3D 7-pt
// Poisson setup: 12-25 products onto 5-9 columns) and the numeric pass of
// rows of at most kThreadRowMaxNnz (2D 5-pt's). The thread walks its
// products in A's order and keeps the row's distinct columns in its own
// shared slots. Consecutive rows of a stencil read neighbouring B rows, so a
// warp's loads stay within a few cache lines, and a row costs no shuffles,
// no sort network and no hash.
#include <cuda_runtime.h>

#include "binamg/spgemm/kernels/hash.cuh"
#include "binamg/spgemm/kernels/table_rows.cuh"
#include "binamg/spgemm/tuning.hpp"

namespace binamg::spgemm_detail {

/// Calls visit(k, p) for each product of `row`, A entry k times B entry p,
/// in A's row order (`in`: PatternOperands or ProductOperands).
template <typename Operands, typename Visit>
__device__ __forceinline__ void for_each_product(const Operands& in, index_t row, Visit&& visit) {
  for (index_t k = in.a_row_ptr[row]; k < in.a_row_ptr[row + 1]; ++k) {
    const index_t inner = in.a_col[k];
    for (index_t p = in.b_row_ptr[inner]; p < in.b_row_ptr[inner + 1]; ++p) visit(k, p);
  }
}

/// This thread's row of the bin (rows[block·kThreadRowBlock + thread]), or
/// -1 past the bin's end.
__device__ __forceinline__ index_t thread_row(const index_t* rows, index_t row_count) {
  const index_t i = index_t(blockIdx.x) * kThreadRowBlock + threadIdx.x;
  return i < row_count ? rows[i] : -1;
}

/// The first of the thread's `count` slots holding `col` (slot s of thread
/// t is columns[s][t], so that the lanes of a warp never share a bank), or
/// `count` if none does.
template <int Slots>
__device__ __forceinline__ int find_column(const index_t (&columns)[Slots][kThreadRowBlock],
                                           int count, index_t col) {
  int s = 0;
  while (s < count && columns[s][threadIdx.x] != col) ++s;
  return s;
}

/// Symbolic pass of rows of at most kThreadRowMaxProducts products (the
/// first symbolic bin): nnz of each row of C into row_nnz.
static __global__ void __launch_bounds__(kThreadRowBlock)
    symbolic_thread_rows_kernel(PatternOperands in, const index_t* rows, index_t row_count,
                                index_t* row_nnz) {
  __shared__ index_t seen[kThreadRowMaxProducts][kThreadRowBlock];
  const index_t row = thread_row(rows, row_count);
  if (row < 0) return;
  const int t = threadIdx.x;
  int count = 0;
  for_each_product(in, row, [&](index_t, index_t p) {
    const index_t col = in.b_col[p];
    // The bin bounds the products, hence the columns: count never passes it.
    if (find_column(seen, count, col) == count && count < kThreadRowMaxProducts)
      seen[count++][t] = col;
  });
  row_nnz[row] = count;
}

/// Numeric pass of the rows of the first kThreadRowWidths short-row widths
/// (at most kThreadRowMaxNnz products, hence entries). The first product of
/// a column sets its slot and the later ones add to it, in A's row order:
/// the CPU reference's sum, bit for bit. The slots are then sorted by column
/// (insertion: a handful, mostly in order) and written. Sets *error if the
/// row's entries differ from C's nnz for the row; with `row_runs`,
/// c_row_ptr gives each row a room instead, the row's nnz goes to
/// row_runs[row] and *error is set if it passes the room (see fused_product).
template <typename T>
__global__ void __launch_bounds__(kThreadRowBlock)
    numeric_thread_rows_kernel(ProductOperands<T> in, const index_t* rows, index_t row_count,
                               const index_t* c_row_ptr, index_t* c_col, T* c_val, int* error,
                               index_t* row_runs) {
  __shared__ index_t cols[kThreadRowMaxNnz][kThreadRowBlock];
  __shared__ T vals[kThreadRowMaxNnz][kThreadRowBlock];
  const index_t row = thread_row(rows, row_count);
  if (row < 0) return;
  const int t = threadIdx.x;
  int count = 0;
  bool overflow = false;
  for_each_product(in, row, [&](index_t k, index_t p) {
    const index_t col = in.b_col[p];
    const T value = rounded_product(in.a_val[k], in.b_val[p]);
    const int s = find_column(cols, count, col);
    if (s < count) {
      vals[s][t] += value;
    } else if (count < kThreadRowMaxNnz) {
      cols[count][t] = col;
      vals[count][t] = value;
      ++count;
    } else {
      overflow = true;
    }
  });
  for (int s = 1; s < count; ++s) {
    const index_t col = cols[s][t];
    const T value = vals[s][t];
    int j = s;
    for (; j > 0 && cols[j - 1][t] > col; --j) {
      cols[j][t] = cols[j - 1][t];
      vals[j][t] = vals[j - 1][t];
    }
    cols[j][t] = col;
    vals[j][t] = value;
  }
  const index_t start = c_row_ptr[row];
  const index_t room = c_row_ptr[row + 1] - start;
  for (int s = 0; s < count && s < room; ++s) {
    c_col[start + s] = cols[s][t];
    c_val[start + s] = vals[s][t];
  }
  if (row_runs != nullptr) {
    row_runs[row] = count;
    if (overflow || count > room) atomicExch(error, 1);
  } else if (overflow || count != room) {
    atomicExch(error, 1);
  }
}

}  // namespace binamg::spgemm_detail
