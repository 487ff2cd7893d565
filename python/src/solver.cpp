#include "solver.hpp"

#include <algorithm>

#include "binamg/solvers/pcg.hpp"
#include "binamg/solvers/vcycle.hpp"
#if BINAMG_WITH_CUDA
#include "binamg/vector/convert.hpp"
#include "gpu_memory.hpp"
#endif

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

Device choose_device(const std::string& name) {
  if (name == "auto") return gpu_available() ? Device::gpu : Device::cpu;
  const Device device = parse_device(name);
  require(device == Device::cpu || gpu_available(),
          BINAMG_WITH_CUDA ? "device='gpu' but no usable CUDA device was found"
                           : "device='gpu' but this binamg was built without CUDA (there was "
                             "no nvcc when it was installed)");
  return device;
}

template <typename T>
Solver<T>::Solver(CsrMatrix<T> A, const AmgParameters& parameters, Device device)
    : device_(device), rows_(A.rows) {
#if BINAMG_WITH_CUDA
  if (device == Device::gpu) {
    gpu_ = std::make_unique<DeviceHierarchy<T>>(build_hierarchy(to_device(A), parameters));
    return;
  }
#else
  require(device == Device::cpu, "device='gpu' but this binamg was built without CUDA");
#endif
  host_ = std::make_unique<Hierarchy<T>>(build_hierarchy(A, parameters));
}

#if BINAMG_WITH_CUDA
template <typename T>
Solver<T>::Solver(const DeviceCsr<T>& A, const AmgParameters& parameters)
    : device_(Device::gpu),
      rows_(A.rows),
      gpu_(std::make_unique<DeviceHierarchy<T>>(build_hierarchy(A, parameters))) {}
#endif

template <typename T>
template <typename F>
auto Solver<T>::visit(F&& f) const {
#if BINAMG_WITH_CUDA
  if (gpu_) return f(*gpu_);
#endif
  return f(*host_);
}

template <typename T>
index_t Solver<T>::num_levels() const {
  return visit([](const auto& h) { return h.num_levels(); });
}

template <typename T>
double Solver<T>::operator_complexity() const {
  return visit([](const auto& h) { return h.operator_complexity(); });
}

template <typename T>
double Solver<T>::grid_complexity() const {
  return visit([](const auto& h) { return h.grid_complexity(); });
}

template <typename T>
std::string Solver<T>::describe() const {
  return visit([](const auto& h) { return h.describe(); });
}

template <typename T>
std::vector<std::string> Solver<T>::warnings() const {
  return visit([](const auto& h) { return h.warnings; });
}

template <typename T>
SetupTimings Solver<T>::timings() const {
  return visit([](const auto& h) { return h.timings; });
}

template <typename T>
CsrMatrix<T> Solver<T>::matrix(index_t level, char which) const {
  const index_t fine_levels = num_levels() - 1;
  if (which == 'A') {
    require(level >= 0 && level < num_levels(), "level " + std::to_string(level) +
                                                    " does not exist (" +
                                                    std::to_string(num_levels()) + " levels)");
#if BINAMG_WITH_CUDA
    if (gpu_) return to_host(gpu_->matrix(level));
#endif
    return host_->matrix(level);
  }
  require(level >= 0 && level < fine_levels,
          std::string(1, which) + " of level " + std::to_string(level) +
              " does not exist: the coarsest level is " + std::to_string(fine_levels));
#if BINAMG_WITH_CUDA
  if (gpu_) return to_host(which == 'P' ? gpu_->levels[level].P : gpu_->levels[level].R);
#endif
  return which == 'P' ? host_->levels[level].P : host_->levels[level].R;
}

namespace {

// Column j of the row-major rows × k block in host memory, and back.
template <typename T>
std::vector<T> column(const T* block, index_t rows, index_t k, index_t j) {
  std::vector<T> out(rows);
  for (index_t i = 0; i < rows; ++i) out[i] = block[std::size_t(i) * k + j];
  return out;
}

template <typename T>
void set_column(T* block, index_t k, index_t j, const std::vector<T>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) block[i * k + j] = values[i];
}

}  // namespace

