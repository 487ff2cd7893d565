#pragma once
// Products of few rows into few columns (kDenseMaxRows, kDenseMaxColumns): a
// block per row of C and a thread per column of B, so a row needs no hash
// table and no binning, and its products are spread over the block rather
// than walked by one warp. The coarsest Galerkin levels have this shape:
// 3D 7-pt 101³'s last R·(AP) is 44 rows of ~4150 products onto 44 columns,
// rows too heavy for a warp each and too few to fill the GPU.
#include <cub/block/block_scan.cuh>
#include <cuda_runtime.h>

#include "binamg/core/types.hpp"
#include "binamg/spgemm/kernels/hash.cuh"
#include "binamg/spgemm/kernels/table_rows.cuh"
#include "binamg/spgemm/tuning.hpp"

namespace binamg::spgemm_detail {

/// Threads of a dense-column block: one per column of B at most.
constexpr int kDenseBlock = kDenseMaxColumns;
using DenseScan = cub::BlockScan<index_t, kDenseBlock>;

/// The block's shared state for walking a row's products.
struct DenseWalk {
  index_t entry_end[kDenseBlock];    // inclusive scan of the batch's B row lengths
  index_t entry_begin[kDenseBlock];  // B position of the entry's product 0 of the batch
  typename DenseScan::TempStorage scan;
};

/// Walks the products of A(row,:)·B with the block in rounds of
/// kDenseBlock·kDenseItems, in A's row order: batches of kDenseBlock A
/// entries load their B row bounds at once, and item i of thread t of a
/// round is product round + i·kDenseBlock + t of its batch (A position k[i],
/// B position p[i]; valid[i] false past the batch's end). Every thread calls
/// visit, which may synchronize the block.
template <typename Visit>
__device__ __forceinline__ void for_each_product_round(const index_t* a_row_ptr,
                                                       const index_t* a_col,
                                                       const index_t* b_row_ptr, index_t row,
                                                       DenseWalk& walk, Visit&& visit) {
  const index_t a_end = a_row_ptr[row + 1];
  for (index_t k0 = a_row_ptr[row]; k0 < a_end; k0 += kDenseBlock) {
    index_t b_begin = 0, length = 0;
    if (k0 + index_t(threadIdx.x) < a_end) {
      const index_t inner = a_col[k0 + threadIdx.x];
      b_begin = b_row_ptr[inner];
      length = b_row_ptr[inner + 1] - b_begin;
    }
    index_t end = 0, total = 0;
    DenseScan(walk.scan).InclusiveSum(length, end, total);
    walk.entry_end[threadIdx.x] = end;
    walk.entry_begin[threadIdx.x] = b_begin - (end - length);
    __syncthreads();
    for (index_t round = 0; round < total; round += kDenseBlock * kDenseItems) {
      bool valid[kDenseItems];
      index_t k[kDenseItems], p[kDenseItems];
#pragma unroll
      for (int i = 0; i < kDenseItems; ++i) {
        const index_t q = round + i * kDenseBlock + index_t(threadIdx.x);
        valid[i] = q < total;
        int low = 0;  // the first entry whose end passes q
        if (valid[i]) {
#pragma unroll
          for (int step = kDenseBlock / 2; step > 0; step >>= 1)
            if (walk.entry_end[low + step - 1] <= q) low += step;
        }
        k[i] = k0 + low;
        p[i] = walk.entry_begin[low] + q;
      }
      visit(valid, k, p);
    }
    __syncthreads();  // the next batch rewrites the entries and the scan storage
  }
}

/// Symbolic: row_nnz[row] for the block's row. Its products mark their
/// columns in a shared bit set, whose population is the row's nnz.
static __global__ void __launch_bounds__(kDenseBlock)
    dense_columns_count_kernel(PatternOperands in, index_t* row_nnz) {
  __shared__ unsigned seen[kDenseMaxColumns / 32];
  __shared__ DenseWalk walk;
  const index_t row = blockIdx.x;
  if (threadIdx.x < kDenseMaxColumns / 32) seen[threadIdx.x] = 0;
  __syncthreads();
  for_each_product_round(in.a_row_ptr, in.a_col, in.b_row_ptr, row, walk,
                         [&](const bool(&valid)[kDenseItems], const index_t(&)[kDenseItems],
                             const index_t(&p)[kDenseItems]) {
                           index_t col[kDenseItems];
#pragma unroll
                           for (int i = 0; i < kDenseItems; ++i)
                             col[i] = valid[i] ? in.b_col[p[i]] : kEmptyKey;
#pragma unroll
                           for (int i = 0; i < kDenseItems; ++i)
                             if (valid[i]) atomicOr(&seen[col[i] / 32], 1u << (col[i] % 32));
                         });
  __syncthreads();
  if (threadIdx.x < 32) {
    const unsigned bits = threadIdx.x < kDenseMaxColumns / 32 ? seen[threadIdx.x] : 0u;
    const unsigned count = __reduce_add_sync(0xffffffffu, unsigned(__popc(bits)));
    if (threadIdx.x == 0) row_nnz[row] = index_t(count);
  }
}

/// Numeric: thread c owns column c of the row and sums its terms in A's
/// order, the first assigned and the rest added: the CPU's sum, bit for bit.
/// Each round's terms are bucketed by column, stably: a term's place is its
/// column's start (a scan over the columns of the round's counts), plus the
/// terms of its column in earlier slices (a slice is one item of one warp;
/// item-major slices are A's order; their counts are scanned by the
/// column's thread), plus those of earlier lanes of its slice
/// (__match_any_sync). The present columns are then written in order, each
/// at its rank. Sets *error if the row's nnz differs from C's.
template <typename T>
__global__ void __launch_bounds__(kDenseBlock)
    dense_columns_fill_kernel(ProductOperands<T> in, const index_t* c_row_ptr, index_t* c_col,
                              T* c_val, int* error) {
  constexpr int kSlices = kDenseBlock / 32 * kDenseItems;
  __shared__ DenseWalk walk;
  __shared__ typename DenseScan::TempStorage column_scan;
  __shared__ index_t slice_count[kSlices][kDenseMaxColumns];
  __shared__ index_t column_start[kDenseMaxColumns];
  __shared__ T staged[kDenseBlock * kDenseItems];
  const index_t row = blockIdx.x;
  const int column = threadIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  T sum = T(0);
  bool present = false;
  for_each_product_round(in.a_row_ptr, in.a_col, in.b_row_ptr, row, walk,
                         [&](const bool(&valid)[kDenseItems], const index_t(&k)[kDenseItems],
                             const index_t(&p)[kDenseItems]) {
    index_t col[kDenseItems];
    T term[kDenseItems];
#pragma unroll
    for (int i = 0; i < kDenseItems; ++i) {
      col[i] = valid[i] ? in.b_col[p[i]] : kEmptyKey;
      term[i] = valid[i] ? rounded_product(in.a_val[k[i]], in.b_val[p[i]]) : T(0);
    }
    for (int slice = 0; slice < kSlices; ++slice) slice_count[slice][column] = 0;
    __syncthreads();
    int earlier_lanes[kDenseItems];
#pragma unroll
    for (int i = 0; i < kDenseItems; ++i) {
      const unsigned peers = __match_any_sync(0xffffffffu, col[i]);
      earlier_lanes[i] = __popc(peers & ((1u << lane) - 1u));
      if (valid[i] && earlier_lanes[i] == 0)
        slice_count[i * (kDenseBlock / 32) + warp][col[i]] = __popc(peers);
    }
    __syncthreads();
    index_t count = 0;
    for (int slice = 0; slice < kSlices; ++slice) {
      const index_t in_slice = slice_count[slice][column];
      slice_count[slice][column] = count;
      count += in_slice;
    }
    index_t start = 0;
    DenseScan(column_scan).ExclusiveSum(count, start);
    column_start[column] = start;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kDenseItems; ++i)
      if (valid[i])
        staged[column_start[col[i]] + slice_count[i * (kDenseBlock / 32) + warp][col[i]] +
               earlier_lanes[i]] = term[i];
    __syncthreads();
    for (index_t i = start; i < start + count; ++i) {
      sum = present ? sum + staged[i] : staged[i];
      present = true;
    }
    __syncthreads();  // the next round rewrites the counts and the staged terms
  });
  index_t rank = 0, found = 0;
  DenseScan(column_scan).ExclusiveSum(index_t(present), rank, found);
  const index_t start = c_row_ptr[row];
  if (found != c_row_ptr[row + 1] - start) {
    if (threadIdx.x == 0) atomicExch(error, 1);
    return;
  }
  if (present) {
    c_col[start + rank] = column;
    c_val[start + rank] = sum;
  }
}

}  // namespace binamg::spgemm_detail
