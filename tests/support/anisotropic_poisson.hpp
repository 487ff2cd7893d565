#pragma once
// A test matrix with weak connections on every level: the 5-point stencil with
// its y couplings `weak` times the x couplings.
#include <cstdlib>

#include "binamg/problems/poisson.hpp"

namespace binamg::testing {

/// Diagonal: the sum of the row's off-diagonal magnitudes plus `weak` (SPD).
template <typename T>
CsrMatrix<T> anisotropic_poisson(index_t n, T weak) {
  CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_5, n);
  for (index_t i = 0; i < A.rows; ++i) {
    T off = T(0);
    index_t diagonal = -1;
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      if (A.col_idx[k] == i) {
        diagonal = k;
        continue;
      }
      if (std::abs(A.col_idx[k] - i) == n) A.values[k] *= weak;
      off -= A.values[k];
    }
    A.values[diagonal] = off + weak;
  }
  return A;
}

}  // namespace binamg::testing
