#pragma once
// Long rows by expand-sort-compress (ESC): every product of a bin's long rows
// gets a thread, so a row's work spreads over the whole GPU however its
// products fall on A's entries (a hub row of 30000 entries, or 10 entries one
// of which hits a B row of 30000). Products are laid out in A's row order,
// stably radix-sorted by (long row, column) and each run of equal keys is
// summed left to right (A's order, the CPU reference's sum bit for bit), or
// by a warp in a fixed order when it is long. Used
// while the products fit SpgemmTuning::sorted_long_rows_budget; past it the
// dense accumulators of kernels/long_rows.cuh take the rows.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <memory>
#include <utility>

#include "binamg/core/cuda_check.hpp"
#include "binamg/core/device_buffer.hpp"
#include "binamg/core/error.hpp"
#include "binamg/core/lower_bound.cuh"
#include "binamg/core/radix_sort.hpp"
#include "binamg/core/read_back.hpp"
#include "binamg/core/scan.hpp"
#include "binamg/sparse/device_csr.hpp"
#include "binamg/spgemm/choose_path.hpp"
#include "binamg/spgemm/kernels/table_rows.cuh"

namespace binamg::spgemm_detail {

using SortKey = unsigned long long;  // (long row << column_bits) | column

inline unsigned sorted_rows_grid(std::int64_t items) {
  const std::int64_t blocks = (items + kSortedRowsBlock - 1) / kSortedRowsBlock;
  return unsigned(blocks < 1 ? 1 : (blocks > (1 << 20) ? (1 << 20) : blocks));
}

/// Largest i in [0, n) with offsets[i] <= value (offsets ascending,
/// offsets[0] <= value): the segment holding `value`, skipping empty ones.
template <typename Offset>
__device__ __forceinline__ index_t segment_of(const Offset* offsets, index_t n,
                                              std::int64_t value) {
  return last_at_or_below(offsets, index_t(0), n - 1, value);
}

/// entries[l] = A entries of long row rows[l].
static __global__ void long_row_entries_kernel(const index_t* a_row_ptr, const index_t* rows,
                                        index_t count, index_t* entries) {
  const index_t l = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (l < count) entries[l] = a_row_ptr[rows[l] + 1] - a_row_ptr[rows[l]];
}

/// products[e] = products of long-row entry e (its B row's length);
/// products[entries] = 0 for the scan's total.
static __global__ void long_row_entry_products_kernel(PatternOperands in, const index_t* rows,
                                               index_t count, const index_t* entry_offset,
                                               index_t entries, std::int64_t* products) {
  for (index_t e = index_t(blockIdx.x) * blockDim.x + threadIdx.x; e <= entries;
       e += index_t(gridDim.x) * blockDim.x) {
    if (e == entries) {
      products[e] = 0;
      continue;
    }
    const index_t l = segment_of(entry_offset, count, e);
    const index_t inner = in.a_col[in.a_row_ptr[rows[l]] + (e - entry_offset[l])];
    products[e] = in.b_row_ptr[inner + 1] - in.b_row_ptr[inner];
  }
}

/// Product q (A order) of the long rows: its key and, when values != nullptr,
/// its value (unfused product, as the CPU rounds it).
template <typename T>
__global__ void expand_long_row_products_kernel(ProductOperands<T> in, const index_t* rows,
                                                index_t count, const index_t* entry_offset,
                                                index_t entries,
                                                const std::int64_t* product_offset,
                                                index_t products, int column_bits,
                                                SortKey* keys, T* values) {
  for (index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x; q < products;
       q += index_t(gridDim.x) * blockDim.x) {
    const index_t e = segment_of(product_offset, entries, q);
    const index_t l = segment_of(entry_offset, count, e);
    const index_t k = in.a_row_ptr[rows[l]] + (e - entry_offset[l]);
    const index_t p = in.b_row_ptr[in.a_col[k]] + index_t(q - product_offset[e]);
    keys[q] = (SortKey(l) << column_bits) | SortKey(unsigned(in.b_col[p]));
    if (values != nullptr) values[q] = rounded_product(in.a_val[k], in.b_val[p]);
  }
}

/// ranks[q] = 1 where sorted product q starts a run of equal keys, else 0;
/// ranks[products] = 0. The exclusive scan turns these into run ranks.
static __global__ void mark_run_heads_kernel(const SortKey* keys, index_t products, index_t* ranks) {
  for (index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x; q <= products;
       q += index_t(gridDim.x) * blockDim.x)
    ranks[q] = q < products && (q == 0 || keys[q] != keys[q - 1]);
}

/// First product of long row l (sorting by row keeps each row's range).
__device__ __forceinline__ index_t first_product_of(const index_t* entry_offset,
                                                    const std::int64_t* product_offset,
                                                    index_t l) {
  return index_t(product_offset[entry_offset[l]]);
}

/// Thread per long row: its distinct columns are its runs. Writes them to
/// row_nnz (symbolic pass) or, with row_nnz == nullptr, sets *error unless
/// they equal C's nnz for the row (numeric pass).
static __global__ void long_row_runs_kernel(const index_t* rows, index_t count,
                                     const index_t* entry_offset,
                                     const std::int64_t* product_offset, const index_t* ranks,
                                     index_t* row_nnz, const index_t* c_row_ptr, int* error) {
  const index_t l = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (l >= count) return;
  const index_t runs = ranks[first_product_of(entry_offset, product_offset, l + 1)] -
                       ranks[first_product_of(entry_offset, product_offset, l)];
  const index_t row = rows[l];
  if (row_nnz != nullptr) {
    row_nnz[row] = runs;
  } else if (runs != c_row_ptr[row + 1] - c_row_ptr[row]) {
    atomicExch(error, 1);
  }
}

/// run_start[r] = position of run r's head in sorted order, run_start[runs] =
/// products: the runs' bounds, so that their sums are counted loops.
static __global__ void locate_runs_kernel(const index_t* ranks, index_t products, index_t* run_start) {
  for (index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x; q <= products;
       q += index_t(gridDim.x) * blockDim.x)
    if (q == products || ranks[q + 1] != ranks[q]) run_start[ranks[q]] = q;
}

/// Thread per run: sums it in sorted (= A) order, the CPU's sum bit for bit,
/// and writes it at the run's rank inside its row of C. A longer run (a hub
/// column in every B row of a hub row: thousands of products, whose serial
/// sum waited on one load at a time) is summed by its warp in a fixed
/// order instead: lane i adds products i, i+32, .. in order, then the lanes'
/// sums meet in a butterfly. A regrouping of the same terms, identical on
/// every run.
template <typename T>
__global__ void write_long_row_runs_kernel(const index_t* rows, const index_t* entry_offset,
                                           const std::int64_t* product_offset,
                                           const SortKey* keys, const T* values,
                                           const index_t* ranks, const index_t* run_start,
                                           index_t products, int column_bits,
                                           const index_t* c_row_ptr, index_t* c_col,
                                           T* c_val) {
  constexpr unsigned kWarp = 0xffffffffu;
  const SortKey column_mask = (SortKey(1) << column_bits) - 1;
  const index_t runs = ranks[products];
  const int lane = threadIdx.x % 32;
  const index_t stride = index_t(gridDim.x) * blockDim.x;
  // Warp-uniform trip count: every lane reaches the warp's shuffles.
  for (index_t base = index_t(blockIdx.x) * blockDim.x + threadIdx.x - lane; base < runs;
       base += stride) {
    const index_t r = base + lane;
    index_t head = 0, end = 0;
    if (r < runs) {
      head = run_start[r];
      end = run_start[r + 1];
    }
    const bool long_run = end - head > kLaneRunMax;
    T sum = T(0);
    if (r < runs && !long_run) {
      sum = values[head];
      for (index_t q = head + 1; q < end; ++q) sum += values[q];
    }
    for (unsigned pending = __ballot_sync(kWarp, long_run); pending != 0;
         pending &= pending - 1) {
      const int owner = __ffs(pending) - 1;
      const index_t run_head = __shfl_sync(kWarp, head, owner);
      const index_t run_end = __shfl_sync(kWarp, end, owner);
      T part = T(0);
      for (index_t q = run_head + lane; q < run_end; q += 32) part += values[q];
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) part += __shfl_xor_sync(kWarp, part, offset);
      if (lane == owner) sum = part;
    }
    if (r >= runs) continue;
    const SortKey key = keys[head];
    const index_t l = index_t(key >> column_bits);
    const index_t rank = r - ranks[first_product_of(entry_offset, product_offset, l)];
    const index_t start = c_row_ptr[rows[l]];
    if (rank < c_row_ptr[rows[l] + 1] - start) {  // else long_row_runs_kernel flags it
      c_col[start + rank] = index_t(key & column_mask);
      c_val[start + rank] = sum;
    }
  }
}