template <typename T>
std::vector<SolveResult> Solver<T>::solve(const T* b, const T* x0, T* x, index_t k,
                                          const SolveOptions& options,
                                          Accelerator accelerator) const {
  require(k >= 1, "b must have at least one column");
  const std::size_t entries = std::size_t(rows_) * k;
#if BINAMG_WITH_CUDA
  if (gpu_) {
    cudaStream_t stream = gpu_->stream;
    if (accelerator == Accelerator::cg || k == 1) {
      DeviceBuffer<T> device_x = block_to_device(x0, entries, stream);
      const DeviceBuffer<T> device_b = block_to_device(b, entries, stream);
      std::vector<SolveResult> results;
      if (k > 1)
        results = pcg(*gpu_, device_b, device_x, k, options).columns;
      else if (accelerator == Accelerator::cg)
        results = {pcg(*gpu_, device_b, device_x, options)};
      else
        results = {vcycle_solve(*gpu_, device_b, device_x, options)};
      block_from_device(device_x, x, stream);
      return results;
    }
    // The V-cycle as the solver for k > 1 (no block form): a column at a time.
    std::vector<SolveResult> results;
    for (index_t j = 0; j < k; ++j) {
      DeviceBuffer<T> xj = x0 ? column_to_device(x0, rows_, k, j, stream)
                              : block_to_device<T>(nullptr, rows_, stream);
      results.push_back(vcycle_solve(*gpu_, column_to_device(b, rows_, k, j, stream), xj, options));
      column_from_device(xj, x, k, j, stream);
    }
    BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream));
    return results;
  }
#endif
  // On the host: one column at a time, or the host's block CG.
  const std::vector<T> rhs(b, b + entries);
  std::vector<T> guess = x0 ? std::vector<T>(x0, x0 + entries) : std::vector<T>(entries, T(0));
  std::vector<SolveResult> results;
  if (accelerator == Accelerator::cg) {
    results = k > 1 ? pcg(*host_, rhs, guess, k, options).columns
                    : std::vector<SolveResult>{pcg(*host_, rhs, guess, options)};
  } else {
    for (index_t j = 0; j < k; ++j) {
      const std::vector<T> bj = column(rhs.data(), rows_, k, j);
      std::vector<T> xj = column(guess.data(), rows_, k, j);
      results.push_back(vcycle_solve(*host_, bj, xj, options));
      set_column(guess.data(), k, j, xj);
    }
  }
  std::copy(guess.begin(), guess.end(), x);
  return results;
}

template <typename T>
void Solver<T>::precondition(const T* b, T* x, index_t k) const {
  require(k >= 1, "the vector must have at least one column");
#if BINAMG_WITH_CUDA
  if (gpu_) {
    for (index_t j = 0; j < k; ++j) {
      DeviceBuffer<T> xj(rows_, gpu_->stream, "preconditioned vector");
      vcycle_from_zero(*gpu_, column_to_device(b, rows_, k, j, gpu_->stream), xj);
      column_from_device(xj, x, k, j, gpu_->stream);
    }
    BINAMG_CUDA_CHECK(cudaStreamSynchronize(gpu_->stream));
    return;
  }
#endif
  for (index_t j = 0; j < k; ++j) {
    std::vector<T> xj(rows_);
    vcycle_from_zero(*host_, column(b, rows_, k, j), xj);
    set_column(x, k, j, xj);
  }
}

template <typename T>
void Solver<T>::refresh(const CsrMatrix<T>& A) {
#if BINAMG_WITH_CUDA
  if (gpu_) {
    binamg::refresh(*gpu_, to_device(A, gpu_->stream));
    return;
  }
#endif
  binamg::refresh(*host_, A);
}

#if BINAMG_WITH_CUDA
template <typename T>
void Solver<T>::refresh(const DeviceCsr<T>& A) {
  require(gpu_ != nullptr, "a matrix in GPU memory refreshes a GPU hierarchy only");
  binamg::refresh(*gpu_, A);
}
#endif

