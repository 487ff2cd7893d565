#include "solvers/pcg.hpp"

#include <chrono>
#include <cmath>
#include <string>

#include "solvers/vcycle.hpp"
#include "sparse/spmv.hpp"
#include "sparse/vector_ops.hpp"

namespace binamg {
namespace {

// z = M⁻¹ r: one V-cycle from a zero initial guess.
template <typename T>
void precondition(const Hierarchy<T>& h, const std::vector<T>& r, std::vector<T>& z) {
  vcycle_from_zero(h, r, z);
}

void require_positive(double value, const char* what, int iteration) {
  require(std::isfinite(value), std::string("pcg: ") + what + " is not finite at iteration " +
                                    std::to_string(iteration));
  require(value > 0, std::string("pcg: breakdown, ") + what + " = " + std::to_string(value) +
                         " <= 0 at iteration " + std::to_string(iteration) +
                         " (the matrix or the V-cycle is not positive definite)");
}

}  // namespace

template <typename T>
SolveResult pcg(const Hierarchy<T>& h, const std::vector<T>& b, std::vector<T>& x,
                const SolveOptions& options) {
  validate_solve_inputs(h, b, x, options, "pcg");
  const auto start = std::chrono::steady_clock::now();
  const CsrMatrix<T>& A = h.matrix(0);
  SolveResult result;
  const double b_norm = norm2(b);
  if (b_norm == 0) {
    x.assign(x.size(), T(0));
    result.converged = true;
    result.residual_history = {0.0};
  } else {
    std::vector<T> r, z, p, q;
    residual(A, x, b, r);
    result.residual_history.push_back(norm2(r) / b_norm);
    if (result.residual_history.back() > options.tolerance && options.max_iterations > 0) {
      precondition(h, r, z);
      p = z;
      double rz = dot(r, z);
      require_positive(rz, "r'z", 0);
      while (true) {
        spmv(A, p, q);
        const double pq = dot(p, q);
        require_positive(pq, "p'Ap", result.iterations + 1);
        const T alpha = static_cast<T>(rz / pq);
        axpy(alpha, p, x);
        axpy(-alpha, q, r);
        ++result.iterations;
        const double relative = norm2(r) / b_norm;
        require(std::isfinite(relative), "pcg: the residual became non-finite at iteration " +
                                             std::to_string(result.iterations));
        result.residual_history.push_back(relative);
        if (relative <= options.tolerance || result.iterations >= options.max_iterations) break;
        precondition(h, r, z);
        const double rz_next = dot(r, z);
        require_positive(rz_next, "r'z", result.iterations);
        xpby(z, static_cast<T>(rz_next / rz), p);  // p = z + β p
        rz = rz_next;
      }
    }
    result.converged = result.residual_history.back() <= options.tolerance;
    residual(A, x, b, r);
    result.relative_residual = norm2(r) / b_norm;
  }
  result.solve_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

template SolveResult pcg<float>(const Hierarchy<float>&, const std::vector<float>&,
                                std::vector<float>&, const SolveOptions&);
template SolveResult pcg<double>(const Hierarchy<double>&, const std::vector<double>&,
                                 std::vector<double>&, const SolveOptions&);

}  // namespace binamg
