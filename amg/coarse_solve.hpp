#pragma once
// Direct solver for the coarsest level: factor once, solve every cycle.
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "sparse/csr.hpp"

namespace binamg {

/// Factors with Eigen in double precision (also for a float hierarchy: the
/// coarse system is small and an exact coarse solve keeps the cycle's
/// convergence independent of the coarse conditioning). Up to
/// `dense_limit` rows: dense Cholesky (LLT) when the matrix is symmetric and the
/// factorisation succeeds, otherwise dense LU with partial pivoting. Above it:
/// sparse SimplicialLDLT when symmetric (falling back to SparseLU if it fails),
/// SparseLU otherwise.
template <typename T>
class CoarseSolver {
 public:
  static constexpr index_t dense_limit = 4000;

  CoarseSolver();
  ~CoarseSolver();
  CoarseSolver(CoarseSolver&&) noexcept;
  CoarseSolver& operator=(CoarseSolver&&) noexcept;

  /// Throws InvalidInput if A is not square, has invalid entries or is singular.
  void factor(const CsrMatrix<T>& A);
  /// x = A⁻¹ b (x resized). Throws if factor() has not succeeded or b has the wrong size.
  void solve(const std::vector<T>& b, std::vector<T>& x) const;

  bool factored() const { return static_cast<bool>(factorization_); }
  index_t rows() const { return rows_; }
  /// "dense-llt", "dense-lu", "sparse-ldlt", "sparse-lu", or "none".
  std::string method() const;

 private:
  struct Factorization;
  std::unique_ptr<Factorization> factorization_;
  index_t rows_ = 0;
};

/// Coarsest-level solve for the GPU hierarchy: the matrix is downloaded once,
/// A⁻¹ is formed on the host column by column with CoarseSolver (so in double),
/// uploaded once in T, and every solve is one cuBLAS gemv x = A⁻¹ b. Throws
/// InvalidInput above CoarseSolver<T>::dense_limit rows (a dense inverse would not fit).
template <typename T>
class DeviceCoarseSolver {
 public:
  DeviceCoarseSolver();
  ~DeviceCoarseSolver();
  DeviceCoarseSolver(DeviceCoarseSolver&&) noexcept;
  DeviceCoarseSolver& operator=(DeviceCoarseSolver&&) noexcept;

  void factor(const CsrMatrix<T>& A, cudaStream_t stream = nullptr);
  /// x = A⁻¹ b on `stream`; b and x hold rows() entries and must not alias.
  void solve(const T* b, T* x, cudaStream_t stream = nullptr) const;
  index_t rows() const { return rows_; }
  /// "dense-inverse(<method of the host factorisation>)" or "none".
  std::string method() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  index_t rows_ = 0;
};

}  // namespace binamg
