#include "binamg/smoothers/jacobi.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "binamg/smoothers/l1_diagonal.hpp"
#include "binamg/sparse/csr.hpp"
#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmv.hpp"

namespace binamg {

template <typename T>
void jacobi(const CsrMatrix<T>& A, const std::vector<T>& inverse_diagonal, T weight,
            const std::vector<T>& b, std::vector<T>& x, int sweeps, std::vector<T>& scratch) {
  jacobi(A, inverse_diagonal, weight, b, x, 1, sweeps, scratch);
}

template <typename T>
void jacobi_from_zero(const CsrMatrix<T>& A, const std::vector<T>& inverse_diagonal, T weight,
                      const std::vector<T>& b, std::vector<T>& x, int sweeps,
                      std::vector<T>& scratch) {
  jacobi_from_zero(A, inverse_diagonal, weight, b, x, 1, sweeps, scratch);
}

template <typename T>
void jacobi(const CsrMatrix<T>& A, const std::vector<T>& inverse_diagonal, T weight,
            const std::vector<T>& b, std::vector<T>& x, index_t k, int sweeps,
            std::vector<T>& scratch) {
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    residual(A, x, b, k, scratch);
#pragma omp parallel for schedule(static)
    for (index_t row = 0; row < A.rows; ++row)
      for (index_t j = 0; j < k; ++j) {
        const std::size_t e = static_cast<std::size_t>(row) * k + j;
        x[e] += weight * inverse_diagonal[row] * scratch[e];
      }
  }
}

template <typename T>
void jacobi_from_zero(const CsrMatrix<T>& A, const std::vector<T>& inverse_diagonal, T weight,
                      const std::vector<T>& b, std::vector<T>& x, index_t k, int sweeps,
                      std::vector<T>& scratch) {
  x.resize(static_cast<std::size_t>(A.rows) * k);
  if (sweeps == 0) {
    std::fill(x.begin(), x.end(), T(0));
    return;
  }
#pragma omp parallel for schedule(static)
  for (index_t row = 0; row < A.rows; ++row)
    for (index_t j = 0; j < k; ++j) {
      const std::size_t e = static_cast<std::size_t>(row) * k + j;
      x[e] = weight * inverse_diagonal[row] * b[e];
    }
  jacobi(A, inverse_diagonal, weight, b, x, k, sweeps - 1, scratch);
}

template <typename T>
std::vector<T> inverse_diagonal(const CsrMatrix<T>& A) {
  std::vector<T> inverse = diagonal(A);
  for (index_t row = 0; row < A.rows; ++row) {
    const T value = inverse[row];
    inverse[row] = T(1) / value;
    if (!std::isfinite(inverse[row]))
      throw InvalidInput("inverse_diagonal: row " + std::to_string(row) + " " +
                         unusable_diagonal_reason(value));
  }
  return inverse;
}

template <typename T>
std::vector<T> inverse_l1_diagonal(const CsrMatrix<T>& A) {
  std::vector<T> inverse(A.rows);
  for (index_t row = 0; row < A.rows; ++row) {
    const T sum =
        smoother_detail::l1_diagonal(row, A.row_ptr.data(), A.col_idx.data(), A.values.data());
    inverse[row] = T(1) / sum;
    if (!std::isfinite(inverse[row]) || !std::isfinite(sum))
      throw InvalidInput("inverse_l1_diagonal: row " + std::to_string(row) +
                         smoother_detail::l1_diagonal_problem);
  }
  return inverse;
}

#define BINAMG_INSTANTIATE(T)                                                                      \
  template void jacobi<T>(const CsrMatrix<T>&, const std::vector<T>&, T, const std::vector<T>&,    \
                          std::vector<T>&, int, std::vector<T>&);                                  \
  template void jacobi_from_zero<T>(const CsrMatrix<T>&, const std::vector<T>&, T,                 \
                                    const std::vector<T>&, std::vector<T>&, int, std::vector<T>&); \
  template void jacobi<T>(const CsrMatrix<T>&, const std::vector<T>&, T, const std::vector<T>&,    \
                          std::vector<T>&, index_t, int, std::vector<T>&);                         \
  template void jacobi_from_zero<T>(const CsrMatrix<T>&, const std::vector<T>&, T,                 \
                                    const std::vector<T>&, std::vector<T>&, index_t, int,          \
                                    std::vector<T>&);                                              \
  template std::vector<T> inverse_diagonal<T>(const CsrMatrix<T>&);                                \
  template std::vector<T> inverse_l1_diagonal<T>(const CsrMatrix<T>&);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
