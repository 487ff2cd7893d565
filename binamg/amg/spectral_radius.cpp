#include "binamg/amg/spectral_radius.hpp"

#include <cmath>
#include <cstdint>
#include <utility>

#include "binamg/core/hash.hpp"
#include "binamg/vector/vector_ops.hpp"

namespace binamg {

template <typename T>
double spectral_radius_dinv_a(const CsrMatrix<T>& A, int iterations) {
  require(iterations >= 1, "spectral_radius_dinv_a: iterations must be >= 1");
  require_square_with_diagonal(A, "spectral_radius_dinv_a");
  const index_t n = A.rows;
  const std::vector<T> diag = diagonal(A);
  // The start vector is part of the estimate's definition: hashed values of
  // both signs, so that it overlaps the oscillatory top eigenvectors (a positive
  // vector barely does on Poisson-like matrices); the GPU computes the same one.
  std::vector<double> x(n), y(n);
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < n; ++i) x[i] = hashed_unit_value(static_cast<std::uint32_t>(i));
  // y = D⁻¹A x̂ with x̂ = x/‖x‖ (x̂ = x at the start): the unit vector's
  // factor is applied to each row's sum, so the products are a plain SpMV's.
  double x_norm = norm2(x);
  double scale = 1.0;
  double estimate = 0;
  for (int step = 0; step < iterations; ++step) {
#pragma omp parallel for schedule(static)
    for (index_t row = 0; row < n; ++row) {
      double sum = 0;
      for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k)
        sum += double(A.values[k]) * x[A.col_idx[k]];
      y[row] = sum * scale / double(diag[row]);
    }
    const double y_norm = norm2(y);
    estimate = y_norm / (step == 0 ? x_norm : 1.0);
    if (y_norm == 0) break;  // x in the nullspace: no better estimate to be had
    scale = 1.0 / y_norm;
    std::swap(x, y);
  }
  return estimate;
}

template double spectral_radius_dinv_a<float>(const CsrMatrix<float>&, int);
template double spectral_radius_dinv_a<double>(const CsrMatrix<double>&, int);

}  // namespace binamg
