// GPU SpGEMM dispatch: the four stages of the binned framework (see spgemm.hpp).
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/radix_sort.hpp"
#include "core/read_back.hpp"
#include "spgemm/spgemm.hpp"
#include "spgemm/spgemm_binning.cuh"
#include "spgemm/spgemm_dense_columns.cuh"
#include "spgemm/spgemm_entrywise.cuh"
#include "spgemm/spgemm_kernels.cuh"
#include "spgemm/spgemm_long_rows.cuh"
#include "spgemm/spgemm_merge_rows.cuh"
#include "spgemm/spgemm_window_rows.cuh"
#include "spgemm/spgemm_policy_gpu.hpp"
#include "spgemm/spgemm_short_rows.cuh"
#include "spgemm/spgemm_sorted_long_rows.cuh"
#include "spgemm/spgemm_thread_rows.cuh"

namespace binamg {
namespace spgemm_detail {

namespace {

SpgemmPolicy make_spgemm_policy(int device, std::size_t value_bytes) {
  SpgemmPolicy policy;
  int sm_count = 0, shared = 0;
  BINAMG_CUDA_CHECK(
      cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  BINAMG_CUDA_CHECK(
      cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  policy.device = device;
  policy.sm_count = sm_count;
  policy.shared_per_block = static_cast<std::size_t>(shared);
  // Static shared memory of the kernels (a counter, cub storage) is small;
  // keep 1 KiB of headroom for it.
  policy.shared_usable = policy.shared_per_block - 1024;
  policy.value_bytes = value_bytes;
  int table = policy.min_table;
  while (true) {
    const int next = table * 2;
    const int group = policy.group_of_table(next);
    const int rows = group <= 32 ? kSmallBlock / group : 1;
    if (std::size_t(rows) * next * sizeof(index_t) > policy.shared_usable) break;
    table = next;
  }
  policy.symbolic_max_table = table;
  table = policy.min_table;
  while (policy.numeric_row_bytes(table * 2) <= policy.shared_usable) table *= 2;
  policy.numeric_max_table = table;
  require(policy.min_table <= kThreadRowMaxProducts,
          "spgemm: the first symbolic bin holds more products than a thread row");
  require(policy.symbolic_shared_bins() + 1 < kMaxBins &&
              policy.numeric_last_bin() < kMaxBins,
          "spgemm: device shared memory gives more bins than kMaxBins");
  return policy;
}

}  // namespace

const SpgemmPolicy& spgemm_policy(std::size_t value_bytes) {
  int device = 0;
  BINAMG_CUDA_CHECK(cudaGetDevice(&device));
  static std::mutex mutex;
  static std::map<std::pair<int, std::size_t>, SpgemmPolicy> policies;  // never erased
  const std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(device, value_bytes);
  auto found = policies.find(key);
  if (found == policies.end())
    found = policies.emplace(key, make_spgemm_policy(device, value_bytes)).first;
  return found->second;
}

namespace {

/// Calls body(std::integral_constant<int, G>) for the group size G at run time.
template <typename Body>
void with_group(int group, Body&& body) {
  switch (group) {
    case 4: return body(std::integral_constant<int, 4>{});
    case 8: return body(std::integral_constant<int, 8>{});
    case 16: return body(std::integral_constant<int, 16>{});
    case 32: return body(std::integral_constant<int, 32>{});
    case 64: return body(std::integral_constant<int, 64>{});
    case 128: return body(std::integral_constant<int, 128>{});
    case 256: return body(std::integral_constant<int, 256>{});
    case 512: return body(std::integral_constant<int, 512>{});
    case 1024: return body(std::integral_constant<int, 1024>{});
    default:
      throw InvalidInput("spgemm: policy gives unsupported group size " +
                         std::to_string(group));
  }
}

/// Calls body(std::integral_constant<int, W>) for a short-row sub-warp of W
/// lanes (W = kShortMinWidth << i, i < kShortWidths).
template <int Width = kShortMinWidth, typename Body>
void with_sub_warp(int width, Body&& body) {
  if (width == Width) return body(std::integral_constant<int, Width>{});
  if constexpr (Width < (kShortMinWidth << (kShortWidths - 1))) {
    with_sub_warp<Width * 2>(width, body);
  } else {
    throw InvalidInput("spgemm: unsupported short-row width " + std::to_string(width));
  }
}

/// Lets `Kernel` take the policy's usable shared memory per block (the
/// opt-in maximum less the headroom for static shared memory, or less the
/// kernel's own static shared memory where that is larger). Set once per
/// kernel and device (up to 64 devices): the calls cost as much as a launch,
/// and the attribute stays until the context ends.
template <auto Kernel>
void allow_shared_memory(const SpgemmPolicy& policy, std::size_t bytes) {
  static std::atomic<std::uint64_t> configured{0};
  const std::uint64_t bit = std::uint64_t(1) << (policy.device & 63);
  if (bytes <= 48 * 1024 || (configured.load(std::memory_order_acquire) & bit) != 0) return;
  cudaFuncAttributes attributes{};
  BINAMG_CUDA_CHECK(cudaFuncGetAttributes(&attributes, Kernel));
  const std::size_t dynamic =
      std::min(policy.shared_usable, policy.shared_per_block - attributes.sharedSizeBytes);
  BINAMG_CUDA_CHECK(cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(dynamic)));
  configured.fetch_or(bit, std::memory_order_release);
}

/// How the symbolic pass's block-wide rows walk their products (see
/// for_each_product_of_row): sub-groups of B's mean row length rounded up to
/// a power of two (at most a warp) while no B row of a batch passes four
/// times that mean; a thread per product otherwise.
struct SymbolicWalk {
  int sub_width;
  index_t balanced_length;
};

SymbolicWalk symbolic_walk(index_t b_rows, index_t b_nnz) {
  const double mean = b_rows == 0 ? 1.0 : double(b_nnz) / b_rows;
  int width = 1;
  while (width < 32 && width < mean) width *= 2;
  return {width, index_t(4 * mean) + 1};
}

int log2_of(int power_of_two) {
  int log = 0;
  while ((1 << log) < power_of_two) ++log;
  return log;
}

constexpr int kThreadsPerRowKernel = 256;

/// The smallest table (a power of two, at least min_table) holding `cols`
/// keys: the most distinct columns a row of C can have.
int table_for_columns(const SpgemmPolicy& policy, index_t cols) {
  int table = policy.min_table;
  while (table < cols && table <= policy.symbolic_max_table) table *= 2;
  return table;
}

unsigned grid_for(std::int64_t items, int per_block) {
  return static_cast<unsigned>((items + per_block - 1) / per_block);
}

/// What the fused path reads back after its numeric pass: nnz(C) and
/// whether a row passed its room.
struct FusedTally {
  index_t nnz;
  int overflow;
};

/// Counters of one call, cleared together: per binning (0 symbolic, 1
/// numeric, 2 the count pass's numeric binning for the fused path) the bin
/// sizes followed by the product total (symbolic) or the nnz(C) total
/// (numeric) and, symbolic, the entry-wise rows; the cursors
/// that scatter rows into their bins; the numeric pass's error flag; the
/// merged rows' and the window rows' count passes.
struct Counters {
  unsigned long long tallies[3][kMaxBins + 2];
  index_t cursors[3][kMaxBins];
  int error;
  MergeTally merge;
  WindowTally window_fused, window;
  FusedTally fused;
};

constexpr std::size_t align_up(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

/// A call's device scratch in one pool allocation and one memset (a call on
/// a coarse level costs little more than its allocations and launches):
/// the counters, each row's bin, the rows grouped by bin (contiguous in bin
/// order; the numeric binning overwrites the symbolic one) and the
/// temporary storage of the row-offset scan. The host reads a binning's
/// bin sizes in one copy.
struct Workspace {
  static constexpr int kFusedBinning = 2;
  using Tallies = std::array<unsigned long long, kMaxBins + 2>;
  DeviceBuffer<unsigned char> memory;
  Counters* counters;
  std::uint8_t* bin_of_row;
  std::uint8_t* fused_bin_of_row;  // the count pass's numeric binning (FusedBinning)
  index_t* rows_by_bin;
  void* scan_storage;
  Tallies host_tallies{};
  Tallies fused_tallies{};  // read with the count pass's tallies
  BinOffsets offsets{};

  Workspace(index_t rows, std::size_t scan_bytes, cudaStream_t stream)
      : memory(align_up(sizeof(Counters)) + 2 * align_up(std::size_t(rows)) +
                   align_up(std::size_t(rows) * sizeof(index_t)) + scan_bytes,
               stream, "spgemm: workspace") {
    unsigned char* next = memory.data();
    counters = reinterpret_cast<Counters*>(next);
    next += align_up(sizeof(Counters));
    bin_of_row = next;
    next += align_up(std::size_t(rows));
    fused_bin_of_row = next;
    next += align_up(std::size_t(rows));
    rows_by_bin = reinterpret_cast<index_t*>(next);
    next += align_up(std::size_t(rows) * sizeof(index_t));
    scan_storage = next;
    BINAMG_CUDA_CHECK(cudaMemsetAsync(counters, 0, sizeof(Counters), stream));
  }

  unsigned long long* tallies(int binning) { return counters->tallies[binning]; }

  /// Reads the binning's tallies (synchronizes) and places its bins.
  void read_tallies(int binning, cudaStream_t stream) {
    read_back(host_tallies.data(), tallies(binning), sizeof(host_tallies), stream);
    place_bins();
  }

  /// After a count pass with its FusedBinning on: its two binnings'
  /// tallies in one read-back; the symbolic bins are placed.
  void read_count_and_fused_tallies(cudaStream_t stream) {
    static_assert(sizeof(Counters::tallies[0]) == sizeof(Tallies), "a binning's tallies");
    std::array<Tallies, 3> all;
    read_back(all.data(), counters->tallies, sizeof(all), stream);
    host_tallies = all[0];
    fused_tallies = all[kFusedBinning];
    place_bins();
  }

  /// Places and fills the bins of the count pass's numeric binning.
  void distribute_fused(index_t rows, cudaStream_t stream) {
    host_tallies = fused_tallies;
    place_bins();
    scatter_from(fused_bin_of_row, kFusedBinning, rows, stream);
  }

  /// Fills each bin's row list (after read_tallies).
  void scatter(int binning, index_t rows, cudaStream_t stream) {
    scatter_from(bin_of_row, binning, rows, stream);
  }

  void distribute(int binning, index_t rows, cudaStream_t stream) {
    read_tallies(binning, stream);
    scatter(binning, rows, stream);
  }

  index_t count(int bin) const { return index_t(host_tallies[bin]); }

  /// After the count pass: rows of the entry-wise class.
  unsigned long long rows_entrywise() const { return host_tallies[kMaxBins + 1]; }
  /// The launches for bins first..last of one kernel family, whose table or
  /// width grows with the bin: a bin of fewer than `few` rows joins the next
  /// non-empty bin of the family if that is at most two bins up, whose table
  /// or width serves its rows too, with the same sums. Bins are listed in
  /// order, so the rows joined are listed together. Calls
  /// launch(bin, rows, count) with the bin whose kernel takes them.
  template <typename Launch>
  void for_each_launch(int first, int last, index_t few, Launch&& launch) const {
    int from = 0;  // first bin of the rows waiting for a launch, 0: none
    for (int bin = first; bin <= last; ++bin) {
      if (count(bin) == 0) continue;
      if (from == 0) from = bin;
      int next = bin + 1;
      while (next <= last && count(next) == 0) ++next;
      if (count(bin) < few && next <= std::min(last, bin + 2)) continue;
      launch(bin, rows_of(from), offsets.start[bin + 1] - offsets.start[from]);
      from = 0;
    }
  }
  /// Rows in bins 1 and up (every row a kernel handles), listed from rows_of(1).
  index_t listed() const { return offsets.start[kMaxBins]; }
  const index_t* rows_of(int bin) const { return rows_by_bin + offsets.start[bin]; }

 private:
  void place_bins() {
    offsets.start[0] = 0;
    offsets.start[1] = 0;  // bin 0 is never listed
    for (int bin = 1; bin < kMaxBins; ++bin)
      offsets.start[bin + 1] = offsets.start[bin] + index_t(host_tallies[bin]);
  }

  void scatter_from(const std::uint8_t* bins_of_rows, int binning, index_t rows,
                    cudaStream_t stream) {
    if (offsets.start[kMaxBins] == 0) return;  // every row in bin 0
    scatter_rows_kernel<<<grid_for(rows, kThreadsPerRowKernel), kThreadsPerRowKernel, 0,
                          stream>>>(bins_of_rows, rows, offsets, counters->cursors[binning],
                                    rows_by_bin);
    BINAMG_CHECK_LAUNCH();
  }
};

/// Rows below which a bin joins the next one's launch (Workspace::for_each_launch).
index_t few_rows(const SpgemmPolicy& policy) {
  return index_t(policy.sm_count) * policy.join_bin_rows_per_sm;
}

BinRule rule_for(const SpgemmPolicy& policy, int shared_bins) {
  return BinRule{log2_of(policy.min_table), shared_bins};
}

NumericBinRule numeric_bin_rule(const SpgemmPolicy& policy) {
  return {rule_for(policy, policy.numeric_shared_bins()), policy.numeric_short_bin(0),
          policy.numeric_entrywise_bin(1) - 1,
          NumericTableRule{policy.numeric_slack_num, policy.numeric_slack_den,
                           policy.numeric_sparse_slack, policy.numeric_sparse_table}};
}

/// Blocks for a long-row bin: enough to fill the GPU, no more than the
/// accumulator budget allows (at least one).
int global_blocks(const SpgemmPolicy& policy, index_t rows, std::size_t bytes_per_block) {
  const std::size_t by_budget =
      std::max<std::size_t>(1, policy.global_memory_budget / std::max<std::size_t>(1, bytes_per_block));
  const std::size_t by_device = std::size_t(policy.sm_count) * policy.global_blocks_per_sm;
  return int(std::min({by_budget, by_device, std::size_t(rows)}));
}

/// Slices per long row in the numeric pass: 1 (one block per row) unless
/// the long rows are too few to fill the device, then as many as fill it
/// within split_memory_budget (one accumulator per slice).
int long_row_slices(const SpgemmPolicy& policy, index_t rows, std::size_t bytes_per_block) {
  const std::size_t by_device = std::size_t(policy.sm_count) * policy.global_blocks_per_sm;
  const std::size_t by_budget =
      policy.split_memory_budget / std::max<std::size_t>(1, bytes_per_block);
  const std::size_t items = std::min(by_device, by_budget);
  if (rows <= 0 || std::size_t(rows) * 2 > items) return 1;
  return int(items / std::size_t(rows));
}

/// Whether a product of `rows` rows and `products` products in all is sorted
/// whole (see SpgemmPolicy::sorted_small_rows): both passes decide alike.
template <typename T>
bool sorts_whole(const SpgemmPolicy& policy, index_t rows, std::int64_t products) {
  return rows <= policy.sorted_small_rows &&
         products >= std::int64_t(policy.sorted_small_min_products) * rows &&
         products * SortedLongRows<T>::bytes_per_product(true) <=
             std::int64_t(policy.sorted_long_rows_budget);
}

/// Stage 3, symbolic: nnz of each row of C into row_nnz (bins 1..global).
template <typename T>
void count_row_nnz(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const SpgemmPolicy& policy,
                   const Workspace& bins, index_t* row_nnz, cudaStream_t stream) {
  const SymbolicWalk walk = symbolic_walk(B.rows, B.nnz);
  const PatternOperands in{A.row_ptr.data(), A.col_idx.data(), B.row_ptr.data(),
                           B.col_idx.data()};
  const int shared_bins = policy.symbolic_shared_bins();
  bins.for_each_launch(1, shared_bins, few_rows(policy), [&](int bin, const index_t* rows,
                                                             index_t count) {
    if (bin == 1) {  // rows of at most min_table products
      symbolic_thread_rows_kernel<<<grid_for(count, kThreadRowBlock), kThreadRowBlock, 0,
                                    stream>>>(in, rows, count, row_nnz);
      BINAMG_CHECK_LAUNCH();
      return;
    }
    const BinLaunch launch = launch_of_bin(policy, bin);
    // The bin's threads follow its product count; its table need not pass
    // the columns of B.
    const int table = std::min(launch.table, table_for_columns(policy, B.cols));
    const std::size_t shared = std::size_t(launch.rows_per_block) * table * sizeof(index_t);
    with_group(launch.group, [&](auto g) {
      constexpr int G = decltype(g)::value;
      allow_shared_memory<symbolic_shared_kernel<G>>(policy, shared);
      symbolic_shared_kernel<G>
          <<<grid_for(count, launch.rows_per_block), launch.block, shared, stream>>>(
              in, rows, count, table, walk.sub_width, walk.balanced_length, row_nnz);
      BINAMG_CHECK_LAUNCH();
    });
  });
  const int global_bin = shared_bins + 1;
  const index_t count = bins.count(global_bin);
  if (count == 0) return;
  SortedLongRows<T> sorted(A, B, bins.rows_of(global_bin), count, stream);
  if (sorted.bytes_needed(false) <= std::int64_t(policy.sorted_long_rows_budget)) {
    sorted.count_runs(row_nnz);
    return;
  }
  constexpr int Block = 1024;
  const int blocks = global_blocks(policy, count, std::size_t(B.cols) * sizeof(index_t));
  DeviceBuffer<index_t> markers(std::size_t(blocks) * B.cols, stream,
                                "spgemm: column markers of long rows");
  BINAMG_CUDA_CHECK(
      cudaMemsetAsync(markers.data(), 0xff, markers.size() * sizeof(index_t), stream));
  symbolic_global_kernel<Block><<<blocks, Block, 0, stream>>>(
      in, bins.rows_of(global_bin), count, markers.data(), B.cols, walk.sub_width,
      walk.balanced_length, row_nnz);
  BINAMG_CHECK_LAUNCH();
}

/// The numeric pass of the short-row bins (numeric_short_rows_kernel; with
/// row_runs, rows go at c_row_ptr's product offsets and their counts to
/// row_runs).
template <typename T>
void fill_short_rows(const ProductOperands<T>& in, index_t b_cols, const index_t* c_row_ptr,
                     index_t* c_col, T* c_val, index_t* row_runs, const SpgemmPolicy& policy,
                     const Workspace& bins, int* error, cudaStream_t stream) {
  const bool narrow_keys = (std::int64_t(b_cols) << kShortPositionBits) < (std::int64_t(1) << 32);
  bins.for_each_launch(policy.numeric_short_bin(0), policy.numeric_short_bin(kShortWidths - 1),
                       few_rows(policy), [&](int bin, const index_t* rows, index_t count) {
    const int width_log2 = bin - policy.numeric_short_bin(0);
    if (width_log2 < kThreadRowWidths) {
      numeric_thread_rows_kernel<T><<<grid_for(count, kThreadRowBlock), kThreadRowBlock, 0,
                                      stream>>>(in, rows, count, c_row_ptr, c_col, c_val, error,
                                                row_runs);
      BINAMG_CHECK_LAUNCH();
      return;
    }
    constexpr int Block = 256;
    with_sub_warp(kShortMinWidth << width_log2, [&](auto w) {
      constexpr int Width = decltype(w)::value;
      const auto launch = [&](auto key) {
        using Key = decltype(key);
        numeric_short_rows_kernel<Block, Width, Key, T>
            <<<grid_for(count, Block / Width), Block, 0, stream>>>(
                in, rows, count, c_row_ptr, c_col, c_val, error, row_runs);
        BINAMG_CHECK_LAUNCH();
      };
      if (narrow_keys) launch(0u); else launch(0ull);
    });
  });
}

/// The numeric pass of the shared-table bins (numeric_shared_kernel;
/// row_runs as in fill_short_rows).
template <typename T>
void fill_shared_rows(const ProductOperands<T>& in, const index_t* c_row_ptr, index_t* c_col,
                      T* c_val, index_t* row_runs, const SpgemmPolicy& policy,
                      const Workspace& bins, int* error, cudaStream_t stream) {
  bins.for_each_launch(1, policy.numeric_shared_bins(), few_rows(policy),
                       [&](int bin, const index_t* rows, index_t count) {
    const BinLaunch launch = numeric_launch_of_bin(policy, bin, count);
    const std::size_t shared =
        std::size_t(launch.rows_per_block) * policy.numeric_row_bytes(launch.table);
    allow_shared_memory<numeric_shared_kernel<kNumericItems, T>>(policy, shared);
    numeric_shared_kernel<kNumericItems, T>
        <<<grid_for(count, launch.rows_per_block), launch.block, shared, stream>>>(
            in, rows, count, launch.table, c_row_ptr, c_col, c_val, error, row_runs);
    BINAMG_CHECK_LAUNCH();
  });
}

/// Stage 3 and 4, numeric: C's columns and values for every binned row.
template <typename T>
void fill_rows(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
               const SpgemmPolicy& policy, const Workspace& bins, int* error,
               cudaStream_t stream) {
  const ProductOperands<T> in{A.row_ptr.data(), A.col_idx.data(), A.values.data(),
                              B.row_ptr.data(), B.col_idx.data(), B.values.data()};
  const int shared_bins = policy.numeric_shared_bins();
  const index_t few = few_rows(policy);
  fill_shared_rows(in, C.row_ptr.data(), C.col_idx.data(), C.values.data(), nullptr, policy,
                   bins, error, stream);
  const int entrywise_offset = policy.numeric_entrywise_bin(1) - 1;
  bins.for_each_launch(policy.numeric_entrywise_bin(1), policy.numeric_entrywise_bin(shared_bins),
                       few, [&](int entrywise_bin, const index_t* rows, index_t count) {
    const BinLaunch launch = launch_of_bin(policy, entrywise_bin - entrywise_offset);
    const std::size_t shared =
        std::size_t(launch.rows_per_block) * launch.table * (sizeof(index_t) + sizeof(T));
    with_group(launch.group, [&](auto g) {
      constexpr int G = decltype(g)::value;
      allow_shared_memory<numeric_entrywise_kernel<G, T>>(policy, shared);
      numeric_entrywise_kernel<G, T>
          <<<grid_for(count, launch.rows_per_block), launch.block, shared, stream>>>(
              in, rows, count, launch.table, C.row_ptr.data(), C.col_idx.data(),
              C.values.data(), error);
      BINAMG_CHECK_LAUNCH();
    });
  });
  fill_short_rows(in, B.cols, C.row_ptr.data(), C.col_idx.data(), C.values.data(), nullptr,
                  policy, bins, error, stream);
  const int global_bin = shared_bins + 1;
  const index_t count = bins.count(global_bin);
  if (count == 0) return;
  SortedLongRows<T> sorted(A, B, bins.rows_of(global_bin), count, stream);
  if (sorted.bytes_needed(true) <= std::int64_t(policy.sorted_long_rows_budget)) {
    sorted.fill(C, error);
    return;
  }
  constexpr int Block = 256, Items = 4;
  const std::size_t bytes_per_block = std::size_t(B.cols) * (sizeof(index_t) + sizeof(T));
  const int slices = long_row_slices(policy, count, bytes_per_block);
  const int blocks =
      slices > 1 ? int(count) * slices : global_blocks(policy, count, bytes_per_block);
  DeviceBuffer<index_t> markers(std::size_t(blocks) * B.cols, stream,
                                "spgemm: column markers of long rows");
  DeviceBuffer<T> accumulators(std::size_t(blocks) * B.cols, stream,
                               "spgemm: dense accumulators of long rows");
  BINAMG_CUDA_CHECK(
      cudaMemsetAsync(markers.data(), 0xff, markers.size() * sizeof(index_t), stream));
  const int column_bits = radix_key_bits(B.cols);
  const index_t* long_rows = bins.rows_of(global_bin);
  numeric_long_rows_kernel<Block, Items, T><<<blocks, Block, 0, stream>>>(
      in, long_rows, count, slices, markers.data(), accumulators.data(), B.cols, column_bits,
      C.row_ptr.data(), C.col_idx.data(), C.values.data(), error);
  BINAMG_CHECK_LAUNCH();
  if (slices == 1) return;
  constexpr int MergeBlock = 256;
  merge_slices_kernel<T><<<dim3(grid_for(B.cols, MergeBlock), unsigned(count)), MergeBlock, 0,
                           stream>>>(long_rows, slices, markers.data(), accumulators.data(),
                                     B.cols);
  BINAMG_CHECK_LAUNCH();
  write_merged_rows_kernel<Block, T><<<unsigned(count), Block, 0, stream>>>(
      long_rows, slices, markers.data(), accumulators.data(), B.cols, C.row_ptr.data(),
      C.col_idx.data(), C.values.data(), error);
  BINAMG_CHECK_LAUNCH();
}

/// Bins C's rows by nnz for the numeric pass (row_sizes: counts, or offsets
/// when sizes_are_offsets; classes_in_bins: the workspace holds
/// bin_by_products' numeric classes); returns nnz(C) in 64 bits. Synchronizes.
template <typename T>
unsigned long long bin_for_numeric(const DeviceCsr<T>& A, const DeviceCsr<T>& B,
                                   const index_t* row_sizes, bool sizes_are_offsets,
                                   bool classes_in_bins, index_t rows,
                                   const SpgemmPolicy& policy, Workspace& bins,
                                   cudaStream_t stream) {
  if (rows > 0) {
    const NumericClassRule classes{A.row_ptr.data(), A.col_idx.data(), B.row_ptr.data(),
                                   policy.entrywise_min_b_length, classes_in_bins};
    bin_by_nnz_kernel<<<grid_for(rows, kThreadsPerRowKernel), kThreadsPerRowKernel, 0,
                        stream>>>(row_sizes, sizes_are_offsets, rows, classes,
                                  numeric_bin_rule(policy), bins.bin_of_row, bins.tallies(1),
                                  bins.tallies(1) + kMaxBins);
    BINAMG_CHECK_LAUNCH();
  }
  bins.distribute(1, rows, stream);
  return bins.host_tallies[kMaxBins];
}

/// C's row offsets from its row counts in place (row_ptr[rows] is 0), and its
/// arrays, sized by the total (one read-back).
template <typename T>
void allocate_from_counts(DeviceCsr<T>& C, const Workspace& bins, std::size_t scan_bytes,
                          cudaStream_t stream) {
  BINAMG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(bins.scan_storage, scan_bytes,
                                                  C.row_ptr.data(), C.row_ptr.data(),
                                                  C.rows + 1, stream));
  C.nnz = read_back(C.row_ptr.data() + C.rows, stream);
  C.col_idx = DeviceBuffer<index_t>(C.nnz, stream, "spgemm: column indices of C");
  C.values = DeviceBuffer<T>(C.nnz, stream, "spgemm: values of C");
}

/// C's row offsets from its row counts in place, once a count pass has
/// tallied nnz(C) and the longest row (no read-back), its arrays, and its
/// recorded longest row.
template <typename T>
void allocate_counted(DeviceCsr<T>& C, unsigned long long nnz, index_t longest,
                      const Workspace& bins, std::size_t scan_bytes, cudaStream_t stream) {
  BINAMG_CUDA_CHECK(cudaMemsetAsync(C.row_ptr.data() + C.rows, 0, sizeof(index_t), stream));
  BINAMG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(bins.scan_storage, scan_bytes,
                                                  C.row_ptr.data(), C.row_ptr.data(),
                                                  C.rows + 1, stream));
  C.nnz = checked_index(static_cast<std::int64_t>(nnz), "spgemm: nnz(C)");
  C.max_row_length = longest;
  C.col_idx = DeviceBuffer<index_t>(C.nnz, stream, "spgemm: column indices of C");
  C.values = DeviceBuffer<T>(C.nnz, stream, "spgemm: values of C");
}

/// Stages 3-4 for a product sorted whole (sorts_whole; `products` is the
/// count pass's total): every row of A in one sort that serves both passes,
/// and nnz(C) read from the row-offset scan, where the general path reads
/// back a numeric binning and sorts again (a coarse Galerkin level whose
/// coarse space is too wide for the dense-column kernels).
template <typename T>
void sort_whole_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, std::int64_t products,
                        DeviceCsr<T>& C, Workspace& bins, std::size_t scan_bytes,
                        cudaStream_t stream) {
  SortedLongRows<T> all(A, B, products, stream);
  all.count_runs(C.row_ptr.data(), true);  // row_ptr[rows] is 0 since the count pass
  allocate_from_counts(C, bins, scan_bytes, stream);
  all.fill(C, &bins.counters->error);
}

/// Whether B's shape lets A·B take the fused path (fuses_rows), before
/// its products are counted: the count pass then bins for it too.
template <typename T>
bool may_fuse_rows(const SpgemmPolicy& policy, const DeviceCsr<T>& B) {
  return std::int64_t(B.cols) * policy.fused_narrowing <= B.rows;
}

/// Whether the count pass's product may skip the symbolic pass
/// (SpgemmPolicy::fused_min_products): rows in symbolic bins up to max_bin,
/// the largest holding rows of at most its table's products.
template <typename T>
bool fuses_rows(const SpgemmPolicy& policy, const DeviceCsr<T>& B, index_t rows,
                std::int64_t products, int max_bin, const Workspace& bins) {
  if (!may_fuse_rows(policy, B)) return false;
  std::int64_t most_products = 1;  // bound of the largest non-empty bin
  for (int bin = 1; bin <= max_bin; ++bin)
    if (bins.count(bin) > 0) most_products = std::int64_t(policy.min_table) << (bin - 1);
  return bins.rows_entrywise() == 0 && most_products <= policy.fused_max_row_products &&
         products >= policy.fused_min_products &&
         products >= std::int64_t(policy.fused_min_mean) * rows &&
         std::uint64_t(products) * (sizeof(index_t) + sizeof(T)) <= policy.fused_budget;
}

constexpr int kPackLanes = 8;
/// Entries a lane loads before it stores any, so that its loads are in
/// flight together (two cover the ~12 entries of 3D 27-pt's A·P rows).
constexpr int kPackItems = 2;

/// Where a row's room starts: at its product offset (fused_product) or at
/// row·room entries (fused window rows).
struct RoomAtOffsets {
  const index_t* offsets;
  __device__ std::int64_t operator()(index_t row) const { return offsets[row]; }
};
struct RoomAtStride {
  std::int64_t room;
  __device__ std::int64_t operator()(index_t row) const { return row * room; }
};

/// Moves each row's `count` entries from its room (room_of) to C's row;
/// kPackLanes lanes per row.
template <typename T, typename RoomOf>
__global__ void pack_rows_kernel(index_t rows, RoomOf room_of,
                                 const index_t* __restrict__ staged_col,
                                 const T* __restrict__ staged_val,
                                 const index_t* __restrict__ c_row_ptr,
                                 index_t* __restrict__ c_col, T* __restrict__ c_val) {
  const std::int64_t thread = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const index_t row = index_t(thread / kPackLanes);
  if (row >= rows) return;
  const std::int64_t source = room_of(row);
  const index_t target = c_row_ptr[row];
  const index_t count = c_row_ptr[row + 1] - target;
  for (index_t first = index_t(thread % kPackLanes); first < count;
       first += kPackLanes * kPackItems) {
    index_t col[kPackItems];
    T val[kPackItems];
#pragma unroll
    for (int j = 0; j < kPackItems; ++j) {
      const index_t i = first + j * kPackLanes;
      if (i < count) {
        col[j] = staged_col[source + i];
        val[j] = staged_val[source + i];
      }
    }
#pragma unroll
    for (int j = 0; j < kPackItems; ++j) {
      const index_t i = first + j * kPackLanes;
      if (i < count) {
        c_col[target + i] = col[j];
        c_val[target + i] = val[j];
      }
    }
  }
}

/// Packs the rows from their rooms into C (row_ptr holding their counts).
template <typename T, typename RoomOf>
void pack_rows(RoomOf room_of, const index_t* staged_col, const T* staged_val, DeviceCsr<T>& C,
               cudaStream_t stream) {
  constexpr int Block = 256;
  pack_rows_kernel<T><<<grid_for(std::int64_t(C.rows) * kPackLanes, Block), Block, 0, stream>>>(
      C.rows, room_of, staged_col, staged_val, C.row_ptr.data(), C.col_idx.data(),
      C.values.data());
  BINAMG_CHECK_LAUNCH();
}

/// A product's rows left in the rooms fused_product wrote them to: row r
/// at offsets[r], with as many entries as C's row offsets give it (C has
/// its row offsets and nnz but no arrays). Empty unless kept.
template <typename T>
struct Rooms {
  DeviceBuffer<index_t> offsets, col;
  DeviceBuffer<T> val;
  bool held() const { return offsets.size() > 0; }
};

/// Room offsets row·room for rows + 1 rows.
__global__ void stride_offsets_kernel(index_t* offsets, index_t count, index_t room) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) offsets[i] = index_t(i * room);
}

