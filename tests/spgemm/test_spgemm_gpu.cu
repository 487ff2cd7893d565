// GPU SpGEMM (binned framework) against the CPU reference on the same inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/sparse/device_csr.hpp"
#include "binamg/sparse/transpose.hpp"
#include "binamg/spgemm/choose_path.hpp"
#include "binamg/spgemm/dispatch.hpp"
#include "binamg/spgemm/spgemm.hpp"
#include "binamg/spgemm/tuning.hpp"
#include "support/gpu.hpp"
#include "support/random_matrix.hpp"
#include "support/same_matrix.hpp"

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
// fuse them, so they agree bit for bit, except on long rows past the sort
// budget split over blocks when they are few (partial sums of contiguous A
// slices added in slice order: a regrouping of the same terms). Allowed: the error bound of
// a k-term sum regrouped, k·eps·Σ|a·b|, with k = 64 a generous stand-in for
// the terms per entry in these tests; this still catches any wrong, missing
// or misplaced product.
template <typename T>
void expect_near_cpu(const CsrMatrix<T>& actual, const CsrMatrix<T>& expected,
                     const CsrMatrix<T>& magnitude) {
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

// B with empty columns appended up to `cols`: the same product, wider.
template <typename T>
CsrMatrix<T> widened(CsrMatrix<T> M, index_t cols) {
  M.cols = std::max(M.cols, cols);
  return M;
}

// Split window rows regroup their sums (partial sums of the warps): the sets
// below that steer a product for the CPU's bits rule them out too.
const SpgemmPathSet no_split{SpgemmPath::window_split_rows};
const SpgemmPathSet no_window{SpgemmPath::window_rows, SpgemmPath::window_split_rows};
const SpgemmPathSet no_merge{SpgemmPath::merged_rows, SpgemmPath::window_split_rows};
const SpgemmPathSet no_window_or_merge{SpgemmPath::window_rows, SpgemmPath::merged_rows,
                                       SpgemmPath::window_split_rows};

// The device's tuning.
template <typename T>
const spgemm_detail::SpgemmTuning& device_tuning() {
  return spgemm_detail::spgemm_tuning(sizeof(T));
}

// The device's tuning with window rows for every narrowing product.
template <typename T>
spgemm_detail::SpgemmTuning windows_everywhere() {
  spgemm_detail::SpgemmTuning tuning = device_tuning<T>();
  tuning.window_min_mean_entries = 0;
  return tuning;
}

// The device's tuning with fused rows for every product of enough products
// per row, however few in all.
template <typename T>
spgemm_detail::SpgemmTuning fused_everywhere() {
  spgemm_detail::SpgemmTuning tuning = device_tuning<T>();
  tuning.fused_min_products = 0;
  return tuning;
}

// A product that may take an unbinned path (B's columns at most
// kDenseMaxColumns: dense columns; at most kNarrowMaxColumns: narrow; B
// narrowing: window rows, and merged rows for A rows of at most
// kMergeMaxEntries) is also run with window rows everywhere and nowhere,
// with merged rows ruled out, and with B widened past each bound it is
// under, through the narrow and the binned kernels: every path matches the
// CPU, all bit for bit.
template <typename T>
void expect_matches_cpu(const CsrMatrix<T>& A, const CsrMatrix<T>& B) {
  const CsrMatrix<T> expected = spgemm(A, B);
  const CsrMatrix<T> magnitude = spgemm(absolute(A), absolute(B));
  const DeviceCsr<T> dA = to_device(A), dB = to_device(B);
  expect_near_cpu(to_host(spgemm(dA, dB)), expected, magnitude);
  const CsrMatrix<T> actual =
      to_host(spgemm_detail::spgemm_with(dA, dB, device_tuning<T>(), no_split));
  expect_near_cpu(actual, expected, magnitude);
  struct Steer {
    const char* what;
    bool windows_everywhere;
    SpgemmPathSet excluded;
  };
  const Steer steers[] = {{"window rows everywhere, merged rows off", true, no_merge},
                          {"window rows off", false, no_window},
                          {"window and merged rows off", false, no_window_or_merge}};
  for (const Steer& steer : steers) {
    const CsrMatrix<T> other = to_host(spgemm_detail::spgemm_with(
        dA, dB, steer.windows_everywhere ? windows_everywhere<T>() : device_tuning<T>(),
        steer.excluded));
    expect_near_cpu(other, expected, magnitude);
    EXPECT_EQ(actual.values, other.values) << "sums differ with " << steer.what;
  }
  for (const index_t wide :
       {spgemm_detail::kDenseMaxColumns + 1, spgemm_detail::kNarrowMaxColumns + 1}) {
    if (B.cols >= wide) continue;
    const CsrMatrix<T> other = to_host(spgemm_detail::spgemm_with(
        dA, to_device(widened(B, wide)), device_tuning<T>(), no_window_or_merge));
    expect_near_cpu(other, widened(expected, wide), widened(magnitude, wide));
    EXPECT_EQ(actual.values, other.values) << "sums differ with B widened to " << wide;
  }
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
  // make ~5e4 products and ~12000 columns, past every shared-memory table;
  // A's 2 dense rows make 2.4e6 products. ~8e6 products in all: sorted in
  // the symbolic pass, past the sort budget in the numeric pass (dense
  // accumulators, each row split over blocks).
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

// rows×cols with `per_row` columns column(row, m), m < per_row, per row
// (distinct; sorted here).
template <typename T, typename Column>
CsrMatrix<T> rows_of_columns(index_t rows, index_t cols, index_t per_row, Column&& column) {
  CsrMatrix<T> M = zero_matrix<T>(rows, cols);
  std::vector<index_t> own(per_row);
  for (index_t row = 0; row < rows; ++row) {
    for (index_t m = 0; m < per_row; ++m) own[m] = column(row, m);
    std::sort(own.begin(), own.end());
    for (index_t m = 0; m < per_row; ++m) {
      M.col_idx.push_back(own[m]);
      M.values.push_back(T(1) / T(1 + (row + m) % 7));
    }
    M.row_ptr[row + 1] = M.nnz();
  }
  return M;
}

TYPED_TEST(SpgemmGpu, MatchesCpuBitsOnThreadRows) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // 2D 5-pt 200² times B of 3 entries per row onto a ninth of the columns:
  // rows of at most 15 products, counted and summed a thread per row
  // (kernels/thread_rows.cuh), with the CPU's pattern and bits.
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_5, 200);
  const CsrMatrix<T> B = spread_rows<T>(A.cols, A.cols / 9, 3);
  const CsrMatrix<T> expected = spgemm(A, B);
  SpgemmReport report;
  const CsrMatrix<T> actual = to_host(
      spgemm_detail::spgemm_with(to_device(A), to_device(B), device_tuning<T>(), no_merge,
                                 nullptr, &report));
  EXPECT_EQ(report.path, SpgemmPath::binned);
  ASSERT_GT(expected.nnz(), 0);
  for (index_t row = 0; row < A.rows; ++row) {
    index_t products = 0;
    for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k)
      products += B.row_length(A.col_idx[k]);
    ASSERT_LE(products, spgemm_detail::kThreadRowMaxNnz) << "row " << row;
  }
  EXPECT_EQ(actual.row_ptr, expected.row_ptr);
  EXPECT_EQ(actual.col_idx, expected.col_idx);
  EXPECT_EQ(actual.values, expected.values);
}

