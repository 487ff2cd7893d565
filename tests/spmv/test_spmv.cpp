// The CPU SpMV and SpMM against dense arithmetic.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmv.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class Spmv : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Spmv, Precisions);

// Inputs lie in [-1, 1] with at most a few hundred terms per sum, so a float
// result is within a few hundred ulps of the double dense product.
template <typename T>
double tolerance() {
  return std::is_same_v<T, float> ? 1e-4 : 1e-12;
}

TYPED_TEST(Spmv, SpmvAndSpmmMatchDense) {
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

}  // namespace
}  // namespace binamg