/// Packs a product's kept rooms into its arrays.
template <typename T>
void pack_rooms(DeviceCsr<T>& C, Rooms<T>& rooms, cudaStream_t stream) {
  C.col_idx = DeviceBuffer<index_t>(C.nnz, stream, "spgemm: column indices of C");
  C.values = DeviceBuffer<T>(C.nnz, stream, "spgemm: values of C");
  pack_rows(RoomAtOffsets{rooms.offsets.data()}, rooms.col.data(), rooms.val.data(), C, stream);
  rooms = Rooms<T>();
}

/// Stages 3-4 for a product that fuses its rows (fuses_rows): row_ptr
/// holds each row's product count and the count pass has binned the rows
/// (FusedBinning). Each row is summed once, by the short-row or the
/// shared-table kernel (a table sized by its products), into a room of
/// kFusedRoom entries, which counts its entries; the scan of the counts
/// places the rows, with one read-back (nnz(C), any row past its room: then
/// all rows again, into rooms of their products). The rows are packed into C
/// or, with `keep`, left in their rooms for the next product to read (C then
/// has no arrays). The symbolic pass it skips hashed every
/// product (3D 27-pt's A·P: ~125 products onto ~12 columns per row).
template <typename T>
void fused_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, std::int64_t products,
                   DeviceCsr<T>& C, const SpgemmPolicy& policy, Workspace& bins,
                   std::size_t scan_bytes, cudaStream_t stream, Rooms<T>* keep) {
  const index_t rows = A.rows;
  // Each row's products (row_ptr[rows] is 0 since the count pass), kept
  // for the second pass: the first overwrites row_ptr with the rows' counts.
  DeviceBuffer<index_t> row_products(std::size_t(rows) + 1, stream, "spgemm: row products");
  BINAMG_CUDA_CHECK(cudaMemcpyAsync(row_products.data(), C.row_ptr.data(),
                                    (std::size_t(rows) + 1) * sizeof(index_t),
                                    cudaMemcpyDeviceToDevice, stream));
  Rooms<T> rooms;
  rooms.offsets = DeviceBuffer<index_t>(std::size_t(rows) + 1, stream, "spgemm: room offsets");
  constexpr int Block = 256;
  stride_offsets_kernel<<<grid_for(std::int64_t(rows) + 1, Block), Block, 0, stream>>>(
      rooms.offsets.data(), rows + 1, kFusedRoom);
  BINAMG_CHECK_LAUNCH();
  rooms.col = DeviceBuffer<index_t>(std::size_t(rows) * kFusedRoom, stream, "spgemm: rooms");
  rooms.val = DeviceBuffer<T>(std::size_t(rows) * kFusedRoom, stream, "spgemm: room values");
  bins.distribute_fused(rows, stream);
  const int shared_bins = policy.numeric_shared_bins();
  for (int bin = shared_bins + 1; bin <= policy.numeric_last_bin(); ++bin) {
    const bool short_rows =
        bin >= policy.numeric_short_bin(0) && bin < policy.numeric_short_bin(kShortWidths);
    require(short_rows || bins.count(bin) == 0,
            "spgemm: internal error: a fused product has rows past the shared tables");
  }
  const ProductOperands<T> in{A.row_ptr.data(), A.col_idx.data(), A.values.data(),
                              B.row_ptr.data(), B.col_idx.data(), B.values.data()};
  // Fills the rooms, counts into row_ptr, scans them; returns the tally.
  const auto fill = [&](int* overflow) {
    fill_shared_rows(in, rooms.offsets.data(), rooms.col.data(), rooms.val.data(),
                     C.row_ptr.data(), policy, bins, overflow, stream);
    fill_short_rows(in, B.cols, rooms.offsets.data(), rooms.col.data(), rooms.val.data(),
                    C.row_ptr.data(), policy, bins, overflow, stream);
    BINAMG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(bins.scan_storage, scan_bytes,
                                                    C.row_ptr.data(), C.row_ptr.data(),
                                                    rows + 1, stream));
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(&bins.counters->fused.nnz, C.row_ptr.data() + rows,
                                      sizeof(index_t), cudaMemcpyDeviceToDevice, stream));
    FusedTally tally{};
    read_back(&tally, &bins.counters->fused, sizeof(tally), stream);
    return tally;
  };
  FusedTally tally = fill(&bins.counters->fused.overflow);
  if (tally.overflow != 0) {
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(C.row_ptr.data(), row_products.data(),
                                      (std::size_t(rows) + 1) * sizeof(index_t),
                                      cudaMemcpyDeviceToDevice, stream));
    BINAMG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(bins.scan_storage, scan_bytes,
                                                    row_products.data(), rooms.offsets.data(),
                                                    rows + 1, stream));
    rooms.col = DeviceBuffer<index_t>(std::size_t(products), stream, "spgemm: rooms");
    rooms.val = DeviceBuffer<T>(std::size_t(products), stream, "spgemm: room values");
    tally = fill(&bins.counters->error);
  }
  C.nnz = tally.nnz;
  if (keep != nullptr)
    *keep = std::move(rooms);
  else
    pack_rooms(C, rooms, stream);
}

