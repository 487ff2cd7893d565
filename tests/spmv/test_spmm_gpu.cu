// GPU SpMM/SpMV/residual against the CPU reference on the same seeded input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "binamg/problems/poisson.hpp"
#include "binamg/spmv/row_stream.cuh"
#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmv.hpp"
#include "binamg/vector/block_vector_ops.hpp"
#include "binamg/vector/vector_ops.hpp"
#include "support/gpu.hpp"
#include "support/random_matrix.hpp"
#include "support/row_chains.hpp"

namespace binamg {
namespace {

using testing::fma_in_row_order;
using testing::RandomMatrixShape;

template <typename T>
class SpmmGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SpmmGpu, Precisions);

// Empty rows, a dense row longer than any merge segment, power-law rows,
// tall and wide rectangles, an all-zero matrix. For k = 1 (spmv/row_stream.cuh):
// a row staged over several passes (3000 entries), a block of rows too long to
// stage (a 20000-entry row among short ones), and rows long enough on average
// (mean 100) to take a warp each. For k > 1, the small matrices with long rows
// split each row over several lane groups (block_row_split's split_rows_kernel);
// the shape of 64 rows of about 600 splits it over 16 groups at k = 32. Rows
// far longer than the mean (the dense rows, and the last shape's 3 hub rows of
// 30000 among 30000 rows of about 6) are summed by a whole block
// (row_split::long_row_length).
const RandomMatrixShape shapes[] = {
    {500, 400, 6, 0.2, 0, false},   {300, 3000, 5, 0.0, 1, false},
    {800, 600, 6, 0.1, 0, true},    {700, 90, 3, 0.0, 0, false},
    {50, 50, 0, 1.0, 0, false},     {2000, 20000, 4, 0.1, 1, false},
    {200, 400, 100, 0.05, 0, true}, {64, 5000, 600, 0.0, 0, false},
    {30000, 30000, 6, 0.0, 3, false},
};
const index_t column_counts[] = {1, 2, 7, 8, 32, 33, 64, 100};

template <typename T>
std::vector<T> run_gpu(const CsrMatrix<T>& A, const std::vector<T>& X, index_t k,
                       SpmmAlgorithm algorithm) {
  const DeviceCsr<T> dA = to_device(A);
  const DeviceBuffer<T> dX = to_device(X);
  DeviceBuffer<T> dY(std::size_t(A.rows) * k);
  spmm(dA, dX.data(), k, dY.data(), algorithm);
  return to_host(dY);
}

// Y = A X by the row-split kernels with X and Y one element past an aligned
// address, so that no lane may move two columns at once (scalar gathers).
template <typename T>
std::vector<T> run_row_split_off_alignment(const CsrMatrix<T>& A, const std::vector<T>& X,
                                           index_t k) {
  const DeviceCsr<T> dA = to_device(A);
  std::vector<T> shifted_x(X.size() + 1, T(0));
  std::copy(X.begin(), X.end(), shifted_x.begin() + 1);
  const DeviceBuffer<T> dX = to_device(shifted_x);
  // Y's slot before the output starts zeroed (initcheck: all of dY is downloaded)
  // and must stay so: nothing is written before Y.
  DeviceBuffer<T> dY = to_device(std::vector<T>(std::size_t(A.rows) * k + 1, T(0)));
  spmm(dA, dX.data() + 1, k, dY.data() + 1, SpmmAlgorithm::row_split);
  const auto shifted_y = to_host(dY);
  EXPECT_EQ(shifted_y[0], T(0));
  return std::vector<T>(shifted_y.begin() + 1, shifted_y.end());
}

// Both results sum the same n products of a row in different orders (and the
// GPU fuses multiply-adds), so each is within n·eps·Σ|a||x| of the exact value
// (Higham's bound) and they differ by at most twice that.
template <typename T>
void expect_close_to_cpu(const CsrMatrix<T>& A, const std::vector<T>& X, index_t k,
                         const std::vector<T>& gpu) {
  std::vector<T> cpu;
  spmm(A, X, k, cpu);
  ASSERT_EQ(gpu.size(), cpu.size());
  const double eps = std::numeric_limits<T>::epsilon();
  for (index_t row = 0; row < A.rows; ++row)
    for (index_t j = 0; j < k; ++j) {
      double magnitude = 0;
      for (index_t e = A.row_ptr[row]; e < A.row_ptr[row + 1]; ++e)
        magnitude += std::abs(double(A.values[e]) * double(X[std::size_t(A.col_idx[e]) * k + j]));
      const double bound = 2.0 * A.row_length(row) * eps * magnitude;
      const std::size_t i = std::size_t(row) * k + j;
      ASSERT_LE(std::abs(double(gpu[i]) - double(cpu[i])), bound)
          << "row " << row << " column " << j << " k " << k;
    }
}

template <typename T>
void check_algorithm_matches_cpu(SpmmAlgorithm algorithm) {
  std::uint64_t seed = 100;
  for (const auto& shape : shapes) {
    const auto A = testing::random_matrix<T>(shape, seed++);
    for (index_t k : column_counts) {
      const auto X = testing::random_vector<T>(std::size_t(A.cols) * k, seed++);
      expect_close_to_cpu(A, X, k, run_gpu(A, X, k, algorithm));
    }
  }
}

TYPED_TEST(SpmmGpu, RowSplitMatchesCpu) {
  BINAMG_REQUIRE_GPU();
  check_algorithm_matches_cpu<TypeParam>(SpmmAlgorithm::row_split);
}

TYPED_TEST(SpmmGpu, MergeBasedMatchesCpu) {
  BINAMG_REQUIRE_GPU();
  check_algorithm_matches_cpu<TypeParam>(SpmmAlgorithm::merge_based);
}

TYPED_TEST(SpmmGpu, AutomaticMatchesCpu) {
  BINAMG_REQUIRE_GPU();
  check_algorithm_matches_cpu<TypeParam>(SpmmAlgorithm::automatic);
}

TYPED_TEST(SpmmGpu, BothKernelsAreBitwiseReproducible) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const auto A = testing::random_matrix<T>({900, 2500, 8, 0.1, 2, true}, 7);
  for (index_t k : column_counts) {
    const auto X = testing::random_vector<T>(std::size_t(A.cols) * k, 8);
    for (auto algorithm : {SpmmAlgorithm::row_split, SpmmAlgorithm::merge_based}) {
      const auto first = run_gpu(A, X, k, algorithm);
      const auto second = run_gpu(A, X, k, algorithm);
      ASSERT_EQ(0, std::memcmp(first.data(), second.data(), first.size() * sizeof(T)))
          << spmm_algorithm_name(algorithm) << " k " << k;
    }
  }
}

