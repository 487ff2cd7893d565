#include "support/random_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace binamg::testing {

template <typename T>
CsrMatrix<T> random_matrix(const RandomMatrixShape& shape, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::poisson_distribution<int> length(shape.mean_row_length);
  std::uniform_int_distribution<index_t> column(0, std::max<index_t>(shape.cols - 1, 0));

  CsrMatrix<T> A = zero_matrix<T>(shape.rows, shape.cols);
  std::vector<index_t> cols;
  for (index_t row = 0; row < shape.rows; ++row) {
    index_t wanted;
    if (row < shape.dense_rows) {
      wanted = shape.cols;
    } else if (unit(engine) < shape.empty_row_fraction) {
      wanted = 0;
    } else if (shape.power_law) {
      // Pareto-like: most rows short, a few very long.
      const double u = std::max(unit(engine), 1e-6);
      wanted = static_cast<index_t>(shape.mean_row_length * 0.5 / std::pow(u, 0.7));
    } else {
      wanted = length(engine);
    }
    wanted = std::min(wanted, shape.cols);
    cols.clear();
    if (wanted == shape.cols) {
      for (index_t c = 0; c < shape.cols; ++c) cols.push_back(c);
    } else {
      while (static_cast<index_t>(cols.size()) < wanted) {
        cols.push_back(column(engine));
        std::sort(cols.begin(), cols.end());
        cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
      }
    }
    for (index_t c : cols) {
      A.col_idx.push_back(c);
      A.values.push_back(static_cast<T>(value(engine)));
    }
    A.row_ptr[row + 1] = A.nnz();
  }
  return A;
}

template <typename T>
std::vector<double> to_dense(const CsrMatrix<T>& A) {
  std::vector<double> dense(static_cast<std::size_t>(A.rows) * A.cols, 0.0);
  for (index_t row = 0; row < A.rows; ++row)
    for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k)
      dense[static_cast<std::size_t>(row) * A.cols + A.col_idx[k]] += A.values[k];
  return dense;
}

std::vector<double> dense_multiply(const std::vector<double>& A, const std::vector<double>& B,
                                   index_t rows, index_t inner, index_t cols) {
  std::vector<double> C(static_cast<std::size_t>(rows) * cols, 0.0);
  for (index_t i = 0; i < rows; ++i)
    for (index_t k = 0; k < inner; ++k) {
      const double a = A[static_cast<std::size_t>(i) * inner + k];
      if (a == 0.0) continue;
      for (index_t j = 0; j < cols; ++j)
        C[static_cast<std::size_t>(i) * cols + j] += a * B[static_cast<std::size_t>(k) * cols + j];
    }
  return C;
}

template <typename T>
std::vector<T> random_vector(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<T> x(n);
  for (auto& entry : x) entry = static_cast<T>(value(engine));
  return x;
}

template CsrMatrix<float> random_matrix<float>(const RandomMatrixShape&, std::uint64_t);
template CsrMatrix<double> random_matrix<double>(const RandomMatrixShape&, std::uint64_t);
template std::vector<double> to_dense<float>(const CsrMatrix<float>&);
template std::vector<double> to_dense<double>(const CsrMatrix<double>&);
template std::vector<float> random_vector<float>(std::size_t, std::uint64_t);
template std::vector<double> random_vector<double>(std::size_t, std::uint64_t);

}  // namespace binamg::testing
