#pragma once
// Every tuning number of the GPU SpGEMM, in one place: the thresholds that
// choose a product's path (spgemm/choose_path.hpp reads them), the bins of the
// binned path, and the launch shapes of the kernels. Numbers that depend on the
// device are derived from cudaDeviceProp (spgemm_tuning); the rest are
// defaults measured on the H100 (docs/experiments.md records the measurements
// behind them; docs/design.md describes the paths).
#include <cstddef>
#include <cstdint>

#include "binamg/core/types.hpp"

namespace binamg::spgemm_detail {

// ---- Thresholds of the path choice (docs/design.md, "SpGEMM paths") ----

/// Dense columns: a product of at most kDenseMaxRows rows into at most
/// kDenseMaxColumns columns takes a block per row of C and a thread per
/// column of B: about one wave of blocks, each row spread over eight warps.
/// The coarsest Galerkin R·(AP) has this shape (a few dozen rows of thousands
/// of products each: too heavy for a warp per row, too few to fill the GPU).
constexpr int kDenseMaxColumns = 256;
constexpr int kDenseMaxRows = 1024;

/// Narrow: B has at most kNarrowMaxColumns columns and A at most
/// kNarrowMaxRows rows of about kNarrowMaxMeanProducts products or fewer
/// (mean A row times mean B row): a coarse AMG level. Every row of C fits one
/// table of B's columns, so neither pass bins its rows: a warp per row, one
/// symbolic and one numeric launch, one read-back, where binning costs two
/// read-backs and about ten launches more whatever the product's size.
constexpr int kNarrowMaxColumns = 1024;
constexpr int kNarrowMaxRows = 65536;
constexpr int kNarrowMaxMeanProducts = 1024;

/// Merged rows: A rows of at most kMergeMaxEntries entries. Width·E lanes hold
/// a row's A entries, E = 4 up to 16 entries (Width 1, 2 or 4), else E = 2
/// and Width 16 or 32. Longer rows lose to the binned kernels: each merge step
/// costs every lane of the group. A block's buffers take at most
/// kMergeBlockShared bytes (seven blocks fit an SM) in at most kMergeBlock
/// threads.
constexpr int kMergeMaxEntries = 64;
constexpr std::size_t kMergeBlockShared = std::size_t(32) << 10;
constexpr int kMergeBlock = 256;
static_assert(kMergeBlockShared <= 48 * 1024, "merge buffers need no opt-in shared memory");

/// Window rows take a row whose columns span at most kWindowMaxWords 32-bit
/// words (16384 columns; the count pass's bit sets take 2 KiB per warp), and
/// a fill block's accumulators, bit sets and ranks at most kWindowBlockShared
/// bytes (seven blocks fit an SM, no opt-in), kWindowWarps rows a block.
constexpr int kWindowMaxWords = 512;
constexpr std::size_t kWindowBlockShared = std::size_t(32) << 10;
constexpr int kWindowWarps = 8;
/// Split window rows give a row a block of kWindowSplitWarps warps, whose
/// accumulators take at most kWindowSplitShared bytes (no opt-in).
constexpr int kWindowSplitWarps = 8;
constexpr std::size_t kWindowSplitShared = std::size_t(48) << 10;
/// Window rows skip their count pass where each row spans at most
/// kWindowFusedWords words and its room of kWindowFusedRoom entries holds it
/// (at most fused_budget bytes of rooms in all): a coarse Galerkin row has a
/// few dozen columns over a few hundred words.
constexpr int kWindowFusedWords = 256;
constexpr int kWindowFusedRoom = 256;

/// Fused rows first give each row a room of kFusedRoom entries, and rooms of
/// its products only if a row has more (a second numeric pass): a Galerkin
/// A·P row has a few dozen columns whatever its products.
constexpr int kFusedRoom = 32;

// ---- The binned path: bins and kernel families ----

/// Bin 0 holds rows needing no kernel (symbolic: 0 or 1 product, counted
/// directly; numeric: empty rows). Bins 1..shared_bins hold rows whose hash
/// table of min_table << (bin-1) slots fits in shared memory; the bin after
/// them holds the long rows that fall back to sorting or a dense accumulator
/// in global memory. The numeric pass adds the short-row bins and the
/// entry-wise bins after it (SpgemmTuning::numeric_short_bin,
/// numeric_entrywise_bin).
constexpr int kMaxBins = 32;
/// The count pass leaves the numeric pass a hint above the bin in each row's
/// bin byte, the numeric kernel family that the row's product count decides:
/// kEntrywiseClass, or kShortClass + the short-row width's log2 (0: neither).
constexpr unsigned kBinMask = 0x1fu;
constexpr int kClassShift = 5;
constexpr unsigned kEntrywiseClass = 1;
constexpr unsigned kShortClass = 2;
static_assert(kMaxBins <= int(kBinMask) + 1, "bins must fit below the numeric class");

/// Numeric shared-table rows: products each lane loads before it adds any,
/// so that a warp keeps 32 × this many loads in flight per round.
constexpr int kNumericItems = 4;

/// Numeric shared-table rows of at most this many entries are written by
/// rank (count²/32 compares per lane) rather than sorted in the table (a
/// barrier per step of a bitonic network).
constexpr int kRankedRowMax = 128;

/// Threads per block when several rows share a block (groups of up to a
/// warp); the symbolic kernels' launch bounds use it.
constexpr int kSmallBlock = 256;

/// Short rows (kernels/short_rows.cuh): at most kShortMaxAEntries A entries
/// and kShortMaxProducts products; a sub-warp of the smallest width in
/// kShortMinWidth, 2·kShortMinWidth, .. (kShortWidths of them) whose
/// kShortItems slots per lane hold both the products and the A entries.
constexpr int kShortMaxAEntries = 32;
constexpr int kShortItems = 4;
constexpr int kShortMinWidth = 4;
constexpr int kShortWidths = 4;
constexpr int kShortMaxProducts = (kShortMinWidth << (kShortWidths - 1)) * kShortItems;
static_assert((kShortMinWidth << (kShortWidths - 1)) <= 32, "short rows use sub-warps");

/// Rows of at most kThreadRowMaxProducts products (the first symbolic bin)
/// are counted a thread per row, and those of the first kThreadRowWidths
/// short-row widths (at most kThreadRowMaxNnz products) summed a thread per
/// row (kernels/thread_rows.cuh, kThreadRowBlock threads a block). Longer
/// rows summed by one thread wait on one product at a time: sub-warps win.
constexpr int kThreadRowMaxProducts = 32;
constexpr int kThreadRowMaxNnz = 16;
constexpr int kThreadRowWidths = 1;
constexpr int kThreadRowBlock = 128;
static_assert((kShortMinWidth << (kThreadRowWidths - 1)) * kShortItems <= kThreadRowMaxNnz,
              "thread rows hold the entries of their short-row widths");

/// The count pass: entries of A a lane loads before it reads their B row
/// lengths (so its loads are in flight together), and entries a row's own
/// lanes count per lane before the whole block takes the row (a hub row).
constexpr int kCountBatch = 4;
constexpr int kOwnProductSteps = 32;

/// Dense columns: products each thread holds per round, so that a round's
/// loads are in flight together and its barriers serve 256 × this many.
constexpr int kDenseItems = 4;

/// Window rows: B-row steps whose columns a lane loads before it marks any
/// (the marks are order-free, so the loads need not wait on each other).
constexpr int kMarkSteps = 4;

/// Sorted long rows: threads per block, and the longest run of equal keys a
/// thread sums alone (longer runs, a hub column in every B row of a hub row,
/// are summed by a warp in a fixed order).
constexpr int kSortedRowsBlock = 256;
constexpr index_t kLaneRunMax = 32;

/// Packing rows from their rooms into C: lanes per row, and entries a lane
/// loads before it stores any.
constexpr int kPackLanes = 8;
constexpr int kPackItems = 2;

/// Tuning of one device and value size; spgemm_tuning() derives the device
/// fields. The defaults are the H100's measured choices.
struct SpgemmTuning {
  // Smallest hash table (slots). One warp's worth: smaller tables waste lanes.
  int min_table = 32;
  // Symbolic pass: threads per row = table slots / slots_per_thread, clamped
  // to [min_group, max_group]. A row of ~256 products (a table of 512) gets
  // one warp whose lanes load their products several at a time.
  int slots_per_thread = 16;
  int min_group = 4;
  int max_group = 1024;
  // A shared-memory or short-row bin of fewer rows than this many per SM
  // joins the launch of the next non-empty bin (if at most two bins up): a
  // launch costs several microseconds whatever its size, and a coarse
  // Galerkin level makes a dozen of them per product.
  int join_bin_rows_per_sm = 8;
  // Numeric pass: one warp per row, at most this many rows per block; fewer
  // when their tables would not fit in one block.
  int numeric_rows_per_block = 8;
  // Numeric tables hold nnz(C row) keys at load <= 2/3 so probes stay short;
  // symbolic tables hold min(product count, cols(B)), an upper bound of the
  // row's nnz.
  int numeric_slack_num = 3;
  int numeric_slack_den = 2;
  // Tables of up to numeric_sparse_table slots are sized for a load of at
  // most 1/numeric_sparse_slack: a warp's claim waits for its lane with the
  // longest probe chain, and at that size shared memory does not limit
  // occupancy. Entry-wise rows keep the 2/3 load: their kernel sorts the
  // whole table.
  int numeric_sparse_slack = 4;
  int numeric_sparse_table = 128;
  // Rows whose B rows are this long on average (products >= this × A
  // entries) go to the entry-wise numeric kernel: a group of up to 1024
  // lanes spreads over one B row at a time (its columns are distinct, so no
  // lanes collide), where the warp kernel's per-product search costs more
  // than it saves and one warp per large table starves the SM (squaring
  // banded, block and power-law matrices).
  int entrywise_min_b_length = 32;
  // The count pass takes a thread per row of A while A's mean row length is
  // at most product_count_thread_max, or at most product_count_many_rows_max
  // with at least product_count_rows_per_entry rows per SM per entry of the
  // mean row (enough rows to hide each thread's serial walk); 8 lanes up to
  // product_count_sub_warp_max, else a warp (the few long rows of a coarse
  // R·A, whose serial walk would take a millisecond).
  int product_count_thread_max = 8;
  int product_count_many_rows_max = 32;
  int product_count_rows_per_entry = 128;
  int product_count_sub_warp_max = 64;
  // Long rows (past the largest shared table, or filling it beyond 2/3 in
  // the symbolic pass, where linear probing slows down) are sorted
  // (kernels/sorted_long_rows.cuh, a thread per product) while their buffers
  // fit sorted_long_rows_budget bytes.
  std::size_t sorted_long_rows_budget = std::size_t(192) << 20;
  int symbolic_load_num = 2;
  int symbolic_load_den = 3;
  // Sorted whole: a product of at most sorted_small_rows rows with
  // sorted_small_min_products or more per row on average (a coarse Galerkin
  // level: a few hundred rows of ~10^4 products, too few to fill the GPU a
  // warp or a block per row), within the same budget.
  int sorted_small_rows = 2048;
  int sorted_small_min_products = 4096;
  // Past that budget (graphs with many long rows): one block per row, each
  // with a dense accumulator of cols(B) entries in global memory; at most
  // global_blocks_per_sm blocks per SM and global_memory_budget bytes of
  // accumulators at once.
  int global_blocks_per_sm = 4;
  std::size_t global_memory_budget = std::size_t(1) << 30;
  // Few long rows (a "hub" row or two): each row's A entries are split into
  // slices on separate blocks, partial rows merged in slice order; the
  // slices' accumulators share split_memory_budget bytes.
  std::size_t split_memory_budget = std::size_t(160) << 20;
  // Fused rows: a product of at least fused_min_products, fused_min_mean per
  // row, into a space of at most 1/fused_narrowing of B's rows (a
  // prolongator's coarse space, where a row's products share few columns),
  // whose rows have at most fused_max_row_products products and none of the
  // entry-wise class, skips the symbolic pass: rows are summed into rooms
  // (at most fused_budget bytes of columns and values) and packed. Lighter
  // rows gain nothing from skipping a cheap count; heavier ones need rooms
  // too large to pay.
  std::int64_t fused_min_products = std::int64_t(1) << 22;
  int fused_min_mean = 64;
  int fused_narrowing = 4;
  int fused_max_row_products = 256;
  std::size_t fused_budget = std::size_t(2) << 30;
  // Merged rows walk B rows one entry at a time, uncoalesced, at a cost per
  // product above the fused short-row sort's; products of at least
  // merge_heavy_mean products per row and merge_heavy_products in all stay
  // with the fused or binned path, whose fixed cost (three read-backs, a
  // dozen launches) such a product pays back.
  double merge_heavy_mean = 64;
  double merge_heavy_products = double(std::int64_t(1) << 26);
  // A merge step costs every lane of the group, so merging pays where a
  // row's products fold onto few columns: B maps into a space at least
  // merge_narrowing times smaller (a prolongator's coarse space).
  int merge_narrowing = 4;
  // Window rows take narrowing products whose A rows average at least this
  // many entries (below, merged rows win; heavy products too).
  int window_min_mean_entries = 64;
  // Window rows of a product of at most window_split_max_rows rows that
  // average at least window_split_min_products products take a block a row
  // (split window rows): a warp a row would leave most of the GPU idle. 3D
  // 7-pt 128³'s level-2 R·(AP), 756 rows of about 27,000 products, took
  // 1.99 ms that way (docs/experiments.md).
  index_t window_split_max_rows = 8192;
  double window_split_min_products = 4096;

