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
  bool converged = false;
  std::vector<double> residual_history;  // relative residual ‖r_k‖/‖b‖, entry 0 = initial
  double relative_residual = 0;          // true ‖b−Ax‖/‖b‖ recomputed at the end
  double solve_ms = 0;
};

}  // namespace binamg