TYPED_TEST(SpgemmGpu, MatchesCpuOnManyLongRowsPastTheSortBudget) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // 600 rows of ~5e4 products (B's dense rows as above): ~3e7 products, far
  // past the sort budget, and too many rows to split: one dense accumulator
  // per block, blocks striding over the rows, in both passes.
  expect_matches_cpu(testing::random_matrix<T>({600, 400, 8, 0.0, 0, false}, 23),
                     testing::random_matrix<T>({400, 12000, 2, 0.0, 200, false}, 12));
}

TYPED_TEST(SpgemmGpu, MatchesCpuOnLongRowsOverMoreThan2To21Columns) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // 2^22 columns: sort keys hold 22 column bits next to the row's.
  // Rows of A with ~4 entries hit B rows of 12000 columns: ~48000 entries of C.
  expect_matches_cpu(testing::random_matrix<T>({16, 64, 4, 0.0, 0, false}, 20),
                     spread_rows<T>(64, index_t(1) << 22, 12000));
}

// M with its columns renumbered 0, 1, .. in order of the columns it uses,
// and the map back: a product computed with the compact copy, its columns
// mapped back, is the product itself (same terms, same order).
template <typename T>
std::pair<CsrMatrix<T>, std::vector<index_t>> compact_columns(CsrMatrix<T> M) {
  std::vector<index_t> used = M.col_idx;
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  for (index_t& col : M.col_idx)
    col = index_t(std::lower_bound(used.begin(), used.end(), col) - used.begin());
  M.cols = index_t(used.size());
  return {std::move(M), used};
}

TYPED_TEST(SpgemmGpu, MatchesCpuOnShortRowsOver2To25Columns) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // 2^25 columns leave no room for the 7 position bits in 32-bit sort keys:
  // the short-row kernel takes 64-bit ones. The CPU reference multiplies
  // by B with its 192 used columns renumbered (its dense accumulator would
  // need 2^25 entries per thread).
  const auto A = testing::random_matrix<T>({16, 64, 4, 0.0, 0, false}, 24);
  const auto B = spread_rows<T>(64, index_t(1) << 25, 3);
  const auto [compact_B, used] = compact_columns(B);
  CsrMatrix<T> expected = spgemm(A, compact_B);
  for (index_t& col : expected.col_idx) col = used[col];
  expected.cols = B.cols;
  const DeviceCsr<T> dA = to_device(A), dB = to_device(B);
  ASSERT_GT(expected.nnz(), 0);
  for (const SpgemmPathSet& excluded : {SpgemmPathSet{}, no_merge}) {  // merged, then short rows
    const CsrMatrix<T> actual =
        to_host(spgemm_detail::spgemm_with(dA, dB, device_tuning<T>(), excluded));
    EXPECT_EQ(actual.row_ptr, expected.row_ptr);
    EXPECT_EQ(actual.col_idx, expected.col_idx);
    EXPECT_EQ(actual.values, expected.values);  // A's order on both: same bits
  }
}

