#pragma once
// New values on a matrix's pattern, for the sequences of systems a refresh
// serves (time steps, Newton steps) and for its tests and benchmarks.
#include "binamg/sparse/csr.hpp"

namespace binamg {

/// D·A·D with d_i = 1 + amplitude·sin(2π·i/n + phase), n = A.rows: the values
/// change and the pattern stays; symmetric positive definite when A is. d
/// varies smoothly with the row number (a coefficient that varies over the
/// domain), so D⁻¹ times A's near-nullspace stays smooth too.
/// Throws InvalidInput unless 0 ≤ amplitude < 1 and phase is finite.
template <typename T>
CsrMatrix<T> symmetrically_scaled(const CsrMatrix<T>& A, double amplitude, double phase);

}  // namespace binamg