/// Whether A·B is narrow (see kNarrowMaxColumns).
template <typename T>
bool is_narrow(const DeviceCsr<T>& A, const DeviceCsr<T>& B) {
  if (B.cols > kNarrowMaxColumns || A.rows > kNarrowMaxRows) return false;
  if (B.rows == 0) return true;  // no products
  const double mean_products = double(A.nnz) / double(A.rows) * (double(B.nnz) / double(B.rows));
  return mean_products <= kNarrowMaxMeanProducts;
}

/// Stages 3-4 for a narrow product: B's columns bound every row of C, so one
/// table of table_for_columns(B.cols) slots serves all rows, in order and
/// unbinned, in both passes (a warp per row; the sums are the binned
/// kernels', A's row order). The one read-back is nnz(C), for its arrays.
template <typename T>
void narrow_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                    const SpgemmPolicy& policy, Workspace& bins, std::size_t scan_bytes,
                    cudaStream_t stream) {
  const index_t rows = A.rows;
  const int table = table_for_columns(policy, B.cols);
  const SymbolicWalk walk = symbolic_walk(B.rows, B.nnz);
  constexpr int Group = 32;
  constexpr int symbolic_rows_per_block = kSmallBlock / Group;
  const std::size_t symbolic_shared =
      std::size_t(symbolic_rows_per_block) * table * sizeof(index_t);
  allow_shared_memory<symbolic_shared_kernel<Group>>(policy, symbolic_shared);
  symbolic_shared_kernel<Group>
      <<<grid_for(rows, symbolic_rows_per_block), kSmallBlock, symbolic_shared, stream>>>(
          PatternOperands{A.row_ptr.data(), A.col_idx.data(), B.row_ptr.data(),
                          B.col_idx.data()},
          nullptr, rows, table, walk.sub_width, walk.balanced_length, C.row_ptr.data());
  BINAMG_CHECK_LAUNCH();
  BINAMG_CUDA_CHECK(cudaMemsetAsync(C.row_ptr.data() + rows, 0, sizeof(index_t), stream));
  allocate_from_counts(C, bins, scan_bytes, stream);

  const BinLaunch launch = numeric_launch_of_bin(policy, log2_of(table / policy.min_table) + 1,
                                                 rows);
  const std::size_t numeric_shared =
      std::size_t(launch.rows_per_block) * policy.numeric_row_bytes(launch.table);
  allow_shared_memory<numeric_shared_kernel<kNumericItems, T>>(policy, numeric_shared);
  numeric_shared_kernel<kNumericItems, T>
      <<<grid_for(rows, launch.rows_per_block), launch.block, numeric_shared, stream>>>(
          ProductOperands<T>{A.row_ptr.data(), A.col_idx.data(), A.values.data(),
                             B.row_ptr.data(), B.col_idx.data(), B.values.data()},
          nullptr, rows, launch.table, C.row_ptr.data(), C.col_idx.data(), C.values.data(),
          &bins.counters->error, nullptr);
  BINAMG_CHECK_LAUNCH();
}