TYPED_TEST(SpgemmGpu, MatchesCpuWhenTheCountPassStridesOverManyRows) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // The product-count blocks stride over A's rows (at most 8 blocks per SM):
  // 300000 rows of ~3 entries (a thread each), 80000 power-law rows of ~12
  // (8 lanes each; long rows, past 256 entries, counted by their whole
  // block) and 600000 rows of ~12 (a thread each: rows enough) take several
  // rounds of every block on the H100.
  expect_matches_cpu(testing::random_matrix<T>({300000, 5000, 3, 0.1, 0, false}, 30),
                     testing::random_matrix<T>({5000, 5000, 3, 0.0, 0, false}, 31));
  expect_matches_cpu(testing::random_matrix<T>({80000, 2000, 12, 0.05, 3, true}, 32),
                     testing::random_matrix<T>({2000, 3000, 4, 0.0, 0, false}, 33));
  expect_matches_cpu(testing::random_matrix<T>({600000, 4000, 12, 0.0, 0, false}, 34),
                     testing::random_matrix<T>({4000, 4000, 2, 0.0, 0, false}, 35));
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

// The stencil with rows 0-999 emptied and rows 1000-1999 cut to their
// diagonal (0 and 9 products), times B of one row per grid point, 9 entries
// each, onto a ninth of the columns (a prolongator's shape): past the fused
// path's thresholds, so the kernels count and fill the rows without a
// symbolic pass. Returns the largest product count of a row.
template <typename T>
std::int64_t expect_fused_product_matches_cpu(const CsrMatrix<T>& stencil) {
  CsrMatrix<T> A = zero_matrix<T>(stencil.rows, stencil.cols);
  for (index_t row = 0; row < stencil.rows; ++row) {
    for (index_t k = stencil.row_ptr[row]; k < stencil.row_ptr[row + 1]; ++k) {
      if (row < 1000 || (row < 2000 && stencil.col_idx[k] != row)) continue;
      A.col_idx.push_back(stencil.col_idx[k]);
      A.values.push_back(stencil.values[k] * T(1 + row % 3));
    }
    A.row_ptr[row + 1] = A.nnz();
  }
  const CsrMatrix<T> B = spread_rows<T>(stencil.cols, stencil.cols / 9, 9);
  std::int64_t products = 0, most = 0;
  for (index_t row = 0; row < A.rows; ++row) {
    std::int64_t row_products = 0;
    for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k)
      row_products += B.row_length(A.col_idx[k]);
    products += row_products;
    most = std::max(most, row_products);
  }
  const spgemm_detail::SpgemmTuning& tuning = device_tuning<T>();
  EXPECT_GE(products, tuning.fused_min_products);
  EXPECT_GE(products, std::int64_t(tuning.fused_min_mean) * A.rows);
  EXPECT_LE(std::int64_t(B.cols) * tuning.fused_narrowing, B.rows);
  EXPECT_LE(most, tuning.fused_max_row_products);
  const CsrMatrix<T> expected = spgemm(A, B);
  SpgemmReport report;
  const CsrMatrix<T> actual = to_host(spgemm_detail::spgemm_with(
      to_device(A), to_device(B), tuning, no_window_or_merge, nullptr, &report));
  EXPECT_EQ(report.path, SpgemmPath::fused_rows);
  EXPECT_EQ(actual.row_ptr, expected.row_ptr);
  EXPECT_EQ(actual.col_idx, expected.col_idx);
  EXPECT_EQ(actual.values, expected.values);
  return most;
}

TYPED_TEST(SpgemmGpu, FusesAProductOfShortRowsPastItsThresholdWithCpuBits) {
  BINAMG_REQUIRE_GPU();
  // 2D 9-pt 250²: rows of up to 81 products, all short.
  const std::int64_t most =
      expect_fused_product_matches_cpu(poisson<TypeParam>(Stencil::poisson2d_9, 250));
  EXPECT_LE(most, spgemm_detail::kShortMaxProducts);
}

TYPED_TEST(SpgemmGpu, FusesAProductOfSharedTableRowsWithCpuBits) {
  BINAMG_REQUIRE_GPU();
  // 3D 27-pt 40³: rows of up to 243 products, past the short-row kernel's
  // limit, in tables sized by their products (rows 1000-1999 stay short).
  const std::int64_t most =
      expect_fused_product_matches_cpu(poisson<TypeParam>(Stencil::poisson3d_27, 40));
  EXPECT_GT(most, spgemm_detail::kShortMaxProducts);
}

// Row r of A holds columns 0 .. 32 + r (past the short-row kernel's 32
// entries), row j of B columns j and j + 1: row r of C has 34 + r entries,
// each the sum of one or two products, all in the warp-per-row hash kernel.
TYPED_TEST(SpgemmGpu, WritesHashRowsInColumnOrderOnBothSidesOfTheRankedRowLimit) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const index_t rows = 2 * spgemm_detail::kRankedRowMax, cols = rows + 40;
  CsrMatrix<T> A = zero_matrix<T>(rows, cols), B = zero_matrix<T>(cols, cols + 1);
  for (index_t row = 0; row < rows; ++row) {
    for (index_t j = 0; j <= 32 + row; ++j) {
      A.col_idx.push_back(j);
      A.values.push_back(T(1) / T(3 + (row + 2 * j) % 7));
    }
    A.row_ptr[row + 1] = A.nnz();
  }
  for (index_t row = 0; row < cols; ++row) {
    B.col_idx.insert(B.col_idx.end(), {row, row + 1});
    B.values.insert(B.values.end(), {T(row % 5 + 1), T(-0.5) * T(row % 3 + 1)});
    B.row_ptr[row + 1] = B.nnz();
  }
  expect_matches_cpu(A, B);
}

