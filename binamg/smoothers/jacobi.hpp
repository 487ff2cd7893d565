#pragma once
// Weighted (damped) Jacobi relaxation, the smoother of the V-cycle.
#include <vector>

#include "binamg/core/config.hpp"
#include "binamg/sparse/csr.hpp"
#if BINAMG_WITH_CUDA
#include "binamg/sparse/device_csr.hpp"
#endif

namespace binamg {

/// `sweeps` times: x ← x + weight·D⁻¹(b − A x), all rows from the same old x.
/// `inverse_diagonal` holds 1/a_ii; `scratch` is resized and overwritten (it lets
/// the V-cycle reuse one buffer per level). Sizes are the caller's contract
/// (checked once at the solver boundary), the loop is the hot path.
template <typename T>
void jacobi(const CsrMatrix<T>& A, const std::vector<T>& inverse_diagonal, T weight,
            const std::vector<T>& b, std::vector<T>& x, int sweeps, std::vector<T>& scratch);

/// The same sweeps from x = 0, overwriting x: the first sweep needs no product
/// with A (x = weight·D⁻¹ b, bitwise what jacobi() gives from a zero x).
template <typename T>
void jacobi_from_zero(const CsrMatrix<T>& A, const std::vector<T>& inverse_diagonal, T weight,
                      const std::vector<T>& b, std::vector<T>& x, int sweeps,
                      std::vector<T>& scratch);

/// The same sweeps on k right-hand sides stored row-major (b, x and scratch hold
/// A.rows × k entries, entry (i, j) at [i·k + j]): column j is bitwise jacobi() on
/// column j.
template <typename T>
void jacobi(const CsrMatrix<T>& A, const std::vector<T>& inverse_diagonal, T weight,
            const std::vector<T>& b, std::vector<T>& x, index_t k, int sweeps,
            std::vector<T>& scratch);

template <typename T>
void jacobi_from_zero(const CsrMatrix<T>& A, const std::vector<T>& inverse_diagonal, T weight,
                      const std::vector<T>& b, std::vector<T>& x, index_t k, int sweeps,
                      std::vector<T>& scratch);

/// 1/a_ii for every row; throws InvalidInput naming the row if a diagonal is zero.
template <typename T>
std::vector<T> inverse_diagonal(const CsrMatrix<T>& A);

/// 1/(a_ii + Σ_{j≠i} |a_ij|) for every row, summed left to right: the inverse
/// diagonal of l1-Jacobi (Baker, Falgout, Kolev & Yang 2011), which converges
/// with weight 1 on SPD matrices and so needs no estimate of ρ. Throws
/// InvalidInput naming the row where that sum is zero or not finite.
template <typename T>
std::vector<T> inverse_l1_diagonal(const CsrMatrix<T>& A);

#if BINAMG_WITH_CUDA
// GPU twins on device-resident vectors, ordered on `stream`. A sweep is one fused
// kernel writing the new iterate into `scratch`, whose storage is then swapped with
// x's (Jacobi needs the old x for every row), so after an odd number of sweeps x
// owns what was scratch's memory. All buffers have A.rows entries (caller's contract).
template <typename T>
void jacobi(const DeviceCsr<T>& A, const DeviceBuffer<T>& inverse_diagonal, T weight,
            const DeviceBuffer<T>& b, DeviceBuffer<T>& x, int sweeps, DeviceBuffer<T>& scratch,
            cudaStream_t stream = nullptr);

template <typename T>
void jacobi_from_zero(const DeviceCsr<T>& A, const DeviceBuffer<T>& inverse_diagonal, T weight,
                      const DeviceBuffer<T>& b, DeviceBuffer<T>& x, int sweeps,
                      DeviceBuffer<T>& scratch, cudaStream_t stream = nullptr);

/// Block twins: k right-hand sides stored row-major (A.rows × k entries each); a
/// sweep is the row-split SpMM with the Jacobi update as its epilogue.
template <typename T>
void jacobi(const DeviceCsr<T>& A, const DeviceBuffer<T>& inverse_diagonal, T weight,
            const DeviceBuffer<T>& b, DeviceBuffer<T>& x, index_t k, int sweeps,
            DeviceBuffer<T>& scratch, cudaStream_t stream = nullptr);

template <typename T>
void jacobi_from_zero(const DeviceCsr<T>& A, const DeviceBuffer<T>& inverse_diagonal, T weight,
                      const DeviceBuffer<T>& b, DeviceBuffer<T>& x, index_t k, int sweeps,
                      DeviceBuffer<T>& scratch, cudaStream_t stream = nullptr);

/// jacobi() on k columns whose last sweep (sweeps >= 1) also forms, in the same
/// pass, dots[j] = B(:, j)ᵀX(:, j) of its result into device memory (with B a
/// residual, the CG's rᵀz). `partials` holds column_dots_scratch_size(A, k)
/// entries (spmv/spmm.hpp); x's bits are jacobi()'s, the dots repeat bitwise run
/// to run.
template <typename T>
void jacobi_with_column_dots(const DeviceCsr<T>& A, const DeviceBuffer<T>& inverse_diagonal,
                             T weight, const DeviceBuffer<T>& b, DeviceBuffer<T>& x, index_t k,
                             int sweeps, DeviceBuffer<T>& scratch, T* dots,
                             DeviceBuffer<T>& partials, cudaStream_t stream = nullptr);

/// 1/a_ii on the GPU; throws InvalidInput naming the first row whose diagonal is zero.
template <typename T>
DeviceBuffer<T> inverse_diagonal(const DeviceCsr<T>& A, cudaStream_t stream = nullptr);

/// The same from the diagonal (diagonal(A)): the GPU setup extracts each level's
/// diagonal once and shares it with the ρ estimate and the prolongator.
template <typename T>
DeviceBuffer<T> inverse_diagonal(const DeviceBuffer<T>& diagonal, cudaStream_t stream = nullptr);

/// GPU twin of inverse_l1_diagonal, bitwise (the same sums in the same order).
template <typename T>
DeviceBuffer<T> inverse_l1_diagonal(const DeviceCsr<T>& A, cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
