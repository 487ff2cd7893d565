#include "binamg/amg/filtered.hpp"

#include <cmath>
#include <string>

#include "binamg/amg/filtered_row.hpp"
#include "binamg/amg/strength.hpp"

namespace binamg {

template <typename T>
CsrMatrix<T> filtered_matrix(const CsrMatrix<T>& A, double theta, StrengthMeasure measure) {
  require_square_with_diagonal(A, "filtered_matrix");
  require(std::isfinite(theta) && theta >= 0, "filtered_matrix: theta must be finite and >= 0");
  const std::vector<T> diag = diagonal(A);
  const std::vector<T> scale = strength_scales(A, measure);
  CsrMatrix<T> F = zero_matrix<T>(A.rows, A.cols);
  std::vector<index_t> row_nnz(A.rows, 0);
#pragma omp parallel for schedule(static)
  for (index_t row = 0; row < A.rows; ++row) {
    index_t count = 0;
    for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k)
      count += amg_detail::kept_in_filtered(row, A.col_idx[k], A.values[k], scale.data(), theta,
                                            measure);
    row_nnz[row] = count;
  }
  for (index_t row = 0; row < A.rows; ++row) F.row_ptr[row + 1] = F.row_ptr[row] + row_nnz[row];
  F.col_idx.resize(F.row_ptr.back());
  F.values.resize(F.row_ptr.back());
#pragma omp parallel for schedule(static)
  for (index_t row = 0; row < A.rows; ++row) {
    index_t out = F.row_ptr[row];
    for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k) {
      const index_t col = A.col_idx[k];
      if (!amg_detail::kept_in_filtered(row, col, A.values[k], scale.data(), theta, measure))
        continue;
      F.col_idx[out] = col;
      F.values[out++] = col == row
                            ? amg_detail::filtered_diagonal(row, A.row_ptr.data(), A.col_idx.data(),
                                                            A.values.data(), diag.data(), scale.data(),
                                                            theta, measure)
                            : A.values[k];
    }
  }
  return F;
}

template <typename T>
std::int64_t weak_entries(const CsrMatrix<T>& A, double theta, StrengthMeasure measure) {
  require_square_with_diagonal(A, "weak_entries");
  require(std::isfinite(theta) && theta >= 0, "weak_entries: theta must be finite and >= 0");
  const std::vector<T> scale = strength_scales(A, measure);
  std::int64_t weak = 0;
#pragma omp parallel for schedule(static) reduction(+ : weak)
  for (index_t row = 0; row < A.rows; ++row)
    for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k)
      weak += !amg_detail::kept_in_filtered(row, A.col_idx[k], A.values[k], scale.data(), theta,
                                            measure);
  return weak;
}

#define BINAMG_INSTANTIATE(T)                                            \
  template CsrMatrix<T> filtered_matrix<T>(const CsrMatrix<T>&, double, StrengthMeasure); \
  template std::int64_t weak_entries<T>(const CsrMatrix<T>&, double, StrengthMeasure);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
