// The coarsest-level direct solver: exact on SPD and nonsymmetric systems.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "binamg/amg/coarse_solve.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/sparse/add.hpp"
#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmv.hpp"
#include "binamg/vector/vector_ops.hpp"
#include "support/neumann_laplacian.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class CoarseSolve : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CoarseSolve, Precisions);

// The factorisation runs in double; the only float error is rounding b and x
// (a few ulps) amplified by the condition number (< 100 here).
template <typename T>
double tolerance() {
  return std::is_same_v<T, float> ? 1e-4 : 1e-10;
}

template <typename T>
double relative_residual(const CsrMatrix<T>& A, const std::vector<T>& x, const std::vector<T>& b) {
  // Residual in double so the check is not limited by float arithmetic.
  const auto Ad = convert_values<double>(A);
  const std::vector<double> xd(x.begin(), x.end()), bd(b.begin(), b.end());
  std::vector<double> r;
  residual(Ad, xd, bd, r);
  return norm2(r) / norm2(bd);
}

TYPED_TEST(CoarseSolve, SolvesSpdSystemWithCholesky) {
  using T = TypeParam;
  const auto A = poisson<T>(Stencil::poisson2d_5, 9);
  CoarseSolver<T> solver;
  solver.factor(A);
  EXPECT_EQ(solver.method(), "dense-llt");
  const auto b = testing::random_vector<T>(A.rows, 5);
  std::vector<T> x;
  solver.solve(b, x);
  EXPECT_LT(relative_residual(A, x, b), tolerance<T>());
}

TYPED_TEST(CoarseSolve, SolvesNonsymmetricSystemWithLu) {
  using T = TypeParam;
  // Random off-diagonals in [-1, 1], about 4 per row, plus 8 on the diagonal:
  // strictly diagonally dominant, hence nonsingular and well conditioned.
  const auto A = add(T(1), testing::random_matrix<T>({50, 50, 4, 0, 0, false}, 9), T(8),
                     identity_matrix<T>(50));
  CoarseSolver<T> solver;
  solver.factor(A);
  EXPECT_EQ(solver.method(), "dense-lu");
  const auto b = testing::random_vector<T>(A.rows, 6);
  std::vector<T> x;
  solver.solve(b, x);
  EXPECT_LT(relative_residual(A, x, b), tolerance<T>());
}

// A copy of A with `value` stored at (row, column): replaced if present,
// inserted in column order if not.
template <typename T>
CsrMatrix<T> with_entry(const CsrMatrix<T>& A, index_t row, index_t column, T value) {
  CsrMatrix<T> B;
  B.rows = A.rows;
  B.cols = A.cols;
  B.row_ptr.assign(1, 0);
  for (index_t i = 0; i < A.rows; ++i) {
    bool placed = i != row;
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      if (!placed && A.col_idx[k] >= column) {
        B.col_idx.push_back(column);
        B.values.push_back(value);
        placed = true;
        if (A.col_idx[k] == column) continue;
      }
      B.col_idx.push_back(A.col_idx[k]);
      B.values.push_back(A.values[k]);
    }
    if (!placed) {
      B.col_idx.push_back(column);
      B.values.push_back(value);
    }
    B.row_ptr.push_back(B.nnz());
  }
  return B;
}

// The symmetry test pairs A_ij with A_ji over the union of both patterns: an
// explicit zero without a mirror entry and a difference of rounding size keep
// Cholesky; a real difference, or a nonzero without a mirror, takes LU.
TYPED_TEST(CoarseSolve, SymmetryIgnoresRoundingAndUnmirroredZeros) {
  using T = TypeParam;
  const auto A = poisson<T>(Stencil::poisson2d_5, 9);  // A(0, 1) = A(1, 0) = -1
  const T rounding = T(-1) + std::numeric_limits<T>::epsilon();
  const auto method = [](const CsrMatrix<T>& M) {
    CoarseSolver<T> solver;
    solver.factor(M);
    return solver.method();
  };
  EXPECT_EQ(method(with_entry(A, 0, 40, T(0))), "dense-llt");
  EXPECT_EQ(method(with_entry(A, 40, 0, T(0))), "dense-llt");
  EXPECT_EQ(method(with_entry(A, 1, 0, rounding)), "dense-llt");
  EXPECT_EQ(method(with_entry(A, 1, 0, T(-1.01))), "dense-lu");
  EXPECT_EQ(method(with_entry(A, 0, 40, T(0.01))), "dense-lu");
  EXPECT_EQ(method(with_entry(A, 80, 3, T(0.01))), "dense-lu");
}

