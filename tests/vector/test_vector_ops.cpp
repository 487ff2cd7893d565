// The CPU vector operations: the deterministic dot.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

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

}  // namespace
}  // namespace binamg
