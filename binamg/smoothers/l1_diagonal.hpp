#pragma once
// l1-Jacobi's diagonal of one row, written once for both devices (internal).
#include "binamg/core/host_device.hpp"
#include "binamg/core/types.hpp"

namespace binamg::smoother_detail {

/// a_ii + Σ_{j≠i} |a_ij|, left to right along the row.
template <typename T>
BINAMG_HOST_DEVICE T l1_diagonal(index_t row, const index_t* row_ptr, const index_t* col_idx,
                                 const T* values) {
  T sum = 0;
  for (index_t k = row_ptr[row]; k < row_ptr[row + 1]; ++k)
    sum += col_idx[k] == row ? values[k] : (values[k] < 0 ? -values[k] : values[k]);
  return sum;
}

/// Completes "…: row R" when l1_diagonal is zero or not finite.
inline constexpr const char* l1_diagonal_problem =
    ": a_ii + sum_j |a_ij| is zero or not finite, so l1-Jacobi cannot divide by it";

}  // namespace binamg::smoother_detail
