#include "binamg/amg/strength.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "binamg/amg/strength_test.hpp"
#include "binamg/sparse/add.hpp"
#include "binamg/sparse/transpose.hpp"

namespace binamg {

template <typename T>
std::vector<T> strength_scales(const CsrMatrix<T>& A, StrengthMeasure measure) {
  if (measure == StrengthMeasure::symmetric) return diagonal(A);
  std::vector<T> scale(A.rows, T(0));
#pragma omp parallel for schedule(static)
  for (index_t row = 0; row < A.rows; ++row)
    for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k)
      if (A.col_idx[k] != row) scale[row] = std::max(scale[row], T(std::fabs(A.values[k])));
  if (measure == StrengthMeasure::signed_classical) {
    const std::vector<T> d = diagonal(A);
    for (index_t row = 0; row < A.rows; ++row)
      if (d[row] < 0) scale[row] = -scale[row];
  }
  return scale;
}

template <typename T>
CsrMatrix<T> strength(const CsrMatrix<T>& A, double theta, StrengthMeasure measure,
                      std::int64_t* weak) {
  require(A.rows == A.cols, "strength: the matrix is not square (" + std::to_string(A.rows) +
                                " x " + std::to_string(A.cols) + ")");
  require(std::isfinite(theta) && theta >= 0, "strength: theta must be finite and >= 0");
  const std::vector<T> scale = strength_scales(A, measure);
  auto is_strong = [&](index_t row, index_t k) {
    const index_t col = A.col_idx[k];
    return col != row &&
           amg_detail::strong_connection(A.values[k], scale[row], scale[col], theta, measure);
  };

  CsrMatrix<T> S = zero_matrix<T>(A.rows, A.cols);
  std::vector<index_t> row_nnz(A.rows, 0);
  std::int64_t weak_total = 0;  // an integer sum: any order gives it
#pragma omp parallel for schedule(static) reduction(+ : weak_total)
  for (index_t row = 0; row < A.rows; ++row) {
    index_t count = 0;
    for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k) {
      const bool strong = is_strong(row, k);
      count += strong;
      weak_total += !strong && A.col_idx[k] != row;
    }
    row_nnz[row] = count;
  }
  if (weak != nullptr) *weak = weak_total;
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

#define BINAMG_INSTANTIATE(T)                                                                     \
  template CsrMatrix<T> strength<T>(const CsrMatrix<T>&, double, StrengthMeasure, std::int64_t*); \
  template std::vector<T> strength_scales<T>(const CsrMatrix<T>&, StrengthMeasure);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