TYPED_TEST(SpgemmGpu, SortsHubRowsToTheCpuBitsOnEveryRun) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // Two dense rows of 20000 entries among rows of ~6: A·A's long rows are
  // the two hub rows (~1.6e5 products) and the ~10 rows whose entries hit
  // them (~2e4 products, nearly all from one B row): expanded a thread per
  // product and sorted, summed in A's order like the CPU.
  const auto A = testing::random_matrix<T>({20000, 20000, 6, 0.0, 2, false}, 22);
  const CsrMatrix<T> expected = spgemm(A, A);
  const DeviceCsr<T> dA = to_device(A);
  const CsrMatrix<T> first = to_host(spgemm(dA, dA));
  const CsrMatrix<T> second = to_host(spgemm(dA, dA));
  EXPECT_EQ(first.row_ptr, expected.row_ptr);
  EXPECT_EQ(first.col_idx, expected.col_idx);
  EXPECT_EQ(first.values, expected.values);
  ASSERT_EQ(first.values.size(), second.values.size());
  EXPECT_EQ(0, std::memcmp(first.values.data(), second.values.data(),
                           first.values.size() * sizeof(T)));
}

TYPED_TEST(SpgemmGpu, SumsALongRunByAWarpWithStableBits) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // A's row 0 is dense, so Aᵀ's column 0 is: entry (0, 0) of A·Aᵀ sums 20000
  // products, one run of the sorted long row 0, summed by a warp (lane
  // strides, then a butterfly). Every other entry's run is short and
  // summed in A's order, bit for bit the CPU's.
  const index_t n = 20000;
  const auto A = testing::random_matrix<T>({n, n, 6, 0.0, 1, false}, 25);
  const CsrMatrix<T> At = transpose(A);
  const CsrMatrix<T> expected = spgemm(A, At);
  const DeviceCsr<T> dA = to_device(A), dAt = to_device(At);
  const CsrMatrix<T> first = to_host(spgemm(dA, dAt));
  const CsrMatrix<T> second = to_host(spgemm(dA, dAt));
  ASSERT_EQ(first.row_ptr, expected.row_ptr);
  ASSERT_EQ(first.col_idx, expected.col_idx);
  ASSERT_EQ(expected.col_idx[0], 0);
  double magnitude = 0;  // Σ|a·b| over the run: A(0, k)²
  for (index_t k = 0; k < n; ++k) magnitude += double(A.values[k]) * A.values[k];
  const double eps = std::numeric_limits<T>::epsilon();
  EXPECT_NEAR(first.values[0], expected.values[0], 2.0 * n * eps * magnitude);
  for (index_t k = 1; k < expected.nnz(); ++k)
    ASSERT_EQ(first.values[k], expected.values[k]) << "entry " << k;
  EXPECT_EQ(0, std::memcmp(first.values.data(), second.values.data(),
                           first.values.size() * sizeof(T)));
}

TYPED_TEST(SpgemmGpu, SortsAFewHeavyRowsWholeInBothPassesWithCpuBits) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // 300 rows of ~6000 products onto 500 columns (a coarse Galerkin level's
  // shape): too few rows to fill the GPU a warp per row, so one sort of
  // every row's products serves both passes; runs of ~12 are summed in A's
  // order. Rows 10-19 are empty (no products) and row 20 keeps one entry.
  // The numeric pass with new values makes the same choice and gives the
  // same bits. B is widened past kNarrowMaxColumns (empty columns), so that
  // the product is not narrow.
  const auto random = testing::random_matrix<T>({300, 2000, 40, 0.0, 0, false}, 26);
  CsrMatrix<T> A = zero_matrix<T>(random.rows, random.cols);
  for (index_t row = 0; row < random.rows; ++row) {
    const index_t begin = random.row_ptr[row];
    const index_t end = row >= 10 && row < 20 ? begin
                        : row == 20   ? begin + 1
                                      : random.row_ptr[row + 1];
    for (index_t k = begin; k < end; ++k) {
      A.col_idx.push_back(random.col_idx[k]);
      A.values.push_back(random.values[k]);
    }
    A.row_ptr[row + 1] = index_t(A.col_idx.size());
  }
  const auto B = widened(testing::random_matrix<T>({2000, 500, 150, 0.0, 0, false}, 27),
                         spgemm_detail::kNarrowMaxColumns + 1);
  const CsrMatrix<T> expected = spgemm(A, B);
  DeviceCsr<T> dA = to_device(A);
  const DeviceCsr<T> dB = to_device(B);
  SpgemmReport report;
  DeviceCsr<T> C = spgemm(dA, dB, nullptr, &report);
  EXPECT_EQ(report.path, SpgemmPath::sorted_whole);
  const CsrMatrix<T> actual = to_host(C);
  EXPECT_EQ(actual.row_ptr, expected.row_ptr);
  EXPECT_EQ(actual.col_idx, expected.col_idx);
  EXPECT_EQ(actual.values, expected.values);
  CsrMatrix<T> changed = A;
  for (T& value : changed.values) value = T(0.5) * value + T(0.125);
  dA = to_device(changed);
  spgemm_numeric(dA, dB, C);
  EXPECT_EQ(to_host(C).values, spgemm(changed, B).values);
}