// merge_based SpMV (k = 1) works in tiles of a whole block: two dense rows of
// 150000 entries span over a hundred tiles each, two of 700000 over 680 (runs
// of carries that go on past their chunk of 32 tiles for several rounds, one
// starting inside a chunk), and power-law rows end anywhere in a tile and in a
// thread's part of it. The same bits come back on a second run.
TYPED_TEST(SpmmGpu, MergeBasedSpmvSumsRowsAcrossTilesReproducibly) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const RandomMatrixShape vector_shapes[] = {{400, 150000, 5, 0.1, 2, false},
                                             {100, 700000, 3, 0.0, 2, false},
                                             {20000, 20000, 8, 0.05, 0, true}};
  std::uint64_t seed = 300;
  for (const auto& shape : vector_shapes) {
    const auto A = testing::random_matrix<T>(shape, seed++);
    const auto x = testing::random_vector<T>(A.cols, seed++);
    const auto first = run_gpu(A, x, 1, SpmmAlgorithm::merge_based);
    expect_close_to_cpu(A, x, 1, first);
    const auto second = run_gpu(A, x, 1, SpmmAlgorithm::merge_based);
    ASSERT_EQ(0, std::memcmp(first.data(), second.data(), first.size() * sizeof(T)));
  }
}

// Blocks that start one element past an allocation (views into a larger array)
// are not aligned for the vector loads of two columns: the kernels must take
// them one column at a time, with the same result.
TYPED_TEST(SpmmGpu, BlocksOffByOneElementMatchCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const auto A = testing::random_matrix<T>({3000, 2500, 7, 0.0, 0, false}, 41);
  for (index_t k : {2, 8, 32, 64}) {
    const auto X = testing::random_vector<T>(std::size_t(A.cols) * k, 42);
    expect_close_to_cpu(A, X, k, run_row_split_off_alignment(A, X, k));
  }
}