/// How a product's rows are merged (spgemm_merge_rows.cuh): `width` lanes
/// per row holding `entries` A entries each, buffers of `capacity` values,
/// `block` threads per block.
struct MergeShape {
  int width = 0, entries = 0, capacity = 0, block = 0;
};

/// The longest row of M: its cached max_row_length, else measured (a read-back).
template <typename T>
index_t longest_row_of(const DeviceCsr<T>& M, cudaStream_t stream) {
  return M.max_row_length >= 0 ? M.max_row_length : max_row_length(M, stream);
}

/// Whether a B of b_rows × b_cols maps into a space merge_narrowing times
/// smaller (a prolongator's coarse space): the products that merged or
/// window rows may take.
inline bool narrows(index_t b_rows, index_t b_cols, const SpgemmPolicy& policy) {
  return b_rows > 0 && std::int64_t(b_cols) * policy.merge_narrowing <= b_rows;
}

/// Whether A·B is heavy (merge_heavy_mean, merge_heavy_products): merged
/// rows leave it to the fused or binned path.
template <typename T>
bool is_heavy(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const SpgemmPolicy& policy) {
  const double products = double(A.nnz) * (double(B.nnz) / double(B.rows));
  return products >= policy.merge_heavy_products &&
         products >= policy.merge_heavy_mean * double(A.rows);
}

