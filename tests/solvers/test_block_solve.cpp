// Multi-RHS solves on the CPU: every block operation, the block V-cycle and the
// block CG give, column by column, exactly the bits of the one-vector operation
// on that column, so a block solve is k single solves done together.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/smoothers/jacobi.hpp"
#include "binamg/solvers/pcg.hpp"
#include "binamg/solvers/vcycle.hpp"
#include "binamg/sparse/matrix_market.hpp"
#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmv.hpp"
#include "binamg/vector/block_vector_ops.hpp"
#include "binamg/vector/vector_ops.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class BlockSolve : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BlockSolve, Precisions);

using testing::column_of;

TYPED_TEST(BlockSolve, ColumnDotsAreTheDotsOfTheColumns) {
  using T = TypeParam;
  constexpr index_t k = 3;
  // More rows than one reduction block, so the blocked order matters.
  const index_t n = 3 * reduction_block + 17;
  const std::vector<T> X = testing::random_vector<T>(std::size_t(n) * k, 1);
  const std::vector<T> Y = testing::random_vector<T>(std::size_t(n) * k, 2);
  const std::vector<T> dots = column_dots(X, Y, k);
  for (index_t j = 0; j < k; ++j) EXPECT_EQ(dots[j], dot(column_of(X, k, j), column_of(Y, k, j)));
}

TYPED_TEST(BlockSolve, BlockResidualAndJacobiAreTheColumnOperations) {
  using T = TypeParam;
  constexpr index_t k = 4;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_9, 20);
  const std::vector<T> B = testing::random_vector<T>(std::size_t(A.rows) * k, 3);
  const std::vector<T> X0 = testing::random_vector<T>(std::size_t(A.rows) * k, 4);
  const std::vector<T> inverse = inverse_diagonal(A);
  std::vector<T> R, X = X0, Z, scratch;
  residual(A, X0, B, k, R);
  jacobi(A, inverse, T(0.7), B, X, k, 2, scratch);
  jacobi_from_zero(A, inverse, T(0.7), B, Z, k, 2, scratch);
  for (index_t j = 0; j < k; ++j) {
    std::vector<T> r, x = column_of(X0, k, j), z, s;
    residual(A, column_of(X0, k, j), column_of(B, k, j), r);
    jacobi(A, inverse, T(0.7), column_of(B, k, j), x, 2, s);
    jacobi_from_zero(A, inverse, T(0.7), column_of(B, k, j), z, 2, s);
    EXPECT_EQ(column_of(R, k, j), r) << "column " << j;
    EXPECT_EQ(column_of(X, k, j), x) << "column " << j;
    EXPECT_EQ(column_of(Z, k, j), z) << "column " << j;
  }
}

TYPED_TEST(BlockSolve, BlockVcycleIsTheVcycleOfEachColumn) {
  using T = TypeParam;
  constexpr index_t k = 3;
  AmgParameters parameters;
  parameters.max_coarse_rows = 100;  // three levels or more
  const Hierarchy<T> h = build_hierarchy(poisson<T>(Stencil::poisson3d_7, 14), parameters);
  ASSERT_GE(h.num_levels(), 3);
  const index_t n = h.matrix(0).rows;
  const std::vector<T> B = random_rhs<T>(n, k);
  CycleWorkspace<T> work = cycle_workspace(h, k);
  std::vector<T> X;
  vcycle_from_zero(h, B, X, k, work);
  for (index_t j = 0; j < k; ++j) {
    std::vector<T> x;
    vcycle_from_zero(h, column_of(B, k, j), x);
    EXPECT_EQ(column_of(X, k, j), x) << "column " << j;
  }
  CycleWorkspace<T> wrong_k = cycle_workspace(h, k + 1);
  EXPECT_THROW(vcycle_from_zero(h, B, X, k, wrong_k), InvalidInput);
}

TYPED_TEST(BlockSolve, BlockPcgIsEachColumnSolvedAlone) {
  using T = TypeParam;
  constexpr index_t k = 5;
  SolveOptions options;
  // Converged means the true residual met it: float's stalls near 1e-4 here.
  options.tolerance = std::is_same_v<T, float> ? 1e-3 : 1e-8;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_5, 48);
  const Hierarchy<T> h = build_hierarchy(A);
  std::vector<T> B = random_rhs<T>(A.rows, k);
  for (index_t i = 0; i < A.rows; ++i) {
    B[std::size_t(i) * k + 1] = T(1);  // amg_solve's default right-hand side
    B[std::size_t(i) * k + 3] = T(0);  // b = 0: x = 0 after no iterations
  }
  // A nonzero initial guess, so that freezing and x = 0 for b = 0 are exercised.
  const std::vector<T> X0 = testing::random_vector<T>(std::size_t(A.rows) * k, 5);
  std::vector<T> X = X0;
  const BlockSolveResult block = pcg(h, B, X, k, options);
  ASSERT_EQ(block.columns.size(), std::size_t(k));
  EXPECT_TRUE(block.all_converged());
  int fewest = block.max_iterations(), most = 0;
  for (index_t j = 0; j < k; ++j) {
    std::vector<T> x = column_of(X0, k, j);
    const SolveResult single = pcg(h, column_of(B, k, j), x, options);
    const SolveResult& together = block.columns[j];
    EXPECT_EQ(together.iterations, single.iterations) << "column " << j;
    EXPECT_EQ(together.converged, single.converged) << "column " << j;
    EXPECT_EQ(together.residual_history, single.residual_history) << "column " << j;
    EXPECT_EQ(together.relative_residual, single.relative_residual) << "column " << j;
    EXPECT_EQ(column_of(X, k, j), x) << "column " << j;
    if (j != 3) fewest = std::min(fewest, together.iterations);
    most = std::max(most, together.iterations);
  }
  EXPECT_EQ(block.columns[3].iterations, 0);
  EXPECT_EQ(most, block.max_iterations());
  EXPECT_GT(fewest, 0);
}

