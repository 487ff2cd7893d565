#include "binamg/solvers/monitor.hpp"

#include <cmath>
#include <cstdio>

#include "binamg/core/error.hpp"

namespace binamg {

SolveMonitor::SolveMonitor(const char* solver, const SolveOptions& options, double b_norm,
                           double unit_roundoff, int column)
    : solver_(solver),
      options_(options),
      b_norm_(b_norm),
      unit_roundoff_(unit_roundoff),
      column_(column) {
  if (zero_rhs()) {
    result_.converged = true;
    result_.residual_history = {0.0};
  }
}

std::string SolveMonitor::where() const {
  return column_ < 0 ? "" : " (right-hand side " + std::to_string(column_) + ")";
}

void SolveMonitor::record(double residual_norm) {
  const double relative = residual_norm / b_norm_;
  result_.residual_history.push_back(relative);
  active_ = relative > options_.tolerance && relative > unit_roundoff_ &&
            result_.iterations < options_.max_iterations;
}

void SolveMonitor::start(double residual_norm) {
  if (zero_rhs()) return;
  record(residual_norm);
}

void SolveMonitor::step(double residual_norm) {
  ++result_.iterations;
  require(std::isfinite(residual_norm), solver_ + ": the residual became non-finite at iteration " +
                                            std::to_string(result_.iterations) + where());
  record(residual_norm);
}

bool SolveMonitor::likely_active_after_next() const {
  const std::vector<double>& history = result_.residual_history;
  if (!active_ || history.size() < 2 || result_.iterations + 1 >= options_.max_iterations)
    return false;
  const double last = history.back(), before = history[history.size() - 2];
  if (!(before > 0)) return false;
  const double predicted = last * (last / before);
  constexpr double margin = 4;
  return predicted > margin * options_.tolerance && predicted > margin * unit_roundoff_;
}

void SolveMonitor::require_positive(double value, const char* what, int iteration) const {
  const std::string at = " at iteration " + std::to_string(iteration) + where();
  require(std::isfinite(value), solver_ + ": " + what + " is not finite" + at);
  char shown[32];
  std::snprintf(shown, sizeof shown, "%.3e", value);
  require(value > 0, solver_ + ": breakdown, " + what + " = " + shown + " <= 0" + at +
                         ": the matrix or the V-cycle is not positive definite, or the matrix "
                         "is singular and b is not consistent with its null space");
}

bool SolveMonitor::restart(double true_residual_norm) {
  if (zero_rhs() || restarts_ >= kMaxRestarts || result_.residual_history.empty()) return false;
  const double reached = result_.residual_history.back();
  const double relative = true_residual_norm / b_norm_;
  const double tolerance = options_.tolerance;
  if (!(reached <= tolerance) || !(relative > tolerance) ||
      !(relative <= kRestartGap * tolerance) || relative <= unit_roundoff_ ||
      result_.iterations >= options_.max_iterations)
    return false;
  ++restarts_;
  result_.residual_history.back() = relative;
  active_ = true;
  return true;
}

SolveResult SolveMonitor::finish(double true_residual_norm, double solve_ms) const {
  SolveResult result = result_;
  if (!zero_rhs()) {
    result.relative_residual = true_residual_norm / b_norm_;
    result.converged = result.relative_residual <= options_.tolerance;
    const double reached = result.residual_history.back();
    result.stalled =
        !result.converged && (reached <= options_.tolerance || reached <= unit_roundoff_);
  }
  result.solve_ms = solve_ms;
  return result;
}

std::vector<SolveMonitor> column_monitors(const char* solver, const SolveOptions& options,
                                          const std::vector<double>& b_norms,
                                          double unit_roundoff) {
  std::vector<SolveMonitor> monitors;
  const int k = static_cast<int>(b_norms.size());
  for (int j = 0; j < k; ++j)
    monitors.emplace_back(solver, options, b_norms[j], unit_roundoff, k == 1 ? -1 : j);
  return monitors;
}

void validate(const SolveOptions& options, const char* solver) {
  require(std::isfinite(options.tolerance) && options.tolerance >= 0,
          std::string(solver) + ": tolerance must be finite and >= 0");
  require(options.max_iterations >= 0, std::string(solver) + ": max_iterations must be >= 0");
}

}  // namespace binamg
