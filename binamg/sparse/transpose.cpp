#include "binamg/sparse/transpose.hpp"

namespace binamg {

template <typename T>
CsrMatrix<T> transpose(const CsrMatrix<T>& A) {
  CsrMatrix<T> At = zero_matrix<T>(A.cols, A.rows);
  At.col_idx.resize(A.nnz());
  At.values.resize(A.nnz());
  for (index_t k = 0; k < A.nnz(); ++k) ++At.row_ptr[A.col_idx[k] + 1];
  for (index_t col = 0; col < A.cols; ++col) At.row_ptr[col + 1] += At.row_ptr[col];
  std::vector<index_t> next(At.row_ptr.begin(), At.row_ptr.end() - 1);
  // Visiting A's rows in order keeps each row of Aᵀ sorted.
  for (index_t row = 0; row < A.rows; ++row)
    for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k) {
      const index_t slot = next[A.col_idx[k]]++;
      At.col_idx[slot] = row;
      At.values[slot] = A.values[k];
    }
  return At;
}

template CsrMatrix<float> transpose<float>(const CsrMatrix<float>&);
template CsrMatrix<double> transpose<double>(const CsrMatrix<double>&);

}  // namespace binamg
