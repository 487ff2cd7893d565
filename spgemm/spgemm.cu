// GPU SpGEMM dispatch: the four stages of the binned framework (see spgemm.hpp).
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <array>
#include <string>
#include <type_traits>
#include <utility>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "spgemm/spgemm.hpp"
#include "spgemm/spgemm_binning.cuh"
#include "spgemm/spgemm_kernels.cuh"
#include "spgemm/spgemm_long_rows.cuh"
#include "spgemm/spgemm_policy_gpu.hpp"
#include "spgemm/spgemm_short_rows.cuh"

namespace binamg {
namespace spgemm_detail {

SpgemmPolicy make_spgemm_policy(std::size_t value_bytes) {
  SpgemmPolicy policy;
  int device = 0, sm_count = 0, shared = 0;
  BINAMG_CUDA_CHECK(cudaGetDevice(&device));
  BINAMG_CUDA_CHECK(
      cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  BINAMG_CUDA_CHECK(
      cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  policy.sm_count = sm_count;
  policy.shared_per_block = static_cast<std::size_t>(shared);
  // Static shared memory of the kernels (a counter, cub storage) is small;
  // keep 1 KiB of headroom for it.
  const std::size_t usable = policy.shared_per_block - 1024;
  auto largest_table = [&](std::size_t slot_bytes) {
    int table = policy.min_table;
    while (true) {
      const int next = table * 2;
      const int group = policy.group_of_table(next);
      const int rows = group <= 32 ? policy.small_block / group : 1;
      if (std::size_t(rows) * next * slot_bytes > usable) break;
      table = next;
    }
    return table;
  };
  policy.symbolic_max_table = largest_table(sizeof(index_t));
  policy.numeric_max_table = largest_table(sizeof(index_t) + value_bytes);
  require(policy.symbolic_shared_bins() + 1 < kMaxBins &&
              policy.numeric_short_bin() < kMaxBins,
          "spgemm: device shared memory gives more bins than kMaxBins");
  return policy;
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

template <typename Kernel>
void allow_shared_memory(Kernel kernel, std::size_t bytes) {
  if (bytes > 48 * 1024)
    BINAMG_CUDA_CHECK(cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

int log2_of(int power_of_two) {
  int log = 0;
  while ((1 << log) < power_of_two) ++log;
  return log;
}

/// Lanes sharing one B row in the symbolic pass: B's mean row length rounded
/// up to a power of two, at most a warp.
int symbolic_sub_width(index_t b_rows, index_t b_nnz, int group) {
  const double mean = b_rows == 0 ? 1.0 : double(b_nnz) / b_rows;
  int width = 1;
  while (width < 32 && width < mean) width *= 2;
  return std::min(width, group);
}

constexpr int kThreadsPerRowKernel = 256;

unsigned grid_for(std::int64_t items, int per_block) {
  return static_cast<unsigned>((items + per_block - 1) / per_block);
}

/// Rows grouped by bin: the per-row bin, the bin sizes read back to the host
/// and the rows of each bin, contiguous in bin order.
struct Binning {
  DeviceBuffer<std::uint8_t> bin_of_row;
  DeviceBuffer<unsigned long long> tallies;  // kMaxBins counts, then a total
  DeviceBuffer<index_t> cursors;
  DeviceBuffer<index_t> rows_by_bin;
  std::array<unsigned long long, kMaxBins + 1> host_tallies{};
  BinOffsets offsets{};

  Binning(index_t rows, cudaStream_t stream)
      : bin_of_row(rows, stream, "spgemm: bin of each row"),
        tallies(kMaxBins + 1, stream, "spgemm: bin sizes"),
        cursors(kMaxBins, stream, "spgemm: bin cursors"),
        rows_by_bin(rows, stream, "spgemm: rows by bin") {}

  void clear(cudaStream_t stream) {
    BINAMG_CUDA_CHECK(cudaMemsetAsync(tallies.data(), 0,
                                      tallies.size() * sizeof(unsigned long long), stream));
  }

  /// Reads the tallies (synchronizes) and fills each bin's row list.
  void distribute(index_t rows, cudaStream_t stream) {
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(host_tallies.data(), tallies.data(),
                                      sizeof(host_tallies), cudaMemcpyDeviceToHost, stream));
    BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream));
    offsets.start[0] = 0;
    offsets.start[1] = 0;  // bin 0 is never listed
    for (int bin = 1; bin < kMaxBins; ++bin)
      offsets.start[bin + 1] = offsets.start[bin] + index_t(host_tallies[bin]);
    BINAMG_CUDA_CHECK(cudaMemsetAsync(cursors.data(), 0, kMaxBins * sizeof(index_t), stream));
    if (rows == 0) return;
    scatter_rows_kernel<<<grid_for(rows, kThreadsPerRowKernel), kThreadsPerRowKernel, 0,
                          stream>>>(bin_of_row.data(), rows, offsets, cursors.data(),
                                    rows_by_bin.data());
    BINAMG_CHECK_LAUNCH();
  }

  index_t count(int bin) const { return index_t(host_tallies[bin]); }
  const index_t* rows_of(int bin) const { return rows_by_bin.data() + offsets.start[bin]; }
};

BinRule rule_for(const SpgemmPolicy& policy, int shared_bins) {
  return BinRule{log2_of(policy.min_table), shared_bins};
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

/// Stage 3, symbolic: nnz of each row of C into row_nnz (bins 1..global).
template <typename T>
void count_row_nnz(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const SpgemmPolicy& policy,
                   const Binning& bins, index_t* row_nnz, cudaStream_t stream) {
  const PatternOperands in{A.row_ptr.data(), A.col_idx.data(), B.row_ptr.data(),
                           B.col_idx.data()};
  const int shared_bins = policy.symbolic_shared_bins();
  for (int bin = 1; bin <= shared_bins; ++bin) {
    const index_t count = bins.count(bin);
    if (count == 0) continue;
    const BinLaunch launch = launch_of_bin(policy, bin);
    const std::size_t shared = launch.shared_bytes(sizeof(index_t));
    const int sub_width = symbolic_sub_width(B.rows, B.nnz, launch.group);
    with_group(launch.group, [&](auto g) {
      constexpr int G = decltype(g)::value;
      allow_shared_memory(symbolic_shared_kernel<G>, shared);
      symbolic_shared_kernel<G>
          <<<grid_for(count, launch.rows_per_block), launch.block, shared, stream>>>(
              in, bins.rows_of(bin), count, launch.table, sub_width, row_nnz);
      BINAMG_CHECK_LAUNCH();
    });
  }
  const int global_bin = shared_bins + 1;
  const index_t count = bins.count(global_bin);
  if (count == 0) return;
  constexpr int Block = 1024;
  const int blocks = global_blocks(policy, count, std::size_t(B.cols) * sizeof(index_t));
  DeviceBuffer<index_t> markers(std::size_t(blocks) * B.cols, stream,
                                "spgemm: column markers of long rows");
  BINAMG_CUDA_CHECK(
      cudaMemsetAsync(markers.data(), 0xff, markers.size() * sizeof(index_t), stream));
  symbolic_global_kernel<Block><<<blocks, Block, 0, stream>>>(
      in, bins.rows_of(global_bin), count, markers.data(), B.cols,
      symbolic_sub_width(B.rows, B.nnz, Block), row_nnz);
  BINAMG_CHECK_LAUNCH();
}

/// Stage 3 and 4, numeric: C's columns and values for every binned row.
template <typename T>
void fill_rows(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
               const SpgemmPolicy& policy, const Binning& bins, int* error,
               cudaStream_t stream) {
  const ProductOperands<T> in{A.row_ptr.data(), A.col_idx.data(), A.values.data(),
                              B.row_ptr.data(), B.col_idx.data(), B.values.data()};
  const int shared_bins = policy.numeric_shared_bins();
  for (int bin = 1; bin <= shared_bins; ++bin) {
    const index_t count = bins.count(bin);
    if (count == 0) continue;
    const BinLaunch launch = launch_of_bin(policy, bin);
    const std::size_t shared = launch.shared_bytes(sizeof(index_t) + sizeof(T));
    with_group(launch.group, [&](auto g) {
      constexpr int G = decltype(g)::value;
      allow_shared_memory(numeric_shared_kernel<G, T>, shared);
      numeric_shared_kernel<G, T>
          <<<grid_for(count, launch.rows_per_block), launch.block, shared, stream>>>(
              in, bins.rows_of(bin), count, launch.table, C.row_ptr.data(), C.col_idx.data(),
              C.values.data(), error);
      BINAMG_CHECK_LAUNCH();
    });
  }
  if (const index_t count = bins.count(policy.numeric_short_bin()); count > 0) {
    constexpr int Block = 256;
    numeric_short_rows_kernel<Block, T><<<grid_for(count, Block / 32), Block, 0, stream>>>(
        in, bins.rows_of(policy.numeric_short_bin()), count, C.row_ptr.data(),
        C.col_idx.data(), C.values.data(), error);
    BINAMG_CHECK_LAUNCH();
  }
  const int global_bin = shared_bins + 1;
  const index_t count = bins.count(global_bin);
  if (count == 0) return;
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
  int column_bits = 1;
  while (column_bits < 31 && (index_t(1) << column_bits) < B.cols) ++column_bits;
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
/// when sizes_are_offsets); returns nnz(C) in 64 bits. Synchronizes.
template <typename T>
unsigned long long bin_for_numeric(const DeviceCsr<T>& A, const DeviceCsr<T>& B,
                                   const index_t* row_sizes, bool sizes_are_offsets,
                                   index_t rows, const SpgemmPolicy& policy, Binning& bins,
                                   cudaStream_t stream) {
  bins.clear(stream);
  if (rows > 0) {
    const ShortRowRule short_rows{A.row_ptr.data(), A.col_idx.data(), B.row_ptr.data(),
                                  kShortMaxAEntries, kShortCapacity,
                                  policy.numeric_short_bin()};
    bin_by_nnz_kernel<<<grid_for(rows, kThreadsPerRowKernel), kThreadsPerRowKernel, 0,
                        stream>>>(row_sizes, sizes_are_offsets, rows,
                                  rule_for(policy, policy.numeric_shared_bins()), short_rows,
                                  policy.numeric_slack_num, policy.numeric_slack_den,
                                  bins.bin_of_row.data(), bins.tallies.data(),
                                  bins.tallies.data() + kMaxBins);
    BINAMG_CHECK_LAUNCH();
  }
  bins.distribute(rows, stream);
  return bins.host_tallies[kMaxBins];
}

template <typename T>
void require_consistent(const DeviceCsr<T>& M, const char* name, const char* caller) {
  require(M.rows >= 0 && M.cols >= 0 && M.nnz >= 0 &&
              M.row_ptr.size() == std::size_t(M.rows) + 1 &&
              M.col_idx.size() == std::size_t(M.nnz) && M.values.size() == std::size_t(M.nnz),
          std::string(caller) + ": " + name + " is not a consistent DeviceCsr (" +
              std::to_string(M.rows) + " x " + std::to_string(M.cols) + ", nnz " +
              std::to_string(M.nnz) + ", array sizes do not match)");
}

template <typename T>
void require_multipliable(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const char* caller) {
  require_consistent(A, "A", caller);
  require_consistent(B, "B", caller);
  require(A.cols == B.rows, std::string(caller) + ": inner dimensions differ (A is " +
                                std::to_string(A.rows) + " x " + std::to_string(A.cols) +
                                ", B is " + std::to_string(B.rows) + " x " +
                                std::to_string(B.cols) + ")");
}

}  // namespace
}  // namespace spgemm_detail

template <typename T>
DeviceCsr<T> spgemm(const DeviceCsr<T>& A, const DeviceCsr<T>& B, cudaStream_t stream) {
  using namespace spgemm_detail;
  require_multipliable(A, B, "spgemm");
  const SpgemmPolicy policy = make_spgemm_policy(sizeof(T));
  const index_t rows = A.rows;

  DeviceCsr<T> C;
  C.rows = rows;
  C.cols = B.cols;
  C.row_ptr = DeviceBuffer<index_t>(std::size_t(rows) + 1, stream, "spgemm: row offsets of C");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(C.row_ptr.data(), 0, C.row_ptr.size() * sizeof(index_t),
                                    stream));
  if (rows == 0) return C;

  // Stages 1-2: product counts bound each row; bin rows by them.
  Binning bins(rows, stream);
  bins.clear(stream);
  bin_by_products_kernel<<<grid_for(rows, kThreadsPerRowKernel), kThreadsPerRowKernel, 0,
                           stream>>>(A.row_ptr.data(), A.col_idx.data(), B.row_ptr.data(),
                                     rows, rule_for(policy, policy.symbolic_shared_bins()),
                                     C.row_ptr.data(), bins.bin_of_row.data(),
                                     bins.tallies.data());
  BINAMG_CHECK_LAUNCH();
  bins.distribute(rows, stream);

  // Stage 3, symbolic: exact row lengths, held in row_ptr until the scan.
  count_row_nnz(A, B, policy, bins, C.row_ptr.data(), stream);
  const unsigned long long total =
      bin_for_numeric(A, B, C.row_ptr.data(), false, rows, policy, bins, stream);
  C.nnz = checked_index(static_cast<std::int64_t>(total), "spgemm: nnz(C)");
  C.col_idx = DeviceBuffer<index_t>(C.nnz, stream, "spgemm: column indices of C");
  C.values = DeviceBuffer<T>(C.nnz, stream, "spgemm: values of C");
  std::size_t scan_bytes = 0;
  BINAMG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, C.row_ptr.data(),
                                                  C.row_ptr.data(), rows + 1, stream));
  {
    DeviceBuffer<unsigned char> scan_storage(scan_bytes, stream, "spgemm: scan storage");
    BINAMG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_storage.data(), scan_bytes,
                                                    C.row_ptr.data(), C.row_ptr.data(),
                                                    rows + 1, stream));
  }

  // Stages 3-4, numeric: accumulate, sort and write each row.
  DeviceBuffer<int> error(1, stream, "spgemm: error flag");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(error.data(), 0, sizeof(int), stream));
  fill_rows(A, B, C, policy, bins, error.data(), stream);
  return C;
}

