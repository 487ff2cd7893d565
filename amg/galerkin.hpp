#pragma once
// Galerkin coarse operator A_c = R·A·P with R = Pᵀ, in either association order.
#include "amg/parameters.hpp"
#include "sparse/csr.hpp"

namespace binamg {

/// (R·A)·P for ptap_left, R·(A·P) for ptap_right, both with spgemm(). The two
/// orders agree up to floating-point rounding. Throws InvalidInput on
/// mismatched shapes.
template <typename T>
CsrMatrix<T> galerkin_product(const CsrMatrix<T>& A, const CsrMatrix<T>& P,
                              const CsrMatrix<T>& R, GalerkinOrdering ordering);

}  // namespace binamg
