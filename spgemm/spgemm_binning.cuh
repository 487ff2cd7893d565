#pragma once
// Stages 1 and 2 of the binned SpGEMM: per-row work bounds and the grouping of
// rows into bins, all on the GPU (the host only reads the bin sizes back).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/types.hpp"
#include "spgemm/spgemm_policy_gpu.hpp"

namespace binamg::spgemm_detail {

/// Start of each bin's slice of the row list (passed by value to kernels).
struct BinOffsets {
  index_t start[kMaxBins + 1];
};

/// How a row's size maps to a bin: 0 for "no kernel", 1 + log2(table/min_table)
/// for the first table holding `needed` slots, global_bin past the largest table.
struct BinRule {
  int min_table_log2;
  int shared_bins;  // global bin = shared_bins + 1
  __device__ int bin_of(std::int64_t needed) const {
    int bin = 1;
    while (bin <= shared_bins && (std::int64_t(1) << (min_table_log2 + bin - 1)) < needed) ++bin;
    return bin;
  }
};

/// One thread per row of A (rows are independent): counts the products of
/// A(row,:)·B in 64 bits, records the row's symbolic bin and adds it to the
/// bin histogram (block-local first, so global atomics stay few). The bin
/// follows the product count (the work, hence the threads a row gets) but
/// stops at max_bin: when B's columns fit the largest shared table, so does
/// every row (a row has no more distinct columns than B), which keeps long
/// Galerkin rows (R·A: thousands of products onto a few hundred columns) off
/// the global path. Rows with 0 or 1 product need no kernel: their nnz(C) is
/// the product count, stored now; row_nnz[rows] (read, not used, by the
/// exclusive scan) is zeroed too.
__global__ void bin_by_products_kernel(const index_t* a_row_ptr, const index_t* a_col,
                                       const index_t* b_row_ptr, index_t rows, BinRule rule,
                                       int max_bin, index_t* row_nnz, std::uint8_t* bin_of_row,
                                       unsigned long long* bin_counts) {
  __shared__ index_t histogram[kMaxBins];
  if (threadIdx.x < kMaxBins) histogram[threadIdx.x] = 0;
  __syncthreads();
  const index_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row == 0) row_nnz[rows] = 0;
  if (row < rows) {
    std::int64_t products = 0;
    for (index_t k = a_row_ptr[row]; k < a_row_ptr[row + 1]; ++k) {
      const index_t inner = a_col[k];
      products += b_row_ptr[inner + 1] - b_row_ptr[inner];
    }
    int bin = 0;
    if (products <= 1)
      row_nnz[row] = index_t(products);
    else
      bin = min(rule.bin_of(products), max_bin);
    bin_of_row[row] = std::uint8_t(bin);
    atomicAdd(&histogram[bin], 1);
  }
  __syncthreads();
  if (threadIdx.x < kMaxBins && histogram[threadIdx.x] != 0)
    atomicAdd(&bin_counts[threadIdx.x],
              static_cast<unsigned long long>(histogram[threadIdx.x]));
}

/// Which rows the numeric pass sends to the short-row kernel: those with at
/// most max_a_entries entries of A and max_products products (0 bin: none).
struct ShortRowRule {
  const index_t* a_row_ptr;
  const index_t* a_col;
  const index_t* b_row_ptr;
  int max_a_entries;
  int max_products;
  int bin;
  __device__ bool holds(index_t row) const {
    const index_t begin = a_row_ptr[row], end = a_row_ptr[row + 1];
    if (bin == 0 || end - begin > max_a_entries) return false;
    index_t products = 0;
    for (index_t k = begin; k < end && products <= max_products; ++k) {
      const index_t inner = a_col[k];
      products += b_row_ptr[inner + 1] - b_row_ptr[inner];
    }
    return products <= max_products;
  }
};

/// One thread per row of C: reads the row's nnz (from counts, or from offsets
/// when `sizes_are_offsets`), picks the short-row bin if `short_rows` holds
/// the row, else the numeric bin for a table of nnz·slack slots; adds it to
/// the histogram and the 64-bit nnz(C) total (integer sums: order-free,
/// hence deterministic).
__global__ void bin_by_nnz_kernel(const index_t* row_sizes, bool sizes_are_offsets,
                                  index_t rows, BinRule rule, ShortRowRule short_rows,
                                  int slack_num, int slack_den,
                                  std::uint8_t* bin_of_row, unsigned long long* bin_counts,
                                  unsigned long long* total_nnz) {
  __shared__ index_t histogram[kMaxBins];
  __shared__ unsigned long long block_total;
  if (threadIdx.x < kMaxBins) histogram[threadIdx.x] = 0;
  if (threadIdx.x == 0) block_total = 0;
  __syncthreads();
  const index_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    const index_t nnz =
        sizes_are_offsets ? row_sizes[row + 1] - row_sizes[row] : row_sizes[row];
    const int bin = nnz == 0                ? 0
                    : short_rows.holds(row) ? short_rows.bin
                                            : rule.bin_of(std::int64_t(nnz) * slack_num / slack_den);
    bin_of_row[row] = std::uint8_t(bin);
    atomicAdd(&histogram[bin], 1);
    atomicAdd(&block_total, static_cast<unsigned long long>(nnz));
  }
  __syncthreads();
  if (threadIdx.x < kMaxBins && histogram[threadIdx.x] != 0)
    atomicAdd(&bin_counts[threadIdx.x],
              static_cast<unsigned long long>(histogram[threadIdx.x]));
  if (threadIdx.x == 0 && block_total != 0) atomicAdd(total_nnz, block_total);
}

/// One thread per row: appends the row to its bin's slice of `rows_by_bin`
/// (bin 0 rows are skipped). Lanes of a warp with the same bin reserve their
/// places with one shared atomic, the block with one global atomic per bin,
/// so a bin holding every row does not serialise on one address. Order inside
/// a bin varies between runs; results do not, because every row is computed
/// independently of its position.
__global__ void scatter_rows_kernel(const std::uint8_t* bin_of_row, index_t rows,
                                    BinOffsets offsets, index_t* cursors,
                                    index_t* rows_by_bin) {
  __shared__ index_t block_count[kMaxBins];
  __shared__ index_t block_base[kMaxBins];
  if (threadIdx.x < kMaxBins) block_count[threadIdx.x] = 0;
  __syncthreads();
  const index_t row = blockIdx.x * blockDim.x + threadIdx.x;
  const bool active = row < rows;
  const int bin = active ? bin_of_row[row] : 0;
  const unsigned peers = __match_any_sync(0xffffffffu, active ? bin : -1);
  const int lane = threadIdx.x & 31;
  const int leader = __ffs(peers) - 1;
  const bool listed = active && bin != 0;
  index_t warp_base = 0;
  if (listed && lane == leader) warp_base = atomicAdd(&block_count[bin], __popc(peers));
  warp_base = __shfl_sync(0xffffffffu, warp_base, leader);
  __syncthreads();
  if (threadIdx.x < kMaxBins && block_count[threadIdx.x] != 0)
    block_base[threadIdx.x] = atomicAdd(&cursors[threadIdx.x], block_count[threadIdx.x]);
  __syncthreads();
  if (!listed) return;
  const index_t rank = __popc(peers & ((1u << lane) - 1u));
  rows_by_bin[offsets.start[bin] + block_base[bin] + warp_base + rank] = row;
}

}  // namespace binamg::spgemm_detail
