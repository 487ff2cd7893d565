#pragma once
#include "binamg/sparse/csr.hpp"

namespace binamg {

/// C = alpha·A + beta·B for matrices of the same shape, by merging sorted rows:
/// O(nnz(A) + nnz(B)). C's rows are sorted and duplicate-free; its pattern is the
/// union of the two patterns (entries that cancel to zero are kept, as in spgemm).
template <typename T>
CsrMatrix<T> add(T alpha, const CsrMatrix<T>& A, T beta, const CsrMatrix<T>& B);

}  // namespace binamg
