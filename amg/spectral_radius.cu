// GPU twin of the ρ(D⁻¹A) power iteration.
#include <cmath>

#include "amg/spectral_radius.hpp"
#include "core/hash.hpp"
#include "core/launch.hpp"
#include "smoothers/jacobi.hpp"
#include "sparse/vector_ops.hpp"

namespace binamg {
namespace {

constexpr int power_threads = 256;

// One thread per row: y[row] = (A x)[row] / a_ii in double, as the CPU computes it.
template <typename T>
__global__ void dinv_a_times(index_t rows, const index_t* row_ptr, const index_t* col_idx,
                             const T* values, const T* diag, const double* x, double* y) {
  const index_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  double sum = 0;
  for (index_t k = row_ptr[row]; k < row_ptr[row + 1]; ++k)
    sum += double(values[k]) * x[col_idx[k]];
  y[row] = sum / double(diag[row]);
}

// One thread per entry: the start vector of the CPU version, computed in place.
__global__ void hashed_start(index_t n, double* x) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = hashed_unit_value(static_cast<std::uint32_t>(i));
}

// One thread per entry: x = y·scale.
__global__ void scale_into(index_t n, const double* y, double scale, double* x) {
  const index_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) x[k] = y[k] * scale;
}

}  // namespace

template <typename T>
double spectral_radius_dinv_a(const DeviceCsr<T>& A, int iterations, cudaStream_t stream) {
  require(iterations >= 1, "spectral_radius_dinv_a: iterations must be >= 1");
  inverse_diagonal(A, stream);  // throws unless square with a nonzero diagonal
  const index_t n = A.rows;
  const DeviceBuffer<T> diag = diagonal(A, stream);
  DeviceBuffer<double> x(n, stream, "power iteration start");
  DeviceBuffer<double> y(n, stream, "power iteration");
  const unsigned blocks = blocks_for(n, power_threads);
  if (n > 0) {
    hashed_start<<<blocks, power_threads, 0, stream>>>(n, x.data());
    BINAMG_CHECK_LAUNCH();
  }
  double x_norm = norm2(x, stream);
  double estimate = 0;
  for (int step = 0; step < iterations; ++step) {
    dinv_a_times<<<blocks, power_threads, 0, stream>>>(n, A.row_ptr.data(), A.col_idx.data(),
                                                       A.values.data(), diag.data(), x.data(),
                                                       y.data());
    BINAMG_CHECK_LAUNCH();
    const double y_norm = norm2(y, stream);
    estimate = y_norm / x_norm;
    if (y_norm == 0) break;  // x in the nullspace: no better estimate to be had
    scale_into<<<blocks, power_threads, 0, stream>>>(n, y.data(), 1.0 / y_norm, x.data());
    BINAMG_CHECK_LAUNCH();
    x_norm = 1.0;
  }
  return estimate;
}

template double spectral_radius_dinv_a<float>(const DeviceCsr<float>&, int, cudaStream_t);
template double spectral_radius_dinv_a<double>(const DeviceCsr<double>&, int, cudaStream_t);

}  // namespace binamg