template <typename T>
void spgemm_numeric(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                    cudaStream_t stream) {
  using namespace spgemm_detail;
  require_multipliable(A, B, "spgemm_numeric");
  require_consistent(C, "C", "spgemm_numeric");
  require(C.rows == A.rows && C.cols == B.cols,
          "spgemm_numeric: C is " + std::to_string(C.rows) + " x " + std::to_string(C.cols) +
              " but A·B is " + std::to_string(A.rows) + " x " + std::to_string(B.cols));
  const SpgemmPolicy policy = make_spgemm_policy(sizeof(T));
  Binning bins(C.rows, stream);
  const unsigned long long total =
      bin_for_numeric(A, B, C.row_ptr.data(), true, C.rows, policy, bins, stream);
  require(total == static_cast<unsigned long long>(C.nnz),
          "spgemm_numeric: C's row offsets do not add up to its nnz");
  DeviceBuffer<int> error(1, stream, "spgemm_numeric: error flag");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(error.data(), 0, sizeof(int), stream));
  fill_rows(A, B, C, policy, bins, error.data(), stream);
  int host_error = 0;
  BINAMG_CUDA_CHECK(
      cudaMemcpyAsync(&host_error, error.data(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream));
  require(host_error == 0,
          "spgemm_numeric: the sparsity pattern of A·B differs from C's (a row of the "
          "product has another number of entries); call spgemm for new patterns");
}

#define BINAMG_INSTANTIATE(T)                                                              \
  template DeviceCsr<T> spgemm<T>(const DeviceCsr<T>&, const DeviceCsr<T>&, cudaStream_t); \
  template void spgemm_numeric<T>(const DeviceCsr<T>&, const DeviceCsr<T>&, DeviceCsr<T>&, \
                                  cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
