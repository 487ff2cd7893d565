#include "binamg/sparse/csr.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace binamg {

std::string unrepresentable_entry_message(index_t row, index_t col, const std::string& why) {
  return "convert_values: A(row " + std::to_string(row) + ", column " + std::to_string(col) +
         ") = " + why + ": the matrix cannot be rounded to float; solve it in double";
}

template <typename T>
CsrMatrix<T> zero_matrix(index_t rows, index_t cols) {
  require(rows >= 0 && cols >= 0, "matrix dimensions must be non-negative");
  CsrMatrix<T> matrix;
  matrix.rows = rows;
  matrix.cols = cols;
  matrix.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  return matrix;
}

template <typename T>
void allocate_rows(CsrMatrix<T>& matrix, const std::vector<std::int64_t>& row_nnz,
                   const std::string& what) {
  std::int64_t total = 0;
  for (index_t row = 0; row < matrix.rows; ++row) {
    total += row_nnz[row];
    matrix.row_ptr[row + 1] = checked_index(total, what);
  }
  matrix.col_idx.resize(total);
  matrix.values.resize(total);
}

template <typename T>
CsrMatrix<T> identity_matrix(index_t n) {
  CsrMatrix<T> matrix = zero_matrix<T>(n, n);
  matrix.col_idx.resize(n);
  matrix.values.assign(n, T(1));
  for (index_t i = 0; i < n; ++i) {
    matrix.row_ptr[i + 1] = i + 1;
    matrix.col_idx[i] = i;
  }
  return matrix;
}

template <typename T>
void validate(const CsrMatrix<T>& matrix, const std::string& what) {
  const std::string prefix = what + ": ";
  require(matrix.rows >= 0 && matrix.cols >= 0, prefix + "negative dimensions");
  require(matrix.row_ptr.size() == static_cast<std::size_t>(matrix.rows) + 1,
          prefix + "row_ptr has " + std::to_string(matrix.row_ptr.size()) +
              " entries, expected rows+1 = " + std::to_string(matrix.rows + 1));
  require(matrix.row_ptr.front() == 0, prefix + "row_ptr[0] is not 0");
  require(matrix.col_idx.size() == matrix.values.size(),
          prefix + "col_idx and values differ in length");
  require(static_cast<std::size_t>(matrix.row_ptr.back()) == matrix.col_idx.size(),
          prefix + "row_ptr[rows] = " + std::to_string(matrix.row_ptr.back()) +
              " but there are " + std::to_string(matrix.col_idx.size()) + " entries");
  // Messages are built only on failure: this loop visits every entry.
  auto fail = [&](index_t row, const std::string& problem) {
    throw InvalidInput(prefix + "row " + std::to_string(row) + " " + problem);
  };
  // row_ptr first, so that no entry outside [0, nnz) is ever read.
  for (index_t row = 0; row < matrix.rows; ++row)
    if (matrix.row_ptr[row] > matrix.row_ptr[row + 1]) fail(row, "has a decreasing row_ptr");
  for (index_t row = 0; row < matrix.rows; ++row) {
    const index_t begin = matrix.row_ptr[row];
    const index_t end = matrix.row_ptr[row + 1];
    for (index_t k = begin; k < end; ++k) {
      const index_t col = matrix.col_idx[k];
      if (col < 0 || col >= matrix.cols)
        fail(row, "has column index " + std::to_string(col) + " outside [0, " +
                      std::to_string(matrix.cols) + ")");
      if (k > begin && col <= matrix.col_idx[k - 1]) {
        const index_t previous = matrix.col_idx[k - 1];
        if (col == previous) fail(row, "has duplicate column index " + std::to_string(col));
        fail(row, "has unsorted column indices (" + std::to_string(previous) + " before " +
                      std::to_string(col) + ")");
      }
      if (!std::isfinite(matrix.values[k]))
        fail(row, "column " + std::to_string(col) + " holds a non-finite value (NaN or Inf)");
    }
  }
}

template <typename T>
void require_square_with_diagonal(const CsrMatrix<T>& matrix, const std::string& what) {
  require(matrix.rows > 0, what + ": the matrix is empty");
  require(matrix.rows == matrix.cols,
          what + ": the matrix is not square (" + std::to_string(matrix.rows) + " x " +
              std::to_string(matrix.cols) + ")");
  const std::vector<T> diag = diagonal(matrix);
  for (index_t row = 0; row < matrix.rows; ++row)
    if (!std::isfinite(T(1) / diag[row]))  // the message is built only on failure: a hot loop
      throw InvalidInput(what + ": row " + std::to_string(row) + " " +
                         unusable_diagonal_reason(diag[row]));
}

