// GPU twin of weighted Jacobi.
#include <climits>
#include <string>

#include "binamg/core/chained_launch.cuh"
#include "binamg/core/device_value.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"
#include "binamg/smoothers/jacobi.hpp"
#include "binamg/smoothers/l1_diagonal.hpp"
#include "binamg/sparse/csr.hpp"
#include "binamg/spmv/block_row_split.cuh"
#include "binamg/spmv/row_stream.cuh"
#include "binamg/spmv/spmm.hpp"

namespace binamg {
namespace {

constexpr int jacobi_threads = 256;

// The sweep's epilogue, for the rows summed by spmv/row_stream.cuh (k = 1) or
// by the block kernel: X_new(row, c) = X(row, c) + (w·d⁻¹[row])·(B(row, c) − the
// row's sum), the CPU's order of operations. Reads only the old X, so rows are
// independent.
template <typename T>
struct JacobiEntry {
  const T* __restrict__ inverse_diagonal;
  T weight;
  const T* __restrict__ b;
  const T* __restrict__ x;
  T* __restrict__ x_new;
  index_t k;
  __device__ T updated(std::int64_t e, index_t row, T sum) const {
    return x[e] + weight * inverse_diagonal[row] * (b[e] - sum);
  }
  __device__ void operator()(index_t row, index_t c, T sum) const {
    const std::int64_t e = std::int64_t(row) * k + c;
    x_new[e] = updated(e, row, sum);
  }
  __device__ void operator()(index_t row, T sum) const { (*this)(row, 0, sum); }
};

// The last sweep's epilogue when the caller also wants B(:, c)ᵀX_new(:, c).
template <typename T>
struct JacobiAndDot {
  JacobiEntry<T> sweep;
  __device__ T operator()(index_t row, index_t c, T sum) const {
    const std::int64_t e = std::int64_t(row) * sweep.k + c;
    const T value = sweep.updated(e, row, sum);
    sweep.x_new[e] = value;
    return sweep.b[e] * value;
  }
  __device__ T operator()(index_t row, T sum) const { return (*this)(row, 0, sum); }
};

template <typename T>
void sweep(const DeviceCsr<T>& A, const T* inverse_diagonal, T weight, const T* b, const T* x,
           T* x_new, cudaStream_t stream) {
  row_stream::launch<T>(A, row_stream::VectorEntry<T>{x},
                        JacobiEntry<T>{inverse_diagonal, weight, b, x, x_new, 1}, stream);
}

// One thread per row: x[row] = w·d⁻¹[row]·b[row], the first sweep from x = 0.
template <typename T>
__global__ void jacobi_first_sweep(index_t rows, const T* inverse_diagonal, T weight, const T* b,
                                   T* x) {
  wait_for_prior_kernel();
  const index_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) x[row] = weight * inverse_diagonal[row] * b[row];
}

// One thread per entry of a row-major block: x = w·d⁻¹·b, the first sweep from zero.
template <typename T>
__global__ void jacobi_first_block_sweep(std::int64_t entries, index_t k, const T* inverse_diagonal,
                                         T weight, const T* b, T* x) {
  wait_for_prior_kernel();
  const std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < entries) x[e] = weight * inverse_diagonal[e / k] * b[e];
}

// One thread per row: writes 1/a_ii, or lowers *first_bad to the row when a_ii == 0
// (the smallest bad row wins, so the message is deterministic).
template <typename T>
__global__ void invert_diagonal(index_t rows, const T* diag, T* inverse, index_t* first_bad) {
  const index_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const T inverse_value = T(1) / diag[row];
  inverse[row] = inverse_value;
  if (!isfinite(inverse_value)) atomicMin(first_bad, row);  // a zero or subnormal diagonal
}

// One thread per row: 1/l1_diagonal, the host's sums in the host's order; a
// row whose inverse is not finite lowers *first_bad as above.
template <typename T>
__global__ void invert_l1_diagonal(index_t rows, const index_t* row_ptr, const index_t* col_idx,
                                   const T* values, T* inverse, index_t* first_bad) {
  const index_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const T sum = smoother_detail::l1_diagonal(row, row_ptr, col_idx, values);
  const T inverse_value = T(1) / sum;
  inverse[row] = inverse_value;
  if (!isfinite(inverse_value) || !isfinite(sum)) atomicMin(first_bad, row);
}

}  // namespace

