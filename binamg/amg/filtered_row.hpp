#pragma once
// One row of the filtered matrix (filtered.hpp), written once for both devices
// (internal).
#include <cfloat>
#include <cmath>

#include "binamg/amg/strength_test.hpp"
#include "binamg/core/host_device.hpp"
#include "binamg/core/types.hpp"

namespace binamg::amg_detail {

/// Whether entry k of `row` stays in A_F: the diagonal, or a strong
/// off-diagonal (`scale`: the rows' strength scales).
template <typename T>
BINAMG_HOST_DEVICE bool kept_in_filtered(index_t row, index_t col, T value, const T* scale,
                                         double theta, StrengthMeasure measure) {
  return col == row || strong_connection(value, scale[row], scale[col], theta, measure);
}

/// A_F's diagonal from a_ii plus the row's weak entries (`lumped`): the sum, or
/// a_ii where the sum is not clearly positive. The floor and the test are taken
/// in double on both devices: an unqualified sqrt of a float resolves to the
/// double overload on the host but not in CUDA.
template <typename T>
BINAMG_HOST_DEVICE T lumped_or_diagonal(T lumped, T diagonal) {
  const double epsilon = sizeof(T) == 4 ? double(FLT_EPSILON) : DBL_EPSILON;
  const double floor = sqrt(epsilon) * fabs(double(diagonal));
  return double(lumped) > floor ? lumped : diagonal;
}

/// The diagonal of `row` in A_F: a_ii plus the row's weak entries, left to
/// right (lumped_or_diagonal).
template <typename T>
BINAMG_HOST_DEVICE T filtered_diagonal(index_t row, const index_t* row_ptr, const index_t* col_idx,
                                       const T* values, const T* diag, const T* scale,
                                       double theta, StrengthMeasure measure) {
  T lumped = diag[row];
  for (index_t k = row_ptr[row]; k < row_ptr[row + 1]; ++k)
    if (!kept_in_filtered(row, col_idx[k], values[k], scale, theta, measure)) lumped += values[k];
  return lumped_or_diagonal(lumped, diag[row]);
}

}  // namespace binamg::amg_detail
