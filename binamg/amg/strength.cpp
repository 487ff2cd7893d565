#include "binamg/amg/strength.hpp"

#include <cmath>
#include <cstdint>
#include <string>

#include "binamg/amg/strength_test.hpp"
#include "binamg/sparse/add.hpp"
#include "binamg/sparse/transpose.hpp"

namespace binamg {

template <typename T>
CsrMatrix<T> strength(const CsrMatrix<T>& A, double theta) {
  require(A.rows == A.cols, "strength: the matrix is not square (" + std::to_string(A.rows) +
                                " x " + std::to_string(A.cols) + ")");
  require(std::isfinite(theta) && theta >= 0, "strength: theta must be finite and >= 0");
  const std::vector<T> diag = diagonal(A);
  auto is_strong = [&](index_t row, index_t k) {
    const index_t col = A.col_idx[k];
    return col != row &&
           amg_detail::strong_connection(A.values[k], diag[row], diag[col], theta);
  };

  CsrMatrix<T> S = zero_matrix<T>(A.rows, A.cols);
  std::vector<index_t> row_nnz(A.rows, 0);
#pragma omp parallel for schedule(static)
  for (index_t row = 0; row < A.rows; ++row) {
    index_t count = 0;
    for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k) count += is_strong(row, k);
    row_nnz[row] = count;
  }
  for (index_t row = 0; row < A.rows; ++row) S.row_ptr[row + 1] = S.row_ptr[row] + row_nnz[row];
  S.col_idx.resize(S.row_ptr.back());
  S.values.assign(S.row_ptr.back(), T(1));
#pragma omp parallel for schedule(static)
  for (index_t row = 0; row < A.rows; ++row) {
    index_t out = S.row_ptr[row];
    for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k)
      if (is_strong(row, k)) S.col_idx[out++] = A.col_idx[k];
  }

  CsrMatrix<T> symmetric = add(T(1), S, T(1), transpose(S));
  symmetric.values.assign(symmetric.values.size(), T(1));
  return symmetric;
}

template CsrMatrix<float> strength<float>(const CsrMatrix<float>&, double);
template CsrMatrix<double> strength<double>(const CsrMatrix<double>&, double);

}  // namespace binamg
