#include "binamg/solvers/vcycle.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "binamg/smoothers/smooth.hpp"
#include "binamg/solvers/monitor.hpp"
#include "binamg/solvers/rhs_scaling.hpp"
#include "binamg/solvers/solve_steps.hpp"
#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmv.hpp"
#include "binamg/vector/block_vector_ops.hpp"
#include "binamg/vector/vector_ops.hpp"

namespace binamg {
namespace {

// Level l of the cycle on k right-hand sides (row-major blocks; k = 1 is the
// vector cycle, the same operations column by column). Coarse corrections always
// start from zero, and so does the fine level when the cycle preconditions CG;
// `zero_guess` then lets the first pre-smoothing sweep skip its product with A.
template <typename T>
void cycle(const Hierarchy<T>& h, CycleWorkspace<T>& work, index_t k, std::size_t l,
           const std::vector<T>& b, std::vector<T>& x, bool zero_guess) {
  if (l == h.levels.size()) {
    h.coarse.solve(b, k, x);  // exact, so the initial guess does not matter
    return;
  }
  const Level<T>& level = h.levels[l];
  std::vector<T>& r = work.residual[l];
  smoother_detail::smooth(h.parameters, level, b, x, k, h.parameters.presweeps, zero_guess, r,
                          work.direction[l]);
  residual(level.A, x, b, k, r);
  spmm(level.R, r, k, work.rhs[l + 1]);
  cycle(h, work, k, l + 1, work.rhs[l + 1], work.solution[l + 1], true);
  spmm(level.P, work.solution[l + 1], k, r);
  axpy(T(1), r, x);
  smoother_detail::smooth(h.parameters, level, b, x, k, h.parameters.postsweeps, false, r,
                          work.direction[l]);
}

}  // namespace

template <typename T>
void validate_solve_inputs(const Hierarchy<T>& h, const std::vector<T>& b, const std::vector<T>& x,
                           const SolveOptions& options, const char* who) {
  const std::string name(who);
  const std::size_t rows = h.matrix(0).rows;
  require(b.size() == rows, name + ": b has " + std::to_string(b.size()) +
                                " entries, the matrix has " + std::to_string(rows) + " rows");
  require(x.size() == rows, name + ": x has " + std::to_string(x.size()) +
                                " entries, the matrix has " + std::to_string(rows) + " rows");
  for (std::size_t i = 0; i < rows; ++i) {
    // Messages are built only on failure: this loop runs once per solve over all rows.
    if (!std::isfinite(b[i]))
      throw InvalidInput(name + ": b[" + std::to_string(i) + "] is not finite");
    if (!std::isfinite(x[i]))
      throw InvalidInput(name + ": x[" + std::to_string(i) + "] is not finite");
  }
  validate(options, who);
}

template <typename T>
void vcycle(const Hierarchy<T>& h, const std::vector<T>& b, std::vector<T>& x) {
  const std::size_t rows = h.matrix(0).rows;
  if (b.size() != rows || x.size() != rows)
    throw InvalidInput("vcycle: b and x must have " + std::to_string(rows) + " entries");
  cycle(h, h.workspace, 1, 0, b, x, false);
}

template <typename T>
void vcycle(const Hierarchy<T>& h, index_t level, const std::vector<T>& b, std::vector<T>& x) {
  require(level >= 0 && level < h.num_levels(), "vcycle: level " + std::to_string(level) +
                                                    " outside [0, " +
                                                    std::to_string(h.num_levels()) + ")");
  const std::size_t rows = h.matrix(level).rows;
  require(b.size() == rows && x.size() == rows, "vcycle: b and x must have level " +
                                                    std::to_string(level) + "'s " +
                                                    std::to_string(rows) + " entries");
  cycle(h, h.workspace, 1, std::size_t(level), b, x, false);
}

template <typename T>
void vcycle_from_zero(const Hierarchy<T>& h, const std::vector<T>& b, std::vector<T>& x) {
  const std::size_t rows = h.matrix(0).rows;
  if (b.size() != rows)
    throw InvalidInput("vcycle_from_zero: b must have " + std::to_string(rows) + " entries");
  x.resize(rows);
  cycle(h, h.workspace, 1, 0, b, x, true);
}

template <typename T>
void vcycle_from_zero(const Hierarchy<T>& h, const std::vector<T>& b, std::vector<T>& x, index_t k,
                      CycleWorkspace<T>& work) {
  const std::size_t entries = std::size_t(h.matrix(0).rows) * std::max<index_t>(k, 0);
  require(k > 0 && b.size() == entries,
          "vcycle_from_zero: b must hold rows x k = " + std::to_string(entries) + " entries");
  require(work.residual.size() == std::size_t(h.num_levels()) &&
              (h.levels.empty() || work.residual[0].size() == entries),
          "vcycle_from_zero: the workspace was not made by cycle_workspace(h, k) for this k");
  x.resize(entries);
  cycle(h, work, k, 0, b, x, true);
}

template <typename T>
SolveResult vcycle_solve(const Hierarchy<T>& h, const std::vector<T>& b, std::vector<T>& x,
                         const SolveOptions& options) {
  validate_solve_inputs(h, b, x, options, "vcycle_solve");
  const auto start = std::chrono::steady_clock::now();
  const CsrMatrix<T>& A = h.matrix(0);
  const double b_norm = norm2(b);
  const std::vector<int> exponents = solver_detail::rhs_exponents<T>({b_norm});
  if (solver_detail::any_rescaled(exponents))
    return solver_detail::solve_rescaled<SolveResult>(
        exponents, [&](const std::vector<int>& down) { return scaled_copy(b, 1, down); },
        [&](const std::vector<int>& by) { scale_columns(x, 1, by); },
        [&](const std::vector<T>& scaled_b) { return vcycle_solve(h, scaled_b, x, options); });
  SolveMonitor monitor("vcycle_solve", options, b_norm, std::numeric_limits<T>::epsilon());
  std::vector<T> r;
  const double residual_norm = iterate_cycles(
      monitor, [&] { vcycle(h, b, x); },
      [&] {
        residual(A, x, b, r);
        return static_cast<double>(norm2(r));
      },
      [&] { x.assign(x.size(), T(0)); });
  return monitor.finish(
      residual_norm,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
}

#define BINAMG_INSTANTIATE(T)                                                                      \
  template void validate_solve_inputs<T>(const Hierarchy<T>&, const std::vector<T>&,               \
                                         const std::vector<T>&, const SolveOptions&, const char*); \
  template void vcycle<T>(const Hierarchy<T>&, const std::vector<T>&, std::vector<T>&);            \
  template void vcycle<T>(const Hierarchy<T>&, index_t, const std::vector<T>&, std::vector<T>&);   \
  template void vcycle_from_zero<T>(const Hierarchy<T>&, const std::vector<T>&, std::vector<T>&);  \
  template void vcycle_from_zero<T>(const Hierarchy<T>&, const std::vector<T>&, std::vector<T>&,   \
                                    index_t, CycleWorkspace<T>&);                                  \
  template SolveResult vcycle_solve<T>(const Hierarchy<T>&, const std::vector<T>&,                 \
                                       std::vector<T>&, const SolveOptions&);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
