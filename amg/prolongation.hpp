#pragma once
// Smoothed prolongator of smoothed aggregation: one damped-Jacobi step applied
// to the tentative prolongator.
#include "sparse/csr.hpp"

namespace binamg {

/// P = (I − ω D⁻¹A)·T = T − ω D⁻¹(A·T), with sorted, duplicate-free rows.
/// A is square with a nonzero diagonal; T has A.rows rows.
template <typename T>
CsrMatrix<T> smoothed_prolongator(const CsrMatrix<T>& A, const CsrMatrix<T>& tentative,
                                  double omega);

}  // namespace binamg
