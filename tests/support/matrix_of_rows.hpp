#pragma once
// A small square test matrix written out row by row.
#include <utility>
#include <vector>

#include "binamg/sparse/csr.hpp"

namespace binamg::testing {

/// The n × n matrix (n = rows.size()) whose row i holds the (column, value)
/// pairs of rows[i], in that order. Throws InvalidInput if it is not a valid CSR matrix.
template <typename T>
CsrMatrix<T> matrix_of_rows(const std::vector<std::vector<std::pair<index_t, double>>>& rows) {
  const auto n = static_cast<index_t>(rows.size());
  CsrMatrix<T> A = zero_matrix<T>(n, n);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (auto [col, value] : rows[i]) {
      A.col_idx.push_back(col);
      A.values.push_back(static_cast<T>(value));
    }
    A.row_ptr[i + 1] = A.nnz();
  }
  validate(A, "matrix_of_rows");
  return A;
}

}  // namespace binamg::testing
