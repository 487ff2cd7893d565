// GPU transpose and vector operations against their CPU references.
#include <gtest/gtest.h>

#include <cmath>

#include "sparse/device_csr.hpp"
#include "sparse/transpose.hpp"
#include "sparse/vector_ops.hpp"
#include "support/gpu.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class GpuBasics : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GpuBasics, Precisions);

TYPED_TEST(GpuBasics, TransposeEqualsCpuTransposeBitwise) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const testing::RandomMatrixShape shapes[] = {
      {300, 200, 5, 0.2, 2, false}, {1000, 3000, 8, 0.1, 0, true}, {17, 1, 1, 0.3, 0, false},
      {50, 40, 0, 1.0, 0, false}};  // the last has no entries at all
  std::uint64_t seed = 21;
  for (const auto& shape : shapes) {
    const auto A = testing::random_matrix<T>(shape, seed++);
    const auto expected = transpose(A);
    const auto actual = to_host(transpose(to_device(A)));
    EXPECT_EQ(actual.rows, expected.rows);
    EXPECT_EQ(actual.cols, expected.cols);
    EXPECT_EQ(actual.row_ptr, expected.row_ptr);
    EXPECT_EQ(actual.col_idx, expected.col_idx);
    EXPECT_EQ(actual.values, expected.values);  // a permutation: no arithmetic
  }
}

TYPED_TEST(GpuBasics, DotMatchesCpuAndRepeatsBitwise) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(3000017)}) {
    const auto x = testing::random_vector<T>(n, 31);
    const auto y = testing::random_vector<T>(n, 32);
    const auto dx = to_device(x);
    const auto dy = to_device(y);
    const T first = dot(dx, dy);
    EXPECT_EQ(first, dot(dx, dy)) << "dot is not reproducible at n=" << n;
    // Both sums are of n terms in [-1, 1] in different orders: the difference is
    // bounded by ~n·eps·max|partial sum|; sqrt(n)·eps·(a few) is a loose typical bound,
    // so allow 1e-3 relative to sqrt(n) in float, 1e-11 in double.
    const double scale = std::sqrt(double(n) + 1);
    const double allowed = (std::is_same_v<T, float> ? 1e-3 : 1e-11) * scale;
    EXPECT_NEAR(first, dot(x, y), allowed);
  }
}

TYPED_TEST(GpuBasics, AxpyAndXpbyMatchCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const std::size_t n = 100003;
  const auto x = testing::random_vector<T>(n, 41);
  auto y = testing::random_vector<T>(n, 42);
  auto dx = to_device(x);
  auto dy = to_device(y);
  axpy(T(0.75), dx, dy);
  axpy(T(0.75), x, y);
  xpby(dx, T(-1.5), dy);
  xpby(x, T(-1.5), y);
  const auto result = to_host(dy);
  // Each entry is two fused or unfused multiply-adds: within 2 ulps of ~3.
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_NEAR(result[i], y[i], 8 * std::numeric_limits<T>::epsilon() * 4) << i;
}

TYPED_TEST(GpuBasics, MismatchedLengthsAreRejected) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const auto dx = to_device(testing::random_vector<T>(10, 1));
  const auto dy = to_device(testing::random_vector<T>(11, 2));
  EXPECT_THROW(dot(dx, dy), InvalidInput);
}

}  // namespace
}  // namespace binamg