TYPED_TEST(CoarseSolve, LargeSystemUsesSparseFactorisation) {
  using T = TypeParam;
  const auto A = poisson<T>(Stencil::poisson2d_5, 70);  // 4900 rows > dense_limit
  CoarseSolver<T> solver;
  solver.factor(A);
  EXPECT_EQ(solver.method(), "sparse-ldlt");
  const auto b = testing::random_vector<T>(A.rows, 7);
  std::vector<T> x;
  solver.solve(b, x);
  // cond(A) ≈ 2000 for 70×70: float loses ~3 more digits than above.
  const double bound = std::is_same_v<T, float> ? 1e-3 : 1e-10;
  EXPECT_LT(relative_residual(A, x, b), bound);
}

// A singular symmetric matrix is solved by its pseudo-inverse (PyAMG's coarse
// solve): a consistent b gets the solution orthogonal to the null space, and b
// in the null space gets x = 0.
TYPED_TEST(CoarseSolve, SingularSymmetricMatrixGetsItsPseudoInverse) {
  using T = TypeParam;
  const auto A = testing::neumann_laplacian<T>(12);
  CoarseSolver<T> solver;
  solver.factor(A);
  EXPECT_EQ(solver.method(), "dense-pinv");
  EXPECT_EQ(solver.nullity(), 1);
  // b = A·y is consistent; A⁺b is y less its mean.
  const auto y = testing::random_vector<T>(A.rows, 4);
  std::vector<T> b, x;
  spmv(A, y, b);
  solver.solve(b, x);
  double mean_y = 0, sum_x = 0;
  for (index_t i = 0; i < A.rows; ++i) {
    mean_y += double(y[i]) / A.rows;
    sum_x += double(x[i]);
  }
  const double allowed = std::is_same_v<T, float> ? 1e-4 : 1e-11;
  for (index_t i = 0; i < A.rows; ++i) EXPECT_NEAR(x[i], y[i] - mean_y, allowed) << i;
  EXPECT_NEAR(sum_x, 0.0, allowed * A.rows);
  solver.solve(std::vector<T>(A.rows, T(1)), x);  // the null space itself
  for (index_t i = 0; i < A.rows; ++i) EXPECT_NEAR(x[i], 0.0, allowed) << i;

  // An explicit zero on the diagonal of the identity: e_1 spans the null space.
  CsrMatrix<T> singular = identity_matrix<T>(3);
  singular.values[1] = T(0);
  solver.factor(singular);
  EXPECT_EQ(solver.nullity(), 1);
  solver.solve(std::vector<T>{T(2), T(5), T(3)}, x);
  EXPECT_NEAR(x[0], 2.0, allowed);
  EXPECT_NEAR(x[1], 0.0, allowed);
  EXPECT_NEAR(x[2], 3.0, allowed);
}

// A Galerkin product that cancels leaves a rounding residue, not a zero: at
// the scale it was formed at, a residue is zero even when it is all of A.
TYPED_TEST(CoarseSolve, ResidueAtTheGivenScaleIsSingular) {
  using T = TypeParam;
  const T residue = std::numeric_limits<T>::epsilon() / 10;  // of a product at scale 4
  CsrMatrix<T> A = identity_matrix<T>(1);
  A.values[0] = residue;
  CoarseSolver<T> solver;
  solver.factor(A);  // on its own scale, an ordinary number
  EXPECT_EQ(solver.nullity(), 0);
  solver.factor(A, 4.0);
  EXPECT_EQ(solver.nullity(), 1);
  EXPECT_EQ(solver.method(), "dense-pinv");
  std::vector<T> x;
  solver.solve(std::vector<T>{T(1)}, x);
  EXPECT_NEAR(x[0], 0.0, 1e-6);  // not 1/residue
  EXPECT_THROW(solver.factor(A, -1.0), InvalidInput);
  // A matrix of ordinary size is unaffected by the scale.
  solver.factor(poisson<T>(Stencil::poisson2d_5, 6), 4.0);
  EXPECT_EQ(solver.nullity(), 0);
  EXPECT_EQ(solver.method(), "dense-llt");
}

