// Galerkin coarse operator: symmetry, agreement of the two orderings, dense check.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "binamg/amg/aggregation.hpp"
#include "binamg/amg/galerkin.hpp"
#include "binamg/amg/prolongation.hpp"
#include "binamg/amg/spectral_radius.hpp"
#include "binamg/amg/strength.hpp"
#include "binamg/amg/tentative.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/sparse/transpose.hpp"
#include "binamg/spgemm/spgemm.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class Galerkin : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Galerkin, Precisions);

// Entries of A_c are sums of a few hundred products of O(1) values, each rounded
// once per product and add: relative error ~ 100 ulps, i.e. 1e-5 in float, 1e-13 in double.
template <typename T>
double tolerance() {
  return std::is_same_v<T, float> ? 2e-5 : 1e-13;
}

template <typename T>
struct Operators {
  CsrMatrix<T> A, P, R;
};

template <typename T>
Operators<T> operators(Stencil stencil, index_t n) {
  Operators<T> ops;
  ops.A = poisson<T>(stencil, n);
  const auto tentative = tentative_prolongator<T>(mis2_aggregation(strength(ops.A, 0.0)));
  ops.P = smoothed_prolongator(ops.A, tentative, 4.0 / 3.0 / spectral_radius_dinv_a(ops.A, 20));
  ops.R = transpose(ops.P);
  return ops;
}

// Largest |entry| of a dense matrix, the scale the tolerances are relative to.
double scale(const std::vector<double>& dense) {
  double largest = 0;
  for (double v : dense) largest = std::max(largest, std::abs(v));
  return largest;
}

TYPED_TEST(Galerkin, CoarseOperatorIsSymmetric) {
  using T = TypeParam;
  for (auto stencil : {Stencil::poisson2d_5, Stencil::poisson3d_27}) {
    const auto ops = operators<T>(stencil, stencil == Stencil::poisson2d_5 ? 16 : 6);
    for (auto ordering : {GalerkinOrdering::ptap_left, GalerkinOrdering::ptap_right}) {
      const auto Ac = galerkin_product(ops.A, ops.P, ops.R, ordering);
      validate(Ac, "A_c");
      const auto dense = testing::to_dense(Ac);
      const double bound = tolerance<T>() * scale(dense);
      for (index_t i = 0; i < Ac.rows; ++i)
        for (index_t j = 0; j < i; ++j)
          ASSERT_NEAR(dense[static_cast<std::size_t>(i) * Ac.cols + j],
                      dense[static_cast<std::size_t>(j) * Ac.cols + i], bound)
              << ordering_name(ordering) << " (" << i << ", " << j << ")";
    }
  }
}

TYPED_TEST(Galerkin, OrderingsAgreeAndMatchDenseProduct) {
  using T = TypeParam;
  const auto ops = operators<T>(Stencil::poisson2d_9, 14);
  const auto left = testing::to_dense(galerkin_product(ops.A, ops.P, ops.R, GalerkinOrdering::ptap_left));
  const auto right = testing::to_dense(galerkin_product(ops.A, ops.P, ops.R, GalerkinOrdering::ptap_right));
  const index_t n = ops.A.rows, m = ops.P.cols;
  const auto expected = testing::dense_multiply(
      testing::dense_multiply(testing::to_dense(ops.R), testing::to_dense(ops.A), m, n, n),
      testing::to_dense(ops.P), m, n, m);
  const double bound = tolerance<T>() * scale(expected);
  for (std::size_t k = 0; k < expected.size(); ++k) {
    ASSERT_NEAR(left[k], right[k], bound) << "dense index " << k;
    ASSERT_NEAR(left[k], expected[k], bound) << "dense index " << k;
  }
}

TYPED_TEST(Galerkin, RejectsMismatchedShapes) {
  using T = TypeParam;
  const auto ops = operators<T>(Stencil::poisson2d_5, 6);
  EXPECT_THROW(galerkin_product(ops.A, ops.R, ops.P, GalerkinOrdering::ptap_left), InvalidInput);
}

