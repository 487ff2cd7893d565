#include "binamg/sparse/add.hpp"

#include <cstdint>
#include <string>

namespace binamg {
namespace {

// Walks row `row` of A and B in column order, calling emit(col, value) once per
// column of the union; both inputs are sorted, so the output is too.
template <typename T, typename Emit>
void merge_row(T alpha, const CsrMatrix<T>& A, T beta, const CsrMatrix<T>& B, index_t row,
               Emit emit) {
  index_t a = A.row_ptr[row], a_end = A.row_ptr[row + 1];
  index_t b = B.row_ptr[row], b_end = B.row_ptr[row + 1];
  while (a < a_end || b < b_end) {
    if (b == b_end || (a < a_end && A.col_idx[a] < B.col_idx[b])) {
      emit(A.col_idx[a], alpha * A.values[a]);
      ++a;
    } else if (a == a_end || B.col_idx[b] < A.col_idx[a]) {
      emit(B.col_idx[b], beta * B.values[b]);
      ++b;
    } else {
      emit(A.col_idx[a], alpha * A.values[a] + beta * B.values[b]);
      ++a;
      ++b;
    }
  }
}

}  // namespace

template <typename T>
CsrMatrix<T> add(T alpha, const CsrMatrix<T>& A, T beta, const CsrMatrix<T>& B) {
  require(A.rows == B.rows && A.cols == B.cols,
          "add: shapes differ (" + std::to_string(A.rows) + " x " + std::to_string(A.cols) +
              " and " + std::to_string(B.rows) + " x " + std::to_string(B.cols) + ")");
  CsrMatrix<T> C = zero_matrix<T>(A.rows, A.cols);
  std::vector<std::int64_t> row_nnz(A.rows, 0);
#pragma omp parallel for schedule(static)
  for (index_t row = 0; row < A.rows; ++row) {
    index_t count = 0;
    merge_row(alpha, A, beta, B, row, [&](index_t, T) { ++count; });
    row_nnz[row] = count;
  }
  allocate_rows(C, row_nnz, "add: nnz(C)");
#pragma omp parallel for schedule(static)
  for (index_t row = 0; row < A.rows; ++row) {
    index_t k = C.row_ptr[row];
    merge_row(alpha, A, beta, B, row, [&](index_t col, T value) {
      C.col_idx[k] = col;
      C.values[k] = value;
      ++k;
    });
  }
  return C;
}

template CsrMatrix<float> add<float>(float, const CsrMatrix<float>&, float,
                                     const CsrMatrix<float>&);
template CsrMatrix<double> add<double>(double, const CsrMatrix<double>&, double,
                                       const CsrMatrix<double>&);

}  // namespace binamg
