// GPU twin of the Chebyshev smoother.
#include <string>

#include "binamg/core/chained_launch.cuh"
#include "binamg/core/error.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/smoothers/chebyshev.hpp"
#include "binamg/spmv/block_row_split.cuh"
#include "binamg/spmv/row_stream.cuh"
#include "binamg/spmv/spmm.hpp"
#include "binamg/vector/block_vector_ops.hpp"

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
  // Stores the step at entry e of row `row` and returns x_new[e].
  __device__ T step(std::int64_t e, index_t row, T sum) const {
    const T step = beta * inverse_diagonal[row] * (b[e] - sum);
    const T d = first ? step : alpha * direction[e] + step;
    if (!last) direction[e] = d;
    const T value = x[e] + d;
    x_new[e] = value;
    return value;
  }
  __device__ void operator()(index_t row, index_t c, T sum) const {
    step(std::int64_t(row) * k + c, row, sum);
  }
  __device__ void operator()(index_t row, T sum) const { step(row, row, sum); }
};

// The last step's epilogue when the caller also wants bᵀx_new (k = 1): the step
// reads b's entry anyway, so the dot costs no pass of its own. k > 1 forms the
// dots in a pass after the step: the block kernel's fused sums
// (block_row_split::launch_with_column_sums) gave a 3D 7-point 16³ level
// other bits than the plain block step in float at k = 32 (docs/experiments.md).
template <typename T>
struct ChebyshevAndDot {
  ChebyshevEntry<T> update;
  __device__ T operator()(index_t row, T sum) const {
    return update.b[row] * update.step(row, row, sum);
  }
};

// One thread per entry: the first step from x = 0, d = x = β·d⁻¹·b (d stored
// unless it is also the last step).
template <typename T>
__global__ void chebyshev_first_step(std::int64_t entries, index_t k, const T* inverse_diagonal,
                                     T beta, const T* b, T* x, T* direction, bool last) {
  wait_for_prior_kernel();
  const std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= entries) return;
  const T d = beta * inverse_diagonal[e / k] * b[e];
  if (!last) direction[e] = d;
  x[e] = d;
}

// The steps of chebyshev(); with dots, the last step also forms them
// (chebyshev_with_column_dots).
template <typename T>
void chebyshev_steps_on(const DeviceCsr<T>& A, const DeviceBuffer<T>& inverse_diagonal,
                        const ChebyshevSteps& steps, const DeviceBuffer<T>& b, DeviceBuffer<T>& x,
                        index_t k, bool zero_guess, DeviceBuffer<T>& scratch,
                        DeviceBuffer<T>& direction, T* dots, DeviceBuffer<T>* partials,
                        cudaStream_t stream) {
  const std::int64_t entries = std::int64_t(A.rows) * k;
  // The V-cycle's workspace holds a direction only where the hierarchy was
  // built for Chebyshev: a buffer too small is refused, never overrun.
  require(x.size() >= std::size_t(entries) && scratch.size() >= std::size_t(entries) &&
              direction.size() >= std::size_t(entries),
          "chebyshev: x, scratch and direction need rows x k = " + std::to_string(entries) +
              " entries (a workspace made before the smoother was changed to Chebyshev?)");
  if (entries == 0 && !dots) return;
  for (int i = 0; i < steps.degree; ++i) {
    const T alpha = static_cast<T>(steps.alpha[i]), beta = static_cast<T>(steps.beta[i]);
    const bool last = i + 1 == steps.degree;
    if (zero_guess && i == 0) {
      if (entries > 0) {
        launch_chained(chebyshev_first_step<T>, blocks_for(entries, chebyshev_threads),
                       chebyshev_threads, 0, stream, entries, k, inverse_diagonal.data(), beta,
                       b.data(), x.data(), direction.data(), last);
      }
      if (last && dots) column_dots(b, x, k, dots, *partials, stream);
      continue;
    }
    const ChebyshevEntry<T> update{
        inverse_diagonal.data(), alpha, beta, i == 0, last, b.data(), x.data(), scratch.data(),
        direction.data(),        k};
    if (k > 1)
      block_row_split::launch(A, k, block_row_split::BlockEntry<T>{x.data(), k}, update, stream);
    else if (last && dots)
      row_stream::launch_with_sum<T>(A, row_stream::VectorEntry<T>{x.data()},
                                     ChebyshevAndDot<T>{update}, dots, *partials, stream);
    else
      row_stream::launch<T>(A, row_stream::VectorEntry<T>{x.data()}, update, stream);
    x.swap(scratch);
    if (last && dots && k > 1) column_dots(b, x, k, dots, *partials, stream);
  }
}

}  // namespace

template <typename T>
void chebyshev(const DeviceCsr<T>& A, const DeviceBuffer<T>& inverse_diagonal,
               const ChebyshevSteps& steps, const DeviceBuffer<T>& b, DeviceBuffer<T>& x, index_t k,
               bool zero_guess, DeviceBuffer<T>& scratch, DeviceBuffer<T>& direction,
               cudaStream_t stream) {
  chebyshev_steps_on<T>(A, inverse_diagonal, steps, b, x, k, zero_guess, scratch, direction,
                        nullptr, nullptr, stream);
}

template <typename T>
void chebyshev_with_column_dots(const DeviceCsr<T>& A, const DeviceBuffer<T>& inverse_diagonal,
                                const ChebyshevSteps& steps, const DeviceBuffer<T>& b,
                                DeviceBuffer<T>& x, index_t k, bool zero_guess,
                                DeviceBuffer<T>& scratch, DeviceBuffer<T>& direction, T* dots,
                                DeviceBuffer<T>& partials, cudaStream_t stream) {
  require(steps.degree >= 1,
          "chebyshev_with_column_dots: the dots come from a step, the degree must be >= 1");
  require(dots != nullptr, "chebyshev_with_column_dots: the dots pointer is null");
  require(partials.size() >= column_dots_scratch_size(A, k),
          "chebyshev_with_column_dots: the partial sums scratch is too small");
  chebyshev_steps_on<T>(A, inverse_diagonal, steps, b, x, k, zero_guess, scratch, direction, dots,
                        &partials, stream);
}

#define BINAMG_INSTANTIATE(T)                                                                     \
  template void chebyshev<T>(const DeviceCsr<T>&, const DeviceBuffer<T>&, const ChebyshevSteps&,  \
                             const DeviceBuffer<T>&, DeviceBuffer<T>&, index_t, bool,             \
                             DeviceBuffer<T>&, DeviceBuffer<T>&, cudaStream_t);                   \
  template void chebyshev_with_column_dots<T>(                                                    \
      const DeviceCsr<T>&, const DeviceBuffer<T>&, const ChebyshevSteps&, const DeviceBuffer<T>&, \
      DeviceBuffer<T>&, index_t, bool, DeviceBuffer<T>&, DeviceBuffer<T>&, T*, DeviceBuffer<T>&,  \
      cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
