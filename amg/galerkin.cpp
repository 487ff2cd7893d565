#include "amg/galerkin.hpp"

#include <string>

#include "spgemm/spgemm.hpp"

namespace binamg {

template <typename T>
CsrMatrix<T> galerkin_product(const CsrMatrix<T>& A, const CsrMatrix<T>& P,
                              const CsrMatrix<T>& R, GalerkinOrdering ordering) {
  require(A.rows == A.cols && P.rows == A.rows && R.cols == A.rows && R.rows == P.cols,
          "galerkin_product: shapes do not fit (A " + std::to_string(A.rows) + " x " +
              std::to_string(A.cols) + ", P " + std::to_string(P.rows) + " x " +
              std::to_string(P.cols) + ", R " + std::to_string(R.rows) + " x " +
              std::to_string(R.cols) + ")");
  if (ordering == GalerkinOrdering::ptap_left) return spgemm(spgemm(R, A), P);
  return spgemm(R, spgemm(A, P));
}

template CsrMatrix<float> galerkin_product<float>(const CsrMatrix<float>&,
                                                  const CsrMatrix<float>&,
                                                  const CsrMatrix<float>&, GalerkinOrdering);
template CsrMatrix<double> galerkin_product<double>(const CsrMatrix<double>&,
                                                    const CsrMatrix<double>&,
                                                    const CsrMatrix<double>&, GalerkinOrdering);

}  // namespace binamg
