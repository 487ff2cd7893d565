#pragma once
// A device matrix's values coded to 8 bits for the row kernels
// (spmv/row_stream.cuh), where the matrix holds at most 256 distinct values
// (bit patterns): a constant-coefficient stencil holds two or three. An entry
// stores the index of its value in a table of the distinct values, and the
// kernels read table[code] — the same value, so the same sums — moving 1 byte
// for a value instead of 8 in double, 4 in float (value-indexed CSR: Kourtis,
// Goumas & Koziris 2008; hypre's structured matrices keep constant
// coefficients once for the same reason).
//
// Only matrices a hierarchy owns are coded: their values change only in a
// refresh, which codes them again. A matrix whose values a caller may rewrite
// in place must not be coded (the codes would describe the old values).
#include <cstdint>

#include "binamg/core/device_buffer.hpp"
#include "binamg/core/types.hpp"

namespace binamg {

/// Distinct values a table holds at most: a code is one byte.
constexpr int coded_table_size = 256;

template <typename T>
struct CodedValues {
  DeviceBuffer<std::uint8_t> code;  // per entry: its value's index in table
  DeviceBuffer<T> table;            // the distinct values, ascending by bit pattern
  // The value storage code_values() last judged, coded or not.
  const T* judged = nullptr;

  bool judged_for(const DeviceBuffer<T>& values) const {
    return judged != nullptr && judged == values.data();
  }
  /// Whether these are `values`' codes: coded from that storage, entry for entry.
  bool describe(const DeviceBuffer<T>& values) const {
    return judged_for(values) && !code.empty() && code.size() == values.size();
  }
};

}  // namespace binamg
