#pragma once
// The drivers of the GPU SpGEMM's paths, one file each (paths/<path>.cu):
// each computes stages 3-4 of A·B (C's pattern and values) into C, which
// product_shell made (rows, columns, row offsets). spgemm.cu chooses the path
// (choose_path) and calls its driver. Window and merged rows return false
// when their count pass finds a row they cannot hold: C then has only its
// row offsets, to be recomputed by the next path.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "binamg/sparse/device_csr.hpp"
#include "binamg/spgemm/choose_path.hpp"
#include "binamg/spgemm/paths/common.cuh"
#include "binamg/spgemm/tuning.hpp"

namespace binamg::spgemm_detail {

/// SpgemmPath::dense_columns: a block per row in both passes
/// (kernels/dense_columns.cuh), unbinned; the one read-back is nnz(C).
template <typename T>
void dense_columns_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                           Workspace& bins, std::size_t scan_bytes, cudaStream_t stream);

/// SpgemmPath::narrow: B's columns bound every row of C, so one table of
/// table_for_columns(B.cols) slots serves all rows, in order and unbinned, in
/// both passes (a warp per row; the sums are the binned kernels', A's row
/// order). The one read-back is nnz(C), for its arrays.
template <typename T>
void narrow_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                    const SpgemmTuning& tuning, Workspace& bins, std::size_t scan_bytes,
                    cudaStream_t stream);

/// The one-pass window rows' rooms: kWindowFusedRoom entries for each row of C.
template <typename T>
struct WindowRooms {
  DeviceBuffer<index_t> col;
  DeviceBuffer<T> val;
};

/// Rooms for `rows` rows, or none if they would pass fused_budget.
template <typename T>
WindowRooms<T> window_rooms(index_t rows, const SpgemmTuning& tuning, cudaStream_t stream);

/// Window rows in one pass (window_fused_kernel; B's rows through `in`,
/// packed or in rooms, their mean length mean_b_row): each row into its room
/// of kWindowFusedRoom entries, one read-back (nnz(C), the longest row, any
/// crowded row), the scan and the rows packed into C. Returns false, with
/// nothing of C written but its row offsets, if there are no rooms or a row
/// spans more than kWindowFusedWords words or has more columns than its room.
template <typename T, typename Operands>
bool fused_windowed_product(const Operands& in, double mean_b_row, DeviceCsr<T>& C,
                            WindowRooms<T>& rooms, Workspace& bins, std::size_t scan_bytes,
                            cudaStream_t stream);

/// SpgemmPath::window_rows: fused_windowed_product or, where that declines,
/// the count pass, one read-back (nnz(C), the longest row, the widest window,
/// misfits), the scan and the fill. Declines (false) if a row's window is
/// wider than kWindowMaxWords or a fill warp's shared memory would pass
/// kWindowBlockShared.
template <typename T>
bool windowed_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                      const SpgemmTuning& tuning, Workspace& bins, std::size_t scan_bytes,
                      cudaStream_t stream);

/// SpgemmPath::window_split_rows: window rows with a block per row (the
/// window_split kernels): the count pass, one read-back, the scan and the
/// fill. Declines (false) if a row's window is wider than kWindowMaxWords or
/// a block's accumulators would pass kWindowSplitShared.
template <typename T>
bool split_windowed_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                            Workspace& bins, std::size_t scan_bytes, cudaStream_t stream);

/// SpgemmPath::merged_rows in `shape` (choose_path's merge_shape): the count
/// pass, one read-back (nnz(C), the longest row, misfits), the scan and the
/// fill. Declines (false) if a row did not fit the shape (A's or B's
/// max_row_length was stale).
template <typename T>
bool merged_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const MergeShape& shape,
                    DeviceCsr<T>& C, Workspace& bins, std::size_t scan_bytes, cudaStream_t stream);

/// Stages 1-2, the count pass: each row's products into row_products (C's row
/// offsets), each row's symbolic bin and numeric class into the workspace,
/// and with fused_binning the fused path's binning too; reads the tallies
/// back (synchronizes). `A`'s mean row picks a thread, 8 lanes or a warp per row.
template <typename T>
ProductTally count_products(const DeviceCsr<T>& A, const DeviceCsr<T>& B,
                            const SpgemmTuning& tuning, bool fused_binning, Workspace& bins,
                            index_t* row_products, cudaStream_t stream);

/// SpgemmPath::sorted_whole, after the count pass (`products` its total):
/// every row of A in one sort that serves both passes, and nnz(C) read from
/// the row-offset scan.
template <typename T>
void sort_whole_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, std::int64_t products,
                        DeviceCsr<T>& C, Workspace& bins, std::size_t scan_bytes,
                        cudaStream_t stream);

/// SpgemmPath::fused_rows, after a count pass with the fused binning: C's
/// row offsets hold each row's products. Each row is summed once, by the
/// short-row or the shared-table kernel (a table sized by its products), into
/// a room of kFusedRoom entries, which counts its entries; the scan of the
/// counts places the rows, with one read-back (nnz(C), any row past its room:
/// then all rows again, into rooms of their products). The rows are packed
/// into C or, with `keep`, left in their rooms for the next product to read
/// (C then has no arrays).
template <typename T>
void fused_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, std::int64_t products,
                   DeviceCsr<T>& C, const SpgemmTuning& tuning, Workspace& bins,
                   std::size_t scan_bytes, cudaStream_t stream, Rooms<T>* keep);

/// SpgemmPath::binned, after the count pass: the symbolic pass (exact row
/// lengths), the numeric binning with nnz(C), C's arrays and the numeric pass.
template <typename T>
void binned_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                    const SpgemmTuning& tuning, Workspace& bins, std::size_t scan_bytes,
                    cudaStream_t stream);

// ---- The binned kernel families (paths/binned.cu), shared with fused rows
// and spgemm_numeric ----

/// The numeric pass of the short-row bins (with row_runs, rows go at
/// c_row_ptr's product offsets and their counts to row_runs).
template <typename T>
void fill_short_rows(const ProductOperands<T>& in, index_t b_cols, const index_t* c_row_ptr,
                     index_t* c_col, T* c_val, index_t* row_runs, const SpgemmTuning& tuning,
                     const Workspace& bins, int* error, cudaStream_t stream);

/// The numeric pass of the shared-table bins (row_runs as in fill_short_rows).
template <typename T>
void fill_shared_rows(const ProductOperands<T>& in, const index_t* c_row_ptr, index_t* c_col,
                      T* c_val, index_t* row_runs, const SpgemmTuning& tuning,
                      const Workspace& bins, int* error, cudaStream_t stream);

/// Stages 3-4, numeric: C's columns and values for every binned row.
template <typename T>
void fill_rows(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
               const SpgemmTuning& tuning, const Workspace& bins, int* error, cudaStream_t stream);

/// Bins C's rows by nnz for the numeric pass (row_sizes: counts, or offsets
/// when sizes_are_offsets; classes_in_bins: the workspace holds the count
/// pass's numeric classes); returns nnz(C) in 64 bits. Synchronizes.
template <typename T>
unsigned long long bin_for_numeric(const DeviceCsr<T>& A, const DeviceCsr<T>& B,
                                   const index_t* row_sizes, bool sizes_are_offsets,
                                   bool classes_in_bins, index_t rows, const SpgemmTuning& tuning,
                                   Workspace& bins, cudaStream_t stream);

}  // namespace binamg::spgemm_detail
