#include "binamg/spgemm/spgemm.hpp"

#include <algorithm>
#include <string>

namespace binamg {

template <typename T>
std::int64_t spgemm_product_count(const CsrMatrix<T>& A, const CsrMatrix<T>& B) {
  std::int64_t products = 0;
#pragma omp parallel for schedule(static) reduction(+ : products)
  for (index_t row = 0; row < A.rows; ++row)
    for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k)
      products += B.row_length(A.col_idx[k]);
  return products;
}

template <typename T>
CsrMatrix<T> spgemm(const CsrMatrix<T>& A, const CsrMatrix<T>& B) {
  require(A.cols == B.rows, "spgemm: inner dimensions differ (A is " +
                                std::to_string(A.rows) + " x " + std::to_string(A.cols) +
                                ", B is " + std::to_string(B.rows) + " x " +
                                std::to_string(B.cols) + ")");
  CsrMatrix<T> C = zero_matrix<T>(A.rows, B.cols);
  std::vector<std::int64_t> row_nnz(A.rows, 0);

  // Pass 1: distinct columns per row, with a per-thread "last row seen" marker.
#pragma omp parallel
  {
    std::vector<index_t> marker(B.cols, -1);
#pragma omp for schedule(dynamic, 64)
    for (index_t row = 0; row < A.rows; ++row) {
      std::int64_t count = 0;
      for (index_t ka = A.row_ptr[row]; ka < A.row_ptr[row + 1]; ++ka) {
        const index_t k = A.col_idx[ka];
        for (index_t kb = B.row_ptr[k]; kb < B.row_ptr[k + 1]; ++kb) {
          const index_t col = B.col_idx[kb];
          if (marker[col] != row) {
            marker[col] = row;
            ++count;
          }
        }
      }
      row_nnz[row] = count;
    }
  }
  allocate_rows(C, row_nnz, "spgemm: nnz(C)");

  // Pass 2: accumulate in a dense row, then emit the row's columns sorted.
#pragma omp parallel
  {
    std::vector<index_t> marker(B.cols, -1);
    std::vector<T> accumulator(B.cols, T(0));
#pragma omp for schedule(dynamic, 64)
    for (index_t row = 0; row < A.rows; ++row) {
      index_t* cols = C.col_idx.data() + C.row_ptr[row];
      index_t count = 0;
      for (index_t ka = A.row_ptr[row]; ka < A.row_ptr[row + 1]; ++ka) {
        const index_t k = A.col_idx[ka];
        const T a = A.values[ka];
        for (index_t kb = B.row_ptr[k]; kb < B.row_ptr[k + 1]; ++kb) {
          const index_t col = B.col_idx[kb];
          if (marker[col] != row) {
            marker[col] = row;
            accumulator[col] = a * B.values[kb];
            cols[count++] = col;
          } else {
            accumulator[col] += a * B.values[kb];
          }
        }
      }
      std::sort(cols, cols + count);
      T* values = C.values.data() + C.row_ptr[row];
      for (index_t j = 0; j < count; ++j) values[j] = accumulator[cols[j]];
    }
  }
  return C;
}

#define BINAMG_INSTANTIATE(T)                                                        \
  template std::int64_t spgemm_product_count<T>(const CsrMatrix<T>&, const CsrMatrix<T>&); \
  template CsrMatrix<T> spgemm<T>(const CsrMatrix<T>&, const CsrMatrix<T>&);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