// Products of X·Y counted independently: column k of X meets row k of Y.
template <typename T>
std::int64_t products_by_columns(const CsrMatrix<T>& X, const CsrMatrix<T>& Y) {
  std::vector<std::int64_t> column_count(X.cols, 0);
  for (index_t c : X.col_idx) ++column_count[c];
  std::int64_t products = 0;
  for (index_t k = 0; k < X.cols; ++k) products += column_count[k] * Y.row_length(k);
  return products;
}

// nnz of the structural product of X and Y (dense 0/1 patterns, so nothing cancels).
template <typename T>
index_t structural_nnz(const CsrMatrix<T>& X, const CsrMatrix<T>& Y) {
  auto pattern = [](const CsrMatrix<T>& M) {
    std::vector<double> dense = testing::to_dense(M);
    for (double& v : dense) v = v != 0 ? 1 : 0;
    return dense;
  };
  const auto product = testing::dense_multiply(pattern(X), pattern(Y), X.rows, X.cols, Y.cols);
  return static_cast<index_t>(std::count_if(product.begin(), product.end(),
                                            [](double v) { return v != 0; }));
}

TYPED_TEST(Galerkin, CostCountsProductsAndIntermediateOfEitherOrdering) {
  using T = TypeParam;
  // Nonsymmetric A and a P of random pattern, so the two orderings differ;
  // values in (0, 1] so that the value patterns are the structural ones.
  testing::RandomMatrixShape shape;
  shape.rows = shape.cols = 60;
  shape.mean_row_length = 5;
  auto positive = [](CsrMatrix<T> M) {
    for (T& v : M.values) v = std::abs(v) + T(0.5);
    return M;
  };
  const CsrMatrix<T> A = positive(testing::random_matrix<T>(shape, 7));
  shape.cols = 17;
  shape.mean_row_length = 3;
  const CsrMatrix<T> P = positive(testing::random_matrix<T>(shape, 8));
  const CsrMatrix<T> R = transpose(P);
  const CsrMatrix<T> RA = spgemm(R, A), AP = spgemm(A, P);

  const GalerkinCost left = galerkin_cost(A, P, R, GalerkinOrdering::ptap_left);
  EXPECT_EQ(left.first_products, products_by_columns(R, A));
  EXPECT_EQ(left.second_products, products_by_columns(RA, P));
  EXPECT_EQ(left.intermediate_nnz, structural_nnz(R, A));
  const GalerkinCost right = galerkin_cost(A, P, R, GalerkinOrdering::ptap_right);
  EXPECT_EQ(right.first_products, products_by_columns(A, P));
  EXPECT_EQ(right.second_products, products_by_columns(R, AP));
  EXPECT_EQ(right.intermediate_nnz, structural_nnz(A, P));
  const index_t coarse_nnz = structural_nnz(RA, P);
  EXPECT_EQ(left.coarse_nnz, coarse_nnz);
  EXPECT_EQ(right.coarse_nnz, coarse_nnz);
  EXPECT_EQ(galerkin_product(A, P, R, GalerkinOrdering::ptap_left).nnz(), coarse_nnz);
  EXPECT_NE(left.products(), right.products()) << "the test matrices should tell them apart";
}

// With a symmetric pattern of A and R = Pᵀ, A·P = (R·A)ᵀ: both orderings do the
// same number of products through intermediates of the same nnz.
TYPED_TEST(Galerkin, CostOfBothOrderingsIsEqualForSymmetricA) {
  using T = TypeParam;
  const auto ops = operators<T>(Stencil::poisson3d_7, 8);
  const GalerkinCost left = galerkin_cost(ops.A, ops.P, ops.R, GalerkinOrdering::ptap_left);
  const GalerkinCost right = galerkin_cost(ops.A, ops.P, ops.R, GalerkinOrdering::ptap_right);
  EXPECT_GT(left.first_products, 0);
  EXPECT_EQ(left.first_products, right.first_products);
  EXPECT_EQ(left.second_products, right.second_products);
  EXPECT_EQ(left.intermediate_nnz, right.intermediate_nnz);
  EXPECT_EQ(left.coarse_nnz, right.coarse_nnz);
  EXPECT_THROW(galerkin_cost(ops.A, ops.R, ops.P, GalerkinOrdering::ptap_left), InvalidInput);
}

