// The GPU transpose against the CPU transpose: the same matrix, bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "binamg/sparse/device_csr.hpp"
#include "binamg/sparse/transpose.hpp"
#include "support/gpu.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class TransposeGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TransposeGpu, Precisions);

TYPED_TEST(TransposeGpu, TransposeEqualsCpuTransposeBitwise) {
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

}  // namespace
}  // namespace binamg
