#pragma once
// Where a hierarchy loses convergence: the V-cycle's convergence factor from
// each level down.
#include <vector>

#include "binamg/amg/hierarchy.hpp"

namespace binamg {

/// factors[l], for each level l above the coarsest (finest first): the
/// asymptotic convergence factor of the V-cycle of levels l, l + 1, …,
/// coarsest, estimated by `iterations` steps of the power method on its error
/// propagator E_l = I − B_l A_l (B_l: that cycle) in the A_l-norm, from a
/// reproducible pseudo-random start. With ν1 = ν2 the cycle is A-symmetric and
/// the ratio ‖E e‖_A/‖e‖_A rises to ρ(E_l). A V-cycle is no better than its
/// worst two-grid step, so a factor well above the one below it (factors[l] ≫
/// factors[l + 1]) points at level l's coarsening or smoothing. PCG with the
/// cycle converges about as fast as (1 − √(1 − ρ))/(1 + √(1 − ρ)) per
/// iteration or better. Runs on the host (the GPU builds the same aggregates,
/// so its hierarchy has the same factors up to rounding). Each step costs one
/// cycle from level l. Throws InvalidInput unless iterations ≥ 2.
template <typename T>
std::vector<double> vcycle_convergence_factors(const Hierarchy<T>& h, int iterations = 20);

}  // namespace binamg
