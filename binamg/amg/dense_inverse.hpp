#pragma once
// The coarsest matrix's inverse on the device, for the GPU coarse solve
// (amg/coarse_solve.cu): formed where the Galerkin product left the matrix
// instead of downloaded and factored on a host core (0.8-1.5 ms at 177-208
// rows on the H200's host, 45 ms at 1080, 150-490 ms at 1657-2450). It decides only the
// common case, a symmetric matrix with no small pivot; anything else is left
// to CoarseSolver on the host, whose checks, eigenvalue test and messages stay
// the only ones.
#include <cuda_runtime.h>

#include "binamg/core/device_buffer.hpp"
#include "binamg/sparse/device_csr.hpp"

namespace binamg::coarse_detail {

/// What dense_inverse found; anything but `inverted` sends the matrix to the host.
enum class InverseOutcome : int {
  inverted = 0,
  malformed = 1,      // a column out of range or out of order (CoarseSolver names it)
  not_finite = 2,     // an entry is NaN or infinite
  not_symmetric = 3,  // as find_asymmetry judges it, at symmetry_tolerance<T>()
  not_positive = 4,   // a pivot <= 0: indefinite or singular
  small_pivot = 5,    // a small pivot, and the inverse cannot show A far from singular
};

/// A⁻¹ of A (n × n, its CSR columns sorted), row-major n × n in T, when the
/// outcome is `inverted`. Blocked symmetric Gauss-Jordan sweeps in double
/// (the sweep operator: sweeping every pivot of A leaves −A⁻¹), a launch per
/// block of 32 pivots, each updating the lower triangle a block per 32 × 32 tile.
/// The pivots are those of A's Cholesky factorisation (L_ii²). A pivot at or
/// below √ε·|a_ii| or n·`rank_floor` is small, as CoarseSolver judges it
/// (rank_floor = ε_T·scale, the level of a Galerkin product's rounding
/// residues); CoarseSolver would then ask the eigenvalues whether A is
/// singular. Here the inverse answers instead when it can: λ_min ≥ 1/‖A⁻¹‖_∞,
/// so A is kept when that bound clears the eigenvalue test's cut
/// (max(n·ε·‖A‖_∞, rank_floor)), and declined (`small_pivot`) otherwise.
/// Every sum runs in a fixed order and both triangles of a diagonal block come
/// from its lower one: the same bits run after run, and an exactly symmetric
/// A⁻¹. One read-back.
template <typename T>
InverseOutcome dense_inverse(const DeviceCsr<T>& A, double rank_floor, DeviceBuffer<T>& inverse,
                             cudaStream_t stream);

}  // namespace binamg::coarse_detail
