#pragma once
// Stages 1 and 2 of the binned SpGEMM: per-row work bounds and the grouping of
// rows into bins, all on the GPU (the host only reads the bin sizes back).
#include <cuda_runtime.h>

#include <cstdint>

#include "binamg/core/types.hpp"
#include "binamg/spgemm/tuning.hpp"

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

/// Adds each counted lane's bin to the block's histogram with one shared
/// atomic per distinct bin in the warp (a bin holding every row would
/// otherwise serialise all of the block's lanes on one address). Every lane
/// of the warp calls it.
__device__ __forceinline__ void add_to_histogram(index_t* histogram, int bin, bool counted) {
  const unsigned peers = __match_any_sync(0xffffffffu, counted ? bin : -1);
  if (counted && int(threadIdx.x % 32) == __ffs(peers) - 1)
    atomicAdd(&histogram[bin], index_t(__popc(peers)));
}

/// Rows the numeric pass gives the short-row kernel: at most
/// kShortMaxAEntries entries of A and kShortMaxProducts products. Returns the
/// log2 of the narrowest sub-warp (from kShortMinWidth lanes) whose
/// kShortItems slots per lane hold both, or -1 for other rows.
__device__ __forceinline__ int short_width_log2(std::int64_t products, index_t entries) {
  if (entries > kShortMaxAEntries || products > kShortMaxProducts) return -1;
  const std::int64_t slots = products > entries ? products : entries;
  int width_log2 = 0;
  while ((std::int64_t(kShortMinWidth) << width_log2) * kShortItems < slots) ++width_log2;
  return width_log2;
}

/// Slots of the numeric hash table of a row of `nnz` entries of C: nnz·num/den,
/// and at least min(nnz·sparse_slack, sparse_table) (SpgemmTuning's numeric
/// slack fields). dense() alone for entry-wise rows, whose kernel sorts the
/// whole table.
struct NumericTableRule {
  int slack_num, slack_den, sparse_slack, sparse_table;
  __device__ std::int64_t dense(std::int64_t nnz) const { return nnz * slack_num / slack_den; }
  __device__ std::int64_t slots(std::int64_t nnz) const {
    const std::int64_t sparse = min(nnz * sparse_slack, std::int64_t(sparse_table));
    return max(dense(nnz), sparse);
  }
};

/// The numeric bin of a row of `nnz` entries of C (a bound, in the fused
/// path) and numeric class: the short-row bin (first_short_bin + width
/// log2) for a short row, else the bin of its table, moved to its
/// entry-wise twin (+ entrywise_offset) for an entry-wise row.
struct NumericBinRule {
  BinRule rule;
  int first_short_bin, entrywise_offset;
  NumericTableRule table;
  __device__ int bin_of(std::int64_t nnz, unsigned numeric_class) const {
    if (nnz == 0) return 0;
    if (numeric_class >= kShortClass) return first_short_bin + int(numeric_class - kShortClass);
    if (numeric_class == kEntrywiseClass) {
      const int bin = rule.bin_of(table.dense(nnz));
      return bin <= rule.shared_bins ? bin + entrywise_offset : bin;
    }
    return rule.bin_of(table.slots(nnz));
  }
};

/// The count pass's numeric binning for the fused path (fused_product),
/// whose numeric pass bounds each row by its products: each row's bin to
/// bin_of_row and the histogram to bin_counts. Off where `bin_of_row` is
/// null.
struct FusedBinning {
  NumericBinRule numeric;
  std::uint8_t* bin_of_row;
  unsigned long long* bin_counts;
};

