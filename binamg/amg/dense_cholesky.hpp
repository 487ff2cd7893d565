#pragma once
// The coarsest matrix's Cholesky factorisation on the device, for the GPU
// coarse solve (amg/coarse_solve.cu): a few hundred rows, factored where the
// Galerkin product left them instead of downloaded and factored on a host core
// (0.8-1.5 ms at 177-208 rows on the H200's host, against tens of µs here).
// It decides only the common case, a symmetric matrix whose factorisation has
// no small pivot; anything else is left to CoarseSolver on the host, whose
// checks, eigenvalue test and messages stay the only ones.
#include <cuda_runtime.h>

#include "binamg/core/device_buffer.hpp"
#include "binamg/sparse/device_csr.hpp"

namespace binamg::coarse_detail {

/// Rows up to which dense_cholesky runs: a 32-column panel of every row fits
/// one multiprocessor's shared memory.
constexpr index_t kDeviceCholeskyRows = 768;

/// What dense_cholesky found; anything but `factored` sends the matrix to the host.
enum class CholeskyOutcome : int {
  factored = 0,
  malformed = 1,      // a column out of range or out of order (CoarseSolver names it)
  not_finite = 2,     // an entry is NaN or infinite
  not_symmetric = 3,  // as find_asymmetry judges it, at symmetry_tolerance<T>()
  not_positive = 4,   // a pivot <= 0: indefinite or singular
  small_pivot = 5,    // a pivot CoarseSolver would send to its eigenvalue test
};

/// A (n × n, n <= kDeviceCholeskyRows, its CSR columns sorted) as a dense
/// column-major double array `dense`, factored in place as A = L·Lᵀ when the
/// outcome is `factored`: L in the lower triangle with its diagonal, A's
/// entries left in the strict upper triangle (as Eigen's LLT leaves them). A
/// pivot L_ii² at or below √ε·|a_ii| or `pivot_floor` is small
/// (CoarseSolver's test). Blocked right-looking Cholesky in one block, every
/// sum in a fixed order: the same bits run after run. One read-back (the outcome).
template <typename T>
CholeskyOutcome dense_cholesky(const DeviceCsr<T>& A, double pivot_floor,
                               DeviceBuffer<double>& dense, cudaStream_t stream);

}  // namespace binamg::coarse_detail