/// The merge shape for A·B (see kMergeMaxEntries), or width 0 when the
/// product stays binned: B not narrowing, rows longer than
/// kMergeMaxEntries, heavy rows (SpgemmPolicy::merge_heavy_mean) or buffers
/// past kMergeBlockShared.
template <typename T>
MergeShape merge_shape(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const SpgemmPolicy& policy,
                       cudaStream_t stream) {
  MergeShape shape;
  if (!narrows(B.rows, B.cols, policy) || is_heavy(A, B, policy)) return shape;
  // A mean row past the bound needs no read-back of the longest row.
  if (A.nnz > std::int64_t(kMergeMaxEntries) * A.rows) return shape;
  const index_t a_longest = longest_row_of(A, stream);
  if (a_longest > kMergeMaxEntries) return shape;
  int width = 1, entries = 4;
  while (width * entries < a_longest && width < 4) width *= 2;
  if (width * entries < a_longest) {
    entries = 2;
    width = a_longest <= 32 ? 16 : 32;
  }
  // A row's products, or a chunk's (Width columns): a column takes at most
  // one product per A entry.
  const std::int64_t bound = std::max<std::int64_t>(
      1, std::min(std::int64_t(a_longest) * longest_row_of(B, stream),
                  std::int64_t(width) * a_longest));
  std::size_t groups = std::min<std::size_t>(
      kMergeBlock / width, kMergeBlockShared / (std::size_t(bound) * sizeof(T)));
  groups -= groups % std::size_t(32 / width);  // whole warps only: the kernels' masks are full
  if (groups == 0) return shape;
  shape.width = width;
  shape.entries = entries;
  shape.capacity = int(bound);
  shape.block = int(groups) * width;
  return shape;
}

