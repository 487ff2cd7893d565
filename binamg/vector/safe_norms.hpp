#pragma once
// Euclidean norms that neither overflow nor underflow, written once for both
// devices (internal). The sum of squares is formed as the plain reductions form
// it, so a norm in range has exactly their bits and costs one pass; only a column
// whose sum of squares overflowed or may have lost terms to underflow is summed
// again, scaled by a power of two (exact) that brings its largest entry to
// [1/2, 1), as BLAS nrm2 scales.
#include <cmath>
#include <limits>
#include <vector>

#include "binamg/core/types.hpp"

namespace binamg {
namespace vector_detail {

/// Whether a sum of squares can be trusted: finite, and large enough that every
/// square that underflowed was below unit roundoff² of it. Zero is not (the
/// entries may all have underflowed).
template <typename T>
bool square_sum_in_range(T sum) {
  constexpr T eps = std::numeric_limits<T>::epsilon();
  return std::isfinite(sum) && sum >= std::numeric_limits<T>::min() / (eps * eps);
}

/// The k column norms. `dots()` returns the column sums of squares,
/// `max_abs()` each column's largest |entry| (NaN if it holds one), and
/// `scaled_dots(exponents)` the sums of squares of the columns multiplied by
/// 2^exponents[j].
template <typename T, typename Dots, typename MaxAbs, typename ScaledDots>
std::vector<double> column_norms_with(index_t k, Dots&& dots, MaxAbs&& max_abs,
                                      ScaledDots&& scaled_dots) {
  const std::vector<T> squares = dots();
  std::vector<double> norms(k);
  std::vector<bool> rescue(k, false);
  bool any = false;
  for (index_t j = 0; j < k; ++j) {
    if (square_sum_in_range(squares[j]))
      norms[j] = static_cast<double>(std::sqrt(squares[j]));
    else
      rescue[j] = any = true;
  }
  if (!any) return norms;
  const std::vector<T> largest = max_abs();
  std::vector<int> exponents(k, 0);
  bool rescale = false;
  for (index_t j = 0; j < k; ++j) {
    if (!rescue[j]) continue;
    if (largest[j] == 0 || !std::isfinite(largest[j])) {  // 0, ∞ or NaN is the norm
      norms[j] = static_cast<double>(largest[j]);
      rescue[j] = false;
      continue;
    }
    int exponent = 0;
    std::frexp(largest[j], &exponent);
    exponents[j] = -exponent;
    rescale = true;
  }
  if (!rescale) return norms;
  const std::vector<T> scaled = scaled_dots(exponents);
  for (index_t j = 0; j < k; ++j)
    if (rescue[j]) norms[j] = std::ldexp(static_cast<double>(std::sqrt(scaled[j])), -exponents[j]);
  return norms;
}

}  // namespace vector_detail
}  // namespace binamg
