// GPU twin of the ρ(D⁻¹A) power iteration.
#include <algorithm>
#include <cmath>

#include "binamg/amg/spectral_radius.hpp"
#include "binamg/core/hash.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"
#include "binamg/smoothers/jacobi.hpp"
#include "binamg/spmv/row_stream.cuh"
#include "binamg/vector/vector_ops.hpp"

namespace binamg {
namespace {

constexpr int power_threads = 256;

// y = D⁻¹A x̂ in double as the CPU computes it, rows summed by spmv/row_stream.cuh:
// x̂ = x, or x·(1/‖x‖) when squared_norm (‖x‖², device memory) is given, the
// factor formed in each thread as the CPU forms it once (IEEE division and root,
// so the same bits) and applied to each row's sum, so the products are a plain
// SpMV's and x̂ is never formed. Each row returns y_i², which the pass adds into
// ‖y‖² (row_stream::launch_with_sum): the norm takes no pass of its own.
template <typename T>
struct DivideByDiagonal {
  const T* __restrict__ diag;
  const double* __restrict__ squared_norm;
  double* __restrict__ y;
  __device__ double operator()(index_t row, double sum) const {
    const double value =
        (squared_norm ? sum * (1.0 / sqrt(*squared_norm)) : sum) / double(diag[row]);
    y[row] = value;
    return value * value;
  }
};

// One thread per entry: the start vector of the CPU version, computed in place.
__global__ void hashed_start(index_t n, double* x) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = hashed_unit_value(static_cast<std::uint32_t>(i));
}

// Queues the power iteration on `stream`: dots[0] = ‖x_0‖², dots[k + 1] =
// ‖D⁻¹A x_k‖². It runs without the host; the norms are read once, at the end.
template <typename T>
DeviceBuffer<double> power_iteration_norms(const DeviceCsr<T>& A, const DeviceBuffer<T>& diag,
                                           int iterations, cudaStream_t stream) {
  require(iterations >= 1, "spectral_radius_dinv_a: iterations must be >= 1");
  require(diag.size() == static_cast<std::size_t>(A.rows),
          "spectral_radius_dinv_a: the diagonal does not match A's rows");
  const index_t n = A.rows;
  // y_k = D⁻¹A x̂_k alternates between two buffers; x̂_0 is the start vector
  // (in the first) and x̂_k = y_{k-1}/‖y_{k-1}‖ is formed inside the product.
  DeviceBuffer<double> vectors[2] = {DeviceBuffer<double>(n, stream, "power iteration"),
                                     DeviceBuffer<double>(n, stream, "power iteration")};
  DeviceBuffer<double> scratch(std::max(reduction_scratch_size(n), row_stream::sum_scratch_size(A)),
                               stream, "power iteration scratch");
  DeviceBuffer<double> dots(std::size_t(iterations) + 1, stream, "power iteration norms");
  const unsigned blocks = blocks_for(n, power_threads);
  if (n > 0) {
    hashed_start<<<blocks, power_threads, 0, stream>>>(n, vectors[0].data());
    BINAMG_CHECK_LAUNCH();
  }
  dot(vectors[0], vectors[0], dots.data(), scratch, stream);
  for (int step = 0; step < iterations; ++step) {
    const DeviceBuffer<double>& x = vectors[step % 2];
    DeviceBuffer<double>& y = vectors[(step + 1) % 2];
    // ‖y_k‖ = 0 makes x̂_{k+1} non-finite; the host stops reading at that step.
    const double* x_squared_norm = step == 0 ? nullptr : dots.data() + step;
    row_stream::launch_with_sum<double>(A, row_stream::VectorEntry<double>{x.data()},
                                        DivideByDiagonal<T>{diag.data(), x_squared_norm, y.data()},
                                        dots.data() + step + 1, scratch, stream);
  }
  return dots;
}

// The host loop of the CPU version on the recorded norms (x_k is a unit vector for k ≥ 1).
double estimate_from_norms(const std::vector<double>& squared_norms) {
  double x_norm = std::sqrt(squared_norms[0]);
  double estimate = 0;
  for (std::size_t step = 0; step + 1 < squared_norms.size(); ++step) {
    const double y_norm = std::sqrt(squared_norms[step + 1]);
    estimate = y_norm / x_norm;
    if (y_norm == 0) break;  // x in the nullspace: no better estimate to be had
    x_norm = 1.0;
  }
  return estimate;
}

}  // namespace

template <typename T>
double spectral_radius_dinv_a(const DeviceCsr<T>& A, int iterations, cudaStream_t stream) {
  require(iterations >= 1, "spectral_radius_dinv_a: iterations must be >= 1");
  inverse_diagonal(A, stream);  // throws unless square with a nonzero diagonal
  return spectral_radius_dinv_a(A, diagonal(A, stream), iterations, stream);
}

template <typename T>
double spectral_radius_dinv_a(const DeviceCsr<T>& A, const DeviceBuffer<T>& diag,
                              int iterations, cudaStream_t stream) {
  const DeviceBuffer<double> dots = power_iteration_norms(A, diag, iterations, stream);
  std::vector<double> squared_norms(dots.size());
  read_back(squared_norms.data(), dots.data(), dots.size() * sizeof(double), stream);
  return estimate_from_norms(squared_norms);
}

template <typename T>
SpectralRadiusEstimate<T>::SpectralRadiusEstimate(const DeviceCsr<T>& A,
                                                  const DeviceBuffer<T>& diagonal, int iterations,
                                                  cudaStream_t stream, cudaStream_t side)
    : stream_(stream), iterations_(iterations) {
  BINAMG_CUDA_CHECK(cudaEventCreateWithFlags(&inputs_ready_, cudaEventDisableTiming));
  BINAMG_CUDA_CHECK(cudaEventRecord(inputs_ready_, stream));
  BINAMG_CUDA_CHECK(cudaStreamWaitEvent(side, inputs_ready_, 0));
  dots_ = power_iteration_norms(A, diagonal, iterations, side);
  read_.emplace(dots_.data(), dots_.size() * sizeof(double), side);
}

template <typename T>
SpectralRadiusEstimate<T>::~SpectralRadiusEstimate() {
  // Work queued on `stream` from here on (the frees of A and its diagonal
  // among it) is ordered after the iteration's reads; nothing to report.
  if (read_) cudaStreamWaitEvent(stream_, read_->done(), 0);
  if (inputs_ready_ != nullptr) cudaEventDestroy(inputs_ready_);
}

template <typename T>
double SpectralRadiusEstimate<T>::wait() {
  std::vector<double> squared_norms(std::size_t(iterations_) + 1);
  read_->wait(squared_norms.data());
  return estimate_from_norms(squared_norms);
}

#define BINAMG_INSTANTIATE(T)                                                              \
  template double spectral_radius_dinv_a<T>(const DeviceCsr<T>&, int, cudaStream_t);       \
  template double spectral_radius_dinv_a<T>(const DeviceCsr<T>&, const DeviceBuffer<T>&, int, \
                                            cudaStream_t);                                    \
  template class SpectralRadiusEstimate<T>;
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
