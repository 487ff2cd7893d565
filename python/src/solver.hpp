#pragma once
// A built hierarchy on either device, with the solves Python asks of it: what
// the module binds, kept free of Python types so that it reads as plain binamg.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/core/device.hpp"
#include "binamg/solvers/solve_result.hpp"
#include "binamg/sparse/device_csr.hpp"

namespace binamg::python {

/// A CSR matrix as Python hands it over: a copy in binamg's types.
template <typename T>
CsrMatrix<T> csr_from(index_t rows, index_t cols, const std::int32_t* indptr,
                      const std::int32_t* indices, const T* data, std::int64_t nnz);

/// A CSR matrix in GPU memory (a CuPy matrix's arrays): checked to be memory
/// of the current device, copied there and validated there (validate(DeviceCsr)).
template <typename T>
DeviceCsr<T> device_csr_from(index_t rows, index_t cols, const std::int32_t* indptr,
                             const std::int32_t* indices, const T* data, std::int64_t nnz);

/// Throws InvalidInput naming `what` unless `pointer` is memory of the current GPU.
void require_device_memory(const void* pointer, const std::string& what);

/// Which solve: PCG with one V-cycle per iteration, or the V-cycle alone.
enum class Accelerator { cg, none };

template <typename T>
class Solver {
 public:
  Solver(CsrMatrix<T> A, const AmgParameters& parameters, Device device);
  /// A hierarchy on the GPU of a matrix already there.
  Solver(const DeviceCsr<T>& A, const AmgParameters& parameters);

  Device device() const { return device_; }
  index_t rows() const { return rows_; }
  index_t num_levels() const;
  double operator_complexity() const;
  double grid_complexity() const;
  std::string describe() const;
  std::vector<std::string> warnings() const;
  SetupTimings timings() const;
  /// Level l's A (l < num_levels()), P or R (l < num_levels() − 1), copied to the host.
  CsrMatrix<T> matrix(index_t level, char which) const;

  /// Solves for k right-hand sides (b, x0 and x row-major rows × k; x0 the
  /// initial guess, or nullptr for zero: on the GPU it is then not uploaded).
  /// One result per column. A GPU solver takes vectors in host or device
  /// memory (b, x0 and x each either), a CPU solver host memory only.
  std::vector<SolveResult> solve(const T* b, const T* x0, T* x, index_t k,
                                 const SolveOptions& options, Accelerator accelerator) const;
  /// x = M b for the V-cycle preconditioner M (one cycle from zero), k columns
  /// (row-major; memory as for solve()).
  void precondition(const T* b, T* x, index_t k) const;
  /// New values on the pattern the hierarchy was built for (binamg::refresh).
  void refresh(const CsrMatrix<T>& A);
  /// The same from GPU memory (a GPU hierarchy only).
  void refresh(const DeviceCsr<T>& A);

  const Hierarchy<T>* host() const { return host_.get(); }
  const DeviceHierarchy<T>* gpu() const { return gpu_.get(); }

 private:
  Device device_;
  index_t rows_ = 0;
  std::unique_ptr<Hierarchy<T>> host_;
  std::unique_ptr<DeviceHierarchy<T>> gpu_;
};

/// Mixed precision: a float hierarchy of A rounded to float, whose V-cycle
/// preconditions CG in double on A itself (one right-hand side at a time).
class MixedSolver {
 public:
  MixedSolver(CsrMatrix<double> A, const AmgParameters& parameters, Device device);
  /// On the GPU, from a matrix already there.
  MixedSolver(DeviceCsr<double> A, const AmgParameters& parameters);
  const Solver<float>& hierarchy() const { return rounded_; }
  std::vector<SolveResult> solve(const double* b, const double* x0, double* x, index_t k,
                                 const SolveOptions& options) const;
  void precondition(const double* b, double* x, index_t k) const;
  /// New values: the float hierarchy refreshed with them rounded, CG's A replaced.
  void refresh(CsrMatrix<double> A);
  void refresh(DeviceCsr<double> A);

 private:
  CsrMatrix<double> A_;  // CG's A on the CPU (empty on the GPU)
  std::unique_ptr<DeviceCsr<double>> device_A_;
  Solver<float> rounded_;
};

}  // namespace binamg::python
