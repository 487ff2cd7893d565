#include "binamg/problems/scaled.hpp"

#include <cmath>
#include <string>

#include "binamg/core/error.hpp"

namespace binamg {

template <typename T>
CsrMatrix<T> symmetrically_scaled(const CsrMatrix<T>& A, double amplitude, double phase) {
  require(amplitude >= 0 && amplitude < 1 && std::isfinite(phase),
          "symmetrically_scaled: the amplitude " + std::to_string(amplitude) +
              " must lie in [0, 1) and the phase " + std::to_string(phase) + " be finite");
  std::vector<double> d(A.rows);
  const double two_pi = 8 * std::atan(1.0);
  for (index_t i = 0; i < A.rows; ++i)
    d[i] = 1 + amplitude * std::sin(two_pi * double(i) / double(A.rows) + phase);
  CsrMatrix<T> scaled = A;
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      scaled.values[k] = static_cast<T>(double(A.values[k]) * d[i] * d[A.col_idx[k]]);
  return scaled;
}

template CsrMatrix<float> symmetrically_scaled<float>(const CsrMatrix<float>&, double, double);
template CsrMatrix<double> symmetrically_scaled<double>(const CsrMatrix<double>&, double, double);

}  // namespace binamg