template <typename T>
void jacobi(const DeviceCsr<T>& A, const DeviceBuffer<T>& inverse_diagonal, T weight,
            const DeviceBuffer<T>& b, DeviceBuffer<T>& x, int sweeps, DeviceBuffer<T>& scratch,
            cudaStream_t stream) {
  if (A.rows == 0) return;
  for (int k = 0; k < sweeps; ++k) {
    sweep(A, inverse_diagonal.data(), weight, b.data(), x.data(), scratch.data(), stream);
    x.swap(scratch);
  }
}

template <typename T>
void jacobi_from_zero(const DeviceCsr<T>& A, const DeviceBuffer<T>& inverse_diagonal, T weight,
                      const DeviceBuffer<T>& b, DeviceBuffer<T>& x, int sweeps,
                      DeviceBuffer<T>& scratch, cudaStream_t stream) {
  if (sweeps == 0) {
    if (A.rows > 0) BINAMG_CUDA_CHECK(cudaMemsetAsync(x.data(), 0, sizeof(T) * A.rows, stream));
    return;
  }
  launch_chained(jacobi_first_sweep<T>, blocks_for(A.rows, jacobi_threads), jacobi_threads, 0,
                 stream, A.rows, inverse_diagonal.data(), weight, b.data(), x.data());
  jacobi(A, inverse_diagonal, weight, b, x, sweeps - 1, scratch, stream);
}

template <typename T>
void jacobi(const DeviceCsr<T>& A, const DeviceBuffer<T>& inverse_diagonal, T weight,
            const DeviceBuffer<T>& b, DeviceBuffer<T>& x, index_t k, int sweeps,
            DeviceBuffer<T>& scratch, cudaStream_t stream) {
  if (k == 1) return jacobi(A, inverse_diagonal, weight, b, x, sweeps, scratch, stream);
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    block_row_split::launch(
        A, k, block_row_split::BlockEntry<T>{x.data(), k},
        JacobiEntry<T>{inverse_diagonal.data(), weight, b.data(), x.data(), scratch.data(), k},
        stream);
    x.swap(scratch);
  }
}

template <typename T>
void jacobi_from_zero(const DeviceCsr<T>& A, const DeviceBuffer<T>& inverse_diagonal, T weight,
                      const DeviceBuffer<T>& b, DeviceBuffer<T>& x, index_t k, int sweeps,
                      DeviceBuffer<T>& scratch, cudaStream_t stream) {
  if (k == 1) return jacobi_from_zero(A, inverse_diagonal, weight, b, x, sweeps, scratch, stream);
  const std::int64_t entries = std::int64_t(A.rows) * k;
  if (entries == 0) return;
  if (sweeps == 0) {
    BINAMG_CUDA_CHECK(cudaMemsetAsync(x.data(), 0, sizeof(T) * entries, stream));
    return;
  }
  launch_chained(jacobi_first_block_sweep<T>, blocks_for(entries, jacobi_threads), jacobi_threads,
                 0, stream, entries, k, inverse_diagonal.data(), weight, b.data(), x.data());
  jacobi(A, inverse_diagonal, weight, b, x, k, sweeps - 1, scratch, stream);
}

template <typename T>
void jacobi_with_column_dots(const DeviceCsr<T>& A, const DeviceBuffer<T>& inverse_diagonal,
                             T weight, const DeviceBuffer<T>& b, DeviceBuffer<T>& x, index_t k,
                             int sweeps, DeviceBuffer<T>& scratch, T* dots,
                             DeviceBuffer<T>& partials, cudaStream_t stream) {
  require(sweeps >= 1, "jacobi_with_column_dots: the dots come from a sweep, sweeps must be >= 1");
  require(partials.size() >= column_dots_scratch_size(A, k),
          "jacobi_with_column_dots: the partial sums scratch is too small");
  jacobi(A, inverse_diagonal, weight, b, x, k, sweeps - 1, scratch, stream);
  const JacobiEntry<T> last{inverse_diagonal.data(), weight, b.data(), x.data(), scratch.data(), k};
  if (k == 1)  // the vector kernels, for jacobi()'s bits
    row_stream::launch_with_sum<T>(A, row_stream::VectorEntry<T>{x.data()}, JacobiAndDot<T>{last},
                                   dots, partials, stream);
  else
    block_row_split::launch_with_column_sums(A, k, block_row_split::BlockEntry<T>{x.data(), k},
                                             JacobiAndDot<T>{last}, dots, partials, stream);
  x.swap(scratch);
}

