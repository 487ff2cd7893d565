#pragma once
// A device matrix's column indices packed to 16 bits for the row kernels
// (spmv/row_stream.cuh): the rows are cut into chunks of packed_chunk_rows, and
// an entry stores its column's offset from the smallest column of its chunk.
// The kernels read 2 bytes a column instead of 4 and form the same columns, so
// the same sums: an entry moves 10 bytes instead of 12 in double, 6 instead of
// 8 in float.
#include <cstdint>

#include "binamg/core/device_buffer.hpp"
#include "binamg/core/types.hpp"

namespace binamg {

/// Rows per chunk. Every block of the row kernels takes a power of two of at
/// most this many rows, starting at a multiple of its size: one chunk's rows.
constexpr index_t packed_chunk_rows = 256;

/// Matrices smaller than this are not packed: their row sums are bound by launch
/// and latency, not by what they read, and packing would only add its pass.
constexpr std::int64_t packed_min_entries = std::int64_t(1) << 20;

/// Whether prepare_for_row_kernels tries to pack a matrix of `rows` rows and
/// `nnz` nonzeros: at least min_entries of them, and at most 256 a row on
/// average (a chunk's block walks its entries alone: 65536 on average).
bool worth_packing(std::int64_t nnz, index_t rows, std::int64_t min_entries = packed_min_entries);

/// Offsets, where every chunk spans fewer than 2^16 columns (else empty).
struct PackedColumns {
  DeviceBuffer<std::uint16_t> offset;  // per entry: column − base of its chunk
  DeviceBuffer<index_t> base;          // per chunk: its smallest column
  // The column storage prepare_for_row_kernels last judged, packed or not.
  const index_t* judged = nullptr;

  /// Whether prepare_for_row_kernels has judged `col_idx`'s storage (so that a
  /// matrix refilled in place is not judged again).
  bool judged_for(const DeviceBuffer<index_t>& col_idx) const {
    return judged != nullptr && judged == col_idx.data();
  }
  /// Whether these are `col_idx`'s columns: packed from that storage, entry for
  /// entry. A matrix given new column storage (allocate_entries, assignment)
  /// thus never has its old offsets read.
  bool describe(const DeviceBuffer<index_t>& col_idx) const {
    return judged_for(col_idx) && !offset.empty() && offset.size() == col_idx.size();
  }
};

}  // namespace binamg
