#include "binamg/sparse/symmetry.hpp"

#include <cmath>
#include <string>

#include "binamg/core/error.hpp"
#include "binamg/sparse/transpose.hpp"

namespace binamg {

template <typename T>
std::optional<Asymmetry> find_asymmetry(const CsrMatrix<T>& A, double tolerance) {
  require(A.rows == A.cols, "find_asymmetry: the matrix is not square (" + std::to_string(A.rows) +
                                " x " + std::to_string(A.cols) + ")");
  // Row i of A and row i of Aᵀ (column i of A), both sorted, are merged: each
  // pair is found in one pass (a search per entry cost more than the coarse
  // factorisation on a coarsest matrix of a few hundred rows of about 100
  // entries; docs/experiments.md).
  const CsrMatrix<T> At = transpose(A);
  std::vector<double> diagonal(A.rows, 0.0);
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (A.col_idx[k] == i) diagonal[i] = std::abs(double(A.values[k]));
  for (index_t i = 0; i < A.rows; ++i) {
    index_t k = A.row_ptr[i], t = At.row_ptr[i];
    const index_t k_end = A.row_ptr[i + 1], t_end = At.row_ptr[i + 1];
    while (k < k_end || t < t_end) {
      // The next column of either row; the other side holds 0 there if it lacks it.
      const index_t j =
          t == t_end || (k < k_end && A.col_idx[k] < At.col_idx[t]) ? A.col_idx[k] : At.col_idx[t];
      const double value = k < k_end && A.col_idx[k] == j ? double(A.values[k++]) : 0.0;
      const double transposed = t < t_end && At.col_idx[t] == j ? double(At.values[t++]) : 0.0;
      // √|a_ii|·√|a_jj|: the product itself may overflow.
      const double scale =
          std::abs(value) + std::abs(transposed) + std::sqrt(diagonal[i]) * std::sqrt(diagonal[j]);
      if (std::abs(value - transposed) > tolerance * scale)
        return Asymmetry{i, j, value, transposed};
    }
  }
  return std::nullopt;
}

template std::optional<Asymmetry> find_asymmetry<float>(const CsrMatrix<float>&, double);
template std::optional<Asymmetry> find_asymmetry<double>(const CsrMatrix<double>&, double);

}  // namespace binamg
