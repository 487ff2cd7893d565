#pragma once
// Whether a matrix is symmetric, to the rounding its entries carry.
#include <optional>

#include "binamg/sparse/csr.hpp"

namespace binamg {

/// Where A_ij and A_ji differ (0-based), with both values.
struct Asymmetry {
  index_t row = 0, col = 0;
  double value = 0, transposed = 0;
};

/// The default `tolerance` of find_asymmetry: a few hundred units of roundoff of T.
template <typename T>
constexpr double symmetry_tolerance() {
  return sizeof(T) == 4 ? 1e-5 : 1e-12;
}

/// The first pair (in row order) where |A_ij − A_ji| exceeds `tolerance` times
/// |A_ij| + |A_ji| + √|a_ii·a_jj|, or none: A is symmetric. The last term is the
/// scale of the terms that formed an entry, so a Galerkin product PᵀAP of a
/// symmetric A, symmetric only up to rounding (an entry whose terms cancel keeps
/// rounding of the size of its terms), passes. O(nnz): A's rows are merged with
/// Aᵀ's. Throws InvalidInput if A is not square.
template <typename T>
std::optional<Asymmetry> find_asymmetry(const CsrMatrix<T>& A,
                                        double tolerance = symmetry_tolerance<T>());

}  // namespace binamg
