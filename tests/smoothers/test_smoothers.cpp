// The smoothers on the CPU: Chebyshev against its closed form on a matrix whose
// spectrum is known, l1-Jacobi's diagonal, and each smoother inside the solvers.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/amg/parameters.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/smoothers/chebyshev.hpp"
#include "binamg/smoothers/jacobi.hpp"
#include "binamg/solvers/pcg.hpp"
#include "binamg/solvers/vcycle.hpp"
#include "binamg/spmv/spmv.hpp"
#include "support/matrix_of_rows.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

// The 1D Dirichlet Laplacian tridiag(-1, 2, -1) of n rows: D⁻¹A has the
// eigenvectors v_m(i) = sin(m·π·(i+1)/(n+1)) with eigenvalues 1 − cos(m·π/(n+1)).
CsrMatrix<double> laplacian_1d(index_t n) {
  std::vector<std::vector<std::pair<index_t, double>>> rows(n);
  for (index_t i = 0; i < n; ++i) {
    if (i > 0) rows[i].push_back({i - 1, -1.0});
    rows[i].push_back({i, 2.0});
    if (i + 1 < n) rows[i].push_back({i + 1, -1.0});
  }
  return testing::matrix_of_rows<double>(rows);
}

// The Chebyshev polynomial of the smoother, p(λ) = T_m((θ − λ)/δ) / T_m(θ/δ)
// on [lower, upper], p(0) = 1: the factor by which one application multiplies
// the error's component along an eigenvector of eigenvalue λ.
double chebyshev_factor(double lambda, double lower, double upper, int degree) {
  const auto T = [degree](double t) {
    return std::abs(t) <= 1
               ? std::cos(degree * std::acos(t))
               : std::cosh(degree * std::acosh(std::abs(t))) * (t < 0 && degree % 2 ? -1 : 1);
  };
  const double theta = (upper + lower) / 2, delta = (upper - lower) / 2;
  return T((theta - lambda) / delta) / T(theta / delta);
}

TEST(Chebyshev, MultipliesEachEigencomponentByItsPolynomial) {
  const index_t n = 40;
  const CsrMatrix<double> A = laplacian_1d(n);
  const std::vector<double> inverse = inverse_diagonal(A);
  const double pi = std::acos(-1.0), rho = 1 - std::cos(n * pi / (n + 1));
  for (int degree : {1, 2, 3, 5}) {
    const ChebyshevSteps steps = chebyshev_steps(rho, degree, 0.2);
    for (index_t m : {1, 7, 20, 33, 40}) {
      std::vector<double> v(n), b, x, r, d;
      for (index_t i = 0; i < n; ++i) v[i] = std::sin(m * pi * (i + 1) / (n + 1));
      b.resize(n);
      spmv(A, v, b);  // A x = b is solved by v: the error of x = 0 is −v
      chebyshev(A, inverse, steps, b, x, 1, true, r, d);
      const double lambda = 1 - std::cos(m * pi / (n + 1));
      const double factor = chebyshev_factor(lambda, 0.2 * 1.1 * rho, 1.1 * rho, degree);
      for (index_t i = 0; i < n; ++i)
        ASSERT_NEAR(v[i] - x[i], factor * v[i], 1e-12)
            << "degree " << degree << ", mode " << m << ", row " << i;
    }
  }
}

TEST(Chebyshev, ZeroGuessIsBitwiseTheApplicationFromZero) {
  const CsrMatrix<double> A = poisson<double>(Stencil::poisson2d_9, 12);
  const std::vector<double> inverse = inverse_diagonal(A);
  const std::vector<double> b = testing::random_vector<double>(A.rows, 5);
  const ChebyshevSteps steps = chebyshev_steps(1.8, 3, 0.1);
  std::vector<double> from_zero(A.rows, 7.0), zeros(A.rows, 0.0), r, d;
  chebyshev(A, inverse, steps, b, from_zero, 1, true, r, d);
  chebyshev(A, inverse, steps, b, zeros, 1, false, r, d);
  EXPECT_EQ(from_zero, zeros);
}

TEST(Chebyshev, ColumnsOfABlockAreBitwiseTheVectorApplication) {
  const CsrMatrix<double> A = poisson<double>(Stencil::poisson3d_7, 6);
  const std::vector<double> inverse = inverse_diagonal(A);
  const ChebyshevSteps steps = chebyshev_steps(1.9, 4, 0.3);
  const index_t k = 3;
  const std::vector<double> B = testing::random_vector<double>(A.rows * k, 8);
  const std::vector<double> X0 = testing::random_vector<double>(A.rows * k, 9);
  std::vector<double> X = X0, r, d;
  chebyshev(A, inverse, steps, B, X, k, false, r, d);
  for (index_t j = 0; j < k; ++j) {
    std::vector<double> b(A.rows), x(A.rows);
    for (index_t i = 0; i < A.rows; ++i) {
      b[i] = B[i * k + j];
      x[i] = X0[i * k + j];
    }
    chebyshev(A, inverse, steps, b, x, 1, false, r, d);
    for (index_t i = 0; i < A.rows; ++i) ASSERT_EQ(x[i], X[i * k + j]) << "column " << j;
  }
}

