#pragma once
// Right-hand sides far from unit scale, for the solvers of both devices
// (internal). CG's scalars are squares of norms (rᵀr, rᵀz, pᵀAp): they overflow
// or underflow long before the entries do (near ‖b‖ = 1e±154 in double, 1e±19 in
// float, and sooner, since the residual falls by the tolerance). A column whose
// ‖b‖ lies outside [2^-L, 2^L], L = max_exponent / 4 (1e±77 in double, 4e±9 in
// float), is solved as A (2^-e x) = 2^-e b with ‖2^-e b‖ in [1/2, 1). Scaling by
// a power of two is exact, so the iteration is the unscaled one bit for bit
// wherever that one stays in range, and the residual history is the same.
#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

#include "binamg/solvers/solve_result.hpp"

namespace binamg {
namespace solver_detail {

/// e per column (0 where ‖b‖ is in range, zero or not finite).
template <typename T>
std::vector<int> rhs_exponents(const std::vector<double>& b_norms) {
  constexpr int limit = std::numeric_limits<T>::max_exponent / 4;
  std::vector<int> exponents(b_norms.size(), 0);
  for (std::size_t j = 0; j < b_norms.size(); ++j) {
    if (!(b_norms[j] > 0) || !std::isfinite(b_norms[j])) continue;
    int exponent = 0;
    std::frexp(b_norms[j], &exponent);
    if (exponent > limit || exponent < -limit) exponents[j] = exponent;
  }
  return exponents;
}

inline bool any_rescaled(const std::vector<int>& exponents) {
  for (int e : exponents)
    if (e != 0) return true;
  return false;
}

inline void set_solve_ms(SolveResult& result, double ms) { result.solve_ms = ms; }
inline void set_solve_ms(BlockSolveResult& result, double ms) {
  result.solve_ms = ms;
  for (SolveResult& column : result.columns) column.solve_ms = ms;
}

/// Solves the rescaled system and scales x back: `scaled_b(down)` returns a copy
/// of b with column j times 2^down[j], `scale_x(exponents)` scales x in place
/// (and finishes before returning), `solve(b)` is the solver on that b and x.
template <typename Result, typename ScaledB, typename ScaleX, typename Solve>
Result solve_rescaled(const std::vector<int>& exponents, ScaledB&& scaled_b, ScaleX&& scale_x,
                      Solve&& solve) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<int> down(exponents.size());
  for (std::size_t j = 0; j < exponents.size(); ++j) down[j] = -exponents[j];
  const auto b = scaled_b(down);
  scale_x(down);
  Result result = solve(b);
  scale_x(exponents);
  set_solve_ms(
      result,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  return result;
}

}  // namespace solver_detail
}  // namespace binamg
