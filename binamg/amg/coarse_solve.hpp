#pragma once
// Direct solver for the coarsest level: factor once, solve every cycle.

#include <memory>
#include <string>
#include <vector>

#include "binamg/core/config.hpp"
#include "binamg/sparse/csr.hpp"
#if BINAMG_WITH_CUDA
#include <cuda_runtime.h>

#include "binamg/sparse/device_csr.hpp"
#endif

namespace binamg {

/// Factors with Eigen in double precision (also for a float hierarchy: the
/// coarse system is small and an exact coarse solve keeps the cycle's
/// convergence independent of the coarse conditioning). Up to
/// `dense_limit` rows: dense Cholesky (LLT) when the matrix is symmetric and the
/// factorisation succeeds with no small pivot. A symmetric matrix whose
/// eigenvalues show it singular (d of them at or below n·ε·max|λ|, or
/// ε_T·scale: a pure-Neumann Laplacian) is solved by its pseudo-inverse A⁺, as PyAMG's
/// default coarse solve, so that a consistent right-hand side solves: with N an
/// orthonormal basis of the null space and s = max(max|a_ii|, scale), B = A + s·NNᵀ is
/// factored by LLT and A⁺ = B⁻¹ − NNᵀ/s ("dense-pinv"). Otherwise dense LU with
/// partial pivoting.
/// Above it: sparse SimplicialLDLT when symmetric (falling back to SparseLU if it
/// fails), SparseLU otherwise. A singular matrix that is not symmetric, or above
/// `dense_limit` rows, is refused.
template <typename T>
class CoarseSolver {
 public:
  static constexpr index_t dense_limit = 4000;

  CoarseSolver();
  ~CoarseSolver();
  CoarseSolver(CoarseSolver&&) noexcept;
  CoarseSolver& operator=(CoarseSolver&&) noexcept;

  /// `scale` is the size of the operator that A was computed from (the hierarchy
  /// passes its finest matrix's largest |a_ii|): forming a Galerkin matrix leaves
  /// rounding residues of about ε_T·scale (ε_T: T's machine epsilon) where the
  /// exact product cancels, so an eigenvalue up to ε_T·scale is zero even when
  /// it is all of A (a 1 × 1 coarsest matrix of a pure-Neumann problem); above
  /// dense_limit, a pivot up to n·ε_T·scale. 0: A's own scale only.
  /// Throws InvalidInput if A is not square, has invalid entries or is singular
  /// and not symmetric or larger than dense_limit, or if scale is negative or not finite.
  void factor(const CsrMatrix<T>& A, double scale = 0);
  /// x = A⁻¹ b (x resized). Throws if factor() has not succeeded or b has the wrong size.
  void solve(const std::vector<T>& b, std::vector<T>& x) const;
  /// X = A⁻¹ B for k right-hand sides, B and X row-major rows() × k (entry (i, j)
  /// at [i*k + j]; X resized). Column j of X has exactly the bits of solve()
  /// applied to column j of B. Throws if not factored, k < 1 or B has the wrong size.
  void solve(const std::vector<T>& B, index_t k, std::vector<T>& X) const;
  /// The dense factorisation in place, as Eigen keeps it: `packed` is column-major
  /// n × n in double (entry (i, j) at [j·n + i]) with P·A = L·U. For LLT
  /// (`cholesky`) L is the lower triangle with its diagonal and U = Lᵀ; the strict
  /// upper triangle of `packed` is not part of the factor. For LU, L is the strict
  /// lower triangle with a unit diagonal (not stored) and U the upper triangle. P
  /// moves row j of A to row permutation[j] (the identity for LLT), so column j of
  /// A⁻¹ is U⁻¹L⁻¹e_{permutation[j]}. For "dense-pinv" the factor is B's and
  /// A⁺ = B⁻¹ − N·Nᵀ/null_scale, N = `null_basis` (column-major n × nullity).
  /// The pointers stay valid until the solver is refactored or destroyed.
  /// Throws unless the factorisation is dense.
  struct PackedFactors {
    index_t n = 0;
    const double* packed = nullptr;
    bool cholesky = false;
    std::vector<index_t> permutation;
    const double* null_basis = nullptr;
    index_t nullity = 0;
    double null_scale = 0;
  };
  PackedFactors packed_factors() const;

  bool factored() const { return static_cast<bool>(factorization_); }
  index_t rows() const { return rows_; }
  /// The dimension of A's null space (0 unless the method is "dense-pinv").
  index_t nullity() const { return nullity_; }
  /// "dense-llt", "dense-lu", "dense-pinv", "sparse-ldlt", "sparse-lu", or "none".
  std::string method() const;

 private:
  struct Factorization;
  std::unique_ptr<Factorization> factorization_;
  index_t rows_ = 0;
  index_t nullity_ = 0;
};

#if BINAMG_WITH_CUDA
/// Coarsest-level solve for the GPU hierarchy: A⁻¹ is formed once in double
/// and kept row-major in T. A matrix on the device that is symmetric and has no
/// small pivot (the common case) is inverted there by blocked symmetric
/// Gauss-Jordan sweeps (amg/dense_inverse); any other matrix is downloaded and
/// factored on the host with CoarseSolver, whose checks and messages apply, and
/// A⁻¹ formed on the GPU from its packed factor (a warp per column, blocked
/// forward and back substitution in double). Forming A⁻¹ on the host (n
/// triangular solve pairs) was slow and, on shared host cores, erratic
/// (docs/experiments.md).
/// Every solve is one product with A⁻¹ by binamg's own kernel, whose summation
/// order is fixed (bits repeat run to run) and the same for every column, so each
/// column of a k-column solve has exactly the bits of the one-vector solve of that
/// column. Throws InvalidInput above CoarseSolver<T>::dense_limit rows (a dense
/// inverse would not fit).
template <typename T>
class DeviceCoarseSolver {
 public:
  DeviceCoarseSolver();
  ~DeviceCoarseSolver();
  DeviceCoarseSolver(DeviceCoarseSolver&&) noexcept;
  DeviceCoarseSolver& operator=(DeviceCoarseSolver&&) noexcept;

  /// Factors A on the host (CoarseSolver::factor, with `scale`) and forms its inverse here.
  void factor(const CsrMatrix<T>& A, double scale = 0, cudaStream_t stream = nullptr);
  /// The same for A on the device: a symmetric A whose pivots (those of its
  /// Cholesky factorisation) are not small by CoarseSolver's test, with
  /// `scale`, is inverted on the device, with one read-back; any other is
  /// downloaded and factored as above. Its method is then "dense-inverse(sweep)".
  void factor(const DeviceCsr<T>& A, double scale = 0, cudaStream_t stream = nullptr);
  /// x = A⁻¹ b on `stream`; b and x hold rows() entries and must not alias.
  void solve(const T* b, T* x, cudaStream_t stream = nullptr) const;
  /// X = A⁻¹ B on `stream` for k right-hand sides: B and X are device arrays of
  /// rows() × k entries, row-major (entry (i, j) at [i*k + j]), and must not
  /// alias. Throws InvalidInput if not factored, k < 1 or rows() × k overflows
  /// 32-bit indices.
  void solve(const T* B, index_t k, T* X, cudaStream_t stream = nullptr) const;
  index_t rows() const { return rows_; }
  /// The dimension of A's null space (CoarseSolver::nullity).
  index_t nullity() const { return nullity_; }
  /// "dense-inverse(<method of the host factorisation>)" or "none".
  std::string method() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  index_t rows_ = 0;
  index_t nullity_ = 0;
};
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