/// Calls body(std::integral_constant<int, W>, std::integral_constant<int, E>)
/// for the shape's (width, entries), one of merge_shape's.
template <typename Body>
void with_merge_shape(const MergeShape& shape, Body&& body) {
  using std::integral_constant;
  switch (shape.width * 8 + shape.entries) {
    case 1 * 8 + 4: return body(integral_constant<int, 1>{}, integral_constant<int, 4>{});
    case 2 * 8 + 4: return body(integral_constant<int, 2>{}, integral_constant<int, 4>{});
    case 4 * 8 + 4: return body(integral_constant<int, 4>{}, integral_constant<int, 4>{});
    case 16 * 8 + 2: return body(integral_constant<int, 16>{}, integral_constant<int, 2>{});
    case 32 * 8 + 2: return body(integral_constant<int, 32>{}, integral_constant<int, 2>{});
    default:
      throw InvalidInput("spgemm: unsupported merge shape " + std::to_string(shape.width) +
                         " x " + std::to_string(shape.entries));
  }
}

/// Stages 3-4 by merged rows: the count pass, one read-back (nnz(C), the
/// longest row, misfits), the scan and the fill. Returns false, with C's
/// row offsets to be recomputed, if a row did not fit the shape (A's or B's
/// max_row_length was stale); C then takes the binned path.
template <typename T>
bool merged_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const MergeShape& shape,
                    DeviceCsr<T>& C, Workspace& bins, std::size_t scan_bytes,
                    cudaStream_t stream) {
  const index_t rows = A.rows;
  const unsigned grid = grid_for(std::int64_t(rows) * shape.width, shape.block);
  const std::size_t shared = std::size_t(shape.block / shape.width) * shape.capacity * sizeof(T);
  bool merged = true;
  with_merge_shape(shape, [&](auto w, auto e) {
    constexpr int Width = decltype(w)::value, Entries = decltype(e)::value;
    merge_count_kernel<Width, Entries><<<grid, shape.block, 0, stream>>>(
        PatternOperands{A.row_ptr.data(), A.col_idx.data(), B.row_ptr.data(), B.col_idx.data()},
        rows, shape.capacity, C.row_ptr.data(), &bins.counters->merge);
    BINAMG_CHECK_LAUNCH();
    MergeTally tally{};
    read_back(&tally, &bins.counters->merge, sizeof(tally), stream);
    if (tally.misfit != 0) {
      merged = false;
      return;
    }
    allocate_counted(C, tally.nnz, tally.longest, bins, scan_bytes, stream);
    merge_fill_kernel<Width, Entries, T><<<grid, shape.block, shared, stream>>>(
        ProductOperands<T>{A.row_ptr.data(), A.col_idx.data(), A.values.data(),
                           B.row_ptr.data(), B.col_idx.data(), B.values.data()},
        rows, shape.capacity, C.row_ptr.data(), C.col_idx.data(), C.values.data(),
        &bins.counters->error);
    BINAMG_CHECK_LAUNCH();
  });
  return merged;
}

/// Whether A·B, B of b_rows × b_cols, goes to the window rows
/// (spgemm_window_rows.cuh): a narrowing product, heavy or not, whose A rows
/// average window_min_mean_entries or more.
template <typename T>
bool has_window_rows(const DeviceCsr<T>& A, index_t b_rows, index_t b_cols,
                     const SpgemmPolicy& policy) {
  return narrows(b_rows, b_cols, policy) &&
         A.nnz >= std::int64_t(policy.window_min_mean_entries) * A.rows;
}

/// Calls body(std::integral_constant<int, G>, std::integral_constant<int, I>)
/// for the window fill's G lanes per B row and I products per lane, from B's
/// mean row: 8 × 2 up to 16 entries, 16 × 2 up to 32, else 32 × 1. On 3D
/// 27-pt's level-0 R·(AP) (B rows of ~12) 8 × 2 took 0.409 ms, 16 × 1 0.451,
/// 4 × 4 0.472 and 16 × 2 0.457 (H100).
template <typename Body>
void with_window_shape(double mean_b_row, Body&& body) {
  using std::integral_constant;
  if (mean_b_row <= 16) return body(integral_constant<int, 8>{}, integral_constant<int, 2>{});
  if (mean_b_row <= 32) return body(integral_constant<int, 16>{}, integral_constant<int, 2>{});
  return body(integral_constant<int, 32>{}, integral_constant<int, 1>{});
}

/// The fused window pass's rooms: kWindowFusedRoom entries for each row of C.
template <typename T>
struct WindowRooms {
  DeviceBuffer<index_t> col;
  DeviceBuffer<T> val;
};

/// Rooms for `rows` rows, or none if they would pass fused_budget.
template <typename T>
WindowRooms<T> window_rooms(index_t rows, const SpgemmPolicy& policy, cudaStream_t stream) {
  const std::size_t entries = std::size_t(rows) * kWindowFusedRoom;
  if (entries * (sizeof(index_t) + sizeof(T)) > policy.fused_budget) return {};
  return {DeviceBuffer<index_t>(entries, stream, "spgemm: window rooms"),
          DeviceBuffer<T>(entries, stream, "spgemm: window room values")};
}

/// Stages 3-4 by window rows in one pass (window_fused_kernel; B's rows
/// through `in`, packed or in rooms, their mean length mean_b_row): each
/// row into its room of kWindowFusedRoom entries, one read-back (nnz(C),
/// the longest row, any crowded row), the scan and the rows packed into C.
/// Returns false, with nothing of C written but its row offsets, if there
/// are no rooms (window_rooms) or a row spans more than kWindowFusedWords
/// words or has more columns than its room.
template <typename T, typename Operands>
bool fused_windowed_product(const Operands& in, double mean_b_row, DeviceCsr<T>& C,
                            WindowRooms<T>& rooms, Workspace& bins, std::size_t scan_bytes,
                            cudaStream_t stream) {
  constexpr int words = kWindowFusedWords, room = kWindowFusedRoom;
  constexpr std::size_t warp_bytes = window_warp_bytes<T>(words, room);
  static_assert(kWindowWarps * warp_bytes <= kWindowBlockShared, "a block of fused window rows");
  const index_t rows = C.rows;
  if (rooms.col.size() == 0) return false;
  with_window_shape(mean_b_row, [&](auto lanes, auto items) {
    window_fused_kernel<decltype(lanes)::value, decltype(items)::value, T>
        <<<grid_for(rows, kWindowWarps), kWindowWarps * 32, kWindowWarps * warp_bytes,
           stream>>>(in, rows, words, room, C.row_ptr.data(), rooms.col.data(), rooms.val.data(),
                     &bins.counters->window_fused);
    BINAMG_CHECK_LAUNCH();
  });
  WindowTally tally{};
  read_back(&tally, &bins.counters->window_fused, sizeof(tally), stream);
  if (tally.crowded != 0) return false;
  allocate_counted(C, tally.nnz, tally.longest, bins, scan_bytes, stream);
  pack_rows(RoomAtStride{room}, rooms.col.data(), rooms.val.data(), C, stream);
  return true;
}

