#include "solver.hpp"

#include <algorithm>

#include "binamg/core/cuda_check.hpp"

#include "binamg/core/device_buffer.hpp"
#include "binamg/solvers/pcg.hpp"
#include "binamg/solvers/vcycle.hpp"
#include "binamg/sparse/device_csr.hpp"

namespace binamg::python {

template <typename T>
CsrMatrix<T> csr_from(index_t rows, index_t cols, const std::int32_t* indptr,
                      const std::int32_t* indices, const T* data, std::int64_t nnz) {
  require(rows >= 0 && cols >= 0, "A has a negative dimension");
  CsrMatrix<T> A;
  A.rows = rows;
  A.cols = cols;
  A.row_ptr.assign(indptr, indptr + rows + 1);
  require(A.row_ptr.front() == 0 && A.row_ptr.back() == nnz,
          "A's indptr must start at 0 and end at nnz = " + std::to_string(nnz) + ", got " +
              std::to_string(A.row_ptr.front()) + " and " + std::to_string(A.row_ptr.back()));
  A.col_idx.assign(indices, indices + nnz);
  A.values.assign(data, data + nnz);
  validate(A, "A");
  return A;
}

template <typename T>
Solver<T>::Solver(CsrMatrix<T> A, const AmgParameters& parameters, Device device)
    : device_(device), rows_(A.rows) {
  if (device == Device::gpu)
    gpu_ = std::make_unique<DeviceHierarchy<T>>(build_hierarchy(to_device(A), parameters));
  else
    host_ = std::make_unique<Hierarchy<T>>(build_hierarchy(A, parameters));
}

template <typename T>
index_t Solver<T>::num_levels() const {
  return host_ ? host_->num_levels() : gpu_->num_levels();
}

template <typename T>
double Solver<T>::operator_complexity() const {
  return host_ ? host_->operator_complexity() : gpu_->operator_complexity();
}

template <typename T>
double Solver<T>::grid_complexity() const {
  return host_ ? host_->grid_complexity() : gpu_->grid_complexity();
}

template <typename T>
std::string Solver<T>::describe() const {
  return host_ ? host_->describe() : gpu_->describe();
}

template <typename T>
std::vector<std::string> Solver<T>::warnings() const {
  return host_ ? host_->warnings : gpu_->warnings;
}

template <typename T>
SetupTimings Solver<T>::timings() const {
  return host_ ? host_->timings : gpu_->timings;
}

template <typename T>
CsrMatrix<T> Solver<T>::matrix(index_t level, char which) const {
  const index_t fine_levels = num_levels() - 1;
  if (which == 'A') {
    require(level >= 0 && level < num_levels(),
            "level " + std::to_string(level) + " does not exist (" +
                std::to_string(num_levels()) + " levels)");
    return host_ ? host_->matrix(level) : to_host(gpu_->matrix(level));
  }
  require(level >= 0 && level < fine_levels,
          std::string(1, which) + " of level " + std::to_string(level) +
              " does not exist: the coarsest level is " + std::to_string(fine_levels));
  if (host_) return which == 'P' ? host_->levels[level].P : host_->levels[level].R;
  return to_host(which == 'P' ? gpu_->levels[level].P : gpu_->levels[level].R);
}

namespace {

// Column j of the row-major rows × k block, and back.
template <typename T>
std::vector<T> column(const std::vector<T>& block, index_t k, index_t j) {
  std::vector<T> out(block.size() / k);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = block[i * k + j];
  return out;
}

template <typename T>
void set_column(std::vector<T>& block, index_t k, index_t j, const std::vector<T>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) block[i * k + j] = values[i];
}

// Host memory to a new device buffer, and back (ordered on `stream`; the
// download waits for it).
template <typename T>
DeviceBuffer<T> upload(const T* host, std::size_t n, cudaStream_t stream) {
  DeviceBuffer<T> device(n, stream, "Python vector");
  if (n > 0)
    BINAMG_CUDA_CHECK(
        cudaMemcpyAsync(device.data(), host, n * sizeof(T), cudaMemcpyHostToDevice, stream));
  return device;
}

template <typename T>
DeviceBuffer<T> zeros(std::size_t n, cudaStream_t stream) {
  DeviceBuffer<T> device(n, stream, "Python vector");
  if (n > 0) BINAMG_CUDA_CHECK(cudaMemsetAsync(device.data(), 0, n * sizeof(T), stream));
  return device;
}

template <typename T>
void download(const DeviceBuffer<T>& device, T* host, cudaStream_t stream) {
  if (device.size() > 0)
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(host, device.data(), device.size() * sizeof(T),
                                      cudaMemcpyDeviceToHost, stream));
  BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace

template <typename T>
std::vector<SolveResult> Solver<T>::solve(const T* b, const T* x0, T* x, index_t k,
                                          const SolveOptions& options,
                                          Accelerator accelerator) const {
  require(k >= 1, "b must have at least one column");
  const std::size_t entries = std::size_t(rows_) * k;
  if (gpu_) {
    cudaStream_t stream = gpu_->stream;
    if (accelerator == Accelerator::cg && k > 1) {
      DeviceBuffer<T> device_x = x0 ? upload(x0, entries, stream) : zeros<T>(entries, stream);
      const BlockSolveResult block = pcg(*gpu_, upload(b, entries, stream), device_x, k, options);
      download(device_x, x, stream);
      return block.columns;
    }
    if (k == 1) {
      DeviceBuffer<T> device_x = x0 ? upload(x0, entries, stream) : zeros<T>(entries, stream);
      const DeviceBuffer<T> device_b = upload(b, entries, stream);
      const SolveResult result = accelerator == Accelerator::cg
                                     ? pcg(*gpu_, device_b, device_x, options)
                                     : vcycle_solve(*gpu_, device_b, device_x, options);
      download(device_x, x, stream);
      return {result};
    }
  }
  // On the host, and the V-cycle as the solver for k > 1 on the GPU (no block form):
  // one column at a time, or the host's block CG.
  const std::vector<T> rhs(b, b + entries);
  std::vector<T> guess = x0 ? std::vector<T>(x0, x0 + entries) : std::vector<T>(entries, T(0));
  std::vector<SolveResult> results;
  if (host_ && accelerator == Accelerator::cg) {
    results = k > 1 ? pcg(*host_, rhs, guess, k, options).columns
                    : std::vector<SolveResult>{pcg(*host_, rhs, guess, options)};
  } else {
    for (index_t j = 0; j < k; ++j) {
      const std::vector<T> bj = column(rhs, k, j);
      std::vector<T> xj = column(guess, k, j);
      if (host_) {
        results.push_back(vcycle_solve(*host_, bj, xj, options));
      } else {
        DeviceBuffer<T> device_x = to_device(xj, gpu_->stream);
        results.push_back(vcycle_solve(*gpu_, to_device(bj, gpu_->stream), device_x, options));
        xj = to_host(device_x);
      }
      set_column(guess, k, j, xj);
    }
  }
  std::copy(guess.begin(), guess.end(), x);
  return results;
}

template <typename T>
void Solver<T>::precondition(const std::vector<T>& b, std::vector<T>& x, index_t k) const {
  require(k >= 1 && b.size() == std::size_t(rows_) * k,
          "the vector must have " + std::to_string(rows_) + " rows");
  x.assign(b.size(), T(0));
  for (index_t j = 0; j < k; ++j) {
    const std::vector<T> bj = k == 1 ? b : column(b, k, j);
    std::vector<T> xj(bj.size());
    if (host_) {
      vcycle_from_zero(*host_, bj, xj);
    } else {
      DeviceBuffer<T> device_x(bj.size(), gpu_->stream, "preconditioned vector");
      vcycle_from_zero(*gpu_, to_device(bj, gpu_->stream), device_x);
      xj = to_host(device_x);
    }
    if (k == 1) x = std::move(xj);
    else set_column(x, k, j, xj);
  }
}

template <typename T>
void Solver<T>::refresh(const CsrMatrix<T>& A) {
  if (host_)
    binamg::refresh(*host_, A);
  else
    binamg::refresh(*gpu_, to_device(A, gpu_->stream));
}

MixedSolver::MixedSolver(CsrMatrix<double> A, const AmgParameters& parameters, Device device)
    : A_(std::move(A)), rounded_(convert_values<float>(A_), parameters, device) {
  if (device == Device::gpu) device_A_ = std::make_unique<DeviceCsr<double>>(to_device(A_));
}

void MixedSolver::refresh(CsrMatrix<double> A) {
  rounded_.refresh(convert_values<float>(A));  // checks the pattern first
  A_ = std::move(A);
  if (device_A_) *device_A_ = to_device(A_, rounded_.gpu()->stream);
}

std::vector<SolveResult> MixedSolver::solve(const double* b, const double* x0, double* x,
                                            index_t k, const SolveOptions& options) const {
  const std::size_t rows = A_.rows;
  std::vector<SolveResult> results;
  for (index_t j = 0; j < k; ++j) {
    std::vector<double> bj(rows), xj(rows, 0.0);
    for (std::size_t i = 0; i < rows; ++i) {
      bj[i] = b[i * k + j];
      if (x0) xj[i] = x0[i * k + j];
    }
    if (const DeviceHierarchy<float>* h = rounded_.gpu()) {
      DeviceBuffer<double> device_x = to_device(xj, h->stream);
      results.push_back(pcg(*h, *device_A_, to_device(bj, h->stream), device_x, options));
      xj = to_host(device_x);
    } else {
      results.push_back(pcg(*rounded_.host(), A_, bj, xj, options));
    }
    for (std::size_t i = 0; i < rows; ++i) x[i * k + j] = xj[i];
  }
  return results;
}

void MixedSolver::precondition(const std::vector<double>& b, std::vector<double>& x,
                               index_t k) const {
  const std::vector<float> rounded(b.begin(), b.end());
  std::vector<float> z;
  rounded_.precondition(rounded, z, k);
  x.assign(z.begin(), z.end());
}

#define BINAMG_INSTANTIATE(T)                                                                  \
  template CsrMatrix<T> csr_from<T>(index_t, index_t, const std::int32_t*, const std::int32_t*, \
                                    const T*, std::int64_t);                                  \
  template class Solver<T>;
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg::python