/// The products of `count` long rows (device list `rows`) laid out in A
/// order: entry_offset over the rows' A entries, product_offset over the
/// entries' products. Construction reads the two totals back (two
/// synchronizations of `stream`; the entry offsets by offsets_from_counts).
template <typename T>
class SortedLongRows {
 public:
  SortedLongRows(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const index_t* rows,
                 index_t count, cudaStream_t stream)
      : in_{A.row_ptr.data(), A.col_idx.data(), A.values.data(),
            B.row_ptr.data(), B.col_idx.data(), B.values.data()},
        rows_(rows),
        count_(count),
        stream_(stream),
        column_bits_(radix_key_bits(B.cols)),
        row_bits_(radix_key_bits(count)),
        own_entry_offset_(std::size_t(count) + 1, stream, "spgemm: entry offsets of long rows"),
        entry_offset_(own_entry_offset_.data()) {
    {
      DeviceBuffer<index_t> entries(count, stream, "spgemm: entries of long rows");
      long_row_entries_kernel<<<sorted_rows_grid(count), kSortedRowsBlock, 0, stream>>>(
          A.row_ptr.data(), rows, count, entries.data());
      BINAMG_CHECK_LAUNCH();
      entries_ = offsets_from_counts(entries.data(), count, own_entry_offset_.data(),
                                     "spgemm: A entries of the sorted rows", stream);
    }

    count_products();
    products_ = read_back(product_offset_.data() + entries_, stream);
  }