template <typename T>
DeviceBuffer<T> inverse_diagonal(const DeviceCsr<T>& A, cudaStream_t stream) {
  require(A.rows == A.cols, "inverse_diagonal: the matrix is not square (" +
                                std::to_string(A.rows) + " x " + std::to_string(A.cols) + ")");
  return inverse_diagonal(diagonal(A, stream), stream);
}

template <typename T>
DeviceBuffer<T> inverse_diagonal(const DeviceBuffer<T>& diag, cudaStream_t stream) {
  const index_t rows = checked_index(static_cast<std::int64_t>(diag.size()), "inverse_diagonal");
  DeviceBuffer<T> inverse(rows, stream, "inverse diagonal");
  DeviceBuffer<index_t> first_bad = device_value(index_t(INT_MAX), stream, "first bad row");
  if (rows > 0) {
    invert_diagonal<<<blocks_for(rows, jacobi_threads), jacobi_threads, 0, stream>>>(
        rows, diag.data(), inverse.data(), first_bad.data());
    BINAMG_CHECK_LAUNCH();
  }
  const index_t bad = read_back(first_bad.data(), stream);
  if (bad != INT_MAX) {
    T value{};
    read_back(&value, diag.data() + bad, sizeof(T), stream);
    throw InvalidInput("inverse_diagonal: row " + std::to_string(bad) + " " +
                       unusable_diagonal_reason(value));
  }
  return inverse;
}

template <typename T>
DeviceBuffer<T> inverse_l1_diagonal(const DeviceCsr<T>& A, cudaStream_t stream) {
  DeviceBuffer<T> inverse(A.rows, stream, "inverse l1 diagonal");
  DeviceBuffer<index_t> first_bad = device_value(index_t(INT_MAX), stream, "first bad row");
  if (A.rows > 0) {
    invert_l1_diagonal<<<blocks_for(A.rows, jacobi_threads), jacobi_threads, 0, stream>>>(
        A.rows, A.row_ptr.data(), A.col_idx.data(), A.values.data(), inverse.data(),
        first_bad.data());
    BINAMG_CHECK_LAUNCH();
  }
  const index_t bad = read_back(first_bad.data(), stream);
  if (bad != INT_MAX)
    throw InvalidInput("inverse_l1_diagonal: row " + std::to_string(bad) +
                       smoother_detail::l1_diagonal_problem);
  return inverse;
}

#define BINAMG_INSTANTIATE(T)                                                                      \
  template void jacobi<T>(const DeviceCsr<T>&, const DeviceBuffer<T>&, T, const DeviceBuffer<T>&,  \
                          DeviceBuffer<T>&, int, DeviceBuffer<T>&, cudaStream_t);                  \
  template void jacobi_from_zero<T>(const DeviceCsr<T>&, const DeviceBuffer<T>&, T,                \
                                    const DeviceBuffer<T>&, DeviceBuffer<T>&, int,                 \
                                    DeviceBuffer<T>&, cudaStream_t);                               \
  template void jacobi<T>(const DeviceCsr<T>&, const DeviceBuffer<T>&, T, const DeviceBuffer<T>&,  \
                          DeviceBuffer<T>&, index_t, int, DeviceBuffer<T>&, cudaStream_t);         \
  template void jacobi_from_zero<T>(const DeviceCsr<T>&, const DeviceBuffer<T>&, T,                \
                                    const DeviceBuffer<T>&, DeviceBuffer<T>&, index_t, int,        \
                                    DeviceBuffer<T>&, cudaStream_t);                               \
  template void jacobi_with_column_dots<T>(const DeviceCsr<T>&, const DeviceBuffer<T>&, T,         \
                                           const DeviceBuffer<T>&, DeviceBuffer<T>&, index_t, int, \
                                           DeviceBuffer<T>&, T*, DeviceBuffer<T>&, cudaStream_t);  \
  template DeviceBuffer<T> inverse_diagonal<T>(const DeviceCsr<T>&, cudaStream_t);                 \
  template DeviceBuffer<T> inverse_diagonal<T>(const DeviceBuffer<T>&, cudaStream_t);              \
  template DeviceBuffer<T> inverse_l1_diagonal<T>(const DeviceCsr<T>&, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
