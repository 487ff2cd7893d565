#pragma once
#include "sparse/csr.hpp"

namespace binamg {

/// Aᵀ with sorted rows (a counting sort by column: O(nnz + rows + cols)).
template <typename T>
CsrMatrix<T> transpose(const CsrMatrix<T>& A);

}  // namespace binamg
