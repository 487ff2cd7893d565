// Planned SpMM on the GPU against its CPU reference (spmv/spmm_plan.cpp),
// bit for bit, on grids, ragged rows and non-finite input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "binamg/core/error.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/spmv/spmm_plan.hpp"
#include "support/gpu.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

using testing::random_matrix;
using testing::random_vector;
using testing::RandomMatrixShape;

void expect_gpu_matches_reference(const CsrMatrix<double>& A, const SpmmPlanLayout& layout,
                                  const std::vector<double>& X, index_t k) {
  std::vector<double> expected;
  spmm_reference(layout, X, k, expected);
  const SpmmPlan plan = to_device(layout);
  const DeviceBuffer<double> dX = to_device(X);
  DeviceBuffer<double> dY(std::size_t(A.rows) * k);
  spmm(plan, dX.data(), k, dY.data());
  const std::vector<double> got = to_host(dY);
  ASSERT_EQ(got.size(), expected.size());
  std::size_t differing = 0, first = got.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &expected[i], sizeof(double)) != 0) {
      ++differing;
      first = std::min(first, i);
    }
  EXPECT_EQ(differing, 0u) << "k = " << k << ", first at " << first << ": " << got[first]
                           << " vs " << expected[first];
}

TEST(SpmmPlanGpu, MatchesReferenceBitForBit) {
  BINAMG_REQUIRE_GPU();
  const CsrMatrix<double> matrices[] = {
      poisson<double>(Stencil::poisson3d_27, 11), poisson<double>(Stencil::poisson3d_7, 10),
      poisson<double>(Stencil::poisson2d_5, 30), poisson<double>(Stencil::poisson2d_9, 17),
      // rows past a chunk's 96 columns, empty rows, power-law rows, rectangles
      random_matrix<double>(RandomMatrixShape{300, 700, 40, 0.2, 3, true}, 1),
      random_matrix<double>(RandomMatrixShape{700, 90, 3, 0.1, 0, false}, 2),
      random_matrix<double>(RandomMatrixShape{64, 5000, 300, 0.0, 0, false}, 3)};
  for (const auto& A : matrices)
    for (index_t k : {16, 32, 48, 64, 80, 128}) {
      const std::vector<double> X = random_vector<double>(std::size_t(A.cols) * k, 17 + k);
      expect_gpu_matches_reference(A, plan_spmm_blocks(A, choose_spmm_block_shape(A)), X, k);
    }
}

// The GPU build gives the host build's plan, array for array.
void expect_same_plan(const SpmmPlanLayout& host, const SpmmPlan& device) {
  EXPECT_EQ(device.blocks, host.blocks);
  EXPECT_EQ(device.chunks, host.chunks());
  EXPECT_EQ(to_host(device.chunk_rows), host.chunk_rows);
  EXPECT_EQ(to_host(device.union_offset), host.union_offset);
  EXPECT_EQ(to_host(device.union_columns), host.union_columns);
  EXPECT_EQ(to_host(device.entry_offset), host.entry_offset);
  EXPECT_EQ(to_host(device.codes), host.codes);
  EXPECT_EQ(to_host(device.values), host.values);
  EXPECT_EQ(device.plan_bytes, host.bytes());
}