TYPED_TEST(SpgemmGpu, SumsDenseColumnRowsToTheCpuBits) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // The coarsest Galerkin product's shape: 44 rows of ~4000 products onto 44
  // columns (a block per row, a thread per column), a tenth of the rows
  // empty; then 300 rows onto exactly kDenseMaxColumns columns. Both bit
  // for bit.
  const auto expect_cpu_bits = [](const CsrMatrix<T>& A, const CsrMatrix<T>& B) {
    const CsrMatrix<T> expected = spgemm(A, B);
    SpgemmReport report;
    const CsrMatrix<T> actual = to_host(spgemm(to_device(A), to_device(B), nullptr, &report));
    EXPECT_EQ(report.path, SpgemmPath::dense_columns);
    EXPECT_EQ(actual.row_ptr, expected.row_ptr);
    EXPECT_EQ(actual.col_idx, expected.col_idx);
    EXPECT_EQ(actual.values, expected.values);
  };
  expect_cpu_bits(testing::random_matrix<T>({44, 3000, 350, 0.1, 0, false}, 31),
                  testing::random_matrix<T>({3000, 44, 12, 0.0, 0, false}, 32));
  expect_cpu_bits(testing::random_matrix<T>({300, 500, 20, 0.2, 0, false}, 33),
                  testing::random_matrix<T>(
                      {500, spgemm_detail::kDenseMaxColumns, 30, 0.1, 0, false}, 34));
}

// The longest row of M.
template <typename T>
index_t longest_row(const CsrMatrix<T>& M) {
  index_t longest = 0;
  for (index_t row = 0; row < M.rows; ++row) longest = std::max(longest, M.row_length(row));
  return longest;
}

// C has the CPU's pattern and bits and records `longest` as its longest row:
// the merged and the window rows record it, the binned path leaves -1.
template <typename T>
void expect_cpu_bits_and_longest(const DeviceCsr<T>& C, const CsrMatrix<T>& expected,
                                 index_t longest, const std::string& what) {
  EXPECT_EQ(C.max_row_length, longest) << what;
  testing::expect_same_matrix(expected, to_host(C), what);
}

// `left`·B on the GPU under `tuning`, with `excluded` ruled out, has the
// CPU's pattern and bits and came from `path` (merged or window rows, which
// record the longest row).
template <typename T>
void expect_recorded_cpu_bits(const DeviceCsr<T>& left, const CsrMatrix<T>& A,
                              const CsrMatrix<T>& B, const spgemm_detail::SpgemmTuning& tuning,
                              SpgemmPathSet excluded, SpgemmPath path, const std::string& what) {
  const CsrMatrix<T> expected = spgemm(A, B);
  SpgemmReport report;
  expect_cpu_bits_and_longest(
      spgemm_detail::spgemm_with(left, to_device(B), tuning, excluded, nullptr, &report),
      expected, longest_row(expected), what);
  EXPECT_EQ(report.path, path) << what;
}

// Calls visit(level, where) for every level of the four stencils'
// hierarchies (2D at 120², 3D 7-pt at 24³, 27-pt at 33³).
template <typename T, typename Visit>
void for_each_galerkin_level(Visit&& visit) {
  for (auto [stencil, n] : {std::pair{Stencil::poisson2d_5, 120},
                            std::pair{Stencil::poisson2d_9, 120},
                            std::pair{Stencil::poisson3d_7, 24},
                            std::pair{Stencil::poisson3d_27, 33}}) {
    const Hierarchy<T> hierarchy = build_hierarchy(poisson<T>(stencil, n));
    for (const Level<T>& level : hierarchy.levels)
      visit(level,
            std::string(stencil_name(stencil)) + ", " + std::to_string(level.A.rows) + " rows");
  }
}

// Calls visit(A, B, what) for the A·P and R·(AP) of every such level.
template <typename T, typename Visit>
void for_each_galerkin_product(Visit&& visit) {
  for_each_galerkin_level<T>([&](const Level<T>& level, const std::string& where) {
    visit(level.A, level.P, "A·P of " + where);
    visit(level.R, spgemm(level.A, level.P), "R·(AP) of " + where);
  });
}

TYPED_TEST(SpgemmGpu, MergesGalerkinProductsWithCpuBits) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // A·P and R·(AP) of the levels whose coarse space is past the narrow
  // kernels' columns: A rows of 5 to 43 entries (3D 27-pt's R rows, ~140,
  // stay binned), merged 2x4 (lanes x entries) up to 8 entries, 4x4 up to
  // 16, 16x2 up to 32 and 32x2 up to 64; then rows of 3 entries (1x4) into
  // a tenth of the columns.
  int merged = 0;
  const auto check = [&](const CsrMatrix<T>& A, const CsrMatrix<T>& B, const std::string& what) {
    if (longest_row(A) > spgemm_detail::kMergeMaxEntries ||
        B.cols <= spgemm_detail::kNarrowMaxColumns)
      return;
    expect_recorded_cpu_bits(to_device(A), A, B, device_tuning<T>(), no_window,
                             SpgemmPath::merged_rows, what);
    ++merged;
  };
  for_each_galerkin_product<T>(check);
  EXPECT_GE(merged, 7);  // level 0's two products, but 3D 27-pt's R·(AP)
  const CsrMatrix<T> three = spread_rows<T>(5000, 20000, 3);
  check(three, spread_rows<T>(20000, 2000, 3), "3 x 3 entries");
}