  // Derived from the device (spgemm_tuning).
  int device = 0;
  int sm_count = 0;
  std::size_t shared_per_block = 0;  // sharedMemPerBlockOptin
  std::size_t shared_usable = 0;     // less headroom for the kernels' static shared memory
  std::size_t value_bytes = 0;
  int symbolic_max_table = 0;  // largest power of two of 4-byte keys that fits
  int numeric_max_table = 0;   // largest numeric table of one row that fits

  int symbolic_shared_bins() const { return bins_up_to(symbolic_max_table); }
  int numeric_shared_bins() const { return bins_up_to(numeric_max_table); }
  // Numeric rows of few products go to the sub-warp sort kernel
  // (kernels/short_rows.cuh), width kShortMinWidth << width_log2; their bins
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

/// The tuning for the current device and a value type of `value_bytes`,
/// derived once per (device, value size) and cached: the device queries cost
/// as much as a launch, and a SpGEMM of a coarse level takes only a few.
const SpgemmTuning& spgemm_tuning(std::size_t value_bytes);

/// The tuning derived from explicit device properties (spgemm_tuning's
/// derivation; tests use it to state the choice of path without a GPU).
SpgemmTuning tuning_for_device(int device, int sm_count, std::size_t shared_per_block_optin,
                               std::size_t value_bytes);

/// How a shared-memory bin is launched: `group` lanes per row with a hash
/// table of (at most) `table` slots each, `rows_per_block` rows in a block of
/// `block` threads.
struct BinLaunch {
  int table, group, block, rows_per_block;
};

inline BinLaunch launch_of_bin(const SpgemmTuning& tuning, int bin) {
  BinLaunch launch;
  launch.table = tuning.table_of_bin(bin);
  launch.group = tuning.group_of_table(launch.table);
  launch.block = launch.group <= 32 ? kSmallBlock : launch.group;
  launch.rows_per_block = launch.block / launch.group;
  return launch;
}

/// How a numeric shared-memory bin of `rows` rows is launched: a warp per
/// row, as many rows per block as fit (at most numeric_rows_per_block), and
/// fewer when the bin is too small to give every SM a block (a few dozen
/// long rows of R·A must not crowd onto a handful of SMs).
inline BinLaunch numeric_launch_of_bin(const SpgemmTuning& tuning, int bin, long long rows) {
  BinLaunch launch;
  launch.table = tuning.table_of_bin(bin);
  launch.group = 32;
  const long long fit =
      static_cast<long long>(tuning.shared_usable / tuning.numeric_row_bytes(launch.table));
  const long long spread = (rows + tuning.sm_count - 1) / tuning.sm_count;
  long long per_block = tuning.numeric_rows_per_block;
  if (fit < per_block) per_block = fit;
  if (spread < per_block) per_block = spread;
  launch.rows_per_block = per_block < 1 ? 1 : int(per_block);
  launch.block = 32 * launch.rows_per_block;
  return launch;
}

}  // namespace binamg::spgemm_detail
