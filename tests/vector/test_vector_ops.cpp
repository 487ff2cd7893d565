// The CPU vector operations: the deterministic dot, norms safe from overflow and underflow.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "binamg/vector/block_vector_ops.hpp"
#include "binamg/vector/vector_ops.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class VectorOps : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(VectorOps, Precisions);

TYPED_TEST(VectorOps, DotIsReproducibleAndAccurate) {
  using T = TypeParam;
  const auto x = testing::random_vector<T>(100003, 8);
  const auto y = testing::random_vector<T>(100003, 9);
  double reference = 0;
  for (std::size_t i = 0; i < x.size(); ++i) reference += double(x[i]) * double(y[i]);
  const T first = dot(x, y);
  EXPECT_EQ(first, dot(x, y));  // bitwise the same on a second call
  const double allowed = std::is_same_v<T, float> ? 1e-2 : 1e-10;
  EXPECT_NEAR(first, reference, allowed);
}

TYPED_TEST(VectorOps, NormInRangeIsTheRootOfTheDotBitwise) {
  using T = TypeParam;
  const auto x = testing::random_vector<T>(10007, 3);
  EXPECT_EQ(norm2(x), std::sqrt(dot(x, x)));
}

// Entries whose squares overflow or underflow T (even to subnormals, or all to
// zero) still give ‖x‖ as accurately as the sum of squares in range does
// (10000 terms in float: ~1e-5): ‖c·1‖ = |c|·√n.
TYPED_TEST(VectorOps, NormNeitherOverflowsNorUnderflows) {
  using T = TypeParam;
  const std::size_t n = 10000;  // √n = 100 exactly
  const bool is_float = std::is_same_v<T, float>;
  for (const double c : is_float ? std::vector<double>{1e-25, 1e-18, 1e25, 1e36, 1e-41}
                                 : std::vector<double>{1e-200, 1e-300, 1e200, 1e305, 1e-310}) {
    const std::vector<T> x(n, static_cast<T>(c));
    const double expected = double(static_cast<T>(c)) * 100;
    EXPECT_NEAR(double(norm2(x)) / expected, 1.0, is_float ? 1e-4 : 1e-12) << "c = " << c;
    EXPECT_NEAR(column_norms(x, 1)[0] / expected, 1.0, is_float ? 1e-4 : 1e-12) << "c = " << c;
  }
}

TYPED_TEST(VectorOps, NormOfZeroIsZeroAndNaNPropagates) {
  using T = TypeParam;
  EXPECT_EQ(norm2(std::vector<T>(100, T(0))), T(0));
  std::vector<T> x(100, T(1));
  x[17] = std::numeric_limits<T>::quiet_NaN();
  EXPECT_TRUE(std::isnan(norm2(x)));
  x[17] = std::numeric_limits<T>::infinity();
  EXPECT_EQ(norm2(x), std::numeric_limits<T>::infinity());
}

// Column norms each rescue their own column only; the in-range one keeps its bits.
TYPED_TEST(VectorOps, ColumnNormsRescueEachColumnAlone) {
  using T = TypeParam;
  const index_t n = 5000, k = 3;
  const T huge = std::is_same_v<T, float> ? T(1e30) : T(1e250);
  std::vector<T> X(std::size_t(n) * k), column(n);
  const auto values = testing::random_vector<T>(n, 5);
  for (index_t i = 0; i < n; ++i) {
    X[i * k + 0] = values[i];
    X[i * k + 1] = huge;
    X[i * k + 2] = T(0);
    column[i] = values[i];
  }
  const std::vector<double> norms = column_norms(X, k);
  EXPECT_EQ(norms[0], double(norm2(column)));
  EXPECT_NEAR(norms[1] / (double(huge) * std::sqrt(double(n))), 1.0, 1e-5);
  EXPECT_EQ(norms[2], 0.0);
}

TYPED_TEST(VectorOps, ScaleColumnsByPowersOfTwoIsExact) {
  using T = TypeParam;
  const index_t n = 100, k = 2;
  const auto X = testing::random_vector<T>(std::size_t(n) * k, 6);
  const std::vector<T> Y = scaled_copy(X, k, {-60, 40});
  const std::vector<T> back = scaled_copy(Y, k, {60, -40});
  EXPECT_EQ(back, X);
  EXPECT_EQ(Y[0], std::ldexp(X[0], -60));
  EXPECT_EQ(Y[1], std::ldexp(X[1], 40));
}

}  // namespace
}  // namespace binamg
