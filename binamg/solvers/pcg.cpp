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
  const auto where = [k](std::size_t e) {  // messages built only on failure: a hot loop
    return "[" + std::to_string(e / k) + ", " + std::to_string(e % k) + "]";
  };
  for (std::size_t e = 0; e < entries; ++e) {
    if (!std::isfinite(b[e])) throw InvalidInput("pcg: b" + where(e) + " is not finite");
    if (!std::isfinite(x[e])) throw InvalidInput("pcg: x" + where(e) + " is not finite");
  }
  validate(options, "pcg");
}

// ‖v‖ from vᵀv, the root taken in the solve's precision.
template <typename T>
double norm_of(T squared_norm) {
  return static_cast<double>(std::sqrt(squared_norm));
}

// CG on A with k columns, z = M r by precondition(r, z) (rows × k, row-major).
// Right-hand sides are rescaled where their norms leave Range's safe span
// (rhs_scaling.hpp): Range is the precision the preconditioner works in.
template <typename Range, typename T, typename Precondition>
BlockSolveResult preconditioned_cg(const CsrMatrix<T>& A, Precondition& precondition,
                                   const std::vector<T>& b, std::vector<T>& x, index_t k,
                                   const SolveOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const std::size_t rows = A.rows;
  // Per column, the scalars of pcg() for that column alone, in the same precision.
  std::vector<T> alpha(k, T(0)), beta(k, T(0));
  const std::vector<double> b_norm = column_norms(b, k);
  const std::vector<int> exponents = solver_detail::rhs_exponents<Range>(b_norm);
  if (solver_detail::any_rescaled(exponents))
    return solver_detail::solve_rescaled<BlockSolveResult>(
        exponents,
        [&](const std::vector<int>& down) { return scaled_copy(b, k, down); },
        [&](const std::vector<int>& by) { scale_columns(x, k, by); },
        [&](const std::vector<T>& scaled_b) {
          return preconditioned_cg<Range>(A, precondition, scaled_b, x, k, options);
        });
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

  // CG from r; where its own residual met the tolerance but b − Ax does not
  // (rounding drift), it starts again from b − Ax (SolveMonitor::restart).
  std::vector<double> true_norm;
  while (any_active()) {
    precondition(r, z);
    p = z;
    std::vector<T> rz = column_dots(r, z, k);
    for (index_t j = 0; j < k; ++j)
      if (monitor[j].active()) monitor[j].require_positive(rz[j], "r'z", monitor[j].iterations());
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
      precondition(r, z);
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
    residual(A, x, b, k, r);
    true_norm = column_norms(r, k);
    for (index_t j = 0; j < k; ++j) monitor[j].restart(true_norm[j]);
  }
  if (true_norm.empty()) {  // no iteration
    residual(A, x, b, k, r);
    true_norm = column_norms(r, k);
  }
  BlockSolveResult result;
  result.solve_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  for (index_t j = 0; j < k; ++j)
    result.columns.push_back(monitor[j].finish(true_norm[j], result.solve_ms));
  return result;
}

}  // namespace

template <typename T>
BlockSolveResult pcg(const Hierarchy<T>& h, const std::vector<T>& b, std::vector<T>& x,
                     index_t k, const SolveOptions& options) {
  validate_block_inputs(h, b, x, k, options);
  CycleWorkspace<T> block_work;  // a single right-hand side uses the hierarchy's own
  auto cycle = [&](const std::vector<T>& r, std::vector<T>& z) {
    if (k > 1 && block_work.residual.empty()) block_work = cycle_workspace(h, k);
    vcycle_from_zero(h, r, z, k, k == 1 ? h.workspace : block_work);
  };
  return preconditioned_cg<T>(h.matrix(0), cycle, b, x, k, options);
}

template <typename T>
SolveResult pcg(const Hierarchy<T>& h, const std::vector<T>& b, std::vector<T>& x,
                const SolveOptions& options) {
  return pcg(h, b, x, 1, options).columns[0];
}

SolveResult pcg(const Hierarchy<float>& h, const CsrMatrix<double>& A,
                const std::vector<double>& b, std::vector<double>& x,
                const SolveOptions& options) {
  require(A.rows == h.matrix(0).rows && A.cols == A.rows,
          "pcg: the double matrix has " + std::to_string(A.rows) + " rows, the float hierarchy " +
              std::to_string(h.matrix(0).rows));
  require(b.size() == std::size_t(A.rows) && x.size() == b.size(),
          "pcg: b and x must have " + std::to_string(A.rows) + " entries");
  for (std::size_t i = 0; i < b.size(); ++i)  // messages built only on failure: a hot loop
    if (!std::isfinite(b[i]) || !std::isfinite(x[i]))
      throw InvalidInput(std::string("pcg: ") + (std::isfinite(b[i]) ? "x[" : "b[") +
                         std::to_string(i) + "] is not finite");
  validate(options, "pcg");
  std::vector<float> r_float(A.rows), z_float(A.rows);
  auto cycle = [&](const std::vector<double>& r, std::vector<double>& z) {
    for (std::size_t i = 0; i < r.size(); ++i) r_float[i] = static_cast<float>(r[i]);
    vcycle_from_zero(h, r_float, z_float);
    z.assign(z_float.begin(), z_float.end());
  };
  return preconditioned_cg<float>(A, cycle, b, x, 1, options).columns[0];
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
