#pragma once
// Galerkin coarse operator A_c = R·A·P with R = Pᵀ, in either association order.
#include "amg/parameters.hpp"
#include "sparse/csr.hpp"
#include "sparse/device_csr.hpp"

namespace binamg {

/// (R·A)·P for ptap_left, R·(A·P) for ptap_right, both with spgemm(). The two
/// orders agree up to floating-point rounding. Throws InvalidInput on
/// mismatched shapes.
template <typename T>
CsrMatrix<T> galerkin_product(const CsrMatrix<T>& A, const CsrMatrix<T>& P,
                              const CsrMatrix<T>& R, GalerkinOrdering ordering);

/// GPU twin with the GPU spgemm, in the same association order.
template <typename T>
DeviceCsr<T> galerkin_product(const DeviceCsr<T>& A, const DeviceCsr<T>& P,
                              const DeviceCsr<T>& R, GalerkinOrdering ordering,
                              cudaStream_t stream = nullptr);

}  // namespace binamg