// The path choose_path takes with every fact given.
SpgemmPath chosen(const spgemm_detail::PathFacts& facts,
                  const spgemm_detail::SpgemmTuning& tuning) {
  const spgemm_detail::PathChoice choice = spgemm_detail::choose_path(facts, tuning);
  EXPECT_EQ(choice.needs, spgemm_detail::PathChoice::Needs::nothing);
  return choice.path;
}

TYPED_TEST(SpgemmGpu, GalerkinProductsTakeThePathsChosenOnTheCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // Each Galerkin product of the four model problems takes on the GPU the
  // path that choose_path gives from the facts counted on the CPU (which
  // tests/spgemm/test_choose_path.cpp states), alone and chained.
  for_each_galerkin_level<T>([](const Level<T>& level, const std::string& where) {
    const spgemm_detail::SpgemmTuning& tuning = device_tuning<T>();
    const CsrMatrix<T> AP = spgemm(level.A, level.P);
    const SpgemmPath ap_path =
        chosen(spgemm_detail::product_facts(level.A, level.P, tuning), tuning);
    const SpgemmPath rap_path =
        chosen(spgemm_detail::product_facts(level.R, AP, tuning), tuning);
    const DeviceCsr<T> R = to_device(level.R), A = to_device(level.A), P = to_device(level.P);
    SpgemmReport report, outer, inner;
    spgemm(A, P, nullptr, &report);
    EXPECT_EQ(report.path, ap_path) << "A·P of " << where;
    spgemm(R, to_device(AP), nullptr, &report);
    EXPECT_EQ(report.path, rap_path) << "R·(AP) of " << where;
    spgemm(R, A, P, nullptr, &outer, &inner);
    EXPECT_EQ(inner.path, ap_path) << "A·P chained, " << where;
    EXPECT_EQ(outer.path, rap_path) << "R·(AP) chained, " << where;
  });
}

TYPED_TEST(SpgemmGpu, WindowsGalerkinProductsWithCpuBits) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // A·P and R·(AP) of the levels whose coarse space is past the narrow
  // kernels' columns, A rows of 5 to ~140 entries (more than a warp's chunk
  // of entries), with window rows everywhere and merged rows ruled out.
  int windowed = 0;
  for_each_galerkin_product<T>(
      [&](const CsrMatrix<T>& A, const CsrMatrix<T>& B, const std::string& what) {
        if (B.cols <= spgemm_detail::kNarrowMaxColumns) return;
        expect_recorded_cpu_bits(to_device(A), A, B, windows_everywhere<T>(), no_merge,
                                 SpgemmPath::window_rows, what);
        ++windowed;
      });
  EXPECT_EQ(windowed, 8);  // level 0 of each problem
}

// 100 rows of 2 entries over 40000 columns.
template <typename T>
CsrMatrix<T> R_of_two() {
  return spread_rows<T>(100, 40000, 2);
}

TYPED_TEST(SpgemmGpu, FusesRowsPastTheirRoomsInASecondPass) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // 40000 rows of 32 entries onto B rows of 4 scattered columns of 4000:
  // 128 products a row, 128 columns, past the fused path's rooms of
  // kFusedRoom entries, so the rows are summed again into rooms of their
  // products. Merged rows off; the CPU's pattern and bits.
  ASSERT_LT(spgemm_detail::kFusedRoom, 100);
  const CsrMatrix<T> A = spread_rows<T>(40000, 160000, 32);
  const CsrMatrix<T> B = rows_of_columns<T>(
      160000, 4000, 4, [](index_t row, index_t m) { return ((row * 7919) % 3989 + m * 997) % 4000; });
  const CsrMatrix<T> expected = spgemm(A, B);
  ASSERT_GT(expected.nnz(), std::int64_t(A.rows) * 100);
  SpgemmReport report;
  expect_cpu_bits_and_longest(
      spgemm_detail::spgemm_with(to_device(A), to_device(B), device_tuning<T>(),
                                 no_window_or_merge, nullptr, &report),
      expected, -1, "rows of ~128 columns");
  EXPECT_EQ(report.path, SpgemmPath::fused_rows);
  // The same product inside R·(A·B), R's rows of 2 entries, with window rows
  // for every narrowing product.
  testing::expect_same_matrix(
      spgemm(R_of_two<T>(), expected),
      to_host(spgemm_detail::spgemm_with(to_device(R_of_two<T>()), to_device(A), to_device(B),
                                         windows_everywhere<T>(), no_merge)),
      "R·(A·B), rows of ~128 columns");
}

