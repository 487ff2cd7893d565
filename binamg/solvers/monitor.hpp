#pragma once
// The bookkeeping every iterative solve shares, on both devices: the stopping
// test on ‖r_k‖/‖b‖, the residual history, the breakdown checks and the
// result. The solvers compute the numbers (each in its own kernels); the
// monitor decides with them, so every solver stops, fails and reports alike.
#include <string>
#include <vector>

#include "binamg/solvers/solve_result.hpp"

namespace binamg {

class SolveMonitor {
 public:
  /// `solver` names the caller in messages ("pcg"); `unit_roundoff` is the
  /// solve's precision (std::numeric_limits<T>::epsilon()); `column` is the
  /// right-hand side of a block solve (-1: a single right-hand side).
  SolveMonitor(const char* solver, const SolveOptions& options, double b_norm,
               double unit_roundoff, int column = -1);

  /// b = 0: x = 0 solves it exactly, after no iteration (the caller sets x).
  bool zero_rhs() const { return b_norm_ == 0; }
  /// Whether another iteration is wanted: b ≠ 0, the last recorded residual
  /// above the tolerance and above the unit roundoff (below it an iteration
  /// improves nothing the precision can show) and the iteration limit not
  /// reached.
  bool active() const { return active_; }
  int iterations() const { return result_.iterations; }

  /// Records ‖r_0‖ of the initial guess.
  void start(double residual_norm);
  /// Records ‖r_k‖ after an iteration; throws InvalidInput if it is not finite.
  void step(double residual_norm);
  /// Whether the next iteration will very likely leave the solve active: its
  /// residual, predicted from the last two by their ratio, stays above 4×
  /// the tolerance and the unit roundoff, and the iteration limit allows one
  /// more. Never a stopping test: a GPU solver uses it to queue the next
  /// iteration's work before reading this one's residual (pcg.cu), work that
  /// a wrong guess wastes but cannot change.
  bool likely_active_after_next() const;
  /// Throws InvalidInput unless a scalar of iteration `iteration` that must be
  /// positive (CG's rᵀz, pᵀAp) is finite and positive: a breakdown, the
  /// matrix or the preconditioner is not positive definite.
  void require_positive(double value, const char* what, int iteration) const;

  /// After the iteration stopped: whether it goes on from the true residual
  /// ‖b − Ax‖ (`true_residual_norm`, which then replaces the iteration's own
  /// as the last recorded residual; no iteration is counted). It does where
  /// the iteration's own residual met the tolerance and the true one misses
  /// it by at most kRestartGap times: CG's recurrence drifted from b − Ax in
  /// rounding, and a few more steps from b − Ax meet it (hypre's PCG does the
  /// same). A wider gap is the precision's floor, which more iterations would
  /// not pass. At most kMaxRestarts times a solve, within the iteration limit.
  bool restart(double true_residual_norm);
  static constexpr double kRestartGap = 100;
  static constexpr int kMaxRestarts = 2;

  /// The result, from `true_residual_norm` = ‖b − Ax‖ of the final x:
  /// converged when its relative residual meets the tolerance, stalled when
  /// it does not although the iteration's own residual did (or reached the
  /// unit roundoff); and the solve's time.
  SolveResult finish(double true_residual_norm, double solve_ms) const;

 private:
  std::string where() const;  // " (right-hand side j)" in a block, else ""
  void record(double residual_norm);

  std::string solver_;
  SolveOptions options_;
  double b_norm_;
  double unit_roundoff_;
  int column_;
  bool active_ = false;
  int restarts_ = 0;
  SolveResult result_;
};

/// The stationary iteration on either device (vcycle_solve): while the
/// monitor wants another iteration, cycle() improves x and residual_norm()
/// returns ‖b − Ax‖; b = 0 calls zero_x() instead. Returns the last residual
/// norm (0 for b = 0).
template <typename Cycle, typename ResidualNorm, typename ZeroX>
double iterate_cycles(SolveMonitor& monitor, Cycle&& cycle, ResidualNorm&& residual_norm,
                      ZeroX&& zero_x) {
  if (monitor.zero_rhs()) {
    zero_x();
    return 0;
  }
  double norm = residual_norm();
  monitor.start(norm);
  while (monitor.active()) {
    cycle();
    norm = residual_norm();
    monitor.step(norm);
  }
  return norm;
}

/// One monitor per right-hand side of a block solve of k columns.
std::vector<SolveMonitor> column_monitors(const char* solver, const SolveOptions& options,
                                          const std::vector<double>& b_norms,
                                          double unit_roundoff);

/// Throws InvalidInput, naming `solver`, unless the options make sense.
void validate(const SolveOptions& options, const char* solver);

}  // namespace binamg
