#pragma once
// Galerkin coarse operator A_c = R·A·P with R = Pᵀ, in either association order.
#include <cstdint>

#include "binamg/amg/parameters.hpp"
#include "binamg/core/config.hpp"
#include "binamg/sparse/csr.hpp"
#if BINAMG_WITH_CUDA
#include "binamg/sparse/device_csr.hpp"
#endif

namespace binamg {

/// (R·A)·P for ptap_left, R·(A·P) for ptap_right, both with spgemm(). The two
/// orders agree up to floating-point rounding. Throws InvalidInput on
/// mismatched shapes.
template <typename T>
CsrMatrix<T> galerkin_product(const CsrMatrix<T>& A, const CsrMatrix<T>& P,
                              const CsrMatrix<T>& R, GalerkinOrdering ordering);

#if BINAMG_WITH_CUDA
/// GPU twin with the GPU spgemm, in the same association order.
template <typename T>
DeviceCsr<T> galerkin_product(const DeviceCsr<T>& A, const DeviceCsr<T>& P,
                              const DeviceCsr<T>& R, GalerkinOrdering ordering,
                              cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

/// |R|·|A|·|P| in double: entry (i, j) is the sum of the magnitudes of all the
/// products that form A_c(i, j), the scale of its rounding error in either
/// ordering (see max_relative_difference). Same pattern as A_c.
template <typename T>
CsrMatrix<double> galerkin_magnitude(const CsrMatrix<T>& A, const CsrMatrix<T>& P,
                                     const CsrMatrix<T>& R);

/// What one ordering costs, the figures that decide between them: scalar
/// products (multiply-adds) of the first and the second SpGEMM, and the nnz of
/// the intermediate (R·A for ptap_left, A·P for ptap_right) and of A_c.
struct GalerkinCost {
  std::int64_t first_products = 0, second_products = 0;
  index_t intermediate_nnz = 0, coarse_nnz = 0;
  std::int64_t products() const { return first_products + second_products; }
};

/// The cost of galerkin_product(A, P, R, ordering), counted on the host: it forms
/// the intermediate with the CPU spgemm (its pattern fixes the second count).
/// Throws InvalidInput on mismatched shapes.
template <typename T>
GalerkinCost galerkin_cost(const CsrMatrix<T>& A, const CsrMatrix<T>& P, const CsrMatrix<T>& R,
                           GalerkinOrdering ordering);

}  // namespace binamg
