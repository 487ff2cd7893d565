#pragma once
// CSR matrix resident on the GPU: the same invariants as CsrMatrix.
#include "binamg/core/config.hpp"
#if !BINAMG_WITH_CUDA
#error "binamg/sparse/device_csr.hpp needs a binamg built with CUDA (BINAMG_WITH_CUDA is 0)"
#endif
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "binamg/core/cuda_check.hpp"
#include "binamg/core/device_buffer.hpp"
#include "binamg/core/error.hpp"
#include "binamg/sparse/coded_values.hpp"
#include "binamg/sparse/csr.hpp"
#include "binamg/sparse/packed_columns.hpp"

namespace binamg {

template <typename T>
struct DeviceCsr {
  index_t rows = 0;
  index_t cols = 0;
  DeviceBuffer<index_t> row_ptr;  // rows + 1
  DeviceBuffer<index_t> col_idx;  // nnz
  DeviceBuffer<T> values;         // nnz
  // The longest row's nonzeros, or -1 where it is not known (to_device knows it
  // from the host copy; matrices formed on the GPU leave it unknown unless
  // max_row_length() is asked). Only performance reads it: the choice of SpMM
  // kernel (spmm_algorithm_for) and whether the row kernels look for rows long
  // enough to need a whole block (row_split::long_rows_of). A stale value can
  // cost speed or pick the other kernel's summation order, never correctness.
  index_t max_row_length = -1;
  // The columns packed to 16 bits for the row kernels, where
  // prepare_for_row_kernels() judged it worth it; read only while they
  // describe col_idx.
  PackedColumns packed;
  // The values coded to 8 or 16 bits for the row kernels, where code_values() found
  // few enough distinct ones; read only while they describe `values`. Whoever
  // rewrites the values in place must code them again (or clear them).
  CodedValues<T> coded;

  index_t nnz() const { return static_cast<index_t>(col_idx.size()); }

  /// Uninitialised columns and values for `count` entries, ordered on `stream`.
  void allocate_entries(index_t count, cudaStream_t stream, const char* what) {
    col_idx = DeviceBuffer<index_t>(count, stream, what);
    values = DeviceBuffer<T>(count, stream, what);
    packed = {};
    coded = {};
  }
};

/// Throws InvalidInput, naming `what`, unless M's dimensions are non-negative
/// and its arrays hold rows + 1 offsets and as many values as columns (the
/// arrays' contents are not read: that would cost a copy to the host).
template <typename T>
void require_consistent(const DeviceCsr<T>& M, const std::string& what) {
  require(M.rows >= 0 && M.cols >= 0 && M.row_ptr.size() == std::size_t(M.rows) + 1 &&
              M.values.size() == M.col_idx.size(),
          what + " is not a consistent DeviceCsr (" + std::to_string(M.rows) + " x " +
              std::to_string(M.cols) + ", nnz " + std::to_string(M.nnz()) + "; arrays of " +
              std::to_string(M.row_ptr.size()) + " offsets, " +
              std::to_string(M.col_idx.size()) + " columns, " +
              std::to_string(M.values.size()) + " values)");
}

/// validate(CsrMatrix) on the device, with its messages (naming `what` and the
/// row): offsets from 0 to nnz, never decreasing; columns in range, sorted,
/// without duplicates; finite values. Reads the arrays on the GPU and copies
/// the matrix to the host only to word an error; synchronizes `stream`.
template <typename T>
void validate(const DeviceCsr<T>& M, const std::string& what, cudaStream_t stream = nullptr);

/// Uploads a host matrix (asynchronous on `stream`).
template <typename T>
DeviceCsr<T> to_device(const CsrMatrix<T>& host, cudaStream_t stream = nullptr) {
  DeviceCsr<T> device;
  device.rows = host.rows;
  device.cols = host.cols;
  device.row_ptr = to_device(host.row_ptr, stream);
  device.col_idx = to_device(host.col_idx, stream);
  device.values = to_device(host.values, stream);
  device.max_row_length = 0;
  for (index_t row = 0; row < host.rows; ++row)
    device.max_row_length = std::max(device.max_row_length, host.row_length(row));
  return device;
}

/// A copy of M on the device (asynchronous on `stream`), its recorded longest row included.
template <typename T>
DeviceCsr<T> copy_of(const DeviceCsr<T>& M, cudaStream_t stream = nullptr) {
  DeviceCsr<T> copy;
  copy.rows = M.rows;
  copy.cols = M.cols;
  copy.max_row_length = M.max_row_length;
  copy.row_ptr = DeviceBuffer<index_t>(M.row_ptr.size(), stream, "copy of a matrix: row offsets");
  copy.allocate_entries(M.nnz(), stream, "copy of a matrix: entries");
  BINAMG_CUDA_CHECK(cudaMemcpyAsync(copy.row_ptr.data(), M.row_ptr.data(),
                                    sizeof(index_t) * M.row_ptr.size(), cudaMemcpyDeviceToDevice,
                                    stream));
  if (M.nnz() > 0) {
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(copy.col_idx.data(), M.col_idx.data(),
                                      sizeof(index_t) * M.nnz(), cudaMemcpyDeviceToDevice, stream));
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(copy.values.data(), M.values.data(), sizeof(T) * M.nnz(),
                                      cudaMemcpyDeviceToDevice, stream));
  }
  return copy;
}

