#pragma once
// Estimate of ρ(D⁻¹A), which scales the prolongator smoother and the Jacobi weight.
#include "binamg/core/config.hpp"
#include "binamg/sparse/csr.hpp"
#if BINAMG_WITH_CUDA
#include "binamg/sparse/device_csr.hpp"
#endif

namespace binamg {

/// Power iteration on D⁻¹A for `iterations` steps from a fixed seeded start
/// vector, in double, returning ‖D⁻¹A x_k‖/‖x_k‖ of the last step. Deterministic
/// (same input, same bits, any thread count). Power iteration approaches ρ from
/// below; with the weights 4/3 / ρ the small underestimate it leaves after ~20
/// steps keeps Jacobi stable (w·λ_max stays well below 2). A must be square with
/// a nonzero diagonal.
template <typename T>
double spectral_radius_dinv_a(const CsrMatrix<T>& A, int iterations);

#if BINAMG_WITH_CUDA
/// GPU twin: the same start vector (computed on the device from the same hash),
/// the same iteration in double on the device. Equal to the CPU estimate up to the
/// summation order of the norms and row sums (relative differences ~1e-15).
template <typename T>
double spectral_radius_dinv_a(const DeviceCsr<T>& A, int iterations,
                              cudaStream_t stream = nullptr);

/// The same with A's diagonal given (diagonal(A), every entry nonzero: the caller
/// has checked it, as the GPU setup does once per level). The iteration runs on
/// the device without host round trips; the norms are read back once.
template <typename T>
double spectral_radius_dinv_a(const DeviceCsr<T>& A, const DeviceBuffer<T>& diagonal,
                              int iterations, cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
