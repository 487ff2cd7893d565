// The CPU transpose against the dense transpose.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "binamg/sparse/transpose.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class Transpose : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Transpose, Precisions);

TYPED_TEST(Transpose, TransposeMatchesDenseTranspose) {
  using T = TypeParam;
  const auto A = testing::random_matrix<T>({37, 53, 4, 0.2, 1, false}, 5);
  const auto At = transpose(A);
  validate(At, "transpose");
  ASSERT_EQ(At.rows, A.cols);
  ASSERT_EQ(At.cols, A.rows);
  const auto dense = testing::to_dense(A);
  const auto dense_t = testing::to_dense(At);
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t j = 0; j < A.cols; ++j)
      ASSERT_EQ(dense[i * A.cols + j], dense_t[j * A.rows + i]);
}

}  // namespace
}  // namespace binamg
