#include "binamg/amg/coarse_solve.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <variant>
#include <vector>

#include "binamg/sparse/transpose.hpp"

namespace binamg {
namespace {

using DenseMatrix = Eigen::MatrixXd;
using SparseMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

template <typename T>
bool is_symmetric(const CsrMatrix<T>& A) {
  // Galerkin products of a symmetric A are symmetric only up to rounding, and an
  // entry whose terms cancel keeps rounding of the size of its terms, not of
  // itself; so A_ij and A_ji are compared a few hundred ulps wide relative to the
  // entries and to √|a_ii a_jj|, the scale of the terms (the Cholesky factor sees
  // only the lower triangle, so such a difference is not a different matrix).
  // Row i of A and row i of Aᵀ (column i of A), both sorted, are merged: each
  // pair is found in one pass (a search per entry cost more than the
  // factorisation on a coarsest matrix of a few hundred rows of about 100
  // entries; docs/experiments.md).
  const double eps = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  const CsrMatrix<T> At = transpose(A);
  std::vector<double> diagonal(A.rows, 0.0);
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (A.col_idx[k] == i) diagonal[i] = std::abs(double(A.values[k]));
  for (index_t i = 0; i < A.rows; ++i) {
    index_t k = A.row_ptr[i], t = At.row_ptr[i];
    const index_t k_end = A.row_ptr[i + 1], t_end = At.row_ptr[i + 1];
    while (k < k_end || t < t_end) {
      // The next column of either row; the other side holds 0 there if it lacks it.
      const index_t j = t == t_end || (k < k_end && A.col_idx[k] < At.col_idx[t])
                            ? A.col_idx[k]
                            : At.col_idx[t];
      const double value = k < k_end && A.col_idx[k] == j ? double(A.values[k++]) : 0.0;
      const double transposed = t < t_end && At.col_idx[t] == j ? double(At.values[t++]) : 0.0;
      const double scale =
          std::abs(value) + std::abs(transposed) + std::sqrt(diagonal[i] * diagonal[j]);
      if (std::abs(value - transposed) > eps * scale) return false;
    }
  }
  return true;
}

}  // namespace

template <typename T>
struct CoarseSolver<T>::Factorization {
  std::variant<Eigen::LLT<DenseMatrix>, Eigen::PartialPivLU<DenseMatrix>,
               Eigen::SimplicialLDLT<SparseMatrix>, Eigen::SparseLU<SparseMatrix>>
      solver;
  const char* name = "none";
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
void CoarseSolver<T>::factor(const CsrMatrix<T>& A) {
  validate(A, "coarse matrix");
  require(A.rows > 0 && A.rows == A.cols,
          "coarse matrix: must be square and non-empty (" + std::to_string(A.rows) + " x " +
              std::to_string(A.cols) + ")");
  factorization_.reset();
  rows_ = 0;
  auto result = std::make_unique<Factorization>();
  const bool symmetric = is_symmetric(A);
  const index_t n = A.rows;
  const std::string singular = "coarse matrix (" + std::to_string(n) + " rows) is singular";

  if (n <= dense_limit) {
    DenseMatrix dense = DenseMatrix::Zero(n, n);
    for (index_t i = 0; i < n; ++i)
      for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
        dense(i, A.col_idx[k]) = A.values[k];
    bool done = false;
    if (symmetric) {
      Eigen::LLT<DenseMatrix> llt(dense);
      if (llt.info() == Eigen::Success) {
        result->solver = std::move(llt);
        result->name = "dense-llt";
        done = true;
      }
    }
    if (!done) {
      Eigen::PartialPivLU<DenseMatrix> lu(dense);
      // Partial pivoting reports no failure itself: a zero pivot means singular.
      const auto pivots = lu.matrixLU().diagonal().cwiseAbs();
      require(pivots.minCoeff() > 0 && std::isfinite(pivots.maxCoeff()), singular);
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
      if (ldlt.info() == Eigen::Success && (ldlt.vectorD().array() != 0).all()) {
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
  const Eigen::VectorXd solution =
      std::visit([&](const auto& solver) -> Eigen::VectorXd { return solver.solve(rhs); },
                 factorization_->solver);
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
  require(factorization_ != nullptr,
          "CoarseSolver::packed_factors: factor() has not been called");
  PackedFactors factors;
  factors.n = rows_;
  if (const auto* llt = std::get_if<Eigen::LLT<DenseMatrix>>(&factorization_->solver)) {
    factors.packed = llt->matrixLLT().data();
    factors.cholesky = true;
    factors.permutation.resize(rows_);
    for (index_t j = 0; j < rows_; ++j) factors.permutation[j] = j;
  } else if (const auto* lu = std::get_if<Eigen::PartialPivLU<DenseMatrix>>(&factorization_->solver)) {
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