// Rank is judged by eigenvalues against one rounding of the finest scale:
// the coarsest matrix of a fine 2D grid lies far below that scale (a float
// 2D 4096² one had every eigenvalue below n·ε·scale, and every pivot, so a
// pivot floor took it for null whole). Here 40 rows with eigenvalues from
// 1e-6 to 5e-6 at scale 4: nonsingular; the Neumann Laplacian at the same
// scale keeps its null space.
TYPED_TEST(CoarseSolve, FarBelowTheFinestScaleRankIsJudgedByEigenvalues) {
  using T = TypeParam;
  const double scale = 4;
  CsrMatrix<T> regular = testing::neumann_laplacian<T>(1);  // 1 x 1, replaced below
  const index_t n = 40;
  regular.rows = regular.cols = n;
  regular.row_ptr = {0};
  regular.col_idx.clear();
  regular.values.clear();
  for (index_t i = 0; i < n; ++i) {  // 1e-6·(I + tridiag(-1, 2, -1))
    for (index_t j = std::max<index_t>(i - 1, 0); j <= std::min<index_t>(i + 1, n - 1); ++j) {
      regular.col_idx.push_back(j);
      regular.values.push_back(T(j == i ? 3e-6 : -1e-6));
    }
    regular.row_ptr.push_back(index_t(regular.col_idx.size()));
  }
  CoarseSolver<T> solver;
  solver.factor(regular, scale);
  EXPECT_EQ(solver.nullity(), 0);
  EXPECT_EQ(solver.method(), "dense-llt");
  const auto b = testing::random_vector<T>(n, 11);
  std::vector<T> x;
  solver.solve(b, x);
  EXPECT_LT(relative_residual(regular, x, b), (std::is_same_v<T, float> ? 1e-5 : 1e-12));

  CsrMatrix<T> neumann = testing::neumann_laplacian<T>(6);
  for (T& value : neumann.values) value *= T(1.0 / 16384);  // 2^-14: exact
  solver.factor(neumann, scale);
  EXPECT_EQ(solver.nullity(), 1);
  EXPECT_EQ(solver.method(), "dense-pinv");
}

// Small pivots alone are not singularity: a nonsingular matrix with a tiny but
// representable eigenvalue keeps an ordinary factorisation.
TYPED_TEST(CoarseSolve, NearlySingularMatrixIsNotTakenForSingular) {
  using T = TypeParam;
  CsrMatrix<T> A = testing::neumann_laplacian<T>(8);
  A.values[0] += T(1e-3);  // grounds the Laplacian at one node: λ_min ≈ 1e-5
  CoarseSolver<T> solver;
  solver.factor(A);
  EXPECT_EQ(solver.method(), "dense-llt");
  EXPECT_EQ(solver.nullity(), 0);
}

TYPED_TEST(CoarseSolve, RejectsSingularAndBadInput) {
  using T = TypeParam;
  CoarseSolver<T> solver;
  std::vector<T> x;
  EXPECT_THROW(solver.solve(std::vector<T>(3, T(1)), x), InvalidInput);  // not factored
  // Singular and not symmetric: [[1, 2], [3, 6]].
  CsrMatrix<T> rank_one = zero_matrix<T>(2, 2);
  rank_one.row_ptr = {0, 2, 4};
  rank_one.col_idx = {0, 1, 0, 1};
  rank_one.values = {T(1), T(2), T(3), T(6)};
  EXPECT_THROW(solver.factor(rank_one), InvalidInput);
  // Singular and above the dense limit: no pseudo-inverse, and the message says what to do.
  try {
    solver.factor(testing::neumann_laplacian<T>(70));
    ADD_FAILURE() << "a singular matrix of 4900 rows was factored";
  } catch (const InvalidInput& error) {
    EXPECT_NE(std::string(error.what()).find("coarsen further"), std::string::npos) << error.what();
  }
  EXPECT_THROW(solver.factor(testing::random_matrix<T>({3, 4, 2, 0, 0, false}, 1)), InvalidInput);
  solver.factor(identity_matrix<T>(3));
  EXPECT_THROW(solver.solve(std::vector<T>(4, T(1)), x), InvalidInput);
}

