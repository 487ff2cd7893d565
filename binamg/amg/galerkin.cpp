#include "binamg/amg/galerkin.hpp"

#include <cmath>
#include <string>

#include "binamg/spgemm/spgemm.hpp"

namespace binamg {
namespace {

template <typename T>
void require_galerkin_shapes(const CsrMatrix<T>& A, const CsrMatrix<T>& P,
                             const CsrMatrix<T>& R, const char* what) {
  require(A.rows == A.cols && P.rows == A.rows && R.cols == A.rows && R.rows == P.cols,
          std::string(what) + ": shapes do not fit (A " + std::to_string(A.rows) + " x " +
              std::to_string(A.cols) + ", P " + std::to_string(P.rows) + " x " +
              std::to_string(P.cols) + ", R " + std::to_string(R.rows) + " x " +
              std::to_string(R.cols) + ")");
}

}  // namespace

template <typename T>
CsrMatrix<T> galerkin_product(const CsrMatrix<T>& A, const CsrMatrix<T>& P,
                              const CsrMatrix<T>& R, GalerkinOrdering ordering) {
  require_galerkin_shapes(A, P, R, "galerkin_product");
  if (ordering == GalerkinOrdering::ptap_left) return spgemm(spgemm(R, A), P);
  return spgemm(R, spgemm(A, P));
}

template <typename T>
CsrMatrix<double> galerkin_magnitude(const CsrMatrix<T>& A, const CsrMatrix<T>& P,
                                     const CsrMatrix<T>& R) {
  require_galerkin_shapes(A, P, R, "galerkin_magnitude");
  auto magnitude = [](const CsrMatrix<T>& M) {
    CsrMatrix<double> result = convert_values<double>(M);
    for (double& v : result.values) v = std::abs(v);
    return result;
  };
  return galerkin_product(magnitude(A), magnitude(P), magnitude(R), GalerkinOrdering::ptap_right);
}

template <typename T>
GalerkinCost galerkin_cost(const CsrMatrix<T>& A, const CsrMatrix<T>& P, const CsrMatrix<T>& R,
                           GalerkinOrdering ordering) {
  require_galerkin_shapes(A, P, R, "galerkin_cost");
  // The same two products galerkin_product forms, in the same order.
  const bool left = ordering == GalerkinOrdering::ptap_left;
  const CsrMatrix<T>& first_a = left ? R : A;
  const CsrMatrix<T>& first_b = left ? A : P;
  const CsrMatrix<T> intermediate = spgemm(first_a, first_b);
  const CsrMatrix<T>& second_a = left ? intermediate : R;
  const CsrMatrix<T>& second_b = left ? P : intermediate;
  GalerkinCost cost;
  cost.first_products = spgemm_product_count(first_a, first_b);
  cost.second_products = spgemm_product_count(second_a, second_b);
  cost.intermediate_nnz = intermediate.nnz();
  cost.coarse_nnz = spgemm(second_a, second_b).nnz();
  return cost;
}

#define BINAMG_INSTANTIATE(T)                                                                \
  template CsrMatrix<T> galerkin_product<T>(const CsrMatrix<T>&, const CsrMatrix<T>&,        \
                                            const CsrMatrix<T>&, GalerkinOrdering);          \
  template CsrMatrix<double> galerkin_magnitude<T>(const CsrMatrix<T>&, const CsrMatrix<T>&, \
                                                   const CsrMatrix<T>&);                      \
  template GalerkinCost galerkin_cost<T>(const CsrMatrix<T>&, const CsrMatrix<T>&,           \
                                         const CsrMatrix<T>&, GalerkinOrdering);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
