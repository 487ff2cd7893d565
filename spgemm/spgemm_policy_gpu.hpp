#pragma once
// Tuning of the GPU SpGEMM (Liu & Vinter's binned framework with nsparse-style
// shared-memory hash tables), kept in one place. Numbers that depend on the
// device are derived from cudaDeviceProp; the rest are documented defaults.
#include <cstddef>

namespace binamg::spgemm_detail {

/// Bin 0 holds rows needing no kernel (symbolic: 0 or 1 product, counted
/// directly; numeric: empty rows). Bins 1..shared_bins hold rows whose hash
/// table of min_table << (bin-1) slots fits in shared memory; the bin after
/// them holds the long rows that fall back to a dense accumulator in global memory.
constexpr int kMaxBins = 16;

struct SpgemmPolicy {
  // Smallest hash table (slots). One warp's worth: smaller tables waste lanes.
  int min_table = 32;
  // Threads per row = table slots / slots_per_thread, clamped to
  // [min_group, max_group]; with 8 slots per thread a block-per-row bin keeps
  // ~96 bytes of (key, double) table per thread, so shared memory, not
  // registers, limits occupancy only near full occupancy on Hopper.
  int slots_per_thread = 8;
  int min_group = 4;
  int max_group = 1024;
  // Threads per block when several rows share a block (groups of <= 32 threads).
  int small_block = 256;
  // Numeric tables hold nnz(C row) keys at load <= 2/3 so probes stay short;
  // symbolic tables hold the product count, an upper bound of the row's nnz.
  int numeric_slack_num = 3;
  int numeric_slack_den = 2;
  // Long rows: one block per row, each block with a dense accumulator of
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

  // Derived from the device (see make_spgemm_policy).
  int sm_count = 0;
  std::size_t shared_per_block = 0;  // sharedMemPerBlockOptin
  int symbolic_max_table = 0;        // largest power of two of 4-byte keys that fits
  int numeric_max_table = 0;         // the same for (key, value) pairs

  int symbolic_shared_bins() const { return bins_up_to(symbolic_max_table); }
  int numeric_shared_bins() const { return bins_up_to(numeric_max_table); }
  // Numeric rows of few products go to a warp-per-row sort kernel
  // (spgemm_short_rows.cuh); their bin follows the long-row bin.
  int numeric_short_bin() const { return numeric_shared_bins() + 2; }
  int table_of_bin(int bin) const { return min_table << (bin - 1); }
  int group_of_table(int table) const {
    int group = table / slots_per_thread;
    return group < min_group ? min_group : (group > max_group ? max_group : group);
  }

 private:
  int bins_up_to(int max_table) const {
    int bins = 0;
    for (int table = min_table; table <= max_table; table <<= 1) ++bins;
    return bins;
  }
};

/// How a shared-memory bin is launched: `group` lanes per row with a hash table
/// of `table` slots each, `rows_per_block` rows in a block of `block` threads.
struct BinLaunch {
  int table, group, block, rows_per_block;
  std::size_t shared_bytes(std::size_t bytes_per_slot) const {
    return std::size_t(rows_per_block) * table * bytes_per_slot;
  }
};

inline BinLaunch launch_of_bin(const SpgemmPolicy& policy, int bin) {
  BinLaunch launch;
  launch.table = policy.table_of_bin(bin);
  launch.group = policy.group_of_table(launch.table);
  launch.block = launch.group <= 32 ? policy.small_block : launch.group;
  launch.rows_per_block = launch.block / launch.group;
  return launch;
}

/// The policy for the current device and a value type of `value_bytes`.
SpgemmPolicy make_spgemm_policy(std::size_t value_bytes);

}  // namespace binamg::spgemm_detail
