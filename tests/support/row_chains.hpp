#pragma once
// The CPU's exact model of the GPU kernels that sum a row as one chain of
// fused multiply-adds in the row's order (row-split SpMM, planned SpMM).
#include <cmath>
#include <vector>

#include "binamg/sparse/csr.hpp"

namespace binamg::testing {

/// Y(i, j) = fma(a_last, x, ... fma(a_first, x, +0)) over row i in its order,
/// for X row-major cols × k (exactly rounded, so a GPU that sums the same
/// chain must give these bits).
template <typename T>
std::vector<T> fma_in_row_order(const CsrMatrix<T>& A, const std::vector<T>& X, index_t k) {
  std::vector<T> Y(std::size_t(A.rows) * k);
  for (index_t row = 0; row < A.rows; ++row)
    for (index_t j = 0; j < k; ++j) {
      T sum = 0;
      for (index_t e = A.row_ptr[row]; e < A.row_ptr[row + 1]; ++e)
        sum = std::fma(A.values[e], X[std::size_t(A.col_idx[e]) * k + j], sum);
      Y[std::size_t(row) * k + j] = sum;
    }
  return Y;
}

}  // namespace binamg::testing
