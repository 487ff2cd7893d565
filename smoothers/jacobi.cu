// GPU twin of weighted Jacobi.
#include <climits>
#include <string>

#include "core/launch.hpp"
#include "smoothers/jacobi.hpp"
#include "sparse/spmm_kernels.hpp"

namespace binamg {
namespace {

constexpr int jacobi_threads = 256;

// A group of L lanes per row (as the row-split SpMV, so that a warp reads whole
// rows of A at once): lane l sums the row's entries l, l+L, ... in order, the
// group adds its partial sums in a fixed shuffle tree (the same bits every run),
// and lane 0 writes x_new[row] = x[row] + (w·d⁻¹[row])·(b[row] − (A x)[row]), the
// CPU's order of operations. Reads only the old x, so rows are independent.
template <typename T, int L>
__global__ void __launch_bounds__(jacobi_threads)
    jacobi_sweep(index_t rows, const index_t* __restrict__ row_ptr,
                 const index_t* __restrict__ col_idx, const T* __restrict__ values,
                 const T* __restrict__ inverse_diagonal, T weight, const T* __restrict__ b,
                 const T* __restrict__ x, T* __restrict__ x_new) {
  const std::int64_t row = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / L;
  if (row >= rows) return;  // whole groups leave together: L divides the warp
  const int lane = threadIdx.x % L;
  const unsigned mask = L == 32 ? 0xffffffffu : ((1u << L) - 1) << ((threadIdx.x % 32) / L * L);
  T sum = 0;
  const index_t end = row_ptr[row + 1];
  for (index_t k = row_ptr[row] + lane; k < end; k += L) sum += values[k] * x[col_idx[k]];
#pragma unroll
  for (int offset = L / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(mask, sum, offset, L);
  if (lane == 0) x_new[row] = x[row] + weight * inverse_diagonal[row] * (b[row] - sum);
}

template <typename T, int L>
void launch_sweep(const DeviceCsr<T>& A, const T* inverse_diagonal, T weight, const T* b,
                  const T* x, T* x_new, cudaStream_t stream) {
  jacobi_sweep<T, L><<<blocks_for(std::int64_t(A.rows) * L, jacobi_threads), jacobi_threads, 0,
                       stream>>>(A.rows, A.row_ptr.data(), A.col_idx.data(), A.values.data(),
                                 inverse_diagonal, weight, b, x, x_new);
  BINAMG_CHECK_LAUNCH();
}

// Lanes per row as the SpMV picks them: the power of two at or above the mean row length.
template <typename T>
void sweep(const DeviceCsr<T>& A, const T* inverse_diagonal, T weight, const T* b, const T* x,
           T* x_new, cudaStream_t stream) {
  switch (spmm_detail::spmv_lanes_per_row(A.rows, A.nnz)) {
    case 2: return launch_sweep<T, 2>(A, inverse_diagonal, weight, b, x, x_new, stream);
    case 4: return launch_sweep<T, 4>(A, inverse_diagonal, weight, b, x, x_new, stream);
    case 8: return launch_sweep<T, 8>(A, inverse_diagonal, weight, b, x, x_new, stream);
    case 16: return launch_sweep<T, 16>(A, inverse_diagonal, weight, b, x, x_new, stream);
    default: return launch_sweep<T, 32>(A, inverse_diagonal, weight, b, x, x_new, stream);
  }
}

// One thread per row: x[row] = w·d⁻¹[row]·b[row], the first sweep from x = 0.
template <typename T>
__global__ void jacobi_first_sweep(index_t rows, const T* inverse_diagonal, T weight, const T* b,
                                   T* x) {
  const index_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) x[row] = weight * inverse_diagonal[row] * b[row];
}

// One thread per row: writes 1/a_ii, or lowers *first_bad to the row when a_ii == 0
// (the smallest bad row wins, so the message is deterministic).
template <typename T>
__global__ void invert_diagonal(index_t rows, const T* diag, T* inverse, index_t* first_bad) {
  const index_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  if (diag[row] == T(0)) atomicMin(first_bad, row);
  else inverse[row] = T(1) / diag[row];
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
    if (A.rows > 0)
      BINAMG_CUDA_CHECK(cudaMemsetAsync(x.data(), 0, sizeof(T) * A.rows, stream));
    return;
  }
  jacobi_first_sweep<<<blocks_for(A.rows, jacobi_threads), jacobi_threads, 0, stream>>>(
      A.rows, inverse_diagonal.data(), weight, b.data(), x.data());
  BINAMG_CHECK_LAUNCH();
  jacobi(A, inverse_diagonal, weight, b, x, sweeps - 1, scratch, stream);
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
  const DeviceBuffer<index_t> first_bad = to_device(std::vector<index_t>{INT_MAX}, stream);
  if (rows > 0) {
    invert_diagonal<<<blocks_for(rows, jacobi_threads), jacobi_threads, 0, stream>>>(
        rows, diag.data(), inverse.data(), const_cast<index_t*>(first_bad.data()));
    BINAMG_CHECK_LAUNCH();
  }
  const index_t bad = to_host(first_bad)[0];
  if (bad != INT_MAX)
    throw InvalidInput("inverse_diagonal: row " + std::to_string(bad) +
                       " has a zero or missing diagonal");
  return inverse;
}

#define BINAMG_INSTANTIATE(T)                                                               \
  template void jacobi<T>(const DeviceCsr<T>&, const DeviceBuffer<T>&, T,                  \
                          const DeviceBuffer<T>&, DeviceBuffer<T>&, int, DeviceBuffer<T>&,  \
                          cudaStream_t);                                                    \
  template void jacobi_from_zero<T>(const DeviceCsr<T>&, const DeviceBuffer<T>&, T,        \
                                    const DeviceBuffer<T>&, DeviceBuffer<T>&, int,          \
                                    DeviceBuffer<T>&, cudaStream_t);                        \
  template DeviceBuffer<T> inverse_diagonal<T>(const DeviceCsr<T>&, cudaStream_t);          \
  template DeviceBuffer<T> inverse_diagonal<T>(const DeviceBuffer<T>&, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
