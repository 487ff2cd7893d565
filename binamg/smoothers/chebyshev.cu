// GPU twin of the Chebyshev smoother.
#include <string>

#include "binamg/core/error.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/smoothers/chebyshev.hpp"
#include "binamg/spmv/block_row_split.cuh"
#include "binamg/spmv/row_stream.cuh"

namespace binamg {
namespace {

constexpr int chebyshev_threads = 256;

// A step's epilogue for the rows summed by spmv/row_stream.cuh (k = 1) or the
// block kernel, in the CPU's order of operations: d = α·d + β·d⁻¹·(b − sum)
// (α·d left out on the first step, where d holds nothing yet), x_new = x + d.
// Each entry of d is read and written by its own row only. The last step does
// not store d: no later step reads it, and the next application starts afresh.
template <typename T>
struct ChebyshevEntry {
  const T* __restrict__ inverse_diagonal;
  T alpha, beta;
  bool first, last;
  const T* __restrict__ b;
  const T* __restrict__ x;
  T* __restrict__ x_new;
  T* __restrict__ direction;
  index_t k;
  __device__ void operator()(index_t row, index_t c, T sum) const {
    const std::int64_t e = std::int64_t(row) * k + c;
    const T step = beta * inverse_diagonal[row] * (b[e] - sum);
    const T d = first ? step : alpha * direction[e] + step;
    if (!last) direction[e] = d;
    x_new[e] = x[e] + d;
  }
  __device__ void operator()(index_t row, T sum) const { (*this)(row, 0, sum); }
};

// One thread per entry: the first step from x = 0, d = x = β·d⁻¹·b (d stored
// unless it is also the last step).
template <typename T>
__global__ void chebyshev_first_step(std::int64_t entries, index_t k, const T* inverse_diagonal,
                                     T beta, const T* b, T* x, T* direction, bool last) {
  const std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= entries) return;
  const T d = beta * inverse_diagonal[e / k] * b[e];
  if (!last) direction[e] = d;
  x[e] = d;
}

}  // namespace

template <typename T>
void chebyshev(const DeviceCsr<T>& A, const DeviceBuffer<T>& inverse_diagonal,
               const ChebyshevSteps& steps, const DeviceBuffer<T>& b, DeviceBuffer<T>& x, index_t k,
               bool zero_guess, DeviceBuffer<T>& scratch, DeviceBuffer<T>& direction,
               cudaStream_t stream) {
  const std::int64_t entries = std::int64_t(A.rows) * k;
  // The V-cycle's workspace holds a direction only where the hierarchy was
  // built for Chebyshev: a buffer too small is refused, never overrun.
  require(x.size() >= std::size_t(entries) && scratch.size() >= std::size_t(entries) &&
              direction.size() >= std::size_t(entries),
          "chebyshev: x, scratch and direction need rows x k = " + std::to_string(entries) +
              " entries (a workspace made before the smoother was changed to Chebyshev?)");
  if (entries == 0) return;
  for (int i = 0; i < steps.degree; ++i) {
    const T alpha = static_cast<T>(steps.alpha[i]), beta = static_cast<T>(steps.beta[i]);
    const bool last = i + 1 == steps.degree;
    if (zero_guess && i == 0) {
      chebyshev_first_step<<<blocks_for(entries, chebyshev_threads), chebyshev_threads, 0,
                             stream>>>(entries, k, inverse_diagonal.data(), beta, b.data(),
                                       x.data(), direction.data(), last);
      BINAMG_CHECK_LAUNCH();
      continue;
    }
    const ChebyshevEntry<T> update{
        inverse_diagonal.data(), alpha, beta, i == 0, last, b.data(), x.data(), scratch.data(),
        direction.data(),        k};
    if (k == 1)
      row_stream::launch<T>(A, row_stream::VectorEntry<T>{x.data()}, update, stream);
    else
      block_row_split::launch(A, k, block_row_split::BlockEntry<T>{x.data(), k}, update, stream);
    x.swap(scratch);
  }
}

#define BINAMG_INSTANTIATE(T)                                                                    \
  template void chebyshev<T>(const DeviceCsr<T>&, const DeviceBuffer<T>&, const ChebyshevSteps&, \
                             const DeviceBuffer<T>&, DeviceBuffer<T>&, index_t, bool,            \
                             DeviceBuffer<T>&, DeviceBuffer<T>&, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
