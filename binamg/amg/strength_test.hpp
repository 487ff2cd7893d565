#pragma once
// The strength test, written once for both devices (internal), decided in
// double so that float and double matrices with the same values give the same
// graph. Each row brings a scale (strength_scales()): its diagonal a_ii for the
// symmetric measure, its largest off-diagonal |a_ik| for the classical one,
// and for the signed one that magnitude with the sign of a_ii.
#include <cfloat>
#include <cmath>

#include "binamg/amg/strength_measure.hpp"
#include "binamg/core/host_device.hpp"

namespace binamg {
namespace amg_detail {

BINAMG_HOST_DEVICE inline bool strong_connection(double value, double row_scale,
                                                 double column_scale, double theta,
                                                 StrengthMeasure measure) {
  if (value == 0) return false;
  if (measure == StrengthMeasure::classical)
    return fabs(value) >= theta * fmin(fabs(row_scale), fabs(column_scale));
  if (measure == StrengthMeasure::signed_classical)
    return (value < 0) == (row_scale > 0) &&
           fabs(value) >= theta * fmin(fabs(row_scale), fabs(column_scale));
  const double row_diagonal = row_scale, column_diagonal = column_scale;
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
