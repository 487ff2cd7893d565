#include "binamg/amg/prolongation.hpp"

#include <string>

#include "binamg/sparse/add.hpp"
#include "binamg/spgemm/spgemm.hpp"

namespace binamg {

template <typename T>
CsrMatrix<T> smoothed_prolongator(const CsrMatrix<T>& A, const CsrMatrix<T>& tentative,
                                  double omega) {
  require_square_with_diagonal(A, "smoothed_prolongator");
  require(tentative.rows == A.rows,
          "smoothed_prolongator: the tentative prolongator has " +
              std::to_string(tentative.rows) + " rows, A has " + std::to_string(A.rows));
  CsrMatrix<T> scaled = spgemm(A, tentative);
  const std::vector<T> diag = diagonal(A);
  // Row i of A·T times ω / a_ii.
#pragma omp parallel for schedule(static)
  for (index_t row = 0; row < scaled.rows; ++row) {
    const T factor = static_cast<T>(omega / double(diag[row]));
    for (index_t k = scaled.row_ptr[row]; k < scaled.row_ptr[row + 1]; ++k)
      scaled.values[k] *= factor;
  }
  return add(T(1), tentative, T(-1), scaled);
}

template CsrMatrix<float> smoothed_prolongator<float>(const CsrMatrix<float>&,
                                                      const CsrMatrix<float>&, double);
template CsrMatrix<double> smoothed_prolongator<double>(const CsrMatrix<double>&,
                                                        const CsrMatrix<double>&, double);

}  // namespace binamg
