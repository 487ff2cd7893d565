#pragma once
// Tuning of the GPU SpGEMM (Liu & Vinter's binned framework with nsparse-style
// shared-memory hash tables), kept in one place. Numbers that depend on the
// device are derived from cudaDeviceProp; the rest are documented defaults.
#include <cstddef>
#include <cstdint>

#include "sparse/device_csr.hpp"

namespace binamg::spgemm_detail {

/// Bin 0 holds rows needing no kernel (symbolic: 0 or 1 product, counted
/// directly; numeric: empty rows). Bins 1..shared_bins hold rows whose hash
/// table of min_table << (bin-1) slots fits in shared memory; the bin after
/// them holds the long rows that fall back to a dense accumulator in global
/// memory. The numeric pass adds the short-row bins and the entry-wise bins
/// after it (SpgemmPolicy::numeric_short_bin, numeric_entrywise_bin).
constexpr int kMaxBins = 32;
/// bin_by_products leaves the numeric pass a hint above the bin in each row's
/// bin byte, the numeric kernel family that the row's product count decides:
/// kEntrywiseClass, or kShortClass + the short-row width's log2 (0: neither).
constexpr unsigned kBinMask = 0x1fu;
constexpr int kClassShift = 5;
constexpr unsigned kEntrywiseClass = 1;
constexpr unsigned kShortClass = 2;
static_assert(kMaxBins <= int(kBinMask) + 1, "bins must fit below the numeric class");

/// Numeric shared-memory bins: products each lane loads before it adds any,
/// so that a warp keeps 32 x this many loads in flight per round. Against 2,
/// 6, 8 and 16 on the Galerkin pyramid (H100, after the sparser small tables),
/// 4 took 3D 7-pt from 2.76-2.80 ms (8) to 2.52-2.65, the rest within noise;
/// 16 was slower on every problem
/// (bench/results/2026-11-26-h100-galerkin-rank-slack-runs-join.md).
constexpr int kNumericItems = 4;

/// Numeric shared-memory rows of at most this many entries are written by
/// rank (write_by_rank: count²/32 compares per lane, 512 at 128 entries)
/// rather than sorted (sort_table: 28 barrier steps at 128 entries, each a
/// compare-exchange in shared memory). 128 rather than 64 took (PᵀA)P on
/// 3D 7-pt from 3.67-3.88 to 3.38-3.43 ms (H100), Pᵀ(AP) within noise.
constexpr int kRankedRowMax = 128;

/// A product of at most kDenseMaxRows rows whose B has at most
/// kDenseMaxColumns columns takes a block per row of C and a thread per
/// column of B (spgemm_dense_columns.cuh): about one wave of blocks, each
/// row spread over eight warps. Past that the narrow path's warp per row has
/// rows enough to fill the GPU: 3D 7-pt 101³'s last A·P (3195 rows onto 44
/// columns) took 0.074 ms dense and 0.063 narrow, its last R·(AP) (44 rows
/// of ~4150 products) 0.087 dense and 0.21 sorted whole (H100).
constexpr int kDenseMaxColumns = 256;
constexpr int kDenseMaxRows = 1024;

/// A product whose B has at most kNarrowMaxColumns columns (more than
/// kDenseMaxColumns: fewer go to spgemm_dense_columns.cuh), and at most
/// kNarrowMaxRows rows of about kNarrowMaxMeanProducts products or fewer
/// (mean A row times mean B row), is narrow: the products of a coarse AMG
/// level. Every row of C fits one table of B's columns, so neither pass bins
/// its rows: a warp per row, one symbolic and one numeric launch, one
/// read-back. The binned path waits on two read-backs more and ~10 more
/// launches, ~100 µs per product whatever its size (H200 CUPTI timeline of
/// 2D 5-pt 1024²'s coarsest levels). Its rows are too few or too heavy for a
/// warp each past the row bounds: 3D 7-pt's coarsest R·(AP), 44 rows of
/// ~4150 products, took as long narrow as sorted whole.
constexpr int kNarrowMaxColumns = 1024;
constexpr int kNarrowMaxRows = 65536;
constexpr int kNarrowMaxMeanProducts = 1024;

/// The fused path (fused_product) first gives each row a room of
/// kFusedRoom entries, and rooms of its products only if a row has more
/// (a second numeric pass): 3D 27-pt's A·P rows have at most 27 columns of
/// ~125 products.
constexpr int kFusedRoom = 32;

/// Threads per block when several rows share a block (groups of up to a
/// warp); the symbolic kernels' launch bounds use it.
constexpr int kSmallBlock = 256;

/// Short rows (spgemm_short_rows.cuh): at most kShortMaxAEntries A entries and
/// kShortMaxProducts products; a sub-warp of the smallest width in
/// kShortMinWidth, 2·kShortMinWidth, .. (kShortWidths of them) whose
/// kShortItems slots per lane hold both the products and the A entries.
constexpr int kShortMaxAEntries = 32;
constexpr int kShortItems = 4;
constexpr int kShortMinWidth = 4;
constexpr int kShortWidths = 4;
constexpr int kShortMaxProducts = (kShortMinWidth << (kShortWidths - 1)) * kShortItems;
static_assert((kShortMinWidth << (kShortWidths - 1)) <= 32, "short rows use sub-warps");

/// Rows of at most kThreadRowMaxProducts products (the first symbolic bin,
/// min_table's products) are counted a thread per row, and those of the
/// first kThreadRowWidths short-row widths (at most kThreadRowMaxNnz
/// products) summed a thread per row (spgemm_thread_rows.cuh). On 3D 7-pt
/// 101³'s level-0 A·P the thread count took 139 µs against 213 for a hash
/// table per 4 lanes; summing its rows of ~25 products a thread each took
/// 412 µs against 297 for 8-lane sub-warps (latency: one product at a time
/// per thread), while 2D 5-pt's rows of ~12 gained (H100,
/// bench/results/2026-11-27-h100-galerkin-thread-rows.md).
constexpr int kThreadRowMaxProducts = 32;
constexpr int kThreadRowMaxNnz = 16;
constexpr int kThreadRowWidths = 1;
static_assert((kShortMinWidth << (kThreadRowWidths - 1)) * kShortItems <= kThreadRowMaxNnz,
              "thread rows hold the entries of their short-row widths");

/// Merged rows (spgemm_merge_rows.cuh) take a product whose A rows have at
/// most kMergeMaxEntries entries: Width·E lanes' entries, E = 4 up to 16
/// entries (Width 1, 2 or 4), else E = 2 and Width 16 or 32. Of the shapes
/// tried on the Galerkin pyramids' products (H100), these were the fastest or
/// within 5% of it, but for 2D 5-pt's R·(AP) (15 entries: Width 8 and E 2 took
/// 0.142 ms, Width 4 and E 4 0.162). Rows of up to 128 entries (Width 32, E 4)
/// lost: 3D 27-pt's level-0 R·(AP) (~120 entries onto ~25 columns) took
/// 2.21 ms merged against 2.07 binned, 3D 7-pt's level-0 (RA)·P 1.62 against
/// 1.37 (whole levels). Each group's buffer holds a bound of a chunk of Width
/// columns (the row's products, longest A row times longest B row, or Width
/// products per entry), and a block's buffers at most kMergeBlockShared bytes
/// (32 KiB: seven blocks fit an SM).
constexpr int kMergeMaxEntries = 64;
constexpr std::size_t kMergeBlockShared = std::size_t(32) << 10;
static_assert(kMergeBlockShared <= 48 * 1024, "merge buffers need no opt-in shared memory");

/// Window rows (spgemm_window_rows.cuh) take a row whose columns span at most
/// kWindowMaxWords 32-bit words (16384 columns: the count pass's bit sets
/// take 2 KiB per warp), and a fill block's accumulators, bit sets and ranks
/// at most kWindowBlockShared bytes (seven blocks fit an SM, no opt-in).
constexpr int kWindowMaxWords = 512;
constexpr std::size_t kWindowBlockShared = std::size_t(32) << 10;
/// Window rows skip their count pass where each row spans at most
/// kWindowFusedWords words and its room of kWindowFusedRoom entries holds
/// it (at most fused_budget bytes of rooms in all; else the count pass
/// runs): a coarse Galerkin row has a few dozen columns (3D 27-pt's R·(AP),
/// 27, over 75 words at 101³ and 186 at 160³).
constexpr int kWindowFusedWords = 256;
constexpr int kWindowFusedRoom = 256;

struct SpgemmPolicy {
  // Smallest hash table (slots). One warp's worth: smaller tables waste lanes.
  int min_table = 32;
  // Symbolic pass: threads per row = table slots / slots_per_thread, clamped
  // to [min_group, max_group]. 16 rather than 8 gives a row of ~256
  // products (a table of 512) one warp, whose lanes load their products
  // Items at a time, instead of two warps walking one product per step:
  // 3D 7-pt's level-0 pyramid 1.217-1.222 -> 1.153-1.156 ms, 27-pt's
  // 2.30 -> 2.25-2.27 ms (H100); 32 was no better
  // (bench/results/2026-11-26-h100-symbolic-slots-per-thread-probe-galerkin.jsonl).
  int slots_per_thread = 16;
  int min_group = 4;
  int max_group = 1024;
  // A shared-memory or short-row bin of fewer rows than this many per SM
  // joins the launch of the next non-empty bin (if at most two bins up):
  // a launch of a few rows costs ~7 us of GPU time whatever its size, and a
  // coarse Galerkin level makes a dozen of them per product.
  int join_bin_rows_per_sm = 8;
  // Numeric pass: one warp per row (spgemm_kernels.cuh), at most this many
  // rows per block; fewer when their tables would not fit in one block.
  int numeric_rows_per_block = 8;
  // Numeric tables hold nnz(C row) keys at load <= 2/3 so probes stay short;
  // symbolic tables hold min(product count, cols(B)), an upper bound of the
  // row's nnz.
  int numeric_slack_num = 3;
  int numeric_slack_den = 2;
  // Tables of up to numeric_sparse_table slots are sized for a load of at
  // most 1/numeric_sparse_slack: a warp's claim waits for its lane with the
  // longest probe chain, and at that size shared memory is not what limits
  // occupancy (3D 7-pt R·AP rows of ~30 entries get 128 slots instead of 64:
  // the pyramid took 2.85-2.90 ms instead of 3.06-3.09 on an H200;
  // bench/results/2026-11-26-h100-galerkin-rank-slack-runs-join.md).
  // Entry-wise rows keep the 2/3 load: their kernel sorts the whole table.
  int numeric_sparse_slack = 4;
  int numeric_sparse_table = 128;
  // Rows whose B rows are this long on average (products >= this x A
  // entries) go to the entry-wise numeric kernel: a group of up to 1024
  // lanes spreads over one B row at a time (its columns are distinct, so
  // no lanes collide), where the warp kernel's per-product entry search and
  // __match_any_sync cost more than they save, and one warp per large table
  // starves the SM (squaring banded, block and power-law matrices).
  int entrywise_min_b_length = 32;
  // Product counting (bin_by_products_kernel): a thread per row of A while
  // A's mean row length is at most product_count_thread_max, or at most
  // product_count_many_rows_max with at least product_count_rows_per_entry
  // rows per SM per entry of the mean row (enough rows to hide each
  // thread's serial walk: 3D 27-pt 101³'s A·P, 2D 9-pt's level 0); 8 lanes
  // up to product_count_sub_warp_max, else a warp (coarse R·A: dozens of
  // rows of hundreds of entries, whose serial walk took ~1 ms). A thread per
  // row took 27-pt's A·P count from 153 to 76 µs, but 3D 7-pt's level-0
  // R·(AP) count (129k rows of ~29) from 23 to 178 µs (H100,
  // bench/results/2026-11-27-h100-galerkin-thread-rows.md).
  int product_count_thread_max = 8;
  int product_count_many_rows_max = 32;
  int product_count_rows_per_entry = 128;
  int product_count_sub_warp_max = 64;
  // Long rows (past the largest shared table, or filling it beyond 2/3 in
  // the symbolic pass, where linear probing slows down): expand-sort-compress
  // (spgemm_sorted_long_rows.cuh), a thread per product, while its buffers
  // fit sorted_long_rows_budget bytes (40 per product in double).
  std::size_t sorted_long_rows_budget = std::size_t(192) << 20;
  int symbolic_load_num = 2;
  int symbolic_load_den = 3;
  // Products of at most sorted_small_rows rows with sorted_small_min_products
  // or more per row on average (a coarse Galerkin level: a few hundred rows
  // of ~10^4 products each, too few to fill the GPU a warp or a block per
  // row) are sorted whole the same way, within the same budget.
  int sorted_small_rows = 2048;
  int sorted_small_min_products = 4096;
  // Past that budget (graphs with many long rows): one block per row, each
  // block with a dense accumulator of
  // cols(B) entries in global memory; at most global_blocks_per_sm blocks per
  // SM and global_memory_budget bytes of accumulators at once (only graphs
  // with many long rows reach it; their C is far larger anyway).
  int global_blocks_per_sm = 4;
  std::size_t global_memory_budget = std::size_t(1) << 30;
  // Few long rows (a "hub" row or two): each row's A entries are split into
  // slices on separate blocks, partial rows merged in slice order. The
  // slices' accumulators share split_memory_budget bytes, which keeps the
  // call's peak well under cuSPARSE's on such matrices.
  std::size_t split_memory_budget = std::size_t(160) << 20;
  // A product of at least fused_min_products, fused_min_mean per row, into
  // a space of at most 1/fused_narrowing of B's rows (a prolongator's coarse
  // space, where products of a row share few columns), whose rows have at
  // most fused_max_row_products products and none of the entry-wise class,
  // skips the symbolic pass: the short-row and the shared-table kernels
  // write each row into room for its products (at most fused_budget bytes
  // of columns and values, tables sized by the products) and count it; the
  // rows are then packed into C (fused_product). Measured on the H100: 3D
  // 27-pt's A·P (~120 products per row) went 2.74 -> 2.52 ms at level 0, 3D
  // 7-pt's (~25 per row) 1.33 -> 1.37 ms, hence the mean (again with the mean
  // at 8 or 16: 7-pt's level-0 A·P 0.52 -> 0.64 ms; 2026-11-27-h100-galerkin-
  // thread-rows.md). Tables sized by
  // products: 3D 7-pt's level-1 A·P (~150 per row) 0.72 -> 0.685 ms; its
  // level-0 R·(AP) (~256, up to 512) took as long fused as binned, with
  // 400 MB more room, hence the row bound.
  std::int64_t fused_min_products = std::int64_t(1) << 22;
  int fused_min_mean = 64;
  int fused_narrowing = 4;
  int fused_max_row_products = 256;
  std::size_t fused_budget = std::size_t(2) << 30;

