// GPU SpGEMM (binned framework) against the CPU reference on the same inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "problems/poisson.hpp"
#include "sparse/device_csr.hpp"
#include "spgemm/spgemm.hpp"
#include "support/gpu.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

using testing::RandomMatrixShape;

template <typename T>
class SpgemmGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SpgemmGpu, Precisions);

template <typename T>
CsrMatrix<T> absolute(CsrMatrix<T> M) {
  for (T& value : M.values) value = std::abs(value);
  return M;
}

// GPU and CPU sum each entry's products in A's row order and the GPU does not
// fuse them, so they agree bit for bit, except on long rows split over
// blocks when they are few (partial sums of contiguous A slices added in
// slice order: a regrouping of the same terms). Allowed: the error bound of
// a k-term sum regrouped, k·eps·Σ|a·b|, with k = 64 a generous stand-in for
// the terms per entry in these tests; this still catches any wrong, missing
// or misplaced product.
template <typename T>
void expect_matches_cpu(const CsrMatrix<T>& A, const CsrMatrix<T>& B) {
  const CsrMatrix<T> expected = spgemm(A, B);
  const CsrMatrix<T> magnitude = spgemm(absolute(A), absolute(B));
  const DeviceCsr<T> dA = to_device(A), dB = to_device(B);
  const CsrMatrix<T> actual = to_host(spgemm(dA, dB));
  validate(actual, "GPU product");
  ASSERT_EQ(actual.rows, expected.rows);
  ASSERT_EQ(actual.cols, expected.cols);
  ASSERT_EQ(actual.row_ptr, expected.row_ptr);
  ASSERT_EQ(actual.col_idx, expected.col_idx);
  const double eps = std::numeric_limits<T>::epsilon();
  for (index_t k = 0; k < expected.nnz(); ++k)
    ASSERT_NEAR(actual.values[k], expected.values[k], 64 * eps * magnitude.values[k])
        << "entry " << k;
}

TYPED_TEST(SpgemmGpu, MatchesCpuOnRectangularMatricesWithEmptyRows) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  expect_matches_cpu(testing::random_matrix<T>({300, 200, 4, 0.3, 0, false}, 1),
                     testing::random_matrix<T>({200, 500, 6, 0.3, 0, false}, 2));
}

TYPED_TEST(SpgemmGpu, MatchesCpuWithADenseRow) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  expect_matches_cpu(testing::random_matrix<T>({400, 400, 5, 0.1, 1, false}, 3),
                     testing::random_matrix<T>({400, 400, 5, 0.1, 1, false}, 4));
}

TYPED_TEST(SpgemmGpu, MatchesCpuOnPowerLawRowLengths) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // Row lengths up to thousands: rows land in every bin from sub-warp to block.
  expect_matches_cpu(testing::random_matrix<T>({3000, 2000, 8, 0.05, 0, true}, 5),
                     testing::random_matrix<T>({2000, 2500, 8, 0.05, 0, true}, 6));
}

TYPED_TEST(SpgemmGpu, MatchesCpuWhenProductsAreZeroOrOnePerRow) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // Mean length 0.5: many rows of A and B are empty, so most rows of C have
  // 0 or 1 product (the rows no kernel touches in the symbolic pass).
  expect_matches_cpu(testing::random_matrix<T>({500, 500, 0.5, 0.3, 0, false}, 7),
                     testing::random_matrix<T>({500, 500, 0.5, 0.3, 0, false}, 8));
  expect_matches_cpu(testing::random_matrix<T>({50, 40, 0, 1.0, 0, false}, 9),
                     testing::random_matrix<T>({40, 60, 3, 0.0, 0, false}, 10));
}

TYPED_TEST(SpgemmGpu, MatchesCpuOnRowsWithMoreThan65536Products) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // B's first 200 rows are dense (12000 entries): rows of A with ~8 entries
  // make ~10^5 products and ~12000 columns, past every shared-memory table
  // (global fallback in both passes); A's 2 dense rows make 2.4e6 products.
  expect_matches_cpu(testing::random_matrix<T>({64, 400, 8, 0.0, 2, false}, 11),
                     testing::random_matrix<T>({400, 12000, 2, 0.0, 200, false}, 12));
}

// rows×cols with `per_row` evenly spread columns per row, offset by row:
// long rows over a very wide column range, cheap to build.
template <typename T>
CsrMatrix<T> spread_rows(index_t rows, index_t cols, index_t per_row) {
  CsrMatrix<T> M = zero_matrix<T>(rows, cols);
  const index_t stride = cols / per_row;
  for (index_t row = 0; row < rows; ++row) {
    for (index_t j = 0; j < per_row; ++j) {
      M.col_idx.push_back(j * stride + row % stride);
      M.values.push_back(T(1) / T(1 + (row + j) % 7));
    }
    M.row_ptr[row + 1] = M.nnz();
  }
  return M;
}

TYPED_TEST(SpgemmGpu, MatchesCpuOnLongRowsOverMoreThan2To21Columns) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // 2^22 columns: the long-row batches need 64-bit (column, position) keys.
  // Rows of A with ~4 entries hit B rows of 12000 columns: ~48000 entries of C.
  expect_matches_cpu(testing::random_matrix<T>({16, 64, 4, 0.0, 0, false}, 20),
                     spread_rows<T>(64, index_t(1) << 22, 12000));
}

