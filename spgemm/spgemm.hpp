#pragma once
// Sparse matrix-matrix product C = A·B.
//
// Contract (CPU and GPU alike): C's rows are sorted and duplicate-free; each
// entry is the sum of its products taken in the order of A's row (so results
// are deterministic); entries whose products cancel to zero are kept.
#include <cstdint>
#include <vector>

#include "sparse/csr.hpp"

namespace binamg {

/// Number of scalar products A·B performs (flops = 2 × this).
template <typename T>
std::int64_t spgemm_product_count(const CsrMatrix<T>& A, const CsrMatrix<T>& B);

/// CPU reference: Gustavson's row-by-row algorithm with a dense accumulator,
/// rows in parallel with OpenMP, two passes (count, then fill).
/// Throws InvalidInput if the inner dimensions differ or nnz(C) passes 2^31-1.
template <typename T>
CsrMatrix<T> spgemm(const CsrMatrix<T>& A, const CsrMatrix<T>& B);

}  // namespace binamg