/// Stages 3-4 by window rows: fused_windowed_product or, where that
/// declines, the count pass, one read-back (nnz(C), the longest row, the
/// widest window, misfits), the scan and the fill. Returns false, with C's
/// row offsets to be recomputed, if a row's window is wider than
/// kWindowMaxWords or a fill warp's shared memory would pass
/// kWindowBlockShared; C then takes another path.
template <typename T>
bool windowed_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                      const SpgemmPolicy& policy, Workspace& bins, std::size_t scan_bytes,
                      cudaStream_t stream) {
  const double mean_b_row = double(B.nnz) / double(B.rows);
  const ProductOperands<T> in{A.row_ptr.data(), A.col_idx.data(), A.values.data(),
                              B.row_ptr.data(), B.col_idx.data(), B.values.data()};
  {
    WindowRooms<T> rooms = window_rooms<T>(A.rows, policy, stream);
    if (fused_windowed_product(in, mean_b_row, C, rooms, bins, scan_bytes, stream)) return true;
  }
  const index_t rows = A.rows;
  // The count keeps no order: half the fill's lanes per B row (8 at least)
  // keep more rows in flight (3D 27-pt's level-0 R·(AP): 0.140 ms on 8
  // lanes, 0.154 on 16, 0.180 on 4).
  with_window_shape(mean_b_row, [&](auto lanes, auto) {
    constexpr int G = decltype(lanes)::value / 2 < 8 ? 8 : decltype(lanes)::value / 2;
    window_count_kernel<G><<<grid_for(rows, kWindowWarps), kWindowWarps * 32, 0, stream>>>(
        PatternOperands{A.row_ptr.data(), A.col_idx.data(), B.row_ptr.data(), B.col_idx.data()},
        rows, C.row_ptr.data(), &bins.counters->window);
    BINAMG_CHECK_LAUNCH();
  });
  WindowTally tally{};
  read_back(&tally, &bins.counters->window, sizeof(tally), stream);
  const int words = std::max(tally.widest, 1);  // a product of empty rows still divides
  const std::size_t warp_bytes = window_warp_bytes<T>(words, tally.longest);
  if (tally.misfit != 0 || warp_bytes > kWindowBlockShared) return false;
  const int warps = int(std::min<std::size_t>(kWindowWarps, kWindowBlockShared / warp_bytes));
  allocate_counted(C, tally.nnz, tally.longest, bins, scan_bytes, stream);
  with_window_shape(mean_b_row, [&](auto lanes, auto items) {
    window_fill_kernel<decltype(lanes)::value, decltype(items)::value, T>
        <<<grid_for(rows, warps), warps * 32, warps * warp_bytes, stream>>>(
            in, rows, words, tally.longest, C.row_ptr.data(), C.col_idx.data(),
            C.values.data(), &bins.counters->error);
    BINAMG_CHECK_LAUNCH();
  });
  return true;
}

/// Whether A·B goes to the dense-column kernels (kDenseMaxRows, kDenseMaxColumns).
template <typename T>
bool has_dense_columns(const DeviceCsr<T>& A, const DeviceCsr<T>& B) {
  return B.cols <= kDenseMaxColumns && A.rows <= kDenseMaxRows;
}

/// Stages 3-4 for a product with dense columns: a block per row in both
/// passes (spgemm_dense_columns.cuh), unbinned; the one read-back is nnz(C).
template <typename T>
void dense_columns_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                           Workspace& bins, std::size_t scan_bytes, cudaStream_t stream) {
  const unsigned rows = unsigned(A.rows);
  constexpr int block = kDenseBlock;
  dense_columns_count_kernel<<<rows, block, 0, stream>>>(
      PatternOperands{A.row_ptr.data(), A.col_idx.data(), B.row_ptr.data(), B.col_idx.data()},
      C.row_ptr.data());
  BINAMG_CHECK_LAUNCH();
  BINAMG_CUDA_CHECK(cudaMemsetAsync(C.row_ptr.data() + A.rows, 0, sizeof(index_t), stream));
  allocate_from_counts(C, bins, scan_bytes, stream);
  dense_columns_fill_kernel<T><<<rows, block, 0, stream>>>(
      ProductOperands<T>{A.row_ptr.data(), A.col_idx.data(), A.values.data(), B.row_ptr.data(),
                         B.col_idx.data(), B.values.data()},
      C.row_ptr.data(), C.col_idx.data(), C.values.data(), &bins.counters->error);
  BINAMG_CHECK_LAUNCH();
}

template <typename T>
void require_multipliable(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const char* caller) {
  require_consistent(A, std::string(caller) + ": A");
  require_consistent(B, std::string(caller) + ": B");
  require(A.cols == B.rows, std::string(caller) + ": inner dimensions differ (A is " +
                                std::to_string(A.rows) + " x " + std::to_string(A.cols) +
                                ", B is " + std::to_string(B.rows) + " x " +
                                std::to_string(B.cols) + ")");
}

/// C's rows, columns and row offsets (zero rows: complete), with the
/// row-offset scan's temporary bytes.
template <typename T>
DeviceCsr<T> product_shell(index_t rows, index_t cols, std::size_t& scan_bytes,
                           cudaStream_t stream) {
  DeviceCsr<T> C;
  C.rows = rows;
  C.cols = cols;
  C.row_ptr = DeviceBuffer<index_t>(std::size_t(rows) + 1, stream, "spgemm: row offsets of C");
  scan_bytes = 0;
  if (rows == 0) {
    BINAMG_CUDA_CHECK(cudaMemsetAsync(C.row_ptr.data(), 0, sizeof(index_t), stream));
    return C;
  }
  BINAMG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, C.row_ptr.data(),
                                                  C.row_ptr.data(), rows + 1, stream));
  return C;
}