  /// Every row of A in order, whose products total `products` (the count
  /// pass's tally): A's row offsets are the entry offsets (A must outlive
  /// this object), so nothing is read back.
  SortedLongRows(const DeviceCsr<T>& A, const DeviceCsr<T>& B, std::int64_t products,
                 cudaStream_t stream)
      : in_{A.row_ptr.data(), A.col_idx.data(), A.values.data(),
            B.row_ptr.data(), B.col_idx.data(), B.values.data()},
        count_(A.rows),
        stream_(stream),
        column_bits_(radix_key_bits(B.cols)),
        row_bits_(radix_key_bits(A.rows)),
        entry_offset_(A.row_ptr.data()),
        entries_(A.nnz()),
        products_(products),
        all_rows_(A.rows, stream, "spgemm: rows sorted whole") {
    rows_ = all_rows_.data();
    fill_identity(all_rows_.data(), count_, stream);
    count_products();
  }

  std::int64_t products() const { return products_; }

  /// Device bytes per product of count_runs (values = false) or fill (values = true).
  static constexpr std::int64_t bytes_per_product(bool values) {
    static_assert(sizeof(SortKey) == 8 && sizeof(index_t) == 4,
                  "sorted_bytes_per_product counts 8-byte keys and 4-byte ranks");
    return sorted_bytes_per_product(sizeof(T), values);
  }
  std::int64_t bytes_needed(bool values) const { return products_ * bytes_per_product(values); }

  /// Symbolic pass: row_nnz[rows[l]] = distinct columns of long row l. With
  /// keep_for_fill the values are sorted too and kept, so that fill() sorts
  /// nothing again (the rows' list must then stay as it is until fill()).
  void count_runs(index_t* row_nnz, bool keep_for_fill = false) {
    Sorted sorted = sort(keep_for_fill);
    long_row_runs_kernel<<<sorted_rows_grid(count_), kSortedRowsBlock, 0, stream_>>>(
        rows_, count_, entry_offset_, product_offset_.data(), sorted.ranks.data(),
        row_nnz, nullptr, nullptr);
    BINAMG_CHECK_LAUNCH();
    if (keep_for_fill) kept_ = std::make_unique<Sorted>(std::move(sorted));
  }

  /// Numeric pass: writes the long rows of C (row offsets final); sets
  /// *error if a row's run count is not its nnz in C.
  void fill(DeviceCsr<T>& C, int* error) {
    Sorted sorted = kept_ ? std::move(*kept_) : sort(true);
    kept_.reset();
    long_row_runs_kernel<<<sorted_rows_grid(count_), kSortedRowsBlock, 0, stream_>>>(
        rows_, count_, entry_offset_, product_offset_.data(), sorted.ranks.data(),
        nullptr, C.row_ptr.data(), error);
    BINAMG_CHECK_LAUNCH();
    const index_t products = index_t(products_);
    DeviceBuffer<index_t> run_start(std::size_t(products) + 1, stream_,
                                    "spgemm: run bounds of long rows");
    locate_runs_kernel<<<sorted_rows_grid(products + 1), kSortedRowsBlock, 0, stream_>>>(
        sorted.ranks.data(), products, run_start.data());
    BINAMG_CHECK_LAUNCH();
    write_long_row_runs_kernel<T><<<sorted_rows_grid(products), kSortedRowsBlock, 0, stream_>>>(
        rows_, entry_offset_, product_offset_.data(), sorted.keys, sorted.values,
        sorted.ranks.data(), run_start.data(), products, column_bits_, C.row_ptr.data(),
        C.col_idx.data(), C.values.data());
    BINAMG_CHECK_LAUNCH();
  }