TYPED_TEST(SpgemmGpu, ChainsGalerkinProductsWithCpuBits) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // R·(A·P) of every level of the four stencils' hierarchies in one call,
  // with the device's tuning, with window rows nowhere and everywhere, and
  // with fused rows for every product their other rules admit (merged rows
  // off): then 3D 27-pt's level-0 A·P fuses and its R·(AP) takes window
  // rows that read A·P's rooms unpacked, as at 101³ with the device's
  // tuning. The CPU's pattern and bits every time.
  int chained_through_rooms = 0;
  for_each_galerkin_level<T>([&](const Level<T>& level, const std::string& where) {
    const CsrMatrix<T> expected = spgemm(level.R, spgemm(level.A, level.P));
    const DeviceCsr<T> R = to_device(level.R), A = to_device(level.A), P = to_device(level.P);
    testing::expect_same_matrix(expected, to_host(spgemm(R, A, P)), where + ", device's tuning");
    testing::expect_same_matrix(
        expected, to_host(spgemm_detail::spgemm_with(R, A, P, device_tuning<T>(), no_window)),
        where + ", window rows nowhere");
    testing::expect_same_matrix(
        expected, to_host(spgemm_detail::spgemm_with(R, A, P, windows_everywhere<T>(), {})),
        where + ", window rows everywhere");
    SpgemmReport outer, inner;
    testing::expect_same_matrix(
        expected,
        to_host(spgemm_detail::spgemm_with(R, A, P, fused_everywhere<T>(), no_merge, nullptr,
                                           &outer, &inner)),
        where + ", fused rows everywhere");
    if (inner.path == SpgemmPath::fused_rows && outer.path == SpgemmPath::window_rows)
      ++chained_through_rooms;
  });
  EXPECT_GE(chained_through_rooms, 1);
}

TYPED_TEST(SpgemmGpu, ChainsMismatchedShapesWithAClearError) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const DeviceCsr<T> A = to_device(testing::random_matrix<T>({30, 40, 3, 0.2, 0, false}, 5));
  const DeviceCsr<T> B = to_device(testing::random_matrix<T>({40, 50, 3, 0.2, 0, false}, 6));
  const DeviceCsr<T> C = to_device(testing::random_matrix<T>({60, 20, 3, 0.2, 0, false}, 7));
  EXPECT_THROW(spgemm(A, B, C), InvalidInput);
  EXPECT_THROW(spgemm(B, A, to_device(testing::random_matrix<T>({30, 20, 3, 0.2, 0, false}, 8))),
               InvalidInput);
}

TYPED_TEST(SpgemmGpu, SplitsFewLongWindowRowsOverABlockEach) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // 600 rows of 300 entries onto B rows of 20 entries into 400 columns
  // (6000 products a row, a coarse Galerkin level's R·(AP) in miniature):
  // a block of warps a row, whose partial sums regroup the CPU's. The CPU's
  // pattern, its values to rounding, the same bits on a second run; with
  // the split ruled out, window rows and the CPU's bits.
  const CsrMatrix<T> A = spread_rows<T>(600, 24000, 300);
  const CsrMatrix<T> B = rows_of_columns<T>(
      24000, 400, 20, [](index_t row, index_t m) { return (row / 60 + 17 * m) % 400; });
  ASSERT_GE(300.0 * 20, spgemm_detail::spgemm_tuning(sizeof(T)).window_split_min_products);
  const CsrMatrix<T> expected = spgemm(A, B);
  const DeviceCsr<T> dA = to_device(A), dB = to_device(B);
  SpgemmReport report;
  const CsrMatrix<T> split = to_host(spgemm(dA, dB, nullptr, &report));
  EXPECT_EQ(report.path, SpgemmPath::window_split_rows);
  expect_near_cpu(split, expected, spgemm(absolute(A), absolute(B)));
  EXPECT_EQ(split.values, to_host(spgemm(dA, dB)).values) << "a second run";
  expect_recorded_cpu_bits(dA, A, B, device_tuning<T>(), no_split, SpgemmPath::window_rows,
                           "window rows, not split");
}

TYPED_TEST(SpgemmGpu, LeavesTheWindowRowsWhenAWindowIsTooWide) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // Rows of 20 entries whose B rows span 20000 columns of 40000, past
  // kWindowMaxWords: the count pass finds the misfits and, with the merged
  // rows off, the binned kernels take the product, with the CPU's bits.
  ASSERT_LT(32 * spgemm_detail::kWindowMaxWords, 20000);
  const CsrMatrix<T> A = spread_rows<T>(2000, 200000, 20);
  const CsrMatrix<T> B = spread_rows<T>(200000, 40000, 2);
  SpgemmReport report;
  expect_cpu_bits_and_longest(
      spgemm_detail::spgemm_with(to_device(A), to_device(B), windows_everywhere<T>(), no_merge,
                                 nullptr, &report),
      spgemm(A, B), -1, "binned, not from the window rows");
  EXPECT_EQ(report.path, SpgemmPath::binned);
  EXPECT_TRUE(report.declined.contains(SpgemmPath::window_rows));
}

TYPED_TEST(SpgemmGpu, WindowsEmptyProducts) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // Rows of 70 entries onto B rows that are all empty (every window empty),
  // then onto B rows of one column each, through the window rows.
  const CsrMatrix<T> A = spread_rows<T>(300, 7000, 70);
  for (const index_t per_row : {0, 1}) {
    const CsrMatrix<T> B =
        per_row == 0 ? zero_matrix<T>(7000, 1500) : spread_rows<T>(7000, 1500, per_row);
    expect_recorded_cpu_bits(to_device(A), A, B, windows_everywhere<T>(), no_merge,
                             SpgemmPath::window_rows,
                             std::to_string(per_row) + " entries per B row");
  }
}