/// Downloads a device matrix; synchronizes its streams.
template <typename T>
CsrMatrix<T> to_host(const DeviceCsr<T>& device) {
  CsrMatrix<T> host;
  host.rows = device.rows;
  host.cols = device.cols;
  host.row_ptr = to_host(device.row_ptr);
  host.col_idx = to_host(device.col_idx);
  host.values = to_host(device.values);
  return host;
}

/// The longest row's nonzeros of a device CSR pattern (rows + 1 offsets);
/// synchronizes `stream`.
index_t max_row_length(index_t rows, const index_t* row_ptr, cudaStream_t stream = nullptr);

/// A's longest row, counted on the GPU (synchronizes `stream`): what sets
/// DeviceCsr::max_row_length where it is unknown.
template <typename T>
index_t max_row_length(const DeviceCsr<T>& A, cudaStream_t stream = nullptr) {
  return max_row_length(A.rows, A.row_ptr.data(), stream);
}

/// Packs M's columns into M.packed where worth_packing(M.nnz(), M.rows,
/// min_entries) and every chunk of packed_chunk_rows rows spans fewer than 2^16
/// columns (else leaves no offsets), marks M's column storage judged, and
/// records M.max_row_length (counted where packing, else where unknown), with
/// at most one read-back (synchronizes `stream`). For the matrices a solve
/// multiplies again and again: the row kernels then read the packed columns,
/// with the same results.
template <typename T>
void prepare_for_row_kernels(DeviceCsr<T>& M, cudaStream_t stream = nullptr,
                             std::int64_t min_entries = packed_min_entries);

/// Codes M's values into M.coded where M has at least min_entries nonzeros and
/// at most coded_table_size distinct values (bit patterns), or at most
/// wide_coded_table_size in two bytes where M.max_row_length is at most
/// thread_row_max (sparse/coded_values.hpp), else leaves no codes; marks M's value storage
/// judged either way. One or two read-backs (synchronizes `stream`) where the
/// size qualifies. For matrices a hierarchy owns and
/// multiplies again and again (see sparse/coded_values.hpp): the row kernels
/// then read the codes, with the same results. Codes anew where the values
/// were rewritten in place.
template <typename T>
void code_values(DeviceCsr<T>& M, cudaStream_t stream = nullptr,
                 std::int64_t min_entries = packed_min_entries);

/// The first row in which two device patterns of `rows` rows differ (its
/// length or a column), or -1; synchronizes `stream`.
index_t first_pattern_difference(index_t rows, const index_t* a_ptr, const index_t* a_col,
                                 const index_t* b_ptr, const index_t* b_col,
                                 cudaStream_t stream = nullptr);

/// The same for matrices of the same rows: first_pattern_difference(CsrMatrix)'s row.
template <typename T>
index_t first_pattern_difference(const DeviceCsr<T>& a, const DeviceCsr<T>& b,
                                 cudaStream_t stream = nullptr) {
  return first_pattern_difference(a.rows, a.row_ptr.data(), a.col_idx.data(), b.row_ptr.data(),
                                  b.col_idx.data(), stream);
}

/// The row of each of a pattern's entries (nnz of them), on `stream`.
DeviceBuffer<index_t> entry_rows(index_t rows, const index_t* row_ptr, index_t nnz,
                                 cudaStream_t stream = nullptr);

/// The row of each of A's entries.
template <typename T>
DeviceBuffer<index_t> entry_rows(const DeviceCsr<T>& A, cudaStream_t stream = nullptr) {
  return entry_rows(A.rows, A.row_ptr.data(), A.nnz(), stream);
}

/// The diagonal as a device vector (zero where a row has no diagonal entry).
template <typename T>
DeviceBuffer<T> diagonal(const DeviceCsr<T>& A, cudaStream_t stream = nullptr);

/// Converts precision on the device (double → float for a mixed-precision
/// hierarchy): the same pattern, each value rounded. Narrowing, throws
/// InvalidInput as the host's convert_values does (a kernel and a read-back).
template <typename To, typename From>
DeviceCsr<To> convert_values(const DeviceCsr<From>& matrix, cudaStream_t stream = nullptr);

}  // namespace binamg