 private:
  /// Sorted keys (and values), and the run ranks; the pointers lead into
  /// the buffers, whichever of each pair the sort left its result in.
  struct Sorted {
    DeviceBuffer<SortKey> key_buffers;
    DeviceBuffer<T> value_buffers;
    DeviceBuffer<index_t> ranks;
    const SortKey* keys = nullptr;
    const T* values = nullptr;
  };

  Sorted sort(bool with_values) {
    require(products_ < std::int64_t(1) << 31,
            "spgemm: the long rows' products pass 2^31 (the caller checks the budget)");
    const index_t products = index_t(products_);
    Sorted out;
    out.key_buffers = DeviceBuffer<SortKey>(2 * std::size_t(products), stream_,
                                            "spgemm: sort keys of long rows");
    if (with_values)
      out.value_buffers = DeviceBuffer<T>(2 * std::size_t(products), stream_,
                                          "spgemm: sort values of long rows");
    cub::DoubleBuffer<SortKey> keys(out.key_buffers.data(), out.key_buffers.data() + products);
    cub::DoubleBuffer<T> values(out.value_buffers.data(),
                                with_values ? out.value_buffers.data() + products : nullptr);
    expand_long_row_products_kernel<T><<<sorted_rows_grid(products), kSortedRowsBlock, 0,
                                         stream_>>>(
        in_, rows_, count_, entry_offset_, entries_, product_offset_.data(), products,
        column_bits_, keys.Current(), with_values ? values.Current() : nullptr);
    BINAMG_CHECK_LAUNCH();
    const int end_bit = column_bits_ + row_bits_;
    std::size_t temp_bytes = 0;
    if (with_values) {
      BINAMG_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys, values,
                                                        products, 0, end_bit, stream_));
      DeviceBuffer<unsigned char> temp(temp_bytes, stream_, "spgemm: radix sort scratch");
      BINAMG_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, keys, values,
                                                        products, 0, end_bit, stream_));
      out.values = values.Current();
    } else {
      BINAMG_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys, products, 0,
                                                       end_bit, stream_));
      DeviceBuffer<unsigned char> temp(temp_bytes, stream_, "spgemm: radix sort scratch");
      BINAMG_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.data(), temp_bytes, keys, products,
                                                       0, end_bit, stream_));
    }
    out.keys = keys.Current();
    out.ranks = DeviceBuffer<index_t>(std::size_t(products) + 1, stream_,
                                      "spgemm: run ranks of long rows");
    mark_run_heads_kernel<<<sorted_rows_grid(products + 1), kSortedRowsBlock, 0, stream_>>>(
        out.keys, products, out.ranks.data());
    BINAMG_CHECK_LAUNCH();
    exclusive_scan(out.ranks.data(), products + 1);
    return out;
  }

  /// product_offset_: the exclusive scan of the products of each entry.
  void count_products() {
    product_offset_ = DeviceBuffer<std::int64_t>(std::size_t(entries_) + 1, stream_,
                                                 "spgemm: product offsets of long rows");
    const PatternOperands pattern{in_.a_row_ptr, in_.a_col, in_.b_row_ptr, in_.b_col};
    long_row_entry_products_kernel<<<sorted_rows_grid(entries_ + 1), kSortedRowsBlock, 0,
                                     stream_>>>(pattern, rows_, count_, entry_offset_,
                                                entries_, product_offset_.data());
    BINAMG_CHECK_LAUNCH();
    exclusive_scan(product_offset_.data(), entries_ + 1);
  }

  template <typename V>
  void exclusive_scan(V* data, index_t items) {
    std::size_t bytes = 0;
    BINAMG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, data, data, items, stream_));
    DeviceBuffer<unsigned char> temp(bytes, stream_, "spgemm: scan scratch of long rows");
    BINAMG_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(temp.data(), bytes, data, data, items, stream_));
  }

  ProductOperands<T> in_;
  const index_t* rows_;
  index_t count_;
  cudaStream_t stream_;
  int column_bits_;
  int row_bits_;
  DeviceBuffer<index_t> own_entry_offset_;  // entry offsets of a list of rows
  const index_t* entry_offset_;             // own_entry_offset_ or A's row offsets
  index_t entries_ = 0;
  DeviceBuffer<std::int64_t> product_offset_;
  std::int64_t products_ = 0;
  DeviceBuffer<index_t> all_rows_;  // rows_ when every row of A is sorted
  std::unique_ptr<Sorted> kept_;    // count_runs' sort, kept for fill()
};

}  // namespace binamg::spgemm_detail
