// The CPU SpGEMM (the reference the GPU is checked against) against dense arithmetic.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "binamg/spgemm/spgemm.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

using testing::RandomMatrixShape;

template <typename T>
class Spgemm : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Spgemm, Precisions);

// Inputs lie in [-1, 1] with at most a few hundred terms per sum, so a float
// result is within a few hundred ulps of the double dense product.
template <typename T>
double tolerance() {
  return std::is_same_v<T, float> ? 1e-4 : 1e-12;
}

template <typename T>
void expect_matches_dense(const CsrMatrix<T>& C, const std::vector<double>& expected) {
  validate(C, "product");
  const std::vector<double> actual = testing::to_dense(C);
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i)
    ASSERT_NEAR(actual[i], expected[i], tolerance<T>() * (1 + std::abs(expected[i])))
        << "at dense index " << i;
}

TYPED_TEST(Spgemm, SpgemmMatchesDenseProductOnVariedShapes) {
  using T = TypeParam;
  const RandomMatrixShape shapes[][2] = {
      {{40, 30, 3, 0.2, 0, false}, {30, 50, 4, 0.2, 0, false}},   // rectangular, empty rows
      {{60, 60, 5, 0.0, 1, false}, {60, 60, 5, 0.1, 1, false}},   // a dense row in each
      {{80, 70, 6, 0.1, 0, true}, {70, 90, 3, 0.0, 0, true}},     // power-law rows
      {{1, 100, 100, 0, 1, false}, {100, 1, 1, 0, 0, false}},     // row times column
      {{25, 25, 0, 1.0, 0, false}, {25, 25, 3, 0, 0, false}},     // all-zero A
  };
  std::uint64_t seed = 1;
  for (const auto& pair : shapes) {
    const auto A = testing::random_matrix<T>(pair[0], seed++);
    const auto B = testing::random_matrix<T>(pair[1], seed++);
    const auto C = spgemm(A, B);
    expect_matches_dense(C, testing::dense_multiply(testing::to_dense(A), testing::to_dense(B),
                                                    A.rows, A.cols, B.cols));
  }
}

TYPED_TEST(Spgemm, SpgemmCountsProducts) {
  using T = TypeParam;
  const auto A = testing::random_matrix<T>({30, 20, 3, 0.1, 1, false}, 11);
  const auto B = testing::random_matrix<T>({20, 40, 5, 0.1, 0, false}, 12);
  std::int64_t expected = 0;
  for (index_t k = 0; k < A.nnz(); ++k) expected += B.row_length(A.col_idx[k]);
  EXPECT_EQ(spgemm_product_count(A, B), expected);
}

TYPED_TEST(Spgemm, SpgemmRejectsMismatchedInnerDimensions) {
  using T = TypeParam;
  const auto A = testing::random_matrix<T>({5, 4, 2, 0, 0, false}, 3);
  const auto B = testing::random_matrix<T>({5, 4, 2, 0, 0, false}, 4);
  EXPECT_THROW(spgemm(A, B), InvalidInput);
}

}  // namespace
}  // namespace binamg
