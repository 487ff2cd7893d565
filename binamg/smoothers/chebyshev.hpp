#pragma once
// Chebyshev polynomial smoothing in D⁻¹A (Adams, Brezina, Hu & Tuminaro 2003):
// the error is multiplied by the polynomial of the given degree that is
// smallest on [λ_lo, λ_hi], the part of D⁻¹A's spectrum a smoother must damp
// (the coarse grid takes the rest). Unlike Jacobi it needs no weight.
#include <array>

#include "binamg/amg/parameters.hpp"
#include "binamg/core/config.hpp"
#include "binamg/sparse/csr.hpp"
#if BINAMG_WITH_CUDA
#include "binamg/sparse/device_csr.hpp"
#endif

namespace binamg {

/// The recurrence of one application, computed once on the host in double
/// and shared by both devices: step i forms
///   d ← alpha[i]·d + beta[i]·D⁻¹(b − A x),  x ← x + d   (alpha[0] = 0).
struct ChebyshevSteps {
  static constexpr int max_degree = max_chebyshev_degree;
  int degree = 0;
  std::array<double, max_degree> alpha{}, beta{};
};

/// The steps for [f·upper, upper] with upper = 1.1·spectral_radius (a few
/// power iterations underestimate ρ(D⁻¹A), and an eigenvalue above the
/// interval would be amplified) and f = lower_fraction
/// (AmgParameters::chebyshev_lower). Throws InvalidInput unless
/// 1 ≤ degree ≤ max_degree, the radius is finite and positive and 0 < f < 1.
ChebyshevSteps chebyshev_steps(double spectral_radius, int degree, double lower_fraction);

/// One application on k right-hand sides stored row-major (entry (i, j) at
/// [i·k + j]). With zero_guess x's old contents are ignored and the first step
/// needs no product with A. `residual` and `direction` are resized and
/// overwritten (the V-cycle keeps them per level).
template <typename T>
void chebyshev(const CsrMatrix<T>& A, const std::vector<T>& inverse_diagonal,
               const ChebyshevSteps& steps, const std::vector<T>& b, std::vector<T>& x, index_t k,
               bool zero_guess, std::vector<T>& residual, std::vector<T>& direction);

#if BINAMG_WITH_CUDA
/// GPU twin: every step after a zero guess's first is one pass of the SpMV (or
/// the block SpMM) with the update as its epilogue, writing the new iterate to
/// `scratch`, whose storage is then swapped with x's, as jacobi() does. x,
/// scratch and direction hold A.rows × k entries (caller's contract).
template <typename T>
void chebyshev(const DeviceCsr<T>& A, const DeviceBuffer<T>& inverse_diagonal,
               const ChebyshevSteps& steps, const DeviceBuffer<T>& b, DeviceBuffer<T>& x, index_t k,
               bool zero_guess, DeviceBuffer<T>& scratch, DeviceBuffer<T>& direction,
               cudaStream_t stream = nullptr);

/// chebyshev() that also forms dots[j] = b(:, j)ᵀx(:, j) of its result into
/// device memory (with b a residual, the CG's rᵀz): for k = 1 in the last step's
/// pass, for k > 1 in a pass of their own (column_dots). `partials` holds
/// column_dots_scratch_size(A, k) entries (spmv/spmm.hpp); x's bits are
/// chebyshev()'s, the dots repeat bitwise run to run.
template <typename T>
void chebyshev_with_column_dots(const DeviceCsr<T>& A, const DeviceBuffer<T>& inverse_diagonal,
                                const ChebyshevSteps& steps, const DeviceBuffer<T>& b,
                                DeviceBuffer<T>& x, index_t k, bool zero_guess,
                                DeviceBuffer<T>& scratch, DeviceBuffer<T>& direction, T* dots,
                                DeviceBuffer<T>& partials, cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
