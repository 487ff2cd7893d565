#include "binamg/solvers/pcg.hpp"

#include <chrono>
#include <cmath>
#include <string>

#include "binamg/solvers/vcycle.hpp"
#include "binamg/vector/block_vector_ops.hpp"
#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmv.hpp"

namespace binamg {
namespace {

// "" for a single right-hand side, " (right-hand side j)" in a block.
std::string column_name(index_t k, index_t j) {
  return k == 1 ? "" : " (right-hand side " + std::to_string(j) + ")";
}

void require_positive(double value, const char* what, int iteration, const std::string& column) {
  require(std::isfinite(value), std::string("pcg: ") + what + " is not finite at iteration " +
                                    std::to_string(iteration) + column);
  require(value > 0, std::string("pcg: breakdown, ") + what + " = " + std::to_string(value) +
                         " <= 0 at iteration " + std::to_string(iteration) + column +
                         " (the matrix or the V-cycle is not positive definite)");
}

template <typename T>
void validate_block_inputs(const Hierarchy<T>& h, const std::vector<T>& b,
                           const std::vector<T>& x, index_t k, const SolveOptions& options) {
  if (k == 1) return validate_solve_inputs(h, b, x, options, "pcg");
  require(k > 0, "pcg: the number of right-hand sides k = " + std::to_string(k) +
                     " must be positive");
  const std::size_t rows = h.matrix(0).rows;
  const std::size_t entries = rows * k;
  require(b.size() == entries, "pcg: b has " + std::to_string(b.size()) +
                                   " entries, expected rows x k = " + std::to_string(entries));
  require(x.size() == entries, "pcg: x has " + std::to_string(x.size()) +
                                   " entries, expected rows x k = " + std::to_string(entries));
  for (std::size_t e = 0; e < entries; ++e) {
    const std::string where = "[" + std::to_string(e / k) + ", " + std::to_string(e % k) + "]";
    if (!std::isfinite(b[e])) throw InvalidInput("pcg: b" + where + " is not finite");
    if (!std::isfinite(x[e])) throw InvalidInput("pcg: x" + where + " is not finite");
  }
  require(std::isfinite(options.tolerance) && options.tolerance >= 0,
          "pcg: tolerance must be finite and >= 0");
  require(options.max_iterations >= 0, "pcg: max_iterations must be >= 0");
}

}  // namespace

template <typename T>
BlockSolveResult pcg(const Hierarchy<T>& h, const std::vector<T>& b, std::vector<T>& x,
                     index_t k, const SolveOptions& options) {
  validate_block_inputs(h, b, x, k, options);
  const auto start = std::chrono::steady_clock::now();
  const CsrMatrix<T>& A = h.matrix(0);
  const std::size_t rows = A.rows;
  BlockSolveResult result;
  result.columns.resize(k);
  // Per column, the scalars of pcg() for that column alone, in the same precision.
  std::vector<double> b_norm(k);
  std::vector<T> alpha(k, T(0)), beta(k, T(0));
  std::vector<bool> active(k, false);
  auto relative = [&](T squared_norm, index_t j) {
    return static_cast<double>(std::sqrt(squared_norm)) / b_norm[j];
  };

  std::vector<T> r, z, p, q;
  residual(A, x, b, k, r);
  const std::vector<T> bb = column_dots(b, b, k), rr0 = column_dots(r, r, k);
  bool any_active = false;
  for (index_t j = 0; j < k; ++j) {
    b_norm[j] = static_cast<double>(std::sqrt(bb[j]));
    SolveResult& column = result.columns[j];
    if (b_norm[j] == 0) {  // x = 0 solves it exactly
      for (std::size_t i = 0; i < rows; ++i) x[i * k + j] = T(0);
      column.converged = true;
      column.residual_history = {0.0};
      continue;
    }
    column.residual_history.push_back(relative(rr0[j], j));
    active[j] = column.residual_history.back() > options.tolerance && options.max_iterations > 0;
    any_active = any_active || active[j];
  }

  if (any_active) {
    CycleWorkspace<T> block_work;  // a single right-hand side uses the hierarchy's own
    if (k > 1) block_work = cycle_workspace(h, k);
    CycleWorkspace<T>& work = k == 1 ? h.workspace : block_work;
    vcycle_from_zero(h, r, z, k, work);
    p = z;
    std::vector<T> rz = column_dots(r, z, k);
    for (index_t j = 0; j < k; ++j)
      if (active[j]) require_positive(rz[j], "r'z", 0, column_name(k, j));
    while (true) {
      spmm(A, p, k, q);
      const std::vector<T> pq = column_dots(p, q, k);
      for (index_t j = 0; j < k; ++j) {
        alpha[j] = T(0);  // frozen columns keep x and r
        if (!active[j]) continue;
        require_positive(pq[j], "p'Ap", result.columns[j].iterations + 1, column_name(k, j));
        alpha[j] = static_cast<T>(double(rz[j]) / double(pq[j]));
      }
      column_axpy(alpha, p, x, k);
      for (T& a : alpha) a = -a;
      column_axpy(alpha, q, r, k);
      const std::vector<T> rr = column_dots(r, r, k);
      any_active = false;
      for (index_t j = 0; j < k; ++j) {
        if (!active[j]) continue;
        SolveResult& column = result.columns[j];
        ++column.iterations;
        const double rel = relative(rr[j], j);
        require(std::isfinite(rel), "pcg: the residual became non-finite at iteration " +
                                        std::to_string(column.iterations) + column_name(k, j));
        column.residual_history.push_back(rel);
        active[j] = rel > options.tolerance && column.iterations < options.max_iterations;
        any_active = any_active || active[j];
      }
      if (!any_active) break;
      vcycle_from_zero(h, r, z, k, work);
      const std::vector<T> rz_next = column_dots(r, z, k);
      for (index_t j = 0; j < k; ++j) {
        beta[j] = T(0);
        if (!active[j]) continue;
        require_positive(rz_next[j], "r'z", result.columns[j].iterations, column_name(k, j));
        beta[j] = static_cast<T>(double(rz_next[j]) / double(rz[j]));
      }
      column_xpby(z, beta, p, k);  // p = z + β p (frozen columns' p is never read again)
      rz = rz_next;
    }
  }

  residual(A, x, b, k, r);
  const std::vector<T> rr = column_dots(r, r, k);
  for (index_t j = 0; j < k; ++j) {
    SolveResult& column = result.columns[j];
    if (b_norm[j] == 0) continue;
    column.converged = column.residual_history.back() <= options.tolerance;
    column.relative_residual = relative(rr[j], j);
  }
  result.solve_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  for (SolveResult& column : result.columns) column.solve_ms = result.solve_ms;
  return result;
}

template <typename T>
SolveResult pcg(const Hierarchy<T>& h, const std::vector<T>& b, std::vector<T>& x,
                const SolveOptions& options) {
  return pcg(h, b, x, 1, options).columns[0];
}

#define BINAMG_INSTANTIATE(T)                                                                \
  template SolveResult pcg<T>(const Hierarchy<T>&, const std::vector<T>&, std::vector<T>&,   \
                              const SolveOptions&);                                          \
  template BlockSolveResult pcg<T>(const Hierarchy<T>&, const std::vector<T>&,               \
                                   std::vector<T>&, index_t, const SolveOptions&);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
