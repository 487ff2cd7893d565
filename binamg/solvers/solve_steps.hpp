#pragma once
// What the solvers share beyond their public headers: the checks of a
// solve's inputs, and the fused steps of the GPU cycle (bench_vcycle times
// them on their own).

#include <string>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/core/config.hpp"
#include "binamg/solvers/solve_result.hpp"
#if BINAMG_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace binamg {

/// Checks shared by the solvers: sizes match the fine level, entries are finite,
/// options make sense. `who` names the caller in the message.
template <typename T>
void validate_solve_inputs(const Hierarchy<T>& h, const std::vector<T>& b,
                           const std::vector<T>& x, const SolveOptions& options,
                           const char* who);

#if BINAMG_WITH_CUDA
/// Sizes match the fine level, b and x are finite (checked on the device; the
/// message names the first non-finite index), options make sense.
template <typename T>
void validate_solve_inputs(const DeviceHierarchy<T>& h, const DeviceBuffer<T>& b,
                           const DeviceBuffer<T>& x, const SolveOptions& options,
                           const char* who);

/// The same for k row-major right-hand sides (b and x hold rows × k entries; a
/// non-finite entry is named by row and column).
template <typename T>
void validate_solve_inputs(const DeviceHierarchy<T>& h, const DeviceBuffer<T>& b,
                           const DeviceBuffer<T>& x, index_t k, const SolveOptions& options,
                           const char* who);

/// Throws naming the first non-finite entry of b, else of x (vectors of equal
/// size): `who: b[i]` (a kernel and one read-back for both).
template <typename T>
void require_finite_entries(const DeviceBuffer<T>& b, const DeviceBuffer<T>& x,
                            const std::string& who, cudaStream_t stream);

// Two steps of the GPU cycle from a zero guess (bench_vcycle times them; sizes
// are the caller's contract). Each is bitwise the pair of calls it
// replaces while the SpMV runs its row-split kernel; fused, with one vector pass
// less, where that measured faster.

/// x = w·d⁻¹·b (one Jacobi sweep from zero with the level's weight and inverse
/// diagonal) and r = b − A x of it: jacobi_from_zero(…, 1, …) + residual(), in one
/// pass for k > 1 right-hand sides.
template <typename T>
void smooth_from_zero_with_residual(const DeviceLevel<T>& level, const DeviceBuffer<T>& b,
                                    DeviceBuffer<T>& x, DeviceBuffer<T>& r,
                                    cudaStream_t stream = nullptr);

/// x += P e in one pass: spmv(P, e) + axpy(1, ·, x).
template <typename T>
void prolong_and_correct(const DeviceCsr<T>& P, const DeviceBuffer<T>& e, DeviceBuffer<T>& x,
                         cudaStream_t stream = nullptr);

/// The two steps on k row-major right-hand sides (k = 1: the ones above).
template <typename T>
void smooth_from_zero_with_residual(const DeviceLevel<T>& level, const DeviceBuffer<T>& b,
                                    DeviceBuffer<T>& x, DeviceBuffer<T>& r, index_t k,
                                    cudaStream_t stream = nullptr);

template <typename T>
void prolong_and_correct(const DeviceCsr<T>& P, const DeviceBuffer<T>& e, DeviceBuffer<T>& x,
                         index_t k, cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
