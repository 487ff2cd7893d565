// GPU y = A x and r = b - A x: SpMM with k = 1, the kernel picked by the same
// heuristic; the residual is fused into the row-split kernel, and one extra
// pass after the merge-based one. The block residual of k right-hand sides is
// the row-split SpMM with a residual epilogue.
#include "binamg/core/chained_launch.cuh"
#include "binamg/core/cuda_check.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/spmv/block_row_split.cuh"
#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmm_kernels.hpp"
#include "binamg/spmv/spmv.hpp"

namespace binamg {
namespace {

// One thread per row: r = b - r, turning a merge-based A x into the residual.
template <typename T>
__global__ void subtract_from(index_t rows, const T* __restrict__ b, T* __restrict__ r) {
  wait_for_prior_kernel();
  const std::int64_t row = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row < rows) r[row] = b[row] - r[row];
}

// The block residual's epilogue: R(row, c) = B(row, c) − the row's sum.
template <typename T>
struct ResidualEntry {
  const T* __restrict__ B;
  T* __restrict__ R;
  index_t k;
  __device__ void operator()(index_t row, index_t c, T sum) const {
    const std::int64_t e = std::int64_t(row) * k + c;
    R[e] = B[e] - sum;
  }
};

}  // namespace

template <typename T>
void spmv(const DeviceCsr<T>& A, const T* x, T* y, cudaStream_t stream) {
  spmm(A, x, 1, y, SpmmAlgorithm::automatic, stream);
}

template <typename T>
void residual(const DeviceCsr<T>& A, const T* x, const T* b, T* r, cudaStream_t stream) {
  spmm_detail::check_arguments(A, x, 1, r, "residual");
  require(A.rows == 0 || b != nullptr, "residual: b is null");
  require(A.rows == 0 || (r != b && r != x), "residual: r must not alias x or b");
  if (A.rows == 0) return;
  if (spmm_algorithm_for(A.rows, A.nnz(), A.max_row_length, 1) == SpmmAlgorithm::row_split) {
    spmm_detail::row_split_vector(A, x, b, r, stream);  // b - A x fused in one pass
    return;
  }
  spmm_detail::merge_based(A, x, 1, r, stream);
  launch_chained(subtract_from<T>, blocks_for(A.rows, spmm_detail::SpmmPolicy::threads),
                 spmm_detail::SpmmPolicy::threads, 0, stream, A.rows, b, r);
}

template <typename T>
void residual(const DeviceCsr<T>& A, const T* X, const T* B, index_t k, T* R,
              cudaStream_t stream) {
  if (k == 1) return residual(A, X, B, R, stream);
  spmm_detail::check_arguments(A, X, k, R, "residual");
  require(A.rows == 0 || B != nullptr, "residual: B is null");
  require(A.rows == 0 || (R != B && R != X), "residual: R must not alias X or B");
  block_row_split::launch(A, k, block_row_split::BlockEntry<T>{X, k}, ResidualEntry<T>{B, R, k},
                          stream);
}

template void spmv<float>(const DeviceCsr<float>&, const float*, float*, cudaStream_t);
template void spmv<double>(const DeviceCsr<double>&, const double*, double*, cudaStream_t);
template void residual<float>(const DeviceCsr<float>&, const float*, const float*, float*,
                              cudaStream_t);
template void residual<double>(const DeviceCsr<double>&, const double*, const double*, double*,
                               cudaStream_t);
template void residual<float>(const DeviceCsr<float>&, const float*, const float*, index_t, float*,
                              cudaStream_t);
template void residual<double>(const DeviceCsr<double>&, const double*, const double*, index_t,
                               double*, cudaStream_t);

}  // namespace binamg
