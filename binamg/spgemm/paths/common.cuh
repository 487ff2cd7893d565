#pragma once
// What the drivers of the GPU SpGEMM's paths share: the call's workspace
// (counters, bins, the row-offset scan's storage), C's allocation from its
// row counts, rooms (rows written to fixed places, then packed into C), and
// the helpers that turn a run-time size into a kernel's template argument.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cub/device/device_scan.cuh>
#include <string>
#include <type_traits>

#include "binamg/core/cuda_check.hpp"
#include "binamg/core/device_buffer.hpp"
#include "binamg/core/error.hpp"
#include "binamg/core/read_back.hpp"
#include "binamg/sparse/device_csr.hpp"
#include "binamg/spgemm/kernels/binning.cuh"
#include "binamg/spgemm/kernels/merge_rows.cuh"
#include "binamg/spgemm/kernels/table_rows.cuh"
#include "binamg/spgemm/kernels/window_rows.cuh"
#include "binamg/spgemm/tuning.hpp"

namespace binamg::spgemm_detail {

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
      throw InvalidInput("spgemm: tuning gives unsupported group size " + std::to_string(group));
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

/// Lets `Kernel` take the tuning's usable shared memory per block (the
/// opt-in maximum less the headroom for static shared memory, or less the
/// kernel's own static shared memory where that is larger). Set once per
/// kernel and device (up to 64 devices): the calls cost as much as a launch,
/// and the attribute stays until the context ends.
template <auto Kernel>
void allow_shared_memory(const SpgemmTuning& tuning, std::size_t bytes) {
  static std::atomic<std::uint64_t> configured{0};
  const std::uint64_t bit = std::uint64_t(1) << (tuning.device & 63);
  if (bytes <= 48 * 1024 || (configured.load(std::memory_order_acquire) & bit) != 0) return;
  cudaFuncAttributes attributes{};
  BINAMG_CUDA_CHECK(cudaFuncGetAttributes(&attributes, Kernel));
  const std::size_t dynamic =
      std::min(tuning.shared_usable, tuning.shared_per_block - attributes.sharedSizeBytes);
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

inline SymbolicWalk symbolic_walk(index_t b_rows, index_t b_nnz) {
  const double mean = b_rows == 0 ? 1.0 : double(b_nnz) / b_rows;
  int width = 1;
  while (width < 32 && width < mean) width *= 2;
  return {width, index_t(4 * mean) + 1};
}

inline int log2_of(int power_of_two) {
  int log = 0;
  while ((1 << log) < power_of_two) ++log;
  return log;
}

constexpr int kThreadsPerRowKernel = 256;

/// The smallest table (a power of two, at least min_table) holding `cols`
/// keys: the most distinct columns a row of C can have.
inline int table_for_columns(const SpgemmTuning& tuning, index_t cols) {
  int table = tuning.min_table;
  while (table < cols && table <= tuning.symbolic_max_table) table *= 2;
  return table;
}

inline unsigned grid_for(std::int64_t items, int per_block) {
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
  WindowTally window_fused, window, window_split;
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
    scatter_rows_kernel<<<grid_for(rows, kThreadsPerRowKernel), kThreadsPerRowKernel, 0, stream>>>(
        bins_of_rows, rows, offsets, counters->cursors[binning], rows_by_bin);
    BINAMG_CHECK_LAUNCH();
  }
};

/// Rows below which a bin joins the next one's launch (Workspace::for_each_launch).
inline index_t few_rows(const SpgemmTuning& tuning) {
  return index_t(tuning.sm_count) * tuning.join_bin_rows_per_sm;
}

inline BinRule rule_for(const SpgemmTuning& tuning, int shared_bins) {
  return BinRule{log2_of(tuning.min_table), shared_bins};
}

inline NumericBinRule numeric_bin_rule(const SpgemmTuning& tuning) {
  return {rule_for(tuning, tuning.numeric_shared_bins()), tuning.numeric_short_bin(0),
          tuning.numeric_entrywise_bin(1) - 1,
          NumericTableRule{tuning.numeric_slack_num, tuning.numeric_slack_den,
                           tuning.numeric_sparse_slack, tuning.numeric_sparse_table}};
}

/// C's row offsets from its row counts in place (row_ptr[rows] is 0), and its
/// arrays, sized by the total (one read-back).
template <typename T>
void allocate_from_counts(DeviceCsr<T>& C, const Workspace& bins, std::size_t scan_bytes,
                          cudaStream_t stream) {
  BINAMG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(bins.scan_storage, scan_bytes, C.row_ptr.data(),
                                                  C.row_ptr.data(), C.rows + 1, stream));
  C.allocate_entries(read_back(C.row_ptr.data() + C.rows, stream), stream, "spgemm: entries of C");
}

/// C's row offsets from its row counts in place, once a count pass has
/// tallied nnz(C) and the longest row (no read-back), its arrays, and its
/// recorded longest row.
template <typename T>
void allocate_counted(DeviceCsr<T>& C, unsigned long long nnz, index_t longest,
                      const Workspace& bins, std::size_t scan_bytes, cudaStream_t stream) {
  BINAMG_CUDA_CHECK(cudaMemsetAsync(C.row_ptr.data() + C.rows, 0, sizeof(index_t), stream));
  BINAMG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(bins.scan_storage, scan_bytes, C.row_ptr.data(),
                                                  C.row_ptr.data(), C.rows + 1, stream));
  C.allocate_entries(checked_index(static_cast<std::int64_t>(nnz), "spgemm: nnz(C)"), stream,
                     "spgemm: entries of C");
  C.max_row_length = longest;
}

/// Where a row's room starts: at its product offset (fused rows) or at
/// row·room entries (the one-pass window rows).
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
                                 const index_t* __restrict__ c_row_ptr, index_t* __restrict__ c_col,
                                 T* __restrict__ c_val) {
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
      C.rows, room_of, staged_col, staged_val, C.row_ptr.data(), C.col_idx.data(), C.values.data());
  BINAMG_CHECK_LAUNCH();
}

/// A product's rows left in the rooms fused_product wrote them to: row r
/// at offsets[r], with as many entries as C's row offsets give it (C has
/// its row offsets and nnz but no arrays). Empty unless kept.
template <typename T>
struct Rooms {
  DeviceBuffer<index_t> offsets, col;
  DeviceBuffer<T> val;
  index_t nnz = 0;  // the entries of all rows
  bool held() const { return offsets.size() > 0; }
};

/// Room offsets row·room for rows + 1 rows.
static __global__ void stride_offsets_kernel(index_t* offsets, index_t count, index_t room) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) offsets[i] = index_t(i * room);
}

/// Packs a product's kept rooms into its arrays.
template <typename T>
void pack_rooms(DeviceCsr<T>& C, Rooms<T>& rooms, cudaStream_t stream) {
  C.allocate_entries(rooms.nnz, stream, "spgemm: entries of C");
  pack_rows(RoomAtOffsets{rooms.offsets.data()}, rooms.col.data(), rooms.val.data(), C, stream);
  rooms = Rooms<T>();
}

/// The longest row of M: its recorded max_row_length, else measured (a read-back).
template <typename T>
index_t longest_row_of(const DeviceCsr<T>& M, cudaStream_t stream) {
  return M.max_row_length >= 0 ? M.max_row_length : max_row_length(M, stream);
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

}  // namespace binamg::spgemm_detail
