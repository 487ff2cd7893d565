// CPU reference kernels against dense arithmetic on seeded random matrices.
#include <gtest/gtest.h>

#include <cmath>

#include "sparse/spmv.hpp"
#include "sparse/transpose.hpp"
#include "sparse/vector_ops.hpp"
#include "spgemm/spgemm.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

using testing::RandomMatrixShape;

template <typename T>
class SparseKernels : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SparseKernels, Precisions);

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

TYPED_TEST(SparseKernels, SpgemmMatchesDenseProductOnVariedShapes) {
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

TYPED_TEST(SparseKernels, SpgemmCountsProducts) {
  using T = TypeParam;
  const auto A = testing::random_matrix<T>({30, 20, 3, 0.1, 1, false}, 11);
  const auto B = testing::random_matrix<T>({20, 40, 5, 0.1, 0, false}, 12);
  std::int64_t expected = 0;
  for (index_t k = 0; k < A.nnz(); ++k) expected += B.row_length(A.col_idx[k]);
  EXPECT_EQ(spgemm_product_count(A, B), expected);
}

TYPED_TEST(SparseKernels, SpgemmRejectsMismatchedInnerDimensions) {
  using T = TypeParam;
  const auto A = testing::random_matrix<T>({5, 4, 2, 0, 0, false}, 3);
  const auto B = testing::random_matrix<T>({5, 4, 2, 0, 0, false}, 4);
  EXPECT_THROW(spgemm(A, B), InvalidInput);
}

TYPED_TEST(SparseKernels, TransposeMatchesDenseTranspose) {
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

TYPED_TEST(SparseKernels, SpmvAndSpmmMatchDense) {
  using T = TypeParam;
  const auto A = testing::random_matrix<T>({45, 33, 5, 0.1, 1, false}, 6);
  const index_t k = 7;
  const auto X = testing::random_vector<T>(static_cast<std::size_t>(A.cols) * k, 7);
  std::vector<T> Y;
  spmm(A, X, k, Y);
  const std::vector<double> Xd(X.begin(), X.end());
  const auto expected = testing::dense_multiply(testing::to_dense(A), Xd, A.rows, A.cols, k);
  for (std::size_t i = 0; i < Y.size(); ++i)
    ASSERT_NEAR(Y[i], expected[i], tolerance<T>() * (1 + std::abs(expected[i])));

  // Column 0 of X through spmv must equal column 0 of Y bitwise (same order of sums).
  std::vector<T> x(A.cols), y;
  for (index_t i = 0; i < A.cols; ++i) x[i] = X[static_cast<std::size_t>(i) * k];
  spmv(A, x, y);
  for (index_t i = 0; i < A.rows; ++i) ASSERT_EQ(y[i], Y[static_cast<std::size_t>(i) * k]);
}

TYPED_TEST(SparseKernels, DotIsReproducibleAndAccurate) {
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

TYPED_TEST(SparseKernels, ValidateNamesTheBadRow) {
  using T = TypeParam;
  CsrMatrix<T> A = identity_matrix<T>(4);
  A.col_idx = {0, 2, 1, 3};
  A.row_ptr = {0, 1, 3, 3, 4};  // row 1 has columns 2 then 1: unsorted
  try {
    validate(A, "A");
    FAIL() << "unsorted row accepted";
  } catch (const InvalidInput& error) {
    EXPECT_NE(std::string(error.what()).find("row 1"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace binamg
