// Planned SpMM on the host: the blocks cover every row once and hold every
// nonzero, the shape found on grids is their lines, and the reference gives
// each row's own chain of fma's, NaN and infinity included.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "binamg/core/error.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/spmv/spmm_plan.hpp"
#include "support/random_matrix.hpp"
#include "support/row_chains.hpp"

namespace binamg {
namespace {

using testing::random_matrix;
using testing::random_vector;
using testing::fma_in_row_order;
using testing::RandomMatrixShape;
constexpr int kRows = SpmmPlanLayout::kRowsPerBlock;

// Equal bits, but for the sign of a zero (zeros added between a row's terms).
void expect_same_values(const std::vector<double>& expected, const std::vector<double>& got) {
  ASSERT_EQ(expected.size(), got.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "entry " << i;
    } else {
      EXPECT_EQ(expected[i], got[i]) << "entry " << i;
    }
  }
}

// Decodes the plan back into (row, column, value) and checks it is A, each row in one block.
void expect_plan_holds(const CsrMatrix<double>& A, const SpmmPlanLayout& plan) {
  std::vector<int> seen(std::size_t(A.rows), 0);
  std::set<std::tuple<index_t, index_t, double>> entries;
  index_t head = -1, blocks = 0;
  for (index_t c = 0; c < plan.chunks(); ++c) {
    if (!plan.continues_block(c)) {
      head = c, ++blocks;
      for (int r = 0; r < kRows; ++r) {
        const index_t row = plan.chunk_rows[std::size_t(c) * kRows + r];
        ASSERT_GE(row, -1);
        if (row >= 0) ++seen[std::size_t(row)];
      }
    }
    ASSERT_GE(head, 0) << "the first chunk continues no block";
    const index_t width = plan.union_offset[c + 1] - plan.union_offset[c];
    EXPECT_EQ(width % 4, 0);
    EXPECT_LE(width, SpmmPlanLayout::kMaxChunkColumns);
    for (index_t e = plan.entry_offset[c]; e < plan.entry_offset[c + 1]; ++e) {
      const int r = plan.codes[e] >> spmm_plan_detail::kPlaceBits;
      const int place = plan.codes[e] & spmm_plan_detail::kPlaceMask;
      ASSERT_LT(place, width);
      const index_t row = plan.chunk_rows[std::size_t(head) * kRows + r];
      ASSERT_GE(row, 0);
      entries.insert({row, plan.union_columns[plan.union_offset[c] + place], plan.values[e]});
    }
  }
  EXPECT_EQ(blocks, plan.blocks);
  for (index_t i = 0; i < A.rows; ++i) EXPECT_EQ(seen[std::size_t(i)], 1) << "row " << i;
  ASSERT_EQ(entries.size(), std::size_t(A.nnz()));
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t e = A.row_ptr[i]; e < A.row_ptr[i + 1]; ++e)
      EXPECT_EQ(entries.count({i, A.col_idx[e], A.values[e]}), 1u) << "row " << i;
}

TEST(SpmmPlan, GridShapesTakeTheirLines) {
  const SpmmBlockShape cube27 = choose_spmm_block_shape(poisson<double>(Stencil::poisson3d_27, 20));
  EXPECT_EQ(cube27.lines, 4);
  EXPECT_EQ(cube27.line_length, 20);
  const SpmmBlockShape square5 = choose_spmm_block_shape(poisson<double>(Stencil::poisson2d_5, 40));
  EXPECT_GT(square5.lines, 1);
  EXPECT_EQ(square5.line_length, 40);
}

TEST(SpmmPlan, BlocksHoldEveryRowOnceAndEveryNonzero) {
  const CsrMatrix<double> grid = poisson<double>(Stencil::poisson3d_27, 9);
  for (const SpmmBlockShape shape : {SpmmBlockShape{}, SpmmBlockShape{2, 9}, SpmmBlockShape{4, 9},
                                     SpmmBlockShape{4, 7}})
    expect_plan_holds(grid, plan_spmm_blocks(grid, shape));
  // Rows longer than a chunk, empty rows, a rectangle.
  const CsrMatrix<double> ragged = random_matrix<double>(RandomMatrixShape{300, 700, 40, 0.2, 3, true}, 7);
  expect_plan_holds(ragged, plan_spmm_blocks(ragged, choose_spmm_block_shape(ragged)));
  const SpmmPlanLayout ragged_plan = plan_spmm_blocks(ragged, SpmmBlockShape{2, 13});
  EXPECT_GT(ragged_plan.chunks(), ragged_plan.blocks);  // the dense rows need several chunks
  expect_plan_holds(ragged, ragged_plan);
}

TEST(SpmmPlan, ReferenceIsEachRowsOwnChain) {
  const CsrMatrix<double> matrices[] = {
      poisson<double>(Stencil::poisson3d_27, 7), poisson<double>(Stencil::poisson2d_9, 13),
      random_matrix<double>(RandomMatrixShape{300, 700, 40, 0.2, 3, true}, 3),
      random_matrix<double>(RandomMatrixShape{5, 9, 3, 0.0, 0, false}, 4)};
  for (const auto& A : matrices)
    for (index_t k : {1, 3, 16}) {
      const std::vector<double> X = random_vector<double>(std::size_t(A.cols) * k, 11);
      std::vector<double> Y;
      spmm_reference(plan_spmm_blocks(A, choose_spmm_block_shape(A)), X, k, Y);
      expect_same_values(fma_in_row_order(A, X, k), Y);
    }
}

TEST(SpmmPlan, NonFiniteInputStaysInTheRowsThatHoldIt) {
  const CsrMatrix<double> A = poisson<double>(Stencil::poisson3d_7, 6);
  const index_t k = 2;
  std::vector<double> X = random_vector<double>(std::size_t(A.cols) * k, 5);
  X[std::size_t(100) * k] = std::numeric_limits<double>::infinity();
  X[std::size_t(101) * k + 1] = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> Y;
  spmm_reference(plan_spmm_blocks(A, SpmmBlockShape{2, 6}), X, k, Y);
  const std::vector<double> expected = fma_in_row_order(A, X, k);
  expect_same_values(expected, Y);
  std::size_t finite = 0;
  for (double y : Y) finite += std::isfinite(y);
  EXPECT_GT(finite, Y.size() - 20);  // only the neighbours of rows 100 and 101
}

TEST(SpmmPlan, RejectsBadShapesAndInput) {
  const CsrMatrix<double> A = poisson<double>(Stencil::poisson2d_5, 5);
  EXPECT_THROW(plan_spmm_blocks(A, SpmmBlockShape{3, 5}), InvalidInput);
  EXPECT_THROW(plan_spmm_blocks(A, SpmmBlockShape{2, 0}), InvalidInput);
  CsrMatrix<double> unsorted = A;
  std::swap(unsorted.col_idx[0], unsorted.col_idx[1]);
  EXPECT_THROW(plan_spmm_blocks(unsorted, SpmmBlockShape{}), InvalidInput);
  std::vector<double> Y;
  EXPECT_THROW(spmm_reference(plan_spmm_blocks(A, SpmmBlockShape{}), std::vector<double>(3), 1, Y),
               InvalidInput);
}

}  // namespace
}  // namespace binamg