TYPED_TEST(SpgemmGpu, CountsWindowRowsWhenARowPassesItsRoom) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // Rows of 400 entries onto B rows of one column each, a quarter of B's
  // rows: 400 columns a row, past the fused pass's room of kWindowFusedRoom,
  // in a window of 4000 columns. The count pass then takes the product,
  // with the CPU's bits and the longest row recorded.
  ASSERT_LT(spgemm_detail::kWindowFusedRoom, 400);
  const CsrMatrix<T> A = spread_rows<T>(300, 16000, 400);
  const CsrMatrix<T> B =
      rows_of_columns<T>(16000, 4000, 1, [](index_t row, index_t) { return row / 4; });
  expect_recorded_cpu_bits(to_device(A), A, B, windows_everywhere<T>(), no_merge,
                           SpgemmPath::window_rows, "rows of 400 columns");
}

TYPED_TEST(SpgemmGpu, MergesRowsInWholeWarpsWhenBuffersLimitTheGroups) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // Rows of 19 entries (16 lanes a row) onto B rows of 16 entries, an
  // eighth of the columns: buffers of 304 values, so 32 KiB hold 13 groups
  // of doubles, half a warp past the last whole one. The launch keeps whole
  // warps (12 groups) and gives the CPU's bits.
  const CsrMatrix<T> A = spread_rows<T>(4000, 64000, 19);
  const CsrMatrix<T> B = spread_rows<T>(64000, 8000, 16);
  expect_recorded_cpu_bits(to_device(A), A, B, device_tuning<T>(), no_window,
                           SpgemmPath::merged_rows, "19 x 16 entries");
}

TYPED_TEST(SpgemmGpu, LeavesTheMergedRowsWhenARowHintIsStale) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // 3D 27-pt rows of 27 entries times B of 6 entries per row into an eighth
  // of the columns: merged with true hints. With A's hint at 3 (too many
  // entries for the merge shape), then B's at 1 (more products than the
  // buffers hold), the count pass finds the misfits and the binned kernels
  // take the product, with the CPU's bits.
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson3d_27, 24);
  const CsrMatrix<T> B = spread_rows<T>(A.cols, A.cols / 8, 6);
  const CsrMatrix<T> expected = spgemm(A, B);
  const DeviceCsr<T> dA = to_device(A), dB = to_device(B);
  SpgemmReport report;
  EXPECT_EQ(spgemm_detail::spgemm_with(dA, dB, device_tuning<T>(), no_window, nullptr, &report)
                .max_row_length,
            longest_row(expected));
  EXPECT_EQ(report.path, SpgemmPath::merged_rows);
  DeviceCsr<T> stale_A = to_device(A), stale_B = to_device(B);
  stale_A.max_row_length = 3;
  stale_B.max_row_length = 1;
  const std::pair<const DeviceCsr<T>*, const DeviceCsr<T>*> cases[] = {{&stale_A, &dB},
                                                                       {&dA, &stale_B}};
  for (const auto& [left, right] : cases) {
    const std::string what = left == &stale_A ? "A's hint stale" : "B's hint stale";
    expect_cpu_bits_and_longest(
        spgemm_detail::spgemm_with(*left, *right, device_tuning<T>(), no_window, nullptr, &report),
        expected, -1, what);
    EXPECT_TRUE(report.declined.contains(SpgemmPath::merged_rows)) << what;
    EXPECT_EQ(report.path, SpgemmPath::binned) << what;
  }
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

// A product formed on the binned path and refilled by that path's numeric
// pass alone (a refresh's binned products) has the bits of the binned product
// of the new values, in rows of every bin: heavy-tailed row lengths and dense
// rows of A (long rows).
TYPED_TEST(SpgemmGpu, BinnedNumericPassEqualsTheBinnedProductOfNewValues) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const SpgemmPathSet all_but_binned{SpgemmPath::dense_columns,     SpgemmPath::narrow,
                                     SpgemmPath::window_split_rows, SpgemmPath::window_rows,
                                     SpgemmPath::merged_rows,       SpgemmPath::sorted_whole,
                                     SpgemmPath::fused_rows};
  const auto A = testing::random_matrix<T>({3000, 2500, 12, 0.05, 4, true}, 31);
  const auto B = testing::random_matrix<T>({2500, 2800, 10, 0.05, 2, true}, 32);
  DeviceCsr<T> dA = to_device(A);
  const DeviceCsr<T> dB = to_device(B);
  SpgemmReport report;
  DeviceCsr<T> C =
      spgemm_detail::spgemm_with(dA, dB, device_tuning<T>(), all_but_binned, nullptr, &report);
  ASSERT_EQ(report.path, SpgemmPath::binned);
  CsrMatrix<T> changed = A;
  for (T& value : changed.values) value = T(0.5) * value + T(0.125);
  dA = to_device(changed);
  spgemm_binned_numeric(dA, dB, C);
  const CsrMatrix<T> refilled = to_host(C);
  const CsrMatrix<T> fresh =
      to_host(spgemm_detail::spgemm_with(dA, dB, device_tuning<T>(), all_but_binned));
  EXPECT_EQ(refilled.row_ptr, fresh.row_ptr);
  EXPECT_EQ(refilled.col_idx, fresh.col_idx);
  ASSERT_EQ(refilled.values.size(), fresh.values.size());
  EXPECT_EQ(
      0, std::memcmp(refilled.values.data(), fresh.values.data(), fresh.values.size() * sizeof(T)));
  const DeviceCsr<T> other =
      to_device(testing::random_matrix<T>({3000, 2500, 12, 0.05, 4, true}, 33));
  EXPECT_THROW(spgemm_binned_numeric(other, dB, C), InvalidInput);
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
