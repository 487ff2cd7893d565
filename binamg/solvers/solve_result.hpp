#pragma once
// What an iterative solve reports, and how it is asked to stop.
#include <vector>

namespace binamg {

struct SolveOptions {
  double tolerance = 1e-8;  // stop when ‖r_k‖/‖b‖ ≤ tolerance
  int max_iterations = 500;
};

struct SolveResult {
  int iterations = 0;
  // The true relative residual ‖b−Ax‖/‖b‖ of the final x met the tolerance.
  bool converged = false;
  // Not converged although the iteration's own residual met the tolerance, or
  // fell to the precision's unit roundoff: rounding keeps the true residual
  // above the tolerance, which this precision cannot attain for this problem.
  bool stalled = false;
  std::vector<double> residual_history;  // the iteration's relative residual ‖r_k‖/‖b‖, entry 0 = initial
  double relative_residual = 0;          // true ‖b−Ax‖/‖b‖ recomputed at the end
  double solve_ms = 0;
};

/// A solve of k right-hand sides at once: each column keeps its own scalars and
/// stops on its own, so columns[j] is what a solve of column j alone reports
/// (its solve_ms is the whole block's time: the columns share every pass).
struct BlockSolveResult {
  std::vector<SolveResult> columns;
  double solve_ms = 0;

  int max_iterations() const {
    int most = 0;
    for (const SolveResult& column : columns) most = column.iterations > most ? column.iterations : most;
    return most;
  }
  bool all_converged() const {
    for (const SolveResult& column : columns)
      if (!column.converged) return false;
    return true;
  }
};

}  // namespace binamg
