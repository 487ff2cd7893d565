#include "amg/spectral_radius.hpp"

#include <cmath>
#include <cstdint>
#include <random>

#include "sparse/vector_ops.hpp"

namespace binamg {

template <typename T>
double spectral_radius_dinv_a(const CsrMatrix<T>& A, int iterations) {
  require(iterations >= 1, "spectral_radius_dinv_a: iterations must be >= 1");
  require_square_with_diagonal(A, "spectral_radius_dinv_a");
  const index_t n = A.rows;
  const std::vector<T> diag = diagonal(A);
  // Fixed seed: the start vector is part of the estimate's definition. Positive
  // entries in [0.5, 1.5) overlap every eigenvector of a Poisson-like matrix.
  std::mt19937_64 engine(20240601);
  std::uniform_real_distribution<double> entry(0.5, 1.5);
  std::vector<double> x(n), y(n);
  for (double& v : x) v = entry(engine);
  double x_norm = norm2(x);
  double estimate = 0;
  for (int step = 0; step < iterations; ++step) {
#pragma omp parallel for schedule(static)
    for (index_t row = 0; row < n; ++row) {
      double sum = 0;
      for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k)
        sum += double(A.values[k]) * x[A.col_idx[k]];
      y[row] = sum / double(diag[row]);
    }
    const double y_norm = norm2(y);
    estimate = y_norm / x_norm;
    if (y_norm == 0) break;  // x in the nullspace: no better estimate to be had
    const double scale = 1.0 / y_norm;
#pragma omp parallel for schedule(static)
    for (index_t row = 0; row < n; ++row) x[row] = y[row] * scale;
    x_norm = 1.0;
  }
  return estimate;
}

template double spectral_radius_dinv_a<float>(const CsrMatrix<float>&, int);
template double spectral_radius_dinv_a<double>(const CsrMatrix<double>&, int);

}  // namespace binamg
