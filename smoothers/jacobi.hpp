#pragma once
// Weighted (damped) Jacobi relaxation, the smoother of the V-cycle.
#include <vector>

#include "sparse/csr.hpp"

namespace binamg {

/// `sweeps` times: x ← x + weight·D⁻¹(b − A x), all rows from the same old x.
/// `inverse_diagonal` holds 1/a_ii; `scratch` is resized and overwritten (it lets
/// the V-cycle reuse one buffer per level). Sizes are the caller's contract
/// (checked once at the solver boundary), the loop is the hot path.
template <typename T>
void jacobi(const CsrMatrix<T>& A, const std::vector<T>& inverse_diagonal, T weight,
            const std::vector<T>& b, std::vector<T>& x, int sweeps, std::vector<T>& scratch);

/// The same sweeps from x = 0, overwriting x: the first sweep needs no product
/// with A (x = weight·D⁻¹ b, bitwise what jacobi() gives from a zero x).
template <typename T>
void jacobi_from_zero(const CsrMatrix<T>& A, const std::vector<T>& inverse_diagonal, T weight,
                      const std::vector<T>& b, std::vector<T>& x, int sweeps,
                      std::vector<T>& scratch);

/// 1/a_ii for every row; throws InvalidInput naming the row if a diagonal is zero.
template <typename T>
std::vector<T> inverse_diagonal(const CsrMatrix<T>& A);

}  // namespace binamg
