#pragma once
// A singular test matrix: the pure-Neumann Laplacian of an n × n grid.
#include "binamg/problems/poisson.hpp"

namespace binamg::testing {

/// The 5-point stencil with each diagonal entry the sum of its row's
/// off-diagonal magnitudes (row sums 0), so the constants span its null space.
template <typename T>
CsrMatrix<T> neumann_laplacian(index_t n) {
  CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_5, n);
  for (index_t i = 0; i < A.rows; ++i) {
    T off = T(0);
    index_t diagonal = -1;
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (A.col_idx[k] == i)
        diagonal = k;
      else
        off -= A.values[k];
    A.values[diagonal] = off;
  }
  return A;
}

}  // namespace binamg::testing
