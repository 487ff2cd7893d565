#pragma once
// A built hierarchy on either device, with the solves Python asks of it: what
// the module binds, kept free of Python types so that it reads as plain binamg.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/core/config.hpp"
#include "binamg/core/device.hpp"
#include "binamg/solvers/solve_result.hpp"
#if BINAMG_WITH_CUDA
#include "binamg/sparse/device_csr.hpp"
#endif

namespace binamg::python {

/// A CSR matrix as Python hands it over: a copy in binamg's types.
template <typename T>
CsrMatrix<T> csr_from(index_t rows, index_t cols, const std::int32_t* indptr,
                      const std::int32_t* indices, const T* data, std::int64_t nnz);

/// The device a solver is asked for ("auto", "cpu" or "gpu"): "auto" is the
/// GPU when one is usable; "gpu" without one is an InvalidInput that says why.
Device choose_device(const std::string& name);

/// Which solve: PCG with one V-cycle per iteration, or the V-cycle alone.
enum class Accelerator { cg, none };

template <typename T>
class Solver {
 public:
  Solver(CsrMatrix<T> A, const AmgParameters& parameters, Device device);
#if BINAMG_WITH_CUDA
  /// A hierarchy on the GPU of a matrix already there.
  Solver(const DeviceCsr<T>& A, const AmgParameters& parameters);
#endif

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

  const Hierarchy<T>* host() const { return host_.get(); }
#if BINAMG_WITH_CUDA
  /// The same from GPU memory (a GPU hierarchy only).
  void refresh(const DeviceCsr<T>& A);
  const DeviceHierarchy<T>* gpu() const { return gpu_.get(); }
#endif

 private:
  /// f(the hierarchy), on whichever device holds it.
  template <typename F>
  auto visit(F&& f) const;

  Device device_;
  index_t rows_ = 0;
  std::unique_ptr<Hierarchy<T>> host_;
#if BINAMG_WITH_CUDA
  std::unique_ptr<DeviceHierarchy<T>> gpu_;
#endif
};

/// Mixed precision: a float hierarchy of A rounded to float, whose V-cycle
/// preconditions CG in double on A itself (one right-hand side at a time).
class MixedSolver {
 public:
  MixedSolver(CsrMatrix<double> A, const AmgParameters& parameters, Device device);
#if BINAMG_WITH_CUDA
  /// On the GPU, from a matrix already there.
  MixedSolver(DeviceCsr<double> A, const AmgParameters& parameters);
#endif
  const Solver<float>& hierarchy() const { return rounded_; }
  std::vector<SolveResult> solve(const double* b, const double* x0, double* x, index_t k,
                                 const SolveOptions& options) const;
  void precondition(const double* b, double* x, index_t k) const;
  /// New values: the float hierarchy refreshed with them rounded, CG's A replaced.
  void refresh(CsrMatrix<double> A);
#if BINAMG_WITH_CUDA
  void refresh(DeviceCsr<double> A);
#endif

 private:
  CsrMatrix<double> A_;  // CG's A on the CPU (empty on the GPU)
#if BINAMG_WITH_CUDA
  std::unique_ptr<DeviceCsr<double>> device_A_;
#endif
  Solver<float> rounded_;
};

}  // namespace binamg::python