TYPED_TEST(SpgemmGpu, MatchesCpuOnPoissonSquared) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  for (Stencil stencil : {Stencil::poisson2d_5, Stencil::poisson2d_9, Stencil::poisson3d_7,
                          Stencil::poisson3d_27}) {
    const CsrMatrix<T> A = poisson<T>(stencil, stencil_dimension(stencil) == 2 ? 40 : 12);
    expect_matches_cpu(A, A);
  }
}

// rows×cols, every row holding the same `per_row` columns 0, 2, 4, ...: every
// product of a row of A·B falls on one of those columns.
template <typename T>
CsrMatrix<T> repeated_columns(index_t rows, index_t cols, index_t per_row) {
  CsrMatrix<T> M = zero_matrix<T>(rows, cols);
  for (index_t row = 0; row < rows; ++row) {
    for (index_t j = 0; j < per_row; ++j) {
      M.col_idx.push_back(2 * j);
      M.values.push_back(T(1) / T(2 + (row + j) % 5));
    }
    M.row_ptr[row + 1] = M.nnz();
  }
  return M;
}

TYPED_TEST(SpgemmGpu, MatchesCpuOnShortRowsWhoseProductsShareFewColumns) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // Rows of A with 1-30 entries times B rows of 4 shared columns: up to 120
  // products per row folding onto 4 entries (long runs of equal columns in
  // the warp-per-row kernel, all three of its sort sizes).
  expect_matches_cpu(testing::random_matrix<T>({600, 300, 12, 0.1, 0, false}, 21),
                     repeated_columns<T>(300, 9, 4));
}

TYPED_TEST(SpgemmGpu, SplitsTwoHubRowsOverBlocksWithCpuResultAndStableBits) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // Two dense rows of 20000 entries among rows of ~6: A·A's long rows are
  // the two hub rows (~1.6e5 products) and the ~10 rows whose entries hit
  // them (~2e4 products), few enough that each is split into slices on
  // separate blocks and the partial rows merged.
  const auto A = testing::random_matrix<T>({20000, 20000, 6, 0.0, 2, false}, 22);
  expect_matches_cpu(A, A);
  const DeviceCsr<T> dA = to_device(A);
  const CsrMatrix<T> first = to_host(spgemm(dA, dA));
  const CsrMatrix<T> second = to_host(spgemm(dA, dA));
  ASSERT_EQ(first.values.size(), second.values.size());
  EXPECT_EQ(0, std::memcmp(first.values.data(), second.values.data(),
                           first.values.size() * sizeof(T)));
}

TYPED_TEST(SpgemmGpu, GivesIdenticalBitsOnTwoRuns) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const auto A = testing::random_matrix<T>({2000, 2000, 12, 0.05, 2, true}, 13);
  const DeviceCsr<T> dA = to_device(A);
  const CsrMatrix<T> first = to_host(spgemm(dA, dA));
  const CsrMatrix<T> second = to_host(spgemm(dA, dA));
  EXPECT_EQ(first.row_ptr, second.row_ptr);
  EXPECT_EQ(first.col_idx, second.col_idx);
  ASSERT_EQ(first.values.size(), second.values.size());
  EXPECT_EQ(0, std::memcmp(first.values.data(), second.values.data(),
                           first.values.size() * sizeof(T)));
}

TYPED_TEST(SpgemmGpu, NumericPassWithNewValuesEqualsFreshProduct) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const auto A = testing::random_matrix<T>({1500, 1200, 10, 0.1, 1, true}, 14);
  const auto B = testing::random_matrix<T>({1200, 1300, 10, 0.1, 1, true}, 15);
  DeviceCsr<T> dA = to_device(A);
  const DeviceCsr<T> dB = to_device(B);
  DeviceCsr<T> C = spgemm(dA, dB);
  CsrMatrix<T> changed = A;
  for (T& value : changed.values) value = T(2) * value - T(0.25);
  dA = to_device(changed);
  spgemm_numeric(dA, dB, C);
  const CsrMatrix<T> reused = to_host(C);
  const CsrMatrix<T> fresh = to_host(spgemm(dA, dB));
  EXPECT_EQ(reused.row_ptr, fresh.row_ptr);
  EXPECT_EQ(reused.col_idx, fresh.col_idx);
  EXPECT_EQ(reused.values, fresh.values);  // same kernels, same order: same bits
}

TYPED_TEST(SpgemmGpu, NumericPassRejectsAChangedPattern) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const auto A = testing::random_matrix<T>({200, 200, 6, 0.0, 0, false}, 16);
  const auto other = testing::random_matrix<T>({200, 200, 6, 0.0, 0, false}, 17);
  const DeviceCsr<T> dA = to_device(A), dOther = to_device(other);
  DeviceCsr<T> C = spgemm(dA, dA);
  EXPECT_THROW(spgemm_numeric(dOther, dOther, C), InvalidInput);
}

TYPED_TEST(SpgemmGpu, RejectsMismatchedInnerDimensions) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const DeviceCsr<T> A = to_device(testing::random_matrix<T>({5, 4, 2, 0, 0, false}, 18));
  const DeviceCsr<T> B = to_device(testing::random_matrix<T>({5, 4, 2, 0, 0, false}, 19));
  EXPECT_THROW(spgemm(A, B), InvalidInput);
}

}  // namespace
}  // namespace binamg
