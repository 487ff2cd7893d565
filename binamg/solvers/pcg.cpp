#include "binamg/solvers/pcg.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "binamg/solvers/monitor.hpp"
#include "binamg/solvers/rhs_scaling.hpp"
#include "binamg/solvers/solve_steps.hpp"
#include "binamg/solvers/vcycle.hpp"
#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmv.hpp"
#include "binamg/vector/block_vector_ops.hpp"

namespace binamg {
namespace {

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
  validate(options, "pcg");
}

// ‖v‖ from vᵀv, the root taken in the solve's precision.
template <typename T>
double norm_of(T squared_norm) {
  return static_cast<double>(std::sqrt(squared_norm));
}

}  // namespace

template <typename T>
BlockSolveResult pcg(const Hierarchy<T>& h, const std::vector<T>& b, std::vector<T>& x,
                     index_t k, const SolveOptions& options) {
  validate_block_inputs(h, b, x, k, options);
  const auto start = std::chrono::steady_clock::now();
  const CsrMatrix<T>& A = h.matrix(0);
  const std::size_t rows = A.rows;
  // Per column, the scalars of pcg() for that column alone, in the same precision.
  std::vector<T> alpha(k, T(0)), beta(k, T(0));
  const std::vector<double> b_norm = column_norms(b, k);
  const std::vector<int> exponents = solver_detail::rhs_exponents<T>(b_norm);
  if (solver_detail::any_rescaled(exponents))
    return solver_detail::solve_rescaled<BlockSolveResult>(
        exponents,
        [&](const std::vector<int>& down) { return scaled_copy(b, k, down); },
        [&](const std::vector<int>& by) { scale_columns(x, k, by); },
        [&](const std::vector<T>& scaled_b) { return pcg(h, scaled_b, x, k, options); });
  std::vector<SolveMonitor> monitor =
      column_monitors("pcg", options, b_norm, std::numeric_limits<T>::epsilon());
  const auto any_active = [&] {
    for (const SolveMonitor& column : monitor)
      if (column.active()) return true;
    return false;
  };

  std::vector<T> r, z, p, q;
  residual(A, x, b, k, r);
  const std::vector<T> rr0 = column_dots(r, r, k);
  for (index_t j = 0; j < k; ++j) {
    if (monitor[j].zero_rhs())  // x = 0 solves it exactly
      for (std::size_t i = 0; i < rows; ++i) x[i * k + j] = T(0);
    monitor[j].start(norm_of(rr0[j]));
  }

  if (any_active()) {
    CycleWorkspace<T> block_work;  // a single right-hand side uses the hierarchy's own
    if (k > 1) block_work = cycle_workspace(h, k);
    CycleWorkspace<T>& work = k == 1 ? h.workspace : block_work;
    vcycle_from_zero(h, r, z, k, work);
    p = z;
    std::vector<T> rz = column_dots(r, z, k);
    for (index_t j = 0; j < k; ++j)
      if (monitor[j].active()) monitor[j].require_positive(rz[j], "r'z", 0);
    while (true) {
      spmm(A, p, k, q);
      const std::vector<T> pq = column_dots(p, q, k);
      for (index_t j = 0; j < k; ++j) {
        alpha[j] = T(0);  // frozen columns keep x and r
        if (!monitor[j].active()) continue;
        monitor[j].require_positive(pq[j], "p'Ap", monitor[j].iterations() + 1);
        alpha[j] = static_cast<T>(double(rz[j]) / double(pq[j]));
      }
      column_axpy(alpha, p, x, k);
      for (T& a : alpha) a = -a;
      column_axpy(alpha, q, r, k);
      const std::vector<T> rr = column_dots(r, r, k);
      for (index_t j = 0; j < k; ++j)
        if (monitor[j].active()) monitor[j].step(norm_of(rr[j]));
      if (!any_active()) break;
      vcycle_from_zero(h, r, z, k, work);
      const std::vector<T> rz_next = column_dots(r, z, k);
      for (index_t j = 0; j < k; ++j) {
        beta[j] = T(0);
        if (!monitor[j].active()) continue;
        monitor[j].require_positive(rz_next[j], "r'z", monitor[j].iterations());
        beta[j] = static_cast<T>(double(rz_next[j]) / double(rz[j]));
      }
      column_xpby(z, beta, p, k);  // p = z + β p (frozen columns' p is never read again)
      rz = rz_next;
    }
  }

  residual(A, x, b, k, r);
  const std::vector<double> true_norm = column_norms(r, k);
  BlockSolveResult result;
  result.solve_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  for (index_t j = 0; j < k; ++j)
    result.columns.push_back(monitor[j].finish(true_norm[j], result.solve_ms));
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