// staged_kernel (spmv/block_row_split.cuh) takes matrices with rows enough
// to fill the GPU unsplit. Rows of about 9: at k = 2 a block's 256 rows staged
// over two passes, at k = 4 each warp staging its own 16 rows, and in double
// at k = 16 and 32 its own 8 and 4 rows with more blocks per SM (k = 8, and
// float from k = 8 on, take the shuffle kernels). Rows of about 31: at k = 8 two nonzeros' gathers in flight (a warp's 8 rows in
// tiles of 256, so many warps take two passes), and at k = 16, 32 and 64 four
// or eight columns per lane (at k = 32 and 64 a warp's 4 rows in tiles of
// 128, many in two passes). With column pairs, with scalar columns (blocks
// one element off the vector alignment) and with column dots
// (staged_sums_kernel) they give the bits of one fma per nonzero in row
// order, as the shuffle kernels do.
TYPED_TEST(SpmmGpu, StagedRowsAddEachRowInOrderLikeTheShuffleKernels) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const auto short_rows = testing::random_matrix<T>({270000, 270000, 10, 0.1, 0, false}, 60);
  const auto long_rows = testing::random_matrix<T>({66000, 66000, 31, 0.0, 0, false}, 61);
  const std::pair<const CsrMatrix<T>*, index_t> cases[] = {
      {&short_rows, 2}, {&short_rows, 4},  {&short_rows, 8}, {&short_rows, 16},
      {&short_rows, 32}, {&long_rows, 8},  {&long_rows, 16}, {&long_rows, 32},
      {&long_rows, 64}};
  std::uint64_t seed = 62;
  for (const auto& [A, k] : cases) {
    const DeviceCsr<T> dA = to_device(*A);
    const auto X = testing::random_vector<T>(std::size_t(A->cols) * k, seed++);
    const auto expected = fma_in_row_order(*A, X, k);
    const std::size_t bytes = expected.size() * sizeof(T);
    const auto paired = run_gpu(*A, X, k, SpmmAlgorithm::row_split);
    ASSERT_EQ(0, std::memcmp(expected.data(), paired.data(), bytes)) << A->rows << " k " << k;
    const auto scalar = run_row_split_off_alignment(*A, X, k);
    ASSERT_EQ(0, std::memcmp(expected.data(), scalar.data(), bytes)) << A->rows << " k " << k;
    const DeviceBuffer<T> dX = to_device(X);
    DeviceBuffer<T> dY(expected.size()), dots(k);
    DeviceBuffer<T> partials(block_reduction_scratch_size(A->rows, k));
    spmm_with_column_dots(dA, dX.data(), k, dY.data(), dots.data(), partials);
    const auto with_dots = to_host(dY);
    ASSERT_EQ(0, std::memcmp(expected.data(), with_dots.data(), bytes)) << A->rows << " k " << k;
  }
}

// A·x as the k = 1 row kernels form it, on the host: lane l of a row's G lanes
// adds the products of entries l, l + G, ... in order, each product rounded on
// its own, and the lanes' partials meet in the shuffle-down tree
// (partial[i] += partial[i + offset], offset = G/2, ..., 1).
template <typename T>
std::vector<T> lane_group_products(const CsrMatrix<T>& A, const std::vector<T>& x, int G) {
  std::vector<T> y(A.rows);
  for (index_t row = 0; row < A.rows; ++row) {
    std::vector<T> partial(G, T(0));
    for (index_t e = A.row_ptr[row]; e < A.row_ptr[row + 1]; ++e) {
      const T product = A.values[e] * x[A.col_idx[e]];
      T& sum = partial[(e - A.row_ptr[row]) % G];
      sum = sum + product;
    }
    for (int offset = G / 2; offset > 0; offset /= 2)
      for (int i = 0; i < offset; ++i) partial[i] = partial[i] + partial[i + offset];
    y[row] = partial[0];
  }
  return y;
}

