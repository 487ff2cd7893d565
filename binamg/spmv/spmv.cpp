#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmv.hpp"

#include <string>

namespace binamg {

template <typename T>
void spmv(const CsrMatrix<T>& A, const std::vector<T>& x, std::vector<T>& y) {
  require(x.size() == static_cast<std::size_t>(A.cols),
          "spmv: x has " + std::to_string(x.size()) + " entries, A has " +
              std::to_string(A.cols) + " columns");
  y.resize(A.rows);
#pragma omp parallel for schedule(static)
  for (index_t row = 0; row < A.rows; ++row) {
    T sum = T(0);
    for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k)
      sum += A.values[k] * x[A.col_idx[k]];
    y[row] = sum;
  }
}

template <typename T>
void residual(const CsrMatrix<T>& A, const std::vector<T>& x, const std::vector<T>& b,
              std::vector<T>& r) {
  residual(A, x, b, 1, r);
}

template <typename T>
void residual(const CsrMatrix<T>& A, const std::vector<T>& X, const std::vector<T>& B, index_t k,
              std::vector<T>& R) {
  require(k > 0, "residual: the number of right-hand sides must be positive");
  require(X.size() == static_cast<std::size_t>(A.cols) * k &&
              B.size() == static_cast<std::size_t>(A.rows) * k,
          "residual: vector lengths do not match the matrix");
  R.resize(static_cast<std::size_t>(A.rows) * k);
#pragma omp parallel for schedule(static)
  for (index_t row = 0; row < A.rows; ++row)
    for (index_t j = 0; j < k; ++j) {
      T sum = T(0);
      for (index_t e = A.row_ptr[row]; e < A.row_ptr[row + 1]; ++e)
        sum += A.values[e] * X[static_cast<std::size_t>(A.col_idx[e]) * k + j];
      R[static_cast<std::size_t>(row) * k + j] = B[static_cast<std::size_t>(row) * k + j] - sum;
    }
}

template <typename T>
void spmm(const CsrMatrix<T>& A, const std::vector<T>& X, index_t k, std::vector<T>& Y) {
  require(k > 0, "spmm: the number of right-hand sides must be positive");
  require(X.size() == static_cast<std::size_t>(A.cols) * k,
          "spmm: X is not A.cols x k (row-major)");
  Y.assign(static_cast<std::size_t>(A.rows) * k, T(0));
#pragma omp parallel for schedule(static)
  for (index_t row = 0; row < A.rows; ++row) {
    T* y = Y.data() + static_cast<std::size_t>(row) * k;
    for (index_t e = A.row_ptr[row]; e < A.row_ptr[row + 1]; ++e) {
      const T a = A.values[e];
      const T* x = X.data() + static_cast<std::size_t>(A.col_idx[e]) * k;
      for (index_t j = 0; j < k; ++j) y[j] += a * x[j];
    }
  }
}

#define BINAMG_INSTANTIATE(T)                                                          \
  template void spmv<T>(const CsrMatrix<T>&, const std::vector<T>&, std::vector<T>&);  \
  template void residual<T>(const CsrMatrix<T>&, const std::vector<T>&,                \
                            const std::vector<T>&, std::vector<T>&);                   \
  template void residual<T>(const CsrMatrix<T>&, const std::vector<T>&,                \
                            const std::vector<T>&, index_t, std::vector<T>&);          \
  template void spmm<T>(const CsrMatrix<T>&, const std::vector<T>&, index_t, std::vector<T>&);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