// The two factorisations a dense coarse level can take.
template <typename T>
std::vector<CsrMatrix<T>> dense_range_matrices() {
  return {poisson<T>(Stencil::poisson2d_5, 9),  // SPD: LLT
          add(T(1), testing::random_matrix<T>({50, 50, 4, 0, 0, false}, 9), T(8),
              identity_matrix<T>(50))};  // nonsymmetric: LU
}

TYPED_TEST(CoarseSolve, BlockSolveEqualsColumnByColumnSolvesBitwise) {
  using T = TypeParam;
  for (const CsrMatrix<T>& A : dense_range_matrices<T>()) {
    CoarseSolver<T> solver;
    solver.factor(A);
    const index_t k = 5;
    const auto B = testing::random_vector<T>(std::size_t(A.rows) * k, 11);
    std::vector<T> X, x;
    solver.solve(B, k, X);
    ASSERT_EQ(X.size(), B.size());
    for (index_t j = 0; j < k; ++j) {
      solver.solve(testing::column_of(B, k, j), x);
      EXPECT_EQ(testing::column_of(X, k, j), x) << solver.method() << ", column " << j;
    }
  }
}

TYPED_TEST(CoarseSolve, BlockSolveRejectsBadCountsAndSizes) {
  using T = TypeParam;
  CoarseSolver<T> solver;
  std::vector<T> X;
  EXPECT_THROW(solver.solve(std::vector<T>(6, T(1)), 2, X), InvalidInput);  // not factored
  solver.factor(identity_matrix<T>(3));
  EXPECT_THROW(solver.solve(std::vector<T>(), 0, X), InvalidInput);
  EXPECT_THROW(solver.solve(std::vector<T>(3, T(1)), -1, X), InvalidInput);
  EXPECT_THROW(solver.solve(std::vector<T>(5, T(1)), 2, X), InvalidInput);  // 3 × 2 expected
  solver.solve(std::vector<T>(6, T(1)), 2, X);
  EXPECT_EQ(X, std::vector<T>(6, T(1)));
}

TYPED_TEST(CoarseSolve, PackedFactorsReproducePermutedMatrix) {
  using T = TypeParam;
  for (const CsrMatrix<T>& A : dense_range_matrices<T>()) {
    CoarseSolver<T> solver;
    solver.factor(A);
    const auto f = solver.packed_factors();
    ASSERT_EQ(f.n, A.rows);
    ASSERT_NE(f.packed, nullptr);
    EXPECT_EQ(f.cholesky, solver.method() == "dense-llt");
    // L and U row-major, read off the column-major packed factor as documented.
    const std::size_t n = f.n;
    std::vector<double> lower(n * n, 0.0), upper(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        const double packed = f.packed[j * n + i];
        if (f.cholesky) {
          if (j <= i) lower[i * n + j] = upper[j * n + i] = packed;
        } else {
          if (j < i)
            lower[i * n + j] = packed;
          else
            upper[i * n + j] = packed;
          if (j == i) lower[i * n + i] = 1.0;
        }
      }
    const std::vector<double> dense = testing::to_dense(A);
    const std::vector<double> product = testing::dense_multiply(lower, upper, f.n, f.n, f.n);
    double error = 0, scale = 0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        // Row i of A is row permutation[i] of P·A = L·U.
        const double a = dense[i * n + j];
        error = std::max(error, std::abs(product[std::size_t(f.permutation[i]) * n + j] - a));
        scale = std::max(scale, std::abs(a));
      }
    // Backward-stable factorisations in double of matrices with entries ≤ 9:
    // ‖LU − PA‖ is a few ulps of double times n.
    EXPECT_LT(error, 1e3 * std::numeric_limits<double>::epsilon() * scale) << solver.method();
  }
}

TYPED_TEST(CoarseSolve, SparseFactorisationHasNoPackedFactors) {
  using T = TypeParam;
  CoarseSolver<T> solver;
  EXPECT_THROW(solver.packed_factors(), InvalidInput);  // not factored
  solver.factor(poisson<T>(Stencil::poisson2d_5, 70));  // 4900 rows: above dense_limit
  EXPECT_THROW(solver.packed_factors(), InvalidInput);
}

}  // namespace
}  // namespace binamg