// Rows of 9-64 entries on average: two lanes a row staged through shared
// memory, four and eight lanes straight from memory (group_rows_kernel). Both
// give each row in the lane-group order above, bit for bit, in the SpMV and the
// residual.
TYPED_TEST(SpmmGpu, LaneGroupRowsAddInTheStagedOrder) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const std::pair<double, int> shapes[] = {{12, 2}, {24, 4}, {48, 8}, {60, 8}};
  std::uint64_t seed = 70;
  for (const auto& [mean, lanes] : shapes) {
    const auto A = testing::random_matrix<T>({20011, 20011, mean, 0.05, 0, false}, seed++);
    ASSERT_EQ(row_stream::lanes_per_row(A.rows, A.nnz()), lanes) << "mean " << mean;
    const auto x = testing::random_vector<T>(A.cols, seed++);
    const auto b = testing::random_vector<T>(A.rows, seed++);
    const std::vector<T> expected = lane_group_products(A, x, lanes);
    std::vector<T> expected_residual(A.rows);
    for (index_t i = 0; i < A.rows; ++i) expected_residual[i] = b[i] - expected[i];
    const DeviceCsr<T> dA = to_device(A);
    const DeviceBuffer<T> dx = to_device(x), db = to_device(b);
    DeviceBuffer<T> y(A.rows), r(A.rows);
    spmv(dA, dx.data(), y.data());
    residual(dA, dx.data(), db.data(), r.data());
    EXPECT_EQ(to_host(y), expected) << "mean " << mean;
    EXPECT_EQ(to_host(r), expected_residual) << "mean " << mean;
  }
}

TYPED_TEST(SpmmGpu, SpmvAndResidualMatchCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const auto A = testing::random_matrix<T>({1000, 1000, 7, 0.05, 1, true}, 9);
  const auto x = testing::random_vector<T>(A.cols, 10);
  const auto b = testing::random_vector<T>(A.rows, 11);
  const DeviceCsr<T> dA = to_device(A);
  const DeviceBuffer<T> dx = to_device(x), db = to_device(b);
  DeviceBuffer<T> dy(A.rows), dr(A.rows);
  spmv(dA, dx.data(), dy.data());
  residual(dA, dx.data(), db.data(), dr.data());
  const auto y = to_host(dy), r = to_host(dr);
  expect_close_to_cpu(A, x, 1, y);
  std::vector<T> cpu_r;
  residual(A, x, b, cpu_r);
  const double eps = std::numeric_limits<T>::epsilon();
  for (index_t row = 0; row < A.rows; ++row) {
    // Same bound as spmm plus one rounding of the subtraction.
    double magnitude = std::abs(double(b[row]));
    for (index_t e = A.row_ptr[row]; e < A.row_ptr[row + 1]; ++e)
      magnitude += std::abs(double(A.values[e]) * double(x[A.col_idx[e]]));
    ASSERT_LE(std::abs(double(r[row]) - double(cpu_r[row])),
              2.0 * (A.row_length(row) + 1) * eps * magnitude)
        << "row " << row;
  }
}

// The longest row: counted on the host by to_device and on the GPU by
// max_row_length, and the same either way.
TYPED_TEST(SpmmGpu, LongestRowIsKnownAfterUploadAndCountedOnTheGpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  std::uint64_t seed = 200;
  for (const auto& shape : shapes) {
    const auto A = testing::random_matrix<T>(shape, seed++);
    index_t longest = 0;
    for (index_t row = 0; row < A.rows; ++row) longest = std::max(longest, A.row_length(row));
    const DeviceCsr<T> dA = to_device(A);
    EXPECT_EQ(dA.max_row_length, longest);
    EXPECT_EQ(max_row_length(dA), longest);
  }
}

