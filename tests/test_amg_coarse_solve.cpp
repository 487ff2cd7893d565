// The coarsest-level direct solver: exact on SPD and nonsymmetric systems.
#include <gtest/gtest.h>

#include <cmath>

#include "amg/coarse_solve.hpp"
#include "problems/poisson.hpp"
#include "sparse/add.hpp"
#include "sparse/spmv.hpp"
#include "sparse/vector_ops.hpp"
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

TYPED_TEST(CoarseSolve, RejectsSingularAndBadInput) {
  using T = TypeParam;
  CoarseSolver<T> solver;
  std::vector<T> x;
  EXPECT_THROW(solver.solve(std::vector<T>(3, T(1)), x), InvalidInput);  // not factored
  CsrMatrix<T> singular = identity_matrix<T>(3);
  singular.values[1] = T(0);  // an explicit zero on the diagonal
  EXPECT_THROW(solver.factor(singular), InvalidInput);
  EXPECT_THROW(solver.factor(testing::random_matrix<T>({3, 4, 2, 0, 0, false}, 1)), InvalidInput);
  solver.factor(identity_matrix<T>(3));
  EXPECT_THROW(solver.solve(std::vector<T>(4, T(1)), x), InvalidInput);
}

}  // namespace
}  // namespace binamg
