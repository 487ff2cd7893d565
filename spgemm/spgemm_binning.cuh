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

/// Width lanes per row of A (rows are independent; Width from A's mean row
/// length, so that the dozens of long rows of a coarse R·A do not walk
/// hundreds of entries on one thread): counts the products of A(row,:)·B in
/// 64 bits, records the row's symbolic bin and adds it to the bin histogram
/// (block-local first, so global atomics stay few). The bin follows the
/// product count (the work, hence the threads a row gets) but stops at
/// max_bin: when B's columns fit the largest shared table, so does every row
/// (a row has no more distinct columns than B), which keeps long Galerkin
/// rows (R·A: thousands of products onto a few hundred columns) off the
/// global path. Rows with 0 or 1 product need no kernel: their nnz(C) is the
/// product count, stored now; row_nnz[rows] (read, not used, by the exclusive
/// scan) is zeroed too. Rows of at least entrywise_min_b_length products per
/// A entry also get kEntrywiseFlag in their bin byte, for bin_by_nnz_kernel
/// (the histogram counts the bin alone).
template <int Width>
__global__ void bin_by_products_kernel(const index_t* a_row_ptr, const index_t* a_col,
                                       const index_t* b_row_ptr, index_t rows, BinRule rule,
                                       int max_bin, int entrywise_min_b_length,
                                       index_t* row_nnz, std::uint8_t* bin_of_row,
                                       unsigned long long* bin_counts) {
  __shared__ index_t histogram[kMaxBins];
  if (threadIdx.x < kMaxBins) histogram[threadIdx.x] = 0;
  __syncthreads();
  const index_t row = (index_t(blockIdx.x) * blockDim.x + threadIdx.x) / Width;
  const int lane = threadIdx.x % Width;
  if (row == 0 && lane == 0) row_nnz[rows] = 0;
  // Every lane reaches the shuffles: a row past the end counts nothing.
  const index_t begin = row < rows ? a_row_ptr[row] : 0;
  const index_t end = row < rows ? a_row_ptr[row + 1] : 0;
  std::int64_t products = 0;
  for (index_t k = begin + lane; k < end; k += Width) {
    const index_t inner = a_col[k];
    products += b_row_ptr[inner + 1] - b_row_ptr[inner];
  }
#pragma unroll
  for (int offset = Width / 2; offset > 0; offset /= 2)
    products += __shfl_xor_sync(0xffffffffu, products, offset, Width);
  if (row < rows && lane == 0) {
    int bin = 0;
    unsigned flag = 0;
    if (products <= 1) {
      row_nnz[row] = index_t(products);
    } else {
      bin = min(rule.bin_of(products), max_bin);
      if (products >= std::int64_t(entrywise_min_b_length) * (end - begin)) flag = kEntrywiseFlag;
    }
    bin_of_row[row] = std::uint8_t(unsigned(bin) | flag);
    atomicAdd(&histogram[bin], 1);
  }
  __syncthreads();
  if (threadIdx.x < kMaxBins && histogram[threadIdx.x] != 0)
    atomicAdd(&bin_counts[threadIdx.x],
              static_cast<unsigned long long>(histogram[threadIdx.x]));
}

/// Which rows the numeric pass sends to the short-row kernel: those with at
/// most kShortMaxAEntries entries of A and kShortItems·32 products, in the
/// bin of the narrowest sub-warp whose kShortItems slots per lane hold both.
struct ShortRowRule {
  const index_t* a_row_ptr;
  const index_t* a_col;
  const index_t* b_row_ptr;
  int first_bin;  // the bin of sub-warps of kShortMinWidth lanes
  /// The row's short-row bin, or 0 if it is not short.
  __device__ int bin_of(index_t row) const {
    constexpr index_t max_products = index_t(kShortItems) * 32;
    const index_t begin = a_row_ptr[row], end = a_row_ptr[row + 1];
    if (end - begin > kShortMaxAEntries) return 0;
    index_t products = 0;
    for (index_t k = begin; k < end && products <= max_products; ++k) {
      const index_t inner = a_col[k];
      products += b_row_ptr[inner + 1] - b_row_ptr[inner];
    }
    if (products > max_products) return 0;
    const index_t slots = max(products, end - begin);
    int bin = first_bin;
    for (index_t width = kShortMinWidth; width * kShortItems < slots; width *= 2) ++bin;
    return bin;
  }
};

/// Which rows the numeric pass sends to the entry-wise kernel (B rows of at
/// least min_b_length on average): spgemm reads the flag bin_by_products left
/// in the row's bin byte; spgemm_numeric, which has no symbolic pass, counts
/// the row's products here.
struct EntrywiseRule {
  const index_t* a_row_ptr;
  const index_t* a_col;
  const index_t* b_row_ptr;
  int min_b_length;
  bool flagged;    // bin_of_row holds bin_by_products' flags
  int bin_offset;  // entry-wise bin - shared bin
  __device__ bool holds(index_t row, const std::uint8_t* bin_of_row) const {
    if (flagged) return (bin_of_row[row] & kEntrywiseFlag) != 0;
    const index_t begin = a_row_ptr[row], end = a_row_ptr[row + 1];
    std::int64_t products = 0;
    for (index_t k = begin; k < end; ++k) {
      const index_t inner = a_col[k];
      products += b_row_ptr[inner + 1] - b_row_ptr[inner];
    }
    return products >= std::int64_t(min_b_length) * (end - begin);
  }
};

/// One thread per row of C: reads the row's nnz (from counts, or from offsets
/// when `sizes_are_offsets`), picks the short-row bin if `short_rows` holds
/// the row, else the numeric bin for a table of nnz·slack slots, moved to its
/// entry-wise twin when `entrywise` holds the row; adds it to
/// the histogram and the 64-bit nnz(C) total (integer sums: order-free,
/// hence deterministic).
__global__ void bin_by_nnz_kernel(const index_t* row_sizes, bool sizes_are_offsets,
                                  index_t rows, BinRule rule, ShortRowRule short_rows,
                                  EntrywiseRule entrywise, int slack_num, int slack_den,
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
    int bin = nnz == 0 ? 0 : short_rows.bin_of(row);
    if (nnz != 0 && bin == 0) {
      bin = rule.bin_of(std::int64_t(nnz) * slack_num / slack_den);
      if (bin <= rule.shared_bins && entrywise.holds(row, bin_of_row)) bin += entrywise.bin_offset;
    }
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
  const int bin = active ? int(bin_of_row[row] & kBinMask) : 0;
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
