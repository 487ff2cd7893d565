#pragma once
// Sparse matrix times dense vector(s) on the host (the reference kernels).
#include <vector>

#include "sparse/csr.hpp"

namespace binamg {

/// y = A x  (y is resized to A.rows).
template <typename T>
void spmv(const CsrMatrix<T>& A, const std::vector<T>& x, std::vector<T>& y);

/// r = b - A x  (r is resized to A.rows).
template <typename T>
void residual(const CsrMatrix<T>& A, const std::vector<T>& x, const std::vector<T>& b,
              std::vector<T>& r);

/// Y = A X for k right-hand sides stored row-major: X is A.cols×k, Y is A.rows×k,
/// entry (i, j) at [i*k + j].
template <typename T>
void spmm(const CsrMatrix<T>& A, const std::vector<T>& X, index_t k, std::vector<T>& Y);

}  // namespace binamg
