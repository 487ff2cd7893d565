#include "binamg/smoothers/chebyshev.hpp"

#include <cmath>
#include <string>

#include "binamg/core/error.hpp"
#include "binamg/spmv/spmm.hpp"

namespace binamg {

ChebyshevSteps chebyshev_steps(double spectral_radius, int degree, double lower_fraction) {
  require(degree >= 1 && degree <= ChebyshevSteps::max_degree,
          "chebyshev: the degree must lie in [1, " + std::to_string(ChebyshevSteps::max_degree) +
              "], got " + std::to_string(degree));
  require(std::isfinite(spectral_radius) && spectral_radius > 0,
          "chebyshev: the spectral radius estimate must be finite and positive");
  require(lower_fraction > 0 && lower_fraction < 1,
          "chebyshev: the interval's lower end must be a fraction in (0, 1) of its upper end");
  const double upper = 1.1 * spectral_radius, lower = lower_fraction * upper;
  // Saad, Iterative Methods for Sparse Linear Systems, Algorithm 12.1, with
  // the preconditioner D⁻¹.
  const double theta = (upper + lower) / 2, delta = (upper - lower) / 2, sigma = theta / delta;
  ChebyshevSteps steps;
  steps.degree = degree;
  steps.alpha[0] = 0;
  steps.beta[0] = 1 / theta;
  double rho = 1 / sigma;
  for (int i = 1; i < degree; ++i) {
    const double next = 1 / (2 * sigma - rho);
    steps.alpha[i] = next * rho;
    steps.beta[i] = 2 * next / delta;
    rho = next;
  }
  return steps;
}

template <typename T>
void chebyshev(const CsrMatrix<T>& A, const std::vector<T>& inverse_diagonal,
               const ChebyshevSteps& steps, const std::vector<T>& b, std::vector<T>& x, index_t k,
               bool zero_guess, std::vector<T>& residual_scratch, std::vector<T>& direction) {
  const std::size_t entries = static_cast<std::size_t>(A.rows) * k;
  x.resize(entries);
  direction.resize(entries);
  for (int i = 0; i < steps.degree; ++i) {
    const bool from_zero = zero_guess && i == 0;
    // From zero the residual is b itself.
    if (!from_zero) residual(A, x, b, k, residual_scratch);
    const std::vector<T>& r = from_zero ? b : residual_scratch;
    const T alpha = static_cast<T>(steps.alpha[i]), beta = static_cast<T>(steps.beta[i]);
#pragma omp parallel for schedule(static)
    for (index_t row = 0; row < A.rows; ++row)
      for (index_t j = 0; j < k; ++j) {
        const std::size_t e = static_cast<std::size_t>(row) * k + j;
        const T step = beta * inverse_diagonal[row] * r[e];
        direction[e] = i == 0 ? step : alpha * direction[e] + step;
        x[e] = from_zero ? direction[e] : x[e] + direction[e];
      }
  }
}

#define BINAMG_INSTANTIATE(T)                                                                   \
  template void chebyshev<T>(const CsrMatrix<T>&, const std::vector<T>&, const ChebyshevSteps&, \
                             const std::vector<T>&, std::vector<T>&, index_t, bool,             \
                             std::vector<T>&, std::vector<T>&);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
