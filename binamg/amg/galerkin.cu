// GPU twin of the Galerkin product.
#include <string>

#include "binamg/amg/galerkin.hpp"
#include "binamg/spgemm/spgemm.hpp"

namespace binamg {

template <typename T>
DeviceCsr<T> galerkin_product(const DeviceCsr<T>& A, const DeviceCsr<T>& P,
                              const DeviceCsr<T>& R, GalerkinOrdering ordering,
                              cudaStream_t stream) {
  require(A.rows == A.cols && P.rows == A.rows && R.cols == A.rows && R.rows == P.cols,
          "galerkin_product: shapes do not fit (A " + std::to_string(A.rows) + " x " +
              std::to_string(A.cols) + ", P " + std::to_string(P.rows) + " x " +
              std::to_string(P.cols) + ", R " + std::to_string(R.rows) + " x " +
              std::to_string(R.cols) + ")");
  if (ordering == GalerkinOrdering::ptap_left)
    return spgemm(spgemm(R, A, stream), P, stream);
  return spgemm(R, A, P, stream);
}

template DeviceCsr<float> galerkin_product<float>(const DeviceCsr<float>&,
                                                  const DeviceCsr<float>&,
                                                  const DeviceCsr<float>&, GalerkinOrdering,
                                                  cudaStream_t);
template DeviceCsr<double> galerkin_product<double>(const DeviceCsr<double>&,
                                                    const DeviceCsr<double>&,
                                                    const DeviceCsr<double>&, GalerkinOrdering,
                                                    cudaStream_t);

}  // namespace binamg