  // Merged rows cost about 13 ps per product on the H100 whatever the row
  // (its lanes walk B rows one entry at a time, uncoalesced), where the
  // short-row sort of the fused path costs 11.6 on 3D 27-pt's level-0 A·P
  // (~120 products onto ~12 columns: 1.44 ms against 1.66 merged). Products
  // of at least merge_heavy_mean products per row (mean A row times mean B
  // row) and merge_heavy_products in all stay binned: there the binned
  // path's fixed cost (~0.1 ms: three read-backs, a dozen launches) is paid
  // back. Below, merging won on every Galerkin product measured
  // (bench/results/2026-11-27-h100-merge-rows.md).
  double merge_heavy_mean = 64;
  double merge_heavy_products = double(std::int64_t(1) << 26);
  // A step costs every lane of the group, so merging pays where a row's
  // products fold onto few columns: B maps into a space at least
  // merge_narrowing times smaller (a prolongator's coarse space). Merging 3D
  // 7-pt's level-0 R·A (~200 products onto ~71 columns, 32 lanes) took its
  // (PᵀA)P level from 1.38 to 2.03 ms (H100).
  int merge_narrowing = 4;
  // Window rows (spgemm_window_rows.cuh) take narrowing products whose A rows
  // average at least this many entries. Below, merged rows win: 3D 7-pt's
  // level-0 R·(AP) (~29 entries) took 0.58 ms in window rows against 0.46
  // merged; its level-1 R·(AP) (~200) 0.22 against 0.28 binned, 3D 27-pt's
  // level-0 R·(AP) (~120) 0.62 against 0.64 (H200). Heavy products too: at
  // 160³, 27-pt's level-0 R·(AP) (~220M products) took its level from
  // 9.07-9.11 ms binned to 8.93-8.99 (H100).
  int window_min_mean_entries = 64;

