#pragma once
// A device matrix's values coded for the row kernels (spmv/row_stream.cuh),
// where the matrix holds few distinct values (bit patterns): a
// constant-coefficient stencil holds two or three, a finite-element matrix on a
// regular mesh a few hundred to tens of thousands. An entry stores the index of
// its value in a table of the distinct values, and the kernels read
// table[code] — the same value, so the same sums — moving 1 byte for a value
// (at most 256 distinct) or 2 (at most 65536) instead of 8 in double, 4 in
// float (value-indexed CSR: Kourtis, Goumas & Koziris 2008; hypre's structured
// matrices keep constant coefficients once for the same reason).
//
// Only matrices a hierarchy owns are coded: their values change only in a
// refresh, which codes them again. A matrix whose values a caller may rewrite
// in place must not be coded (the codes would describe the old values).
#include <cstdint>

#include "binamg/core/device_buffer.hpp"
#include "binamg/core/types.hpp"

namespace binamg {

/// Distinct values a table holds at most with one-byte codes, and with two.
constexpr int coded_table_size = 256;
constexpr int wide_coded_table_size = 65536;

/// The longest row the row kernels sum a thread per row (spmv/row_stream.cuh):
/// only those read two-byte codes, so code_values() gives them only to matrices
/// whose rows are known to be at most this long. On longer or uneven rows (the
/// P2 tets: 25 a row on average, up to 51) the thread per row measured slower.
constexpr index_t thread_row_max = 32;

template <typename T>
struct CodedValues {
  // Per entry, its value's index in table: one byte where the table holds at
  // most coded_table_size values (`code`), else two (`wide_code`); the other empty.
  DeviceBuffer<std::uint8_t> code;
  DeviceBuffer<std::uint16_t> wide_code;
  DeviceBuffer<T> table;  // the distinct values, ascending by bit pattern
  // The value storage code_values() last judged, coded or not.
  const T* judged = nullptr;

  bool judged_for(const DeviceBuffer<T>& values) const {
    return judged != nullptr && judged == values.data();
  }
  /// Whether these are `values`' codes: coded from that storage, entry for entry.
  bool describe(const DeviceBuffer<T>& values) const {
    return judged_for(values) && !values.empty() &&
           (code.size() == values.size() || wide_code.size() == values.size());
  }
  /// Whether the codes (where they describe the values) are one byte each.
  bool narrow() const { return !code.empty(); }
};

}  // namespace binamg
