#pragma once
// Seeded random CSR matrices and dense helpers shared by the tests.
#include <cstdint>
#include <vector>

#include "binamg/sparse/csr.hpp"

namespace binamg::testing {

struct RandomMatrixShape {
  index_t rows = 0;
  index_t cols = 0;
  double mean_row_length = 4;  // Poisson-like spread around this
  double empty_row_fraction = 0;
  index_t dense_rows = 0;      // rows filled completely (first rows)
  bool power_law = false;      // row lengths from a heavy-tailed distribution
};

/// A valid CSR matrix (sorted, duplicate-free) with values in [-1, 1].
template <typename T>
CsrMatrix<T> random_matrix(const RandomMatrixShape& shape, std::uint64_t seed);

/// Row-major dense copy.
template <typename T>
std::vector<double> to_dense(const CsrMatrix<T>& A);

/// Dense product of row-major matrices (rows×inner)·(inner×cols), in double.
std::vector<double> dense_multiply(const std::vector<double>& A, const std::vector<double>& B,
                                   index_t rows, index_t inner, index_t cols);

/// Column j of a row-major block with k columns (entry (i, j) at [i·k + j]).
template <typename T>
std::vector<T> column_of(const std::vector<T>& block, index_t k, index_t j) {
  std::vector<T> column(block.size() / k);
  for (std::size_t i = 0; i < column.size(); ++i) column[i] = block[i * k + j];
  return column;
}

/// Seeded vector with entries in [-1, 1].
template <typename T>
std::vector<T> random_vector(std::size_t n, std::uint64_t seed);

}  // namespace binamg::testing