/// Width lanes per row of A (rows are independent; Width from A's mean row
/// length, so that the dozens of long rows of a coarse R·A do not walk
/// hundreds of entries on one thread), Block / Width rows at a time, the
/// blocks striding over A's rows; the whole block on each row longer
/// than Width·kOwnProductSteps entries: counts the products of A(row,:)·B in
/// 64 bits (integer sums: order-free, hence deterministic), records the
/// row's symbolic bin and adds it to the bin histogram (block-local first,
/// so global atomics stay few). The bin follows the
/// product count (the work, hence the threads a row gets) but stops at
/// max_bin: when B's columns fit the largest shared table, so does every row
/// (a row has no more distinct columns than B), which keeps long Galerkin
/// rows (R·A: thousands of products onto a few hundred columns) off the
/// global path. Rows of more than global_above products go to max_bin (the
/// largest table would fill past its load limit). Rows with 0 or 1 product
/// need no kernel: their nnz(C) is the product count. Every row's product
/// count is stored in row_nnz (the symbolic pass overwrites those of binned
/// rows); row_nnz[rows] (read, not used, by the exclusive scan) is zeroed
/// too. bin_counts[kMaxBins] receives the products of all rows,
/// bin_counts[kMaxBins + 1] the entry-wise rows. Rows of at least
/// entrywise_min_b_length products per A entry get kEntrywiseClass above
/// their bin, short rows (see short_width_log2) kShortClass + their width's
/// log2, for bin_by_nnz_kernel (the histogram counts the bin alone). With
/// `fused` on, the rows are also binned for the fused path: that binning
/// then needs neither a kernel nor a read-back of its own.
template <int Block, int Width>
__global__ void __launch_bounds__(Block) bin_by_products_kernel(const index_t* a_row_ptr, const index_t* a_col,
                                       const index_t* b_row_ptr, index_t rows, BinRule rule,
                                       int max_bin, std::int64_t global_above,
                                       int entrywise_min_b_length, index_t* row_nnz,
                                       std::uint8_t* bin_of_row,
                                       unsigned long long* bin_counts, FusedBinning fused) {
  constexpr int kRowsPerBlock = Block / Width;
  __shared__ index_t histogram[kMaxBins];
  __shared__ index_t fused_histogram[kMaxBins];
  __shared__ int long_count;
  __shared__ index_t long_first[kRowsPerBlock];  // first entry the block counts
  __shared__ index_t long_end[kRowsPerBlock];
  __shared__ unsigned long long long_products[kRowsPerBlock];
  __shared__ unsigned long long block_products;
  __shared__ unsigned block_entrywise;
  if (threadIdx.x < kMaxBins) {
    histogram[threadIdx.x] = 0;
    fused_histogram[threadIdx.x] = 0;
  }
  if (threadIdx.x == 0) {
    long_count = 0;
    block_products = 0;
    block_entrywise = 0;
  }
  __syncthreads();
  // The blocks stride over the rows, so that the totals reach global memory
  // once per block: an add per warp to one address and a histogram flush
  // per 32 rows made the count of 3D 27-pt's A·P (1.03 M rows of 8 lanes)
  // markedly slower (docs/experiments.md).
  for (index_t first_row = index_t(blockIdx.x) * kRowsPerBlock; first_row < rows;
       first_row += index_t(gridDim.x) * kRowsPerBlock) {
    const index_t row = first_row + index_t(threadIdx.x / Width);
    const int lane = threadIdx.x % Width;
    if (row == 0 && lane == 0) row_nnz[rows] = 0;
    // Every lane reaches the shuffles: a row past the end counts nothing.
    const index_t begin = row < rows ? a_row_ptr[row] : 0;
    const index_t end = row < rows ? a_row_ptr[row + 1] : 0;
    const index_t own_end = end - begin > index_t(Width) * kOwnProductSteps
                                ? begin + index_t(Width) * kOwnProductSteps
                                : end;
    std::int64_t products = 0;
    for (index_t k0 = begin + lane; k0 < own_end; k0 += Width * kCountBatch) {
      index_t inner[kCountBatch];
#pragma unroll
      for (int i = 0; i < kCountBatch; ++i) {
        const index_t k = k0 + i * Width;
        inner[i] = k < own_end ? a_col[k] : -1;
      }
#pragma unroll
      for (int i = 0; i < kCountBatch; ++i)
        if (inner[i] >= 0) products += b_row_ptr[inner[i] + 1] - b_row_ptr[inner[i]];
    }
#pragma unroll
    for (int offset = Width / 2; offset > 0; offset /= 2)
      products += __shfl_xor_sync(0xffffffffu, products, offset, Width);
    int long_slot = -1;
    if (lane == 0 && own_end < end) {
      long_slot = atomicAdd(&long_count, 1);
      long_first[long_slot] = own_end;
      long_end[long_slot] = end;
      long_products[long_slot] = static_cast<unsigned long long>(products);
    }
    __syncthreads();
    for (int i = 0; i < long_count; ++i) {
      unsigned long long mine = 0;
      for (index_t k = long_first[i] + index_t(threadIdx.x); k < long_end[i]; k += Block) {
        const index_t inner = a_col[k];
        mine += b_row_ptr[inner + 1] - b_row_ptr[inner];
      }
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2)
        mine += __shfl_xor_sync(0xffffffffu, mine, offset);
      if (threadIdx.x % 32 == 0 && mine != 0) atomicAdd(&long_products[i], mine);
    }
    __syncthreads();
    if (long_slot >= 0) products = std::int64_t(long_products[long_slot]);
    const bool counted = row < rows && lane == 0;
    int bin = 0, fused_bin = 0;
    if (counted) {
      row_nnz[row] = index_t(min(products, std::int64_t(INT32_MAX)));
      if (products > 1)
        bin = products > global_above ? max_bin : min(rule.bin_of(products), max_bin);
      // The class of every row, so that the numeric pass bins it as
      // spgemm_numeric (which counts products itself) would.
      unsigned numeric_class = 0;
      const int width_log2 = short_width_log2(products, end - begin);
      if (width_log2 >= 0)
        numeric_class = kShortClass + unsigned(width_log2);
      else if (products >= std::int64_t(entrywise_min_b_length) * (end - begin))
        numeric_class = kEntrywiseClass;
      bin_of_row[row] = std::uint8_t(unsigned(bin) | (numeric_class << kClassShift));
      if (numeric_class == kEntrywiseClass) atomicAdd(&block_entrywise, 1u);
      if (fused.bin_of_row != nullptr) {
        fused_bin = fused.numeric.bin_of(products, numeric_class);
        fused.bin_of_row[row] = std::uint8_t(fused_bin);
      }
    }
    add_to_histogram(histogram, bin, counted);
    if (fused.bin_of_row != nullptr) add_to_histogram(fused_histogram, fused_bin, counted);
    unsigned long long warp_products = counted ? static_cast<unsigned long long>(products) : 0;
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
      warp_products += __shfl_xor_sync(0xffffffffu, warp_products, offset);
    if (threadIdx.x % 32 == 0 && warp_products != 0) atomicAdd(&block_products, warp_products);
    __syncthreads();  // long rows' slots are read before the next rows take them
    if (threadIdx.x == 0) long_count = 0;
    __syncthreads();
  }
  if (threadIdx.x == 0 && block_products != 0) atomicAdd(&bin_counts[kMaxBins], block_products);
  if (threadIdx.x == 0 && block_entrywise != 0)
    atomicAdd(&bin_counts[kMaxBins + 1], static_cast<unsigned long long>(block_entrywise));
  if (threadIdx.x < kMaxBins && histogram[threadIdx.x] != 0)
    atomicAdd(&bin_counts[threadIdx.x],
              static_cast<unsigned long long>(histogram[threadIdx.x]));
  if (threadIdx.x < kMaxBins && fused_histogram[threadIdx.x] != 0)
    atomicAdd(&fused.bin_counts[threadIdx.x],
              static_cast<unsigned long long>(fused_histogram[threadIdx.x]));
}