TYPED_TEST(BlockSolve, MaxIterationsStopsEveryColumn) {
  using T = TypeParam;
  constexpr index_t k = 2;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_5, 40);
  const Hierarchy<T> h = build_hierarchy(A);
  SolveOptions options;
  options.tolerance = 1e-30;  // unreachable
  options.max_iterations = 3;
  std::vector<T> X(std::size_t(A.rows) * k, T(0));
  const BlockSolveResult block = pcg(h, random_rhs<T>(A.rows, k), X, k, options);
  for (const SolveResult& c : block.columns) {
    EXPECT_EQ(c.iterations, 3);
    EXPECT_FALSE(c.converged);
  }
}

TYPED_TEST(BlockSolve, BadBlockInputsAreRejectedByName) {
  using T = TypeParam;
  constexpr index_t k = 3;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_5, 20);
  const Hierarchy<T> h = build_hierarchy(A);
  std::vector<T> X(std::size_t(A.rows) * k, T(0));
  EXPECT_THROW(pcg(h, std::vector<T>(A.rows * k + 1, T(1)), X, k), InvalidInput);
  EXPECT_THROW(pcg(h, std::vector<T>(A.rows * k, T(1)), X, 0), InvalidInput);
  std::vector<T> B(std::size_t(A.rows) * k, T(1));
  B[std::size_t(7) * k + 2] = std::numeric_limits<T>::quiet_NaN();
  try {
    pcg(h, B, X, k);
    FAIL() << "a NaN right-hand side was accepted";
  } catch (const InvalidInput& error) {
    EXPECT_NE(std::string(error.what()).find("b[7, 2] is not finite"), std::string::npos)
        << error.what();
  }
}

TEST(RandomRhs, IsReproducibleAndInsideTheUnitInterval) {
  const std::vector<double> b = random_rhs<double>(1000, 4);
  EXPECT_EQ(b, random_rhs<double>(1000, 4));
  for (double v : b) {
    EXPECT_GT(v, -1.0);
    EXPECT_LT(v, 1.0);
  }
  EXPECT_NE(b[0], b[1]);
  // Column j is the same vector for any k: one right-hand side is column 0 of many.
  EXPECT_EQ(column_of(b, 4, 0), random_rhs<double>(1000, 1));
  EXPECT_EQ(column_of(b, 4, 2), column_of(random_rhs<double>(1000, 3), 3, 2));
  EXPECT_THROW(random_rhs<double>(10, 0), InvalidInput);
}

std::string write_temporary(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(MatrixMarketBlock, ArrayColumnsBecomeRowMajor) {
  const std::string path = write_temporary(
      "block_array.mtx",
      "%%MatrixMarket matrix array real general\n3 2\n1\n2\n3\n4\n5\n6\n");
  const DenseBlock<double> block = read_matrix_market_block<double>(path);
  EXPECT_EQ(block.rows, 3);
  EXPECT_EQ(block.cols, 2);
  EXPECT_EQ(block.values, (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_THROW(read_matrix_market_vector<double>(path), InvalidInput);  // not n x 1
}

TEST(MatrixMarketBlock, CoordinateEntriesFillTheirPlaces) {
  const std::string path = write_temporary(
      "block_coordinate.mtx",
      "%%MatrixMarket matrix coordinate real general\n3 2 2\n1 2 7.5\n3 1 -1\n");
  const DenseBlock<double> block = read_matrix_market_block<double>(path);
  EXPECT_EQ(block.values, (std::vector<double>{0, 7.5, 0, 0, -1, 0}));
}

TEST(MatrixMarketBlock, ShortArrayNamesTheFileAndCounts) {
  const std::string path = write_temporary(
      "block_short.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n");
  try {
    read_matrix_market_block<double>(path);
    FAIL() << "a short array was accepted";
  } catch (const InvalidInput& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("block_short.mtx"), std::string::npos) << message;
    EXPECT_NE(message.find("3 of the 4 values"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace binamg