template <typename T>
std::string unusable_diagonal_reason(T value) {
  if (value == T(0)) return "has a zero or missing diagonal entry";
  std::ostringstream reason;
  reason << "has the diagonal entry " << std::setprecision(3) << double(value)
         << ", whose reciprocal overflows " << (sizeof(T) == 4 ? "float" : "double")
         << " (Jacobi and the prolongator smoothing divide by it): scale the matrix and the "
            "right-hand side by a power of two";
  return reason.str();
}

template <typename T>
std::vector<T> diagonal(const CsrMatrix<T>& matrix) {
  std::vector<T> diag(matrix.rows, T(0));
  for (index_t row = 0; row < matrix.rows; ++row)
    for (index_t k = matrix.row_ptr[row]; k < matrix.row_ptr[row + 1]; ++k)
      if (matrix.col_idx[k] == row) diag[row] = matrix.values[k];
  return diag;
}

template <typename T>
double max_relative_difference(const CsrMatrix<T>& a, const CsrMatrix<T>& b,
                               const std::string& what, const CsrMatrix<double>* scale) {
  require(a.rows == b.rows && a.cols == b.cols,
          what + ": shapes differ (" + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
              " vs " + std::to_string(b.rows) + " x " + std::to_string(b.cols) + ")");
  for (index_t row = 0; row < a.rows; ++row)  // messages built only on failure: hot loops
    if (a.row_ptr[row + 1] != b.row_ptr[row + 1])
      throw InvalidInput(what + ": sparsity patterns differ (row " + std::to_string(row) +
                         " has " + std::to_string(a.row_length(row)) + " vs " +
                         std::to_string(b.row_length(row)) + " entries)");
  require(scale == nullptr ||
              (scale->row_ptr == a.row_ptr && scale->col_idx == a.col_idx),
          what + ": the scale matrix does not have the pattern of the matrices compared");
  double largest = 0;
  for (index_t row = 0; row < a.rows; ++row)
    for (index_t k = a.row_ptr[row]; k < a.row_ptr[row + 1]; ++k) {
      if (a.col_idx[k] != b.col_idx[k])
        throw InvalidInput(what + ": sparsity patterns differ (row " + std::to_string(row) +
                           ", column " + std::to_string(a.col_idx[k]) + " vs " +
                           std::to_string(b.col_idx[k]) + ")");
      const double x = a.values[k], y = b.values[k];
      const double magnitude = std::max({std::abs(x), std::abs(y),
                                         scale != nullptr ? scale->values[k] : 0.0});
      if (magnitude > 0) largest = std::max(largest, std::abs(x - y) / magnitude);
    }
  return largest;
}

template <typename T>
index_t first_pattern_difference(const CsrMatrix<T>& a, const CsrMatrix<T>& b) {
  for (index_t row = 0; row < a.rows; ++row) {
    const index_t length = a.row_length(row);
    if (length != b.row_length(row) ||
        !std::equal(a.col_idx.begin() + a.row_ptr[row], a.col_idx.begin() + a.row_ptr[row + 1],
                    b.col_idx.begin() + b.row_ptr[row]))
      return row;
  }
  return -1;
}

#define BINAMG_INSTANTIATE(T)                                                      \
  template CsrMatrix<T> zero_matrix<T>(index_t, index_t);                          \
  template void allocate_rows<T>(CsrMatrix<T>&, const std::vector<std::int64_t>&,  \
                                 const std::string&);                             \
  template CsrMatrix<T> identity_matrix<T>(index_t);                               \
  template void validate<T>(const CsrMatrix<T>&, const std::string&);              \
  template void require_square_with_diagonal<T>(const CsrMatrix<T>&, const std::string&); \
  template std::string unusable_diagonal_reason<T>(T);                                     \
  template std::vector<T> diagonal<T>(const CsrMatrix<T>&);                        \
  template index_t first_pattern_difference<T>(const CsrMatrix<T>&, const CsrMatrix<T>&); \
  template double max_relative_difference<T>(const CsrMatrix<T>&, const CsrMatrix<T>&,   \
                                             const std::string&, const CsrMatrix<double>*);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
