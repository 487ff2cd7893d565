#pragma once
// Estimate of ρ(D⁻¹A), which scales the prolongator smoother and the Jacobi weight.
#include "binamg/core/config.hpp"
#include "binamg/sparse/csr.hpp"
#if BINAMG_WITH_CUDA
#include <optional>

#include "binamg/core/read_back.hpp"
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

/// The same estimate begun without waiting for it: queued on a stream of its
/// own, `side`, after the work queued on `stream` so far, so that it runs
/// beside what the host queues on `stream` next (the setup's strength and
/// aggregation, whose read-backs leave the GPU idle between their kernels).
/// wait() returns the estimate, the bits of spectral_radius_dinv_a. The
/// destructor orders the work queued on `stream` after it: A and the
/// diagonal must live until then.
template <typename T>
class SpectralRadiusEstimate {
 public:
  SpectralRadiusEstimate(const DeviceCsr<T>& A, const DeviceBuffer<T>& diagonal, int iterations,
                         cudaStream_t stream, cudaStream_t side);
  ~SpectralRadiusEstimate();
  SpectralRadiusEstimate(const SpectralRadiusEstimate&) = delete;
  SpectralRadiusEstimate& operator=(const SpectralRadiusEstimate&) = delete;

  /// Waits for the iteration alone and returns the estimate.
  double wait();

 private:
  cudaStream_t stream_;
  int iterations_;
  cudaEvent_t inputs_ready_ = nullptr;
  DeviceBuffer<double> dots_;
  std::optional<PendingRead> read_;
};
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
