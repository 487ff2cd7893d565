// Tentative and smoothed prolongators, and the spectral radius estimate they use.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>

#include "binamg/amg/aggregation.hpp"
#include "binamg/amg/hierarchy.hpp"
#include "binamg/amg/prolongation.hpp"
#include "binamg/amg/spectral_radius.hpp"
#include "binamg/amg/strength.hpp"
#include "binamg/amg/tentative.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/sparse/transpose.hpp"
#include "binamg/spgemm/spgemm.hpp"
#include "support/neumann_laplacian.hpp"
#include "support/random_matrix.hpp"
#include "support/same_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class Prolongation : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Prolongation, Precisions);

// Sums of at most a few dozen O(1) terms: float rounding stays below 1e-5.
template <typename T>
double tolerance() {
  return std::is_same_v<T, float> ? 1e-5 : 1e-13;
}

TYPED_TEST(Prolongation, TentativeHasOrthonormalColumns) {
  using T = TypeParam;
  const auto A = poisson<T>(Stencil::poisson2d_5, 12);
  for (auto method : {AggregationMethod::mis2, AggregationMethod::standard}) {
    const auto aggregates = aggregate(strength(A, 0.0), method);
    const auto P = tentative_prolongator<T>(aggregates);
    validate(P, "tentative");
    ASSERT_EQ(P.rows, A.rows);
    ASSERT_EQ(P.cols, aggregates.count);
    const auto gram = testing::to_dense(spgemm(transpose(P), P));
    for (index_t i = 0; i < P.cols; ++i)
      for (index_t j = 0; j < P.cols; ++j)
        EXPECT_NEAR(gram[static_cast<std::size_t>(i) * P.cols + j], i == j ? 1.0 : 0.0,
                    tolerance<T>())
            << aggregation_name(method) << " (" << i << ", " << j << ")";
  }
}

TYPED_TEST(Prolongation, TentativeRejectsOutOfRangeAggregates) {
  using T = TypeParam;
  EXPECT_THROW(tentative_prolongator<T>(Aggregates{{0, 2, 1}, 2}), InvalidInput);
  EXPECT_THROW(tentative_prolongator<T>(Aggregates{{0, 0, 2}, 3}), InvalidInput);  // 1 empty
  EXPECT_THROW(tentative_prolongator<T>(Aggregates{{0, 1, 1}, 2}, {1, 2}), InvalidInput);
  EXPECT_THROW(tentative_prolongator<T>(Aggregates{{0, 1, 1}, 2}, {1, 0, 2}), InvalidInput);
}

// Below the finest level, T maps the coarse vector sqrt(W) to sqrt(w): the
// constant vector of the finest level stays in the range of T·T'·… on every level.
TYPED_TEST(Prolongation, WeightedTentativeCarriesTheFinestConstant) {
  using T = TypeParam;
  const Aggregates aggregates{{0, 1, 0, 2, 1, 0}, 3};
  const std::vector<index_t> weights{1, 4, 2, 9, 3, 5};
  const Tentative<T> t = tentative_prolongator<T>(aggregates, weights);
  EXPECT_EQ(t.coarse_weights, (std::vector<index_t>{8, 7, 9}));
  validate(t.P, "weighted tentative");
  for (index_t i = 0; i < 6; ++i) {
    const index_t a = aggregates.aggregate_of[i];
    EXPECT_EQ(t.P.col_idx[i], a);
    EXPECT_EQ(t.P.values[i], static_cast<T>(std::sqrt(double(weights[i])) /
                                            std::sqrt(double(t.coarse_weights[a]))));
    EXPECT_NEAR(t.P.values[i] * std::sqrt(double(t.coarse_weights[a])), std::sqrt(weights[i]),
                tolerance<T>() * 4);
  }
  // Unit weights give the finest level's matrix, bit for bit.
  testing::expect_same_matrix(tentative_prolongator<T>(aggregates, std::vector<index_t>(6, 1)).P,
                              tentative_prolongator<T>(aggregates));
}

// A pure-Neumann Laplacian's constant null vector survives every level: with
// the constant (rather than sqrt(W)) as each level's candidate, aggregates of
// unequal sizes made every Galerkin matrix below level 1 nonsingular.
TYPED_TEST(Prolongation, NeumannNullSpaceReachesTheCoarsestLevel) {
  using T = TypeParam;
  AmgParameters parameters;
  parameters.max_coarse_rows = 20;
  const Hierarchy<T> h = build_hierarchy(testing::neumann_laplacian<T>(40), parameters);
  ASSERT_GE(h.levels.size(), 3u);
  EXPECT_EQ(h.coarse.nullity(), 1);
}

TYPED_TEST(Prolongation, SmoothedEqualsDenseFormula) {
  using T = TypeParam;
  const auto A = poisson<T>(Stencil::poisson2d_9, 7);
  const auto tentative = tentative_prolongator<T>(mis2_aggregation(strength(A, 0.0)));
  const double omega = 0.7;
  const auto P = smoothed_prolongator(A, tentative, omega);
  validate(P, "smoothed prolongator");
  // Dense reference: T − ω D⁻¹ (A T), in double.
  const index_t n = A.rows, m = tentative.cols;
  const auto dense_A = testing::to_dense(A);
  const auto dense_T = testing::to_dense(tentative);
  const auto AT = testing::dense_multiply(dense_A, dense_T, n, n, m);
  const auto actual = testing::to_dense(P);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < m; ++j) {
      const std::size_t k = static_cast<std::size_t>(i) * m + j;
      const double expected =
          dense_T[k] - omega / dense_A[static_cast<std::size_t>(i) * n + i] * AT[k];
      EXPECT_NEAR(actual[k], expected, tolerance<T>()) << "(" << i << ", " << j << ")";
    }
}

TYPED_TEST(Prolongation, SpectralRadiusEstimateIsCloseFromBelow) {
  using T = TypeParam;
  for (auto stencil : {Stencil::poisson2d_5, Stencil::poisson3d_7}) {
    const auto A = poisson<T>(stencil, stencil == Stencil::poisson2d_5 ? 10 : 5);
    // ρ(D⁻¹A) = ρ(D^-1/2 A D^-1/2), a symmetric matrix Eigen solves exactly.
    const index_t n = A.rows;
    const auto dense = testing::to_dense(A);
    Eigen::MatrixXd scaled(n, n);
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j)
        scaled(i, j) = dense[static_cast<std::size_t>(i) * n + j] /
                       std::sqrt(dense[static_cast<std::size_t>(i) * n + i] *
                                 dense[static_cast<std::size_t>(j) * n + j]);
    const double exact =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(scaled).eigenvalues().cwiseAbs().maxCoeff();
    const double estimate = spectral_radius_dinv_a(A, 20);
    // Power iteration converges from below; after 20 steps on these small grids it
    // is within a few percent (the weights 4/3 / ρ tolerate a 10% underestimate).
    EXPECT_LE(estimate, exact * (1 + 1e-12));
    EXPECT_GE(estimate, 0.9 * exact);
    EXPECT_EQ(estimate, spectral_radius_dinv_a(A, 20)) << "not deterministic";
  }
}

}  // namespace
}  // namespace binamg
