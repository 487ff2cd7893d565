#pragma once
// Numeric pass for the long rows (more entries than the largest shared-memory
// table): a dense accumulator per block in global memory, filled in batches
// of A's entries so that no step waits on a single entry, yet every entry of
// C is still summed in A's row order.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>

#include "binamg/core/lower_bound.cuh"
#include "binamg/spgemm/kernels/table_rows.cuh"

namespace binamg::spgemm_detail {

template <int Capacity>
constexpr int position_bits() {
  int bits = 0;
  while ((1 << bits) < Capacity) ++bits;
  return bits;
}

/// The block sweeps the dense accumulator of `row` in column order and writes
/// its marked columns as C's row (sorted by construction). Sets *error if
/// their number is not C's nnz for the row.
template <int Block, typename T>
__device__ void write_marked_columns(const index_t* marker, const T* accumulator, index_t cols,
                                     index_t row, const index_t* c_row_ptr, index_t* c_col,
                                     T* c_val, int* error,
                                     typename cub::BlockScan<index_t, Block>::TempStorage& scan) {
  using Scan = cub::BlockScan<index_t, Block>;
  constexpr int Sweep = 16;  // columns per thread per step
  const index_t start = c_row_ptr[row];
  const index_t nnz = c_row_ptr[row + 1] - start;
  index_t written = 0;
  for (index_t base = 0; base < cols; base += index_t(Block) * Sweep) {
    const index_t first = base + index_t(threadIdx.x) * Sweep;
    index_t mine = 0;
    for (int i = 0; i < Sweep; ++i) {
      const index_t col = first + i;
      mine += col < cols && marker[col] == row;
    }
    index_t place = 0, found = 0;
    Scan(scan).ExclusiveSum(mine, place, found);
    index_t out = written + place;
    for (int i = 0; i < Sweep; ++i) {
      const index_t col = first + i;
      if (col < cols && marker[col] == row) {
        if (out < nnz) {
          c_col[start + out] = col;
          c_val[start + out] = accumulator[col];
        }
        ++out;
      }
    }
    written += found;
    __syncthreads();  // scan storage is reused by the next step
  }
  if (threadIdx.x == 0 && written != nnz) atomicExch(error, 1);
}

/// One block per row, blocks striding over the bin; each block owns a dense
/// accumulator (marker = last row that wrote the column, value) of cols(B)
/// entries. Per batch: the next A entries whose B rows hold at most
/// Block·Items products in all are expanded into (column, position) keys,
/// position = A-order index inside the batch; a block radix sort brings equal
/// columns together in position order, and the first thread of each run adds
/// the run's products to the accumulator one by one, in A's order (the CPU
/// reference's order). An A entry with more
/// products than a batch is applied alone: its B row has distinct columns.
/// Finally the block sweeps the columns in order and writes the marked ones.
/// Sets *error if the row does not have exactly C's nnz. `column_bits`:
/// bits needed for cols(B) - 1.
/// With slices > 1 (few long rows: one block each would idle the GPU), work
/// item i is slice i % slices of row rows[i / slices], a contiguous run of
/// the row's A entries; the grid has one block per item, each leaving its
/// partial row in its own accumulator (block i's) for
/// merge_slices_kernel and write_merged_rows_kernel.
template <int Block, int Items, typename T>
__global__ void __launch_bounds__(Block)
    numeric_long_rows_kernel(ProductOperands<T> in, const index_t* rows, index_t row_count,
                             int slices, index_t* markers, T* accumulators, index_t cols,
                             int column_bits, const index_t* c_row_ptr, index_t* c_col,
                             T* c_val, int* error) {
  constexpr int Capacity = Block * Items;
  constexpr int Shift = position_bits<Capacity>();
  using Key = unsigned long long;
  using Sort = cub::BlockRadixSort<Key, Block, Items>;
  using Scan = cub::BlockScan<index_t, Block>;
  __shared__ union {
    typename Sort::TempStorage sort;
    typename Scan::TempStorage scan;
    Key sorted[Capacity];
  } storage;
  __shared__ index_t entry_offset[Block];  // products of the batch before the entry
  __shared__ index_t entry_length[Block];
  __shared__ index_t entry_b_begin[Block];
  __shared__ T entry_a[Block];
  __shared__ T batch_value[Capacity];

  index_t* marker = markers + std::size_t(blockIdx.x) * cols;
  T* accumulator = accumulators + std::size_t(blockIdx.x) * cols;
  const Key position_mask = (Key(1) << Shift) - 1;
  for (index_t item = blockIdx.x; item < row_count * slices; item += gridDim.x) {
    const index_t row = rows[item / slices];
    const int slice = int(item % slices);
    const index_t a_begin = in.a_row_ptr[row];
    const std::int64_t a_length = in.a_row_ptr[row + 1] - a_begin;
    const index_t a_end = a_begin + index_t(a_length * (slice + 1) / slices);
    for (index_t k0 = a_begin + index_t(a_length * slice / slices); k0 < a_end;) {
      const index_t k = k0 + index_t(threadIdx.x);
      index_t length = 0, b_begin = 0;
      T a = T(0);
      if (k < a_end) {
        const index_t inner = in.a_col[k];
        a = in.a_val[k];
        b_begin = in.b_row_ptr[inner];
        length = in.b_row_ptr[inner + 1] - b_begin;
      }
      index_t before = 0;
      Scan(storage.scan).ExclusiveSum(length, before);
      entry_offset[threadIdx.x] = before;
      entry_length[threadIdx.x] = length;
      entry_b_begin[threadIdx.x] = b_begin;
      entry_a[threadIdx.x] = a;
      // Lengths are >= 0, so the entries that fit are a prefix.
      const int entries = __syncthreads_count(k < a_end && before + length <= Capacity);

      if (entries == 0) {  // entry k0 alone overflows a batch
        const index_t begin = entry_b_begin[0], end = begin + entry_length[0];
        const T a0 = entry_a[0];
        for (index_t p = begin + index_t(threadIdx.x); p < end; p += Block) {
          const index_t col = in.b_col[p];
          const T value = rounded_product(a0, in.b_val[p]);
          if (marker[col] == row) {
            accumulator[col] += value;
          } else {
            marker[col] = row;
            accumulator[col] = value;
          }
        }
        __syncthreads();
        k0 += 1;
        continue;
      }

      const index_t total = entry_offset[entries - 1] + entry_length[entries - 1];
      Key keys[Items];
      for (int i = 0; i < Items; ++i) {
        const index_t q = index_t(threadIdx.x) * Items + i;
        keys[i] = ~Key(0);
        if (q < total) {
          // The last entry starting at or before q.
          const int low = last_at_or_below(entry_offset, 0, entries - 1, q);
          const index_t p = entry_b_begin[low] + (q - entry_offset[low]);
          batch_value[q] = rounded_product(entry_a[low], in.b_val[p]);
          keys[i] = (Key(in.b_col[p]) << Shift) | Key(q);
        }
      }
      __syncthreads();  // scan storage is about to be reused by the sort
      Sort(storage.sort).Sort(keys, 0, Shift + column_bits);
      __syncthreads();
      for (int i = 0; i < Items; ++i) storage.sorted[threadIdx.x * Items + i] = keys[i];
      __syncthreads();
      for (int i = 0; i < Items; ++i) {
        const index_t q = index_t(threadIdx.x) * Items + i;
        if (q >= total) break;
        const index_t col = index_t(storage.sorted[q] >> Shift);
        if (q > 0 && index_t(storage.sorted[q - 1] >> Shift) == col) continue;
        T sum = batch_value[storage.sorted[q] & position_mask];
        if (marker[col] == row) sum = accumulator[col] + sum;
        for (index_t r = q + 1; r < total && index_t(storage.sorted[r] >> Shift) == col; ++r)
          sum += batch_value[storage.sorted[r] & position_mask];
        marker[col] = row;
        accumulator[col] = sum;
      }
      __syncthreads();  // shared arrays are refilled by the next batch
      k0 += entries;
    }
    __syncthreads();  // accumulator writes visible to the sweep

    if (slices == 1)  // else merge_slices_kernel and write_merged_rows_kernel finish
      write_marked_columns<Block>(marker, accumulator, cols, row, c_row_ptr, c_col, c_val,
                                  error, storage.scan);
  }
}

/// Split long rows, merge: thread (column, row r of the bin) adds the partial
/// sums of slices 1..slices-1 of row r into slice 0's accumulator, in slice
/// order (fixed, hence deterministic; a regrouping of the CPU's A-order sum).
template <typename T>
__global__ void merge_slices_kernel(const index_t* rows, int slices, index_t* markers,
                                    T* accumulators, index_t cols) {
  const index_t col = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (col >= cols) return;
  const index_t row = rows[blockIdx.y];
  const std::size_t first = std::size_t(blockIdx.y) * slices * cols + col;
  bool present = markers[first] == row;
  T sum = present ? accumulators[first] : T(0);
  for (int slice = 1; slice < slices; ++slice) {
    const std::size_t at = first + std::size_t(slice) * cols;
    if (markers[at] != row) continue;
    sum = present ? sum + accumulators[at] : accumulators[at];
    present = true;
  }
  if (present) {
    markers[first] = row;
    accumulators[first] = sum;
  }
}

/// Split long rows, output: block r writes row rows[r] from its merged
/// accumulator (slice 0 of the row's items).
template <int Block, typename T>
__global__ void __launch_bounds__(Block)
    write_merged_rows_kernel(const index_t* rows, int slices, const index_t* markers,
                             const T* accumulators, index_t cols, const index_t* c_row_ptr,
                             index_t* c_col, T* c_val, int* error) {
  __shared__ typename cub::BlockScan<index_t, Block>::TempStorage scan;
  const std::size_t region = std::size_t(blockIdx.x) * slices * cols;
  write_marked_columns<Block>(markers + region, accumulators + region, cols, rows[blockIdx.x],
                              c_row_ptr, c_col, c_val, error, scan);
}

}  // namespace binamg::spgemm_detail