/// A·B under `policy`; with `keep`, a product that takes the fused path
/// leaves its rows in their rooms (see Rooms).
template <typename T>
DeviceCsr<T> multiply(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const SpgemmPolicy& policy,
                      cudaStream_t stream, Rooms<T>* keep) {
  require_multipliable(A, B, "spgemm");
  const index_t rows = A.rows;
  std::size_t scan_bytes = 0;
  DeviceCsr<T> C = product_shell<T>(rows, B.cols, scan_bytes, stream);
  if (rows == 0) return C;
  Workspace bins(rows, scan_bytes, stream);
  if (has_dense_columns(A, B)) {
    dense_columns_product(A, B, C, bins, scan_bytes, stream);
    return C;
  }
  if (is_narrow(A, B)) {
    narrow_product(A, B, C, policy, bins, scan_bytes, stream);
    return C;
  }

  if (has_window_rows(A, B.rows, B.cols, policy) && windowed_product(A, B, C, policy, bins, scan_bytes, stream))
    return C;
  const MergeShape shape = merge_shape(A, B, policy, stream);
  if (shape.width > 0 && merged_product(A, B, shape, C, bins, scan_bytes, stream))
    return C;

  // Stages 1-2: product counts bound each row; bin rows by them.
  const int shared_bins = policy.symbolic_shared_bins();
  const int max_bin =
      table_for_columns(policy, B.cols) <= policy.symbolic_max_table ? shared_bins
                                                                      : shared_bins + 1;
  // Rows that would fill the largest table past its load limit go global
  // (when there is a global bin: else B's columns bound every row's table).
  const std::int64_t global_above =
      max_bin > shared_bins ? std::int64_t(policy.symbolic_max_table) *
                                  policy.symbolic_load_num / policy.symbolic_load_den
                            : std::numeric_limits<std::int64_t>::max();
  const bool may_fuse = may_fuse_rows(policy, B);
  const FusedBinning fused_binning{numeric_bin_rule(policy),
                                   may_fuse ? bins.fused_bin_of_row : nullptr,
                                   bins.tallies(Workspace::kFusedBinning)};
  const auto count_products = [&](auto lanes) {
    constexpr int Width = decltype(lanes)::value;
    constexpr int Block = kThreadsPerRowKernel;
    // As many blocks as fit the device at once, at most one per Block / Width rows.
    const unsigned resident = unsigned(policy.sm_count) * (2048 / Block);
    const unsigned blocks = std::min(grid_for(std::int64_t(rows) * Width, Block), resident);
    bin_by_products_kernel<Block, Width><<<blocks, Block, 0, stream>>>(
        A.row_ptr.data(), A.col_idx.data(), B.row_ptr.data(), rows, rule_for(policy, shared_bins),
        max_bin, global_above, policy.entrywise_min_b_length, C.row_ptr.data(), bins.bin_of_row,
        bins.tallies(0), fused_binning);
    BINAMG_CHECK_LAUNCH();
  };
  // Lanes per row of A from its mean length and its rows: one thread for
  // stencil rows, a warp for the few long rows of a coarse R·A.
  const double mean_a_row = double(A.nnz) / double(rows);
  if (mean_a_row <= policy.product_count_thread_max ||
      (mean_a_row <= policy.product_count_many_rows_max &&
       rows >= mean_a_row * policy.sm_count * policy.product_count_rows_per_entry))
    count_products(std::integral_constant<int, 1>{});
  else if (mean_a_row <= policy.product_count_sub_warp_max)
    count_products(std::integral_constant<int, 8>{});
  else
    count_products(std::integral_constant<int, 32>{});
  // The whole sort and the fused path bin no rows for the symbolic pass.
  if (may_fuse)
    bins.read_count_and_fused_tallies(stream);
  else
    bins.read_tallies(0, stream);
  const std::int64_t products = std::int64_t(bins.host_tallies[kMaxBins]);
  if (sorts_whole<T>(policy, rows, products)) {
    sort_whole_product(A, B, products, C, bins, scan_bytes, stream);
    return C;
  }
  if (fuses_rows(policy, B, rows, products, max_bin, bins)) {
    fused_product(A, B, products, C, policy, bins, scan_bytes, stream, keep);
    return C;
  }
  bins.scatter(0, rows, stream);

  // Stage 3, symbolic: exact row lengths, held in row_ptr until the scan.
  count_row_nnz(A, B, policy, bins, C.row_ptr.data(), stream);
  const unsigned long long total =
      bin_for_numeric(A, B, C.row_ptr.data(), false, true, rows, policy, bins, stream);
  C.nnz = checked_index(static_cast<std::int64_t>(total), "spgemm: nnz(C)");
  C.col_idx = DeviceBuffer<index_t>(C.nnz, stream, "spgemm: column indices of C");
  C.values = DeviceBuffer<T>(C.nnz, stream, "spgemm: values of C");
  BINAMG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(bins.scan_storage, scan_bytes,
                                                  C.row_ptr.data(), C.row_ptr.data(),
                                                  rows + 1, stream));

  // Stages 3-4, numeric: accumulate, sort and write each row.
  fill_rows(A, B, C, policy, bins, &bins.counters->error, stream);
  return C;
}

}  // namespace

template <typename T>
DeviceCsr<T> spgemm_under(const DeviceCsr<T>& A, const DeviceCsr<T>& B,
                          const SpgemmPolicy& policy, cudaStream_t stream) {
  return multiply(A, B, policy, stream, static_cast<Rooms<T>*>(nullptr));
}

template <typename T>
DeviceCsr<T> spgemm_under(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const DeviceCsr<T>& C,
                          const SpgemmPolicy& policy, cudaStream_t stream) {
  require_multipliable(A, B, "spgemm");
  // A·(B·C) takes the window rows exactly when B·C's columns pass the
  // narrow kernels' (and so the dense columns') and B·C narrows: known from
  // the shapes, so its shell, workspace and rooms are set up while B·C
  // runs, and B·C's rooms are kept for it only then.
  static_assert(kDenseMaxColumns <= kNarrowMaxColumns, "past narrow is past dense columns");
  const bool windows =
      A.rows > 0 && C.cols > kNarrowMaxColumns && has_window_rows(A, B.rows, C.cols, policy);
  std::size_t scan_bytes = 0;
  DeviceCsr<T> X;
  std::optional<Workspace> bins;
  WindowRooms<T> window;
  if (windows) {
    X = product_shell<T>(A.rows, C.cols, scan_bytes, stream);
    bins.emplace(A.rows, scan_bytes, stream);
    window = window_rooms<T>(A.rows, policy, stream);
  }
  Rooms<T> rooms;
  DeviceCsr<T> BC = multiply(B, C, policy, stream, windows ? &rooms : nullptr);
  if (rooms.held()) {
    const RoomProductOperands<T> in{{A.row_ptr.data(), A.col_idx.data(), A.values.data(),
                                     BC.row_ptr.data(), rooms.col.data(), rooms.val.data()},
                                    rooms.offsets.data()};
    if (fused_windowed_product(in, double(BC.nnz) / double(BC.rows), X, window, *bins,
                               scan_bytes, stream))
      return X;
    pack_rooms(BC, rooms, stream);
  }
  return multiply(A, BC, policy, stream, static_cast<Rooms<T>*>(nullptr));
}

}  // namespace spgemm_detail

template <typename T>
DeviceCsr<T> spgemm(const DeviceCsr<T>& A, const DeviceCsr<T>& B, cudaStream_t stream) {
  return spgemm_detail::spgemm_under(A, B, spgemm_detail::spgemm_policy(sizeof(T)), stream);
}

template <typename T>
DeviceCsr<T> spgemm(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const DeviceCsr<T>& C,
                    cudaStream_t stream) {
  return spgemm_detail::spgemm_under(A, B, C, spgemm_detail::spgemm_policy(sizeof(T)), stream);
}

template <typename T>
void spgemm_numeric(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                    cudaStream_t stream) {
  using namespace spgemm_detail;
  require_multipliable(A, B, "spgemm_numeric");
  require_consistent(C, "spgemm_numeric: C");
  require(C.rows == A.rows && C.cols == B.cols,
          "spgemm_numeric: C is " + std::to_string(C.rows) + " x " + std::to_string(C.cols) +
              " but A·B is " + std::to_string(A.rows) + " x " + std::to_string(B.cols));
  const SpgemmPolicy& policy = spgemm_policy(sizeof(T));
  Workspace bins(C.rows, 0, stream);
  const unsigned long long total =
      bin_for_numeric(A, B, C.row_ptr.data(), true, false, C.rows, policy, bins, stream);
  require(total == static_cast<unsigned long long>(C.nnz),
          "spgemm_numeric: C's row offsets do not add up to its nnz");
  // spgemm decides from its symbolic pass's product total; count it here alike
  // (small products only) and sort with the same layout.
  bool sorted_whole = false;
  if (C.rows <= policy.sorted_small_rows && bins.listed() > 0) {
    SortedLongRows<T> all(A, B, bins.rows_of(1), bins.listed(), stream);
    sorted_whole = sorts_whole<T>(policy, C.rows, all.products());
    if (sorted_whole) all.fill(C, &bins.counters->error);
  }
  if (!sorted_whole) fill_rows(A, B, C, policy, bins, &bins.counters->error, stream);
  require(read_back(&bins.counters->error, stream) == 0,
          "spgemm_numeric: the sparsity pattern of A·B differs from C's (a row of the "
          "product has another number of entries); call spgemm for new patterns");
}

#define BINAMG_INSTANTIATE(T)                                                              \
  template DeviceCsr<T> spgemm<T>(const DeviceCsr<T>&, const DeviceCsr<T>&, cudaStream_t); \
  template DeviceCsr<T> spgemm<T>(const DeviceCsr<T>&, const DeviceCsr<T>&,                \
                                  const DeviceCsr<T>&, cudaStream_t);                      \
  template DeviceCsr<T> spgemm_detail::spgemm_under<T>(                                    \
      const DeviceCsr<T>&, const DeviceCsr<T>&, const DeviceCsr<T>&,                       \
      const spgemm_detail::SpgemmPolicy&, cudaStream_t);                                   \
  template DeviceCsr<T> spgemm_detail::spgemm_under<T>(                                    \
      const DeviceCsr<T>&, const DeviceCsr<T>&, const spgemm_detail::SpgemmPolicy&,        \
      cudaStream_t);                                                                       \
  template void spgemm_numeric<T>(const DeviceCsr<T>&, const DeviceCsr<T>&, DeviceCsr<T>&, \
                                  cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