/// Which rows the numeric pass sends to the short-row and the entry-wise
/// kernels: spgemm reads the class bin_by_products left in the row's bin
/// byte; spgemm_numeric, which has no symbolic pass, counts the row's
/// products here.
struct NumericClassRule {
  const index_t* a_row_ptr;
  const index_t* a_col;
  const index_t* b_row_ptr;
  int entrywise_min_b_length;
  bool stored;  // bin_of_row holds bin_by_products' classes
  __device__ unsigned class_of(index_t row, const std::uint8_t* bin_of_row) const {
    if (stored) return unsigned(bin_of_row[row]) >> kClassShift;
    const index_t begin = a_row_ptr[row], end = a_row_ptr[row + 1];
    std::int64_t products = 0;
    for (index_t k = begin; k < end; ++k) {
      const index_t inner = a_col[k];
      products += b_row_ptr[inner + 1] - b_row_ptr[inner];
    }
    const int width_log2 = short_width_log2(products, end - begin);
    if (width_log2 >= 0) return kShortClass + unsigned(width_log2);
    return products >= std::int64_t(entrywise_min_b_length) * (end - begin) ? kEntrywiseClass
                                                                              : 0u;
  }
};

/// One thread per row of C: reads the row's nnz (from counts, or from offsets
/// when `sizes_are_offsets`) and class, bins it by `numeric`, adds it to the
/// histogram and the 64-bit nnz(C) total (integer sums: order-free, hence
/// deterministic).
static __global__ void bin_by_nnz_kernel(const index_t* row_sizes, bool sizes_are_offsets,
                                  index_t rows, NumericClassRule classes, NumericBinRule numeric,
                                  std::uint8_t* bin_of_row, unsigned long long* bin_counts,
                                  unsigned long long* total_nnz) {
  __shared__ index_t histogram[kMaxBins];
  __shared__ unsigned long long block_total;
  if (threadIdx.x < kMaxBins) histogram[threadIdx.x] = 0;
  if (threadIdx.x == 0) block_total = 0;
  __syncthreads();
  const index_t row = blockIdx.x * blockDim.x + threadIdx.x;
  int bin = 0;
  unsigned long long nnz = 0;
  if (row < rows) {
    nnz = sizes_are_offsets ? row_sizes[row + 1] - row_sizes[row] : row_sizes[row];
    if (nnz != 0) bin = numeric.bin_of(std::int64_t(nnz), classes.class_of(row, bin_of_row));
    bin_of_row[row] = std::uint8_t(bin);
  }
  add_to_histogram(histogram, bin, row < rows);
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) nnz += __shfl_xor_sync(0xffffffffu, nnz, offset);
  if (threadIdx.x % 32 == 0 && nnz != 0) atomicAdd(&block_total, nnz);
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
static __global__ void scatter_rows_kernel(const std::uint8_t* bin_of_row, index_t rows,
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