TEST(Chebyshev, BadDegreeRadiusOrIntervalIsRejected) {
  EXPECT_THROW(chebyshev_steps(1.0, 0, 0.2), InvalidInput);
  EXPECT_THROW(chebyshev_steps(1.0, max_chebyshev_degree + 1, 0.2), InvalidInput);
  EXPECT_THROW(chebyshev_steps(0.0, 2, 0.2), InvalidInput);
  EXPECT_THROW(chebyshev_steps(std::nan(""), 2, 0.2), InvalidInput);
  EXPECT_THROW(chebyshev_steps(1.0, 2, 0.0), InvalidInput);
  EXPECT_THROW(chebyshev_steps(1.0, 2, 1.0), InvalidInput);
}

TEST(L1Jacobi, DiagonalIsTheDiagonalPlusTheOffDiagonalMagnitudes) {
  const CsrMatrix<double> A = testing::matrix_of_rows<double>(
      {{{0, 4.0}, {1, -1.0}, {2, 2.0}}, {{0, -1.0}, {1, 3.0}}, {{0, 2.0}, {2, 5.0}}});
  EXPECT_EQ(inverse_l1_diagonal(A), (std::vector<double>{1 / 7.0, 1 / 4.0, 1 / 7.0}));
}

TEST(L1Jacobi, ZeroL1DiagonalIsRejectedWithItsRow) {
  const CsrMatrix<double> A = testing::matrix_of_rows<double>(
      {{{0, 2.0}, {1, -1.0}}, {{0, -1.0}, {1, -1.0}}});  // row 1: −1 + |−1| = 0
  try {
    inverse_l1_diagonal(A);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& error) {
    EXPECT_NE(std::string(error.what()).find("row 1"), std::string::npos) << error.what();
  }
}

TEST(Smoother, NamesParseAndBadOnesAreRejected) {
  for (SmootherKind kind : {SmootherKind::jacobi, SmootherKind::l1_jacobi, SmootherKind::chebyshev})
    EXPECT_EQ(parse_smoother(smoother_name(kind)), kind);
  EXPECT_THROW(parse_smoother("gauss-seidel"), InvalidInput);
  AmgParameters parameters;
  parameters.chebyshev_degree = 0;
  EXPECT_THROW(validate(parameters), InvalidInput);
}

TEST(Smoother, L1JacobiLevelsKeepTheL1DiagonalAndWeightOne) {
  AmgParameters parameters;
  parameters.smoother = SmootherKind::l1_jacobi;
  parameters.max_coarse_rows = 300;  // two levels or more
  const CsrMatrix<double> A = poisson<double>(Stencil::poisson2d_5, 64);
  const Hierarchy<double> h = build_hierarchy(A, parameters);
  ASSERT_GE(h.levels.size(), 2u);
  for (const Level<double>& level : h.levels) {
    EXPECT_EQ(level.inverse_diagonal, inverse_l1_diagonal(level.A));
    EXPECT_EQ(level.jacobi_weight, 1.0);
  }
  // The prolongator still smooths with A's own diagonal: the same P as Jacobi's.
  const Hierarchy<double> jacobi_h = build_hierarchy(A);
  EXPECT_EQ(h.levels[0].P.values, jacobi_h.levels[0].P.values);
}

TEST(Smoother, EverySmootherConvergesInPcgAndTheVcycle) {
  SolveOptions options;
  options.tolerance = 1e-8;
  for (Stencil stencil : {Stencil::poisson2d_5, Stencil::poisson3d_7}) {
    const CsrMatrix<double> A = poisson<double>(stencil, stencil == Stencil::poisson2d_5 ? 96 : 20);
    const std::vector<double> b(A.rows, 1.0);
    int jacobi_iterations = 0;
    for (SmootherKind kind :
         {SmootherKind::jacobi, SmootherKind::l1_jacobi, SmootherKind::chebyshev}) {
      AmgParameters parameters;
      parameters.smoother = kind;
      const Hierarchy<double> h = build_hierarchy(A, parameters);
      std::vector<double> x(A.rows, 0.0);
      const SolveResult cg = pcg(h, b, x, options);
      EXPECT_TRUE(cg.converged) << smoother_name(kind);
      EXPECT_LE(cg.relative_residual, options.tolerance) << smoother_name(kind);
      if (kind == SmootherKind::jacobi) jacobi_iterations = cg.iterations;
      // Chebyshev of degree 2 costs a second product with A per sweep; it
      // must at least not lose iterations to one Jacobi sweep.
      if (kind == SmootherKind::chebyshev) {
        EXPECT_LE(cg.iterations, jacobi_iterations);
      }
      std::vector<double> y(A.rows, 0.0);
      const SolveResult cycles = vcycle_solve(h, b, y, options);
      EXPECT_TRUE(cycles.converged) << smoother_name(kind);
    }
  }
}

}  // namespace
}  // namespace binamg