  // Derived from the device (see spgemm_policy).
  int device = 0;
  int sm_count = 0;
  std::size_t shared_per_block = 0;  // sharedMemPerBlockOptin
  std::size_t shared_usable = 0;     // less headroom for the kernels' static shared memory
  std::size_t value_bytes = 0;
  int symbolic_max_table = 0;        // largest power of two of 4-byte keys that fits
  int numeric_max_table = 0;         // largest numeric table of one row that fits

  int symbolic_shared_bins() const { return bins_up_to(symbolic_max_table); }
  int numeric_shared_bins() const { return bins_up_to(numeric_max_table); }
  // Numeric rows of few products go to the sub-warp sort kernel
  // (spgemm_short_rows.cuh), width kShortMinWidth << width_log2; their bins
  // follow the long-row bin. The entry-wise bins follow them, one per table
  // size of the shared bins (bin 1..numeric_shared_bins()).
  int numeric_short_bin(int width_log2) const { return numeric_shared_bins() + 2 + width_log2; }
  int numeric_entrywise_bin(int bin) const {
    return numeric_shared_bins() + 1 + kShortWidths + bin;
  }
  int numeric_last_bin() const { return numeric_entrywise_bin(numeric_shared_bins()); }
  int table_of_bin(int bin) const { return min_table << (bin - 1); }
  int group_of_table(int table) const {
    int group = table / slots_per_thread;
    return group < min_group ? min_group : (group > max_group ? max_group : group);
  }
  // Shared bytes of one numeric row: its (key, value) table and 32 staged values.
  std::size_t numeric_row_bytes(int table) const {
    return std::size_t(table) * (4 + value_bytes) + 32 * value_bytes;
  }

