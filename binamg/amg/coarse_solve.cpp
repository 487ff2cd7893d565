#include "binamg/amg/coarse_solve.hpp"

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <variant>
#include <vector>

#include "binamg/sparse/symmetry.hpp"

namespace binamg {
namespace {

using DenseMatrix = Eigen::MatrixXd;
using SparseMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

// Rank is judged as LAPACK's and SciPy's pinv judge it: a pivot or eigenvalue
// at or below n·ε times its scale is zero.
double rank_tolerance(index_t n) { return n * std::numeric_limits<double>::epsilon(); }

// Whether a Cholesky pivot L_ii² fell below √ε of its row's diagonal a_ii, or
// to `floor`: a row that nearly depends on the rows before it, worth the rank
// test below. (Pivots of the coarse matrices of the model problems are above
// 0.2·a_ii.)
bool has_small_pivot(const Eigen::LLT<DenseMatrix>& llt, const DenseMatrix& A, double floor) {
  const double root_epsilon = std::sqrt(std::numeric_limits<double>::epsilon());
  for (Eigen::Index i = 0; i < A.rows(); ++i) {
    const double pivot = llt.matrixLLT()(i, i) * llt.matrixLLT()(i, i);
    if (pivot <= root_epsilon * std::abs(A(i, i)) || pivot <= floor) return true;
  }
  return false;
}

// An orthonormal basis (n × d, column-major) of the null space of a symmetric
// A: the eigenvectors of its eigenvalues at or below max(n·ε·max|λ|, floor),
// d of them; empty (d = 0) when there are none or A is indefinite (an
// eigenvalue below minus that). Eigenvalues, not pivots: a pivot of a
// near-null direction is its eigenvalue over the square of the direction's
// last entry, about n times the eigenvalue, so no pivot floor tells a
// Neumann residue (below 0.07·ε_T·s₀ measured) from the smallest eigenvalue
// of a fine 2D Dirichlet grid's coarsest matrix (4.8·ε_T·s₀ in float at
// 4096², docs/experiments.md).
DenseMatrix null_space_basis(const DenseMatrix& A, double floor) {
  const Eigen::Index n = A.rows();
  // The eigenvalues first (a third of the work): most matrices sent here are
  // nonsingular and need no vectors.
  const Eigen::SelfAdjointEigenSolver<DenseMatrix> values(A, Eigen::EigenvaluesOnly);
  if (values.info() != Eigen::Success || n == 0) return DenseMatrix(n, 0);
  const Eigen::VectorXd& lambda = values.eigenvalues();  // ascending
  const double cut = std::max(rank_tolerance(n) * lambda.cwiseAbs().maxCoeff(), floor);
  if (lambda[0] < -cut) return DenseMatrix(n, 0);
  Eigen::Index nullity = 0;
  while (nullity < n && lambda[nullity] <= cut) ++nullity;
  if (nullity == 0) return DenseMatrix(n, 0);
  const Eigen::SelfAdjointEigenSolver<DenseMatrix> vectors(A);
  return vectors.eigenvectors().leftCols(nullity);
}

}  // namespace

template <typename T>
struct CoarseSolver<T>::Factorization {
  std::variant<Eigen::LLT<DenseMatrix>, Eigen::PartialPivLU<DenseMatrix>,
               Eigen::SimplicialLDLT<SparseMatrix>, Eigen::SparseLU<SparseMatrix>>
      solver;
  const char* name = "none";
  // A singular symmetric A: `solver` factors B = A + s·N Nᵀ (N an orthonormal
  // basis of A's null space, s = max|a_ii|), which is nonsingular, and
  // B⁻¹ − N Nᵀ/s = A⁺, the Moore–Penrose pseudo-inverse.
  DenseMatrix null_basis;
  double null_scale = 0;
};

template <typename T>
CoarseSolver<T>::CoarseSolver() = default;
template <typename T>
CoarseSolver<T>::~CoarseSolver() = default;
template <typename T>
CoarseSolver<T>::CoarseSolver(CoarseSolver&&) noexcept = default;
template <typename T>
CoarseSolver<T>& CoarseSolver<T>::operator=(CoarseSolver&&) noexcept = default;

template <typename T>
std::string CoarseSolver<T>::method() const {
  return factorization_ ? factorization_->name : "none";
}

template <typename T>
void CoarseSolver<T>::factor(const CsrMatrix<T>& A, double scale) {
  validate(A, "coarse matrix");
  require(scale >= 0 && std::isfinite(scale),
          "coarse matrix: the scale " + std::to_string(scale) + " is not finite and >= 0");
  require(A.rows > 0 && A.rows == A.cols, "coarse matrix: must be square and non-empty (" +
                                              std::to_string(A.rows) + " x " +
                                              std::to_string(A.cols) + ")");
  factorization_.reset();
  rows_ = 0;
  nullity_ = 0;
  auto result = std::make_unique<Factorization>();
  const bool symmetric = !find_asymmetry(A).has_value();
  const index_t n = A.rows;
  const std::string singular = "coarse matrix (" + std::to_string(n) + " rows) is singular";
  // Residues of a cancelling product formed in T at `scale`: an eigenvalue
  // below `floor` is zero. A Cholesky pivot is n times its direction's
  // eigenvalue or more (null_space_basis), so a pivot below n·floor sends
  // the matrix to the eigenvalue test.
  const double floor = double(std::numeric_limits<T>::epsilon()) * scale;
  const double pivot_floor = n * floor;

  if (n <= dense_limit) {
    DenseMatrix dense = DenseMatrix::Zero(n, n);
    for (index_t i = 0; i < n; ++i)
      for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
        dense(i, A.col_idx[k]) = A.values[k];
    bool done = false;
    if (symmetric) {
      Eigen::LLT<DenseMatrix> llt(dense);
      if (llt.info() == Eigen::Success && !has_small_pivot(llt, dense, pivot_floor)) {
        result->solver = std::move(llt);
        result->name = "dense-llt";
        done = true;
      } else {
        // Semidefinite and singular (a pure-Neumann Laplacian), nearly so, or
        // indefinite: the eigenvalues tell. A singular one is
        // solved by its pseudo-inverse, as PyAMG's default coarse solve, so
        // that a consistent right-hand side solves.
        DenseMatrix basis = null_space_basis(dense, floor);
        if (basis.cols() > 0) {
          // The shift is at A's scale, not that of the rounding residue
          // standing for its null part, so B⁻¹ − NNᵀ/s stays A⁺.
          const double shift = std::max(dense.diagonal().cwiseAbs().maxCoeff(), scale);
          Eigen::LLT<DenseMatrix> shifted(dense + shift * basis * basis.transpose());
          if (shifted.info() == Eigen::Success) {
            result->solver = std::move(shifted);
            result->name = "dense-pinv";
            result->null_basis = std::move(basis);
            result->null_scale = shift;
            nullity_ = static_cast<index_t>(result->null_basis.cols());
            done = true;
          }
        } else if (llt.info() == Eigen::Success) {  // small pivots, full rank
          result->solver = std::move(llt);
          result->name = "dense-llt";
          done = true;
        }
      }
    }
    if (!done) {
      Eigen::PartialPivLU<DenseMatrix> lu(dense);
      // Partial pivoting reports no failure itself: a pivot at rounding level of
      // the largest means singular.
      const auto pivots = lu.matrixLU().diagonal().cwiseAbs();
      require(std::isfinite(pivots.maxCoeff()) &&
                  pivots.minCoeff() > rank_tolerance(n) * pivots.maxCoeff(),
              singular + (symmetric ? " (its eigenvalues show no null space to pseudo-invert)"
                                    : " and not symmetric (a pseudo-inverse is formed for "
                                      "symmetric ones)"));
      result->solver = std::move(lu);
      result->name = "dense-lu";
    }
  } else {
    std::vector<Eigen::Triplet<double>> triplets;
    triplets.reserve(A.nnz());
    for (index_t i = 0; i < n; ++i)
      for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
        triplets.emplace_back(i, A.col_idx[k], double(A.values[k]));
    SparseMatrix sparse(n, n);
    sparse.setFromTriplets(triplets.begin(), triplets.end());
    bool done = false;
    if (symmetric) {
      auto& ldlt = result->solver.template emplace<Eigen::SimplicialLDLT<SparseMatrix>>();
      ldlt.compute(sparse);
      if (ldlt.info() == Eigen::Success) {
        const Eigen::VectorXd& d = ldlt.vectorD();
        const Eigen::VectorXd diagonal = sparse.diagonal().cwiseAbs();
        for (index_t i = 0; i < n; ++i)  // the message is built only on failure
          if (!(std::abs(d[i]) > std::max(rank_tolerance(n) * diagonal[i], pivot_floor)))
            throw InvalidInput(singular + " (its LDLᵀ pivot " + std::to_string(i) +
                               " vanishes); a pseudo-inverse is formed only up to " +
                               std::to_string(dense_limit) +
                               " rows: coarsen further (lower max_coarse_rows, raise max_levels)");
        result->name = "sparse-ldlt";
        done = true;
      }
    }
    if (!done) {
      auto& lu = result->solver.template emplace<Eigen::SparseLU<SparseMatrix>>();
      lu.compute(sparse);
      require(lu.info() == Eigen::Success, singular + ": " + lu.lastErrorMessage());
      result->name = "sparse-lu";
    }
  }
  factorization_ = std::move(result);
  rows_ = n;
}

template <typename T>
void CoarseSolver<T>::solve(const std::vector<T>& b, std::vector<T>& x) const {
  require(factorization_ != nullptr, "CoarseSolver::solve: factor() has not been called");
  require(b.size() == static_cast<std::size_t>(rows_),
          "CoarseSolver::solve: b has " + std::to_string(b.size()) + " entries, expected " +
              std::to_string(rows_));
  Eigen::VectorXd rhs(rows_);
  for (index_t i = 0; i < rows_; ++i) rhs[i] = b[i];
  Eigen::VectorXd solution =
      std::visit([&](const auto& solver) -> Eigen::VectorXd { return solver.solve(rhs); },
                 factorization_->solver);
  const DenseMatrix& N = factorization_->null_basis;
  if (N.cols() > 0)  // A⁺b = B⁻¹b − N Nᵀb / s
    solution -= N * (N.transpose() * rhs) / factorization_->null_scale;
  x.resize(rows_);
  for (index_t i = 0; i < rows_; ++i) x[i] = static_cast<T>(solution[i]);
}

template <typename T>
void CoarseSolver<T>::solve(const std::vector<T>& B, index_t k, std::vector<T>& X) const {
  require(factorization_ != nullptr, "CoarseSolver::solve: factor() has not been called");
  require(k >= 1, "CoarseSolver::solve: k = " + std::to_string(k) +
                      " right-hand sides; at least 1 is needed");
  const std::size_t entries = std::size_t(rows_) * std::size_t(k);
  require(B.size() == entries, "CoarseSolver::solve: B has " + std::to_string(B.size()) +
                                   " entries, expected rows × k = " + std::to_string(rows_) +
                                   " × " + std::to_string(k) + " = " + std::to_string(entries));
  // Column by column through the vector solve: that is what makes each column's
  // bits equal to a one-vector solve (a blocked solve sums in another order).
  X.resize(entries);
  std::vector<T> column(rows_), solution;
  for (index_t j = 0; j < k; ++j) {
    for (index_t i = 0; i < rows_; ++i) column[i] = B[std::size_t(i) * k + j];
    solve(column, solution);
    for (index_t i = 0; i < rows_; ++i) X[std::size_t(i) * k + j] = solution[i];
  }
}

template <typename T>
typename CoarseSolver<T>::PackedFactors CoarseSolver<T>::packed_factors() const {
  require(factorization_ != nullptr, "CoarseSolver::packed_factors: factor() has not been called");
  PackedFactors factors;
  factors.n = rows_;
  if (const auto* llt = std::get_if<Eigen::LLT<DenseMatrix>>(&factorization_->solver)) {
    factors.packed = llt->matrixLLT().data();
    factors.cholesky = true;
    factors.null_basis = factorization_->null_basis.data();
    factors.nullity = nullity_;
    factors.null_scale = factorization_->null_scale;
    factors.permutation.resize(rows_);
    for (index_t j = 0; j < rows_; ++j) factors.permutation[j] = j;
  } else if (const auto* lu =
                 std::get_if<Eigen::PartialPivLU<DenseMatrix>>(&factorization_->solver)) {
    factors.packed = lu->matrixLU().data();
    const auto& indices = lu->permutationP().indices();
    factors.permutation.assign(indices.data(), indices.data() + rows_);
  } else {
    throw InvalidInput("CoarseSolver::packed_factors: the " + method() +
                       " factorisation is not dense");
  }
  return factors;
}

template class CoarseSolver<float>;
template class CoarseSolver<double>;

}  // namespace binamg