MixedSolver::MixedSolver(CsrMatrix<double> A, const AmgParameters& parameters, Device device)
    : A_(std::move(A)), rounded_(convert_values<float>(A_), parameters, device) {
#if BINAMG_WITH_CUDA
  if (device == Device::gpu) {
    device_A_ = std::make_unique<DeviceCsr<double>>(to_device(A_));
    A_ = {};
  }
#endif
}

#if BINAMG_WITH_CUDA
MixedSolver::MixedSolver(DeviceCsr<double> A, const AmgParameters& parameters)
    : device_A_(std::make_unique<DeviceCsr<double>>(std::move(A))),
      rounded_(convert_values<float>(*device_A_), parameters) {}
#endif

void MixedSolver::refresh(CsrMatrix<double> A) {
  rounded_.refresh(convert_values<float>(A));  // checks the pattern first
#if BINAMG_WITH_CUDA
  if (device_A_) {
    *device_A_ = to_device(A, rounded_.gpu()->stream);
    return;
  }
#endif
  A_ = std::move(A);
}

#if BINAMG_WITH_CUDA
void MixedSolver::refresh(DeviceCsr<double> A) {
  rounded_.refresh(convert_values<float>(A, rounded_.gpu()->stream));  // checks the pattern first
  *device_A_ = std::move(A);
}
#endif

std::vector<SolveResult> MixedSolver::solve(const double* b, const double* x0, double* x, index_t k,
                                            const SolveOptions& options) const {
  const index_t rows = rounded_.rows();
  std::vector<SolveResult> results;
#if BINAMG_WITH_CUDA
  if (const DeviceHierarchy<float>* h = rounded_.gpu()) {
    for (index_t j = 0; j < k; ++j) {
      DeviceBuffer<double> xj = x0 ? column_to_device(x0, rows, k, j, h->stream)
                                   : block_to_device<double>(nullptr, rows, h->stream);
      results.push_back(
          pcg(*h, *device_A_, column_to_device(b, rows, k, j, h->stream), xj, options));
      column_from_device(xj, x, k, j, h->stream);
    }
    BINAMG_CUDA_CHECK(cudaStreamSynchronize(h->stream));
    return results;
  }
#endif
  for (index_t j = 0; j < k; ++j) {
    std::vector<double> xj = x0 ? column(x0, rows, k, j) : std::vector<double>(rows, 0.0);
    results.push_back(pcg(*rounded_.host(), A_, column(b, rows, k, j), xj, options));
    set_column(x, k, j, xj);
  }
  return results;
}

void MixedSolver::precondition(const double* b, double* x, index_t k) const {
  const index_t rows = rounded_.rows();
#if BINAMG_WITH_CUDA
  if (const DeviceHierarchy<float>* h = rounded_.gpu()) {
    // Rounded and widened on the device: b may be CuPy's.
    const std::size_t n = std::size_t(rows) * k;
    const DeviceBuffer<double> wide_b = block_to_device(b, n, h->stream);
    DeviceBuffer<float> narrow(n, h->stream, "rounded vector"), z(n, h->stream, "rounded vector");
    convert(wide_b, narrow, h->stream);
    for (index_t j = 0; j < k; ++j) {
      DeviceBuffer<float> zj(rows, h->stream, "preconditioned vector");
      vcycle_from_zero(*h, column_to_device(narrow.data(), rows, k, j, h->stream), zj);
      column_from_device(zj, z.data(), k, j, h->stream);
    }
    DeviceBuffer<double> wide_x(n, h->stream, "preconditioned vector");
    convert(z, wide_x, h->stream);
    block_from_device(wide_x, x, h->stream);
    return;
  }
#endif
  const std::size_t n = std::size_t(rows) * k;
  const std::vector<float> rounded(b, b + n);
  std::vector<float> z(n);
  rounded_.precondition(rounded.data(), z.data(), k);
  std::copy(z.begin(), z.end(), x);
}

#define BINAMG_INSTANTIATE(T)                                                                   \
  template CsrMatrix<T> csr_from<T>(index_t, index_t, const std::int32_t*, const std::int32_t*, \
                                    const T*, std::int64_t);                                    \
  template class Solver<T>;
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg::python