 private:
  int bins_up_to(int max_table) const {
    int bins = 0;
    for (int table = min_table; table <= max_table; table <<= 1) ++bins;
    return bins;
  }
};

/// How a shared-memory bin is launched: `group` lanes per row with a hash
/// table of (at most, see count_row_nnz) `table` slots each, `rows_per_block`
/// rows in a block of `block` threads.
struct BinLaunch {
  int table, group, block, rows_per_block;
};

inline BinLaunch launch_of_bin(const SpgemmPolicy& policy, int bin) {
  BinLaunch launch;
  launch.table = policy.table_of_bin(bin);
  launch.group = policy.group_of_table(launch.table);
  launch.block = launch.group <= 32 ? kSmallBlock : launch.group;
  launch.rows_per_block = launch.block / launch.group;
  return launch;
}

/// How a numeric shared-memory bin of `rows` rows is launched: a warp per
/// row, as many rows per block as fit (at most numeric_rows_per_block), and
/// fewer when the bin is too small to give every SM a block (a few dozen
/// long rows of R·A must not crowd onto a handful of SMs).
inline BinLaunch numeric_launch_of_bin(const SpgemmPolicy& policy, int bin, long long rows) {
  BinLaunch launch;
  launch.table = policy.table_of_bin(bin);
  launch.group = 32;
  const long long fit =
      static_cast<long long>(policy.shared_usable / policy.numeric_row_bytes(launch.table));
  const long long spread = (rows + policy.sm_count - 1) / policy.sm_count;
  long long per_block = policy.numeric_rows_per_block;
  if (fit < per_block) per_block = fit;
  if (spread < per_block) per_block = spread;
  launch.rows_per_block = per_block < 1 ? 1 : int(per_block);
  launch.block = 32 * launch.rows_per_block;
  return launch;
}

/// The policy for the current device and a value type of `value_bytes`,
/// derived once per (device, value size) and cached: the device queries cost
/// as much as a launch and a SpGEMM of a coarse level takes only a few.
const SpgemmPolicy& spgemm_policy(std::size_t value_bytes);

/// spgemm(A, B, stream) under `policy` rather than the device's (the tests
/// steer products onto each family of kernels with it).
template <typename T>
DeviceCsr<T> spgemm_under(const DeviceCsr<T>& A, const DeviceCsr<T>& B,
                          const SpgemmPolicy& policy, cudaStream_t stream = nullptr);

/// spgemm(A, B, C, stream) under `policy`.
template <typename T>
DeviceCsr<T> spgemm_under(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const DeviceCsr<T>& C,
                          const SpgemmPolicy& policy, cudaStream_t stream = nullptr);

}  // namespace binamg::spgemm_detail
