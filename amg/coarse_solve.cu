// Coarsest-level solve of the GPU hierarchy: dense inverse applied with cuBLAS gemv.
#include <cublas_v2.h>

#include <string>

#include "amg/coarse_solve.hpp"
#include "core/device_buffer.hpp"

namespace binamg {
namespace {

void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw DeviceError(std::string("cuBLAS call ") + call + " failed with status " +
                      std::to_string(static_cast<int>(status)));
}

cublasStatus_t gemv(cublasHandle_t handle, int n, const float* alpha, const float* matrix,
                    const float* x, const float* beta, float* y) {
  return cublasSgemv(handle, CUBLAS_OP_N, n, n, alpha, matrix, n, x, 1, beta, y, 1);
}
cublasStatus_t gemv(cublasHandle_t handle, int n, const double* alpha, const double* matrix,
                    const double* x, const double* beta, double* y) {
  return cublasDgemv(handle, CUBLAS_OP_N, n, n, alpha, matrix, n, x, 1, beta, y, 1);
}

}  // namespace

template <typename T>
struct DeviceCoarseSolver<T>::State {
  cublasHandle_t handle = nullptr;
  DeviceBuffer<T> inverse;  // column-major rows × rows
  std::string method;
  ~State() {
    if (handle) cublasDestroy(handle);  // a destructor cannot report; nothing to recover
  }
};

template <typename T>
DeviceCoarseSolver<T>::DeviceCoarseSolver() = default;
template <typename T>
DeviceCoarseSolver<T>::~DeviceCoarseSolver() = default;
template <typename T>
DeviceCoarseSolver<T>::DeviceCoarseSolver(DeviceCoarseSolver&&) noexcept = default;
template <typename T>
DeviceCoarseSolver<T>& DeviceCoarseSolver<T>::operator=(DeviceCoarseSolver&&) noexcept = default;

template <typename T>
void DeviceCoarseSolver<T>::factor(const CsrMatrix<T>& A, cudaStream_t stream) {
  require(A.rows <= CoarseSolver<T>::dense_limit,
          "DeviceCoarseSolver: the coarsest matrix has " + std::to_string(A.rows) +
              " rows, more than the GPU coarse solve's dense limit " +
              std::to_string(CoarseSolver<T>::dense_limit) +
              "; coarsen further (raise max_levels, lower max_coarse_rows) or use the CPU");
  CoarseSolver<T> host;
  host.factor(A);  // validates, throws on a singular matrix
  const index_t n = A.rows;
  // Column j of A⁻¹ = A⁻¹ e_j, stored column-major for gemv.
  std::vector<T> inverse(static_cast<std::size_t>(n) * n);
  std::vector<T> unit(n, T(0)), column;
  for (index_t j = 0; j < n; ++j) {
    unit[j] = T(1);
    host.solve(unit, column);
    unit[j] = T(0);
    std::copy(column.begin(), column.end(), inverse.begin() + static_cast<std::size_t>(j) * n);
  }
  auto state = std::make_unique<State>();
  check_cublas(cublasCreate(&state->handle), "cublasCreate");
  state->inverse = to_device(inverse, stream);
  state->method = "dense-inverse(" + host.method() + ")";
  state_ = std::move(state);
  rows_ = n;
}

template <typename T>
void DeviceCoarseSolver<T>::solve(const T* b, T* x, cudaStream_t stream) const {
  require(state_ != nullptr, "DeviceCoarseSolver::solve: factor() has not been called");
  const T one = 1, zero = 0;
  check_cublas(cublasSetStream(state_->handle, stream), "cublasSetStream");
  check_cublas(gemv(state_->handle, rows_, &one, state_->inverse.data(), b, &zero, x),
               "cublas<t>gemv");
}

template <typename T>
std::string DeviceCoarseSolver<T>::method() const {
  return state_ ? state_->method : "none";
}

template class DeviceCoarseSolver<float>;
template class DeviceCoarseSolver<double>;

}  // namespace binamg