TEST(SpmmPlanGpu, BuildsTheHostsPlan) {
  BINAMG_REQUIRE_GPU();
  const CsrMatrix<double> matrices[] = {
      poisson<double>(Stencil::poisson3d_27, 13), poisson<double>(Stencil::poisson3d_7, 11),
      poisson<double>(Stencil::poisson2d_9, 20),
      random_matrix<double>(RandomMatrixShape{300, 700, 40, 0.2, 3, true}, 1),
      random_matrix<double>(RandomMatrixShape{64, 5000, 300, 0.0, 0, false}, 3),
      random_matrix<double>(RandomMatrixShape{7, 7, 2, 0.0, 0, false}, 4),
      zero_matrix<double>(40, 30), zero_matrix<double>(0, 0)};
  for (const auto& A : matrices) {
    const DeviceCsr<double> dA = to_device(A);
    const SpmmBlockShape shape = choose_spmm_block_shape(A);
    const SpmmBlockShape device_shape = choose_spmm_block_shape(dA);
    EXPECT_EQ(device_shape.lines, shape.lines);
    EXPECT_EQ(device_shape.line_length, shape.line_length);
    expect_same_plan(plan_spmm_blocks(A, shape), make_spmm_plan(dA));
    for (const SpmmBlockShape other : {SpmmBlockShape{}, SpmmBlockShape{2, 5}, SpmmBlockShape{4, 13}})
      expect_same_plan(plan_spmm_blocks(A, other), plan_spmm_blocks(dA, other));
  }
}

TEST(SpmmPlanGpu, EveryShapeMatches) {
  BINAMG_REQUIRE_GPU();
  const CsrMatrix<double> A = poisson<double>(Stencil::poisson3d_27, 9);
  const std::vector<double> X = random_vector<double>(std::size_t(A.cols) * 32, 5);
  for (const SpmmBlockShape shape : {SpmmBlockShape{}, SpmmBlockShape{2, 9}, SpmmBlockShape{4, 9},
                                     SpmmBlockShape{4, 81}, SpmmBlockShape{2, 5}})
    expect_gpu_matches_reference(A, plan_spmm_blocks(A, shape), X, 32);
}

TEST(SpmmPlanGpu, NonFiniteInputStaysInTheRowsThatHoldIt) {
  BINAMG_REQUIRE_GPU();
  const CsrMatrix<double> A = poisson<double>(Stencil::poisson3d_27, 8);
  const index_t k = 64;
  std::vector<double> X = random_vector<double>(std::size_t(A.cols) * k, 9);
  X[std::size_t(200) * k + 3] = std::numeric_limits<double>::infinity();
  X[std::size_t(201) * k + 40] = -std::numeric_limits<double>::infinity();
  X[std::size_t(300) * k + 17] = std::numeric_limits<double>::quiet_NaN();
  const SpmmPlanLayout layout = plan_spmm_blocks(A, choose_spmm_block_shape(A));
  expect_gpu_matches_reference(A, layout, X, k);
  std::vector<double> Y;
  spmm_reference(layout, X, k, Y);
  std::size_t finite = 0;
  for (double y : Y) finite += std::isfinite(y);
  // Only the rows that hold one of the three columns (A is symmetric: as many as the column's row).
  EXPECT_EQ(Y.size() - finite,
            std::size_t(A.row_length(200) + A.row_length(201) + A.row_length(300)));
}

TEST(SpmmPlanGpu, RejectsOtherColumnCountsAndMisalignedPointers) {
  BINAMG_REQUIRE_GPU();
  const CsrMatrix<double> A = poisson<double>(Stencil::poisson2d_5, 6);
  const SpmmPlan plan = make_spmm_plan(to_device(A));
  DeviceBuffer<double> dX(std::size_t(A.cols) * 33), dY(std::size_t(A.rows) * 33);
  EXPECT_THROW(spmm(plan, dX.data(), 8, dY.data()), InvalidInput);
  EXPECT_THROW(spmm(plan, dX.data(), 0, dY.data()), InvalidInput);
  EXPECT_THROW(spmm(plan, dX.data() + 1, 16, dY.data()), InvalidInput);
  EXPECT_THROW(spmm(plan, nullptr, 16, dY.data()), InvalidInput);
}

TEST(SpmmPlanGpu, EmptyMatrixWritesZeros) {
  BINAMG_REQUIRE_GPU();
  const CsrMatrix<double> A = zero_matrix<double>(20, 12);
  const std::vector<double> X = random_vector<double>(std::size_t(A.cols) * 16, 4);
  expect_gpu_matches_reference(A, plan_spmm_blocks(A, SpmmBlockShape{}), X, 16);
}

}  // namespace
}  // namespace binamg
