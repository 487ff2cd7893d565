#pragma once
// Conjugate gradients preconditioned by one AMG V-cycle per iteration.
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/core/config.hpp"
#include "binamg/solvers/solve_result.hpp"

namespace binamg {

/// Solves A x = b (A = the hierarchy's fine matrix, SPD) from the initial guess x.
/// Stops when ‖r_k‖/‖b‖ ≤ tolerance (the recursively updated residual); b = 0
/// gives x = 0 after zero iterations. Reductions use the deterministic dot/norm,
/// so results do not depend on thread count. Throws InvalidInput on wrong sizes,
/// non-finite inputs, non-finite iterates, or breakdown (pᵀAp ≤ 0 or rᵀz ≤ 0: A or
/// the preconditioner is not positive definite). relative_residual is recomputed
/// from b − Ax at the end.
template <typename T>
SolveResult pcg(const Hierarchy<T>& h, const std::vector<T>& b, std::vector<T>& x,
                const SolveOptions& options = {});

/// CG on k right-hand sides at once, stored row-major (b and x hold rows × k
/// entries, entry (i, j) at [i·k + j]): k independent recurrences advanced
/// together through block products (SpMM, the block V-cycle), each column with
/// its own scalars, breakdown checks and stopping test. A column that has
/// converged (or reached max_iterations) is frozen: its x and r no longer change.
/// Column j gives bitwise what pcg() gives for column j alone.
template <typename T>
BlockSolveResult pcg(const Hierarchy<T>& h, const std::vector<T>& b, std::vector<T>& x,
                     index_t k, const SolveOptions& options = {});

/// Mixed precision: CG in double on A, preconditioned by one V-cycle of a float
/// hierarchy (built from A's values rounded to float): the residual is rounded
/// to float for the cycle and the correction widened back. The iteration, its
/// stopping test and the true residual are A's, in double, so the tolerance is
/// reachable where a float solve stalls; the cycle's matrices move 8 bytes per
/// entry instead of 12.
SolveResult pcg(const Hierarchy<float>& h, const CsrMatrix<double>& A,
                const std::vector<double>& b, std::vector<double>& x,
                const SolveOptions& options = {});

#if BINAMG_WITH_CUDA
/// GPU twin: the same iteration on device vectors with the device V-cycle as
/// preconditioner, bitwise the host-synchronised form of it. The scalars stay on
/// the device (x and r are updated in one pass that also forms ‖r‖²); the host reads
/// them back once per iteration to test convergence and breakdown.
template <typename T>
SolveResult pcg(const DeviceHierarchy<T>& h, const DeviceBuffer<T>& b, DeviceBuffer<T>& x,
                const SolveOptions& options = {});

/// GPU twin of the mixed-precision pcg() (A and the vectors on the device).
SolveResult pcg(const DeviceHierarchy<float>& h, const DeviceCsr<double>& A,
                const DeviceBuffer<double>& b, DeviceBuffer<double>& x,
                const SolveOptions& options = {});

/// GPU twin of the block CG: the block V-cycle as preconditioner, per-column
/// scalars kept on the device and read back once per iteration. Iteration counts
/// and solutions match the CPU block CG to rounding.
template <typename T>
BlockSolveResult pcg(const DeviceHierarchy<T>& h, const DeviceBuffer<T>& b, DeviceBuffer<T>& x,
                     index_t k, const SolveOptions& options = {});
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
