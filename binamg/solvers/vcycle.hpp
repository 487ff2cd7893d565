#pragma once
// The multigrid V-cycle, as a preconditioner and as a stationary solver.
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/core/config.hpp"
#include "binamg/solvers/solve_result.hpp"

namespace binamg {

/// One V(ν1, ν2) cycle improving x in place: pre-smooth ν1 Jacobi sweeps,
/// restrict the residual with R, recurse (the coarsest level solves directly),
/// prolong the correction with P, post-smooth ν2 sweeps. With ν1 = ν2 and R = Pᵀ
/// the cycle is a symmetric operator, as CG needs. Uses h.workspace, so one cycle
/// at a time per hierarchy. b and x must have the fine level's size.
template <typename T>
void vcycle(const Hierarchy<T>& h, const std::vector<T>& b, std::vector<T>& x);

/// One cycle of the hierarchy's levels `level`, level + 1, …, coarsest: b and x
/// have level `level`'s size (level = num_levels() − 1 is the direct solve).
/// vcycle(h, 0, b, x) is vcycle(h, b, x).
template <typename T>
void vcycle(const Hierarchy<T>& h, index_t level, const std::vector<T>& b, std::vector<T>& x);

/// The same cycle from x = 0 (x is overwritten): z = B b for the preconditioner
/// B, saving the first smoothing sweep's product with A. Bitwise equal to
/// vcycle() from a zeroed x.
template <typename T>
void vcycle_from_zero(const Hierarchy<T>& h, const std::vector<T>& b, std::vector<T>& x);

/// vcycle_from_zero on k right-hand sides at once, stored row-major (b and x hold
/// rows × k entries, entry (i, j) at [i·k + j]): SpMM wherever the cycle has an
/// SpMV, and column j is bitwise vcycle_from_zero of column j. `work` comes from
/// cycle_workspace(h, k).
template <typename T>
void vcycle_from_zero(const Hierarchy<T>& h, const std::vector<T>& b, std::vector<T>& x, index_t k,
                      CycleWorkspace<T>& work);

/// Repeats the V-cycle from the initial guess x until ‖b − Ax‖/‖b‖ ≤ tolerance or
/// max_iterations cycles. b = 0 gives x = 0 after zero iterations. Throws
/// InvalidInput on wrong sizes or non-finite b, x, or iterates.
template <typename T>
SolveResult vcycle_solve(const Hierarchy<T>& h, const std::vector<T>& b, std::vector<T>& x,
                         const SolveOptions& options = {});

#if BINAMG_WITH_CUDA
// GPU twins on device vectors (h.stream orders everything). Jacobi swaps the
// storage of x with the level's scratch buffer, so x may own different memory
// afterwards (same size, same stream); hold no raw pointer into x across a call.

template <typename T>
void vcycle(const DeviceHierarchy<T>& h, const DeviceBuffer<T>& b, DeviceBuffer<T>& x);

template <typename T>
void vcycle_from_zero(const DeviceHierarchy<T>& h, const DeviceBuffer<T>& b, DeviceBuffer<T>& x);

template <typename T>
SolveResult vcycle_solve(const DeviceHierarchy<T>& h, const DeviceBuffer<T>& b, DeviceBuffer<T>& x,
                         const SolveOptions& options = {});

/// vcycle_from_zero on k row-major right-hand sides (b and x hold rows × k
/// entries); `work` comes from cycle_workspace(h, k). The same cycle as k = 1 with
/// the block SpMM and block smoother, the coarsest level solved for all k at once.
/// With b_dot_x (k device entries), b_dot_x[j] = B(:, j)ᵀX(:, j) of the result,
/// formed by the last smoothing pass (the CG's rᵀz without a pass of its own);
/// k = 1 with h.workspace is the vector cycle's.
template <typename T>
void vcycle_from_zero(const DeviceHierarchy<T>& h, const DeviceBuffer<T>& b, DeviceBuffer<T>& x,
                      index_t k, DeviceCycleWorkspace<T>& work, T* b_dot_x = nullptr);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