TYPED_TEST(Galerkin, MagnitudeIsTheDenseProductOfAbsoluteValues) {
  using T = TypeParam;
  const auto ops = operators<T>(Stencil::poisson2d_9, 10);
  const CsrMatrix<double> magnitude = galerkin_magnitude(ops.A, ops.P, ops.R);
  const auto Ac = galerkin_product(ops.A, ops.P, ops.R, GalerkinOrdering::ptap_left);
  EXPECT_EQ(magnitude.row_ptr, Ac.row_ptr);
  EXPECT_EQ(magnitude.col_idx, Ac.col_idx);
  auto absolute = [](const CsrMatrix<T>& M) {
    std::vector<double> dense = testing::to_dense(M);
    for (double& v : dense) v = std::abs(v);
    return dense;
  };
  const index_t n = ops.A.rows, m = ops.P.cols;
  const auto expected = testing::dense_multiply(
      testing::dense_multiply(absolute(ops.R), absolute(ops.A), m, n, n), absolute(ops.P), m, n,
      m);
  const auto dense = testing::to_dense(magnitude);
  for (std::size_t k = 0; k < expected.size(); ++k)
    ASSERT_NEAR(dense[k], expected[k], 1e-13 * scale(expected)) << "dense index " << k;
}

TYPED_TEST(Galerkin, MaxRelativeDifferenceOfTheTwoOrderings) {
  using T = TypeParam;
  const auto ops = operators<T>(Stencil::poisson2d_5, 12);
  const auto left = galerkin_product(ops.A, ops.P, ops.R, GalerkinOrdering::ptap_left);
  auto right = galerkin_product(ops.A, ops.P, ops.R, GalerkinOrdering::ptap_right);
  const CsrMatrix<double> magnitude = galerkin_magnitude(ops.A, ops.P, ops.R);
  EXPECT_EQ(max_relative_difference(left, left, "same"), 0.0);
  const double scaled = max_relative_difference(left, right, "orders", &magnitude);
  EXPECT_LE(scaled, max_relative_difference(left, right, "orders"));
  EXPECT_LE(scaled, tolerance<T>());
  right.values[3] = left.values[3] * T(1.25);  // |x - 1.25x| / |1.25x| = 0.2
  EXPECT_NEAR(max_relative_difference(left, right, "perturbed"), 0.2, 1e-6);
  // An entry whose terms cancelled to 0 in one result and to 1e-3 in the other:
  // wholly different relative to itself, 1e-3 relative to terms of magnitude 1.
  CsrMatrix<double> unit = magnitude;
  unit.values.assign(unit.values.size(), 1.0);
  CsrMatrix<T> cancelled = left, rounded = left;
  cancelled.values[5] = T(0);
  rounded.values[5] = T(1e-3);
  EXPECT_EQ(max_relative_difference(cancelled, rounded, "cancelled"), 1.0);
  EXPECT_NEAR(max_relative_difference(cancelled, rounded, "cancelled", &unit), 1e-3, 1e-9);
  unit.col_idx[0] += 1;
  EXPECT_THROW(max_relative_difference(left, right, "scale pattern", &unit), InvalidInput);
  right.col_idx.pop_back();
  right.values.pop_back();
  right.row_ptr.back() -= 1;
  EXPECT_THROW(max_relative_difference(left, right, "pattern"), InvalidInput);
}

}  // namespace
}  // namespace binamg
