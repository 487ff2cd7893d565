// Galerkin coarse operator: symmetry, agreement of the two orderings, dense check.
#include <gtest/gtest.h>

#include <cmath>

#include "amg/aggregation.hpp"
#include "amg/galerkin.hpp"
#include "amg/prolongation.hpp"
#include "amg/spectral_radius.hpp"
#include "amg/strength.hpp"
#include "amg/tentative.hpp"
#include "problems/poisson.hpp"
#include "sparse/transpose.hpp"
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

}  // namespace
}  // namespace binamg