// automatic: merge_based for rows far past the mean (3 hub rows of 30000 among
// rows of about 6), row_split for even rows (a 27-point stencil's) and where
// the longest row is not known.
TEST(SpmmHeuristic, HubRowsTakeMergeBasedEvenRowsAndUnknownOnesRowSplit) {
  const index_t rows = 30000, hub_nnz = 3 * 30000 + 6 * (rows - 3);
  for (index_t k : {1, 8, 32, 64}) {
    EXPECT_EQ(spmm_algorithm_for(rows, hub_nnz, 30000, k), SpmmAlgorithm::merge_based) << k;
    EXPECT_EQ(spmm_algorithm_for(rows, hub_nnz, -1, k), SpmmAlgorithm::row_split) << k;
    EXPECT_EQ(spmm_algorithm_for(rows, 27 * rows, 27, k), SpmmAlgorithm::row_split) << k;
  }
}

TYPED_TEST(SpmmGpu, RejectsNonPositiveColumnCount) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const DeviceCsr<T> dA = to_device(testing::random_matrix<T>({10, 10, 3, 0, 0, false}, 12));
  DeviceBuffer<T> X(10), Y(10);
  EXPECT_THROW(spmm(dA, X.data(), 0, Y.data()), InvalidInput);
  EXPECT_THROW(spmm(dA, static_cast<const T*>(nullptr), 1, Y.data()), InvalidInput);
}

// The vector CG's q = A p with pᵀq in one pass (spmv/row_stream.cuh's fused
// sums), on every shape of the vector kernels, from the index array and from
// packed columns: y has the bits of the row-split SpMV, the dot is the CPU's
// to rounding and repeats bitwise. Shapes: a 2D stencil and rows of about 6
// with empty ones (a lane a row), rows of about 30 and 60 (4 and 8 lanes a
// row), rows of about 100 (a warp a row, unstaged) and a 30000-entry row
// among short ones (a block for it).
TYPED_TEST(SpmmGpu, VectorSpmvWithDotIsTheSpmvAndItsDot) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  std::vector<CsrMatrix<T>> matrices;
  matrices.push_back(poisson<T>(Stencil::poisson2d_5, 300));
  const RandomMatrixShape square_shapes[] = {{20000, 20000, 6, 0.2, 0, false},
                                             {8000, 8000, 30, 0.0, 0, false},
                                             {5000, 5000, 60, 0.0, 0, false},
                                             {4000, 4000, 100, 0.0, 0, false},
                                             {30000, 30000, 6, 0.0, 1, false}};
  std::uint64_t seed = 500;
  for (const auto& shape : square_shapes)
    matrices.push_back(testing::random_matrix<T>(shape, seed++));
  for (const CsrMatrix<T>& A : matrices) {
    const std::vector<T> x = testing::random_vector<T>(A.cols, seed++);
    const DeviceBuffer<T> dx = to_device(x);
    for (int packed = 0; packed < 2; ++packed) {
      DeviceCsr<T> dA = to_device(A);
      if (packed) {
        prepare_for_row_kernels(dA, nullptr, 0);
        ASSERT_TRUE(dA.packed.describe(dA.col_idx)) << A.rows;
      }
      const std::string what = std::to_string(A.rows) + (packed ? " rows, packed" : " rows");
      DeviceBuffer<T> expected(A.rows), y(A.rows), pq(1), again(1);
      DeviceBuffer<T> partials(column_dots_scratch_size(dA, 1));
      spmm(dA, dx.data(), 1, expected.data(), SpmmAlgorithm::row_split);
      spmm_with_column_dots(dA, dx.data(), 1, y.data(), pq.data(), partials);
      spmm_with_column_dots(dA, dx.data(), 1, y.data(), again.data(), partials);
      const std::vector<T> host_y = to_host(y);
      EXPECT_EQ(host_y, to_host(expected)) << what;
      EXPECT_EQ(to_host(pq), to_host(again)) << what;
      double magnitude = 0;
      for (index_t i = 0; i < A.rows; ++i) magnitude += std::abs(double(x[i]) * host_y[i]);
      EXPECT_NEAR(double(dot(x, host_y)), double(to_host(pq)[0]),
                  64 * std::numeric_limits<T>::epsilon() * magnitude)
          << what;
      DeviceBuffer<T> small(column_dots_scratch_size(dA, 1) - 1);
      EXPECT_THROW(spmm_with_column_dots(dA, dx.data(), 1, y.data(), pq.data(), small),
                   InvalidInput)
          << what;
    }
  }
}

}  // namespace
}  // namespace binamg
