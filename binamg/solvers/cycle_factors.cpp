#include "binamg/solvers/cycle_factors.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "binamg/core/hash.hpp"
#include "binamg/solvers/vcycle.hpp"
#include "binamg/spmv/spmv.hpp"
#include "binamg/vector/vector_ops.hpp"

namespace binamg {
namespace {

// ‖e‖_A = √(eᵀAe), in double; `Ae` is scratch.
template <typename T>
double energy_norm(const CsrMatrix<T>& A, const std::vector<T>& e, std::vector<T>& Ae) {
  spmv(A, e, Ae);
  double sum = 0;
  for (std::size_t i = 0; i < e.size(); ++i) sum += double(e[i]) * double(Ae[i]);
  return std::sqrt(std::max(sum, 0.0));
}

}  // namespace

template <typename T>
std::vector<double> vcycle_convergence_factors(const Hierarchy<T>& h, int iterations) {
  require(iterations >= 2, "vcycle_convergence_factors: iterations must be at least 2, got " +
                               std::to_string(iterations));
  std::vector<double> factors;
  for (index_t l = 0; l + 1 < h.num_levels(); ++l) {
    const CsrMatrix<T>& A = h.matrix(l);
    const std::size_t n = A.rows;
    std::vector<T> e(n), zero(n, T(0)), Ae(n);
    for (std::size_t i = 0; i < n; ++i) e[i] = T(hashed_unit_value(std::uint32_t(i)));
    double norm = energy_norm(A, e, Ae);
    double factor = 0;
    for (int k = 0; k < iterations && norm > 0; ++k) {
      // Rescaled to unit A-norm each step, so no error decays into underflow.
      for (T& value : e) value = T(double(value) / norm);
      vcycle(h, l, zero, e);  // e ← e + B(0 − A e) = E e
      norm = energy_norm(A, e, Ae);
      factor = norm;
    }
    factors.push_back(factor);
  }
  return factors;
}

template std::vector<double> vcycle_convergence_factors<float>(const Hierarchy<float>&, int);
template std::vector<double> vcycle_convergence_factors<double>(const Hierarchy<double>&, int);

}  // namespace binamg
