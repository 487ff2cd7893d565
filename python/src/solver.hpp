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

namespace binamg::python {

/// A CSR matrix as Python hands it over: a copy in binamg's types.
template <typename T>
CsrMatrix<T> csr_from(index_t rows, index_t cols, const std::int32_t* indptr,
                      const std::int32_t* indices, const T* data, std::int64_t nnz);

/// Which solve: PCG with one V-cycle per iteration, or the V-cycle alone.
enum class Accelerator { cg, none };

template <typename T>
class Solver {
 public:
  Solver(CsrMatrix<T> A, const AmgParameters& parameters, Device device);

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
  /// One result per column.
  std::vector<SolveResult> solve(const T* b, const T* x0, T* x, index_t k,
                                 const SolveOptions& options, Accelerator accelerator) const;
  /// x = M b for the V-cycle preconditioner M (one cycle from zero), k columns.
  void precondition(const std::vector<T>& b, std::vector<T>& x, index_t k) const;
  /// New values on the pattern the hierarchy was built for (binamg::refresh).
  void refresh(const CsrMatrix<T>& A);

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
  const Solver<float>& hierarchy() const { return rounded_; }
  std::vector<SolveResult> solve(const double* b, const double* x0, double* x, index_t k,
                                 const SolveOptions& options) const;
  void precondition(const std::vector<double>& b, std::vector<double>& x, index_t k) const;
  /// New values: the float hierarchy refreshed with them rounded, CG's A replaced.
  void refresh(CsrMatrix<double> A);

 private:
  CsrMatrix<double> A_;
  std::unique_ptr<DeviceCsr<double>> device_A_;
  Solver<float> rounded_;
};

}  // namespace binamg::python
