#pragma once
// The strength test, written once for both devices (internal). a_ij is strong
// when |a_ij| ≥ θ·√|a_ii·a_jj|, decided in double so that float and double
// matrices with the same values give the same graph.
#include <cfloat>
#include <cmath>

#include "binamg/core/host_device.hpp"

namespace binamg {
namespace amg_detail {

BINAMG_HOST_DEVICE inline bool strong_connection(double value, double row_diagonal,
                                                 double column_diagonal, double theta) {
  if (value == 0) return false;
  const double product = fabs(row_diagonal * column_diagonal);
  // Where the product leaves the normal range (diagonals past 1e154 or below
  // 1e-154) it would overflow to ∞, leaving nothing strong, or lose digits to
  // subnormals; √|a_ii|·√|a_jj| is the same scale without either.
  const double scale = product <= DBL_MAX && product >= DBL_MIN
                           ? sqrt(product)
                           : sqrt(fabs(row_diagonal)) * sqrt(fabs(column_diagonal));
  return fabs(value) >= theta * scale;
}

}  // namespace amg_detail
}  // namespace binamg
