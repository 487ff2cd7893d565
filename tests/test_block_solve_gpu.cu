// Multi-RHS on the GPU against the CPU block operations on the same inputs: block
// residual, smoother and fused cycle steps to rounding, column dots, the block
// V-cycle, and the block CG (per-column iterations within ±1, solutions close).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "amg/hierarchy.hpp"
#include "problems/poisson.hpp"
#include "smoothers/jacobi.hpp"
#include "solvers/pcg.hpp"
#include "solvers/vcycle.hpp"
#include "sparse/block_vector_ops.hpp"
#include "sparse/spmv.hpp"
#include "support/gpu.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class BlockSolveGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BlockSolveGpu, Precisions);

// max |a − b| / max |a|.
template <typename T>
double relative_difference(const std::vector<T>& expected, const std::vector<T>& actual) {
  EXPECT_EQ(expected.size(), actual.size());
  double difference = 0, scale = 0;
  for (std::size_t i = 0; i < std::min(expected.size(), actual.size()); ++i) {
    difference = std::max(difference, std::abs(double(expected[i]) - double(actual[i])));
    scale = std::max(scale, std::abs(double(expected[i])));
  }
  return scale > 0 ? difference / scale : difference;
}

// One stencil-row operation in T: the GPU sums a row in another order and may
// fuse multiply-adds, a few ulps per term of a 27-term row.
template <typename T>
double row_tolerance() {
  return 64 * std::numeric_limits<T>::epsilon();
}

// k values exercise the kernel shapes: lanes below a warp, one warp, two passes of
// 64 columns with a ragged end.
const index_t block_sizes[] = {3, 8, 32, 70};

TYPED_TEST(BlockSolveGpu, BlockResidualAndJacobiMatchTheCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson3d_27, 9);
  const std::vector<T> inverse = inverse_diagonal(A);
  const DeviceCsr<T> device_A = to_device(A);
  const DeviceBuffer<T> device_inverse = to_device(inverse);
  for (index_t k : block_sizes) {
    const std::size_t entries = std::size_t(A.rows) * k;
    const std::vector<T> B = testing::random_vector<T>(entries, 21);
    const std::vector<T> X0 = testing::random_vector<T>(entries, 22);
    std::vector<T> R, X = X0, Z, scratch;
    residual(A, X0, B, k, R);
    jacobi(A, inverse, T(0.6), B, X, k, 2, scratch);
    jacobi_from_zero(A, inverse, T(0.6), B, Z, k, 2, scratch);

    const DeviceBuffer<T> device_B = to_device(B), device_X0 = to_device(X0);
    DeviceBuffer<T> device_R(entries), device_X = to_device(X0), device_Z(entries),
        device_scratch(entries);
    residual(device_A, device_X0.data(), device_B.data(), k, device_R.data());
    jacobi(device_A, device_inverse, T(0.6), device_B, device_X, k, 2, device_scratch);
    jacobi_from_zero(device_A, device_inverse, T(0.6), device_B, device_Z, k, 2, device_scratch);
    EXPECT_LE(relative_difference(R, to_host(device_R)), row_tolerance<T>()) << "k = " << k;
    EXPECT_LE(relative_difference(X, to_host(device_X)), 2 * row_tolerance<T>()) << "k = " << k;
    EXPECT_LE(relative_difference(Z, to_host(device_Z)), 2 * row_tolerance<T>()) << "k = " << k;
  }
}

TYPED_TEST(BlockSolveGpu, ColumnDotsMatchTheCpuAndRepeatBitwise) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  for (index_t k : block_sizes) {
    const index_t n = 100003;  // several reduction blocks and a ragged end
    const std::vector<T> X = testing::random_vector<T>(std::size_t(n) * k, 31);
    const std::vector<T> Y = testing::random_vector<T>(std::size_t(n) * k, 32);
    const std::vector<T> expected = column_dots(X, Y, k);
    const DeviceBuffer<T> device_X = to_device(X), device_Y = to_device(Y);
    DeviceBuffer<T> scratch(block_reduction_scratch_size(n, k)), result(k), again(k);
    column_dots(device_X, device_Y, k, result.data(), scratch);
    column_dots(device_X, device_Y, k, again.data(), scratch);
    const std::vector<T> actual = to_host(result);
    EXPECT_EQ(actual, to_host(again)) << "k = " << k;
    // Sums of n products of values in [-1, 1]: the error of any summation order is
    // bounded by n·ε·Σ|x y| ≤ n·ε·n; relative to the sum's scale √n that is loose,
    // so compare against n·ε in absolute terms scaled by Σ|x y|.
    for (index_t j = 0; j < k; ++j) {
      double magnitude = 0;
      for (index_t i = 0; i < n; ++i)
        magnitude += std::abs(double(X[std::size_t(i) * k + j]) * Y[std::size_t(i) * k + j]);
      EXPECT_NEAR(double(expected[j]), double(actual[j]),
                  64 * std::numeric_limits<T>::epsilon() * magnitude)
          << "k = " << k << ", column " << j;
    }
  }
}

TYPED_TEST(BlockSolveGpu, BlockVcycleMatchesTheCpuBlockVcycle) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson3d_7, 16);
  const Hierarchy<T> cpu = build_hierarchy(A);
  const DeviceHierarchy<T> gpu = build_hierarchy(to_device(A));
  ASSERT_EQ(cpu.num_levels(), gpu.num_levels());
  for (index_t k : {index_t(4), index_t(32)}) {
    const std::vector<T> B = random_rhs<T>(A.rows, k);
    CycleWorkspace<T> work = cycle_workspace(cpu, k);
    std::vector<T> X;
    vcycle_from_zero(cpu, B, X, k, work);
    DeviceCycleWorkspace<T> device_work = cycle_workspace(gpu, k);
    const DeviceBuffer<T> device_B = to_device(B);
    DeviceBuffer<T> device_X(B.size());
    vcycle_from_zero(gpu, device_B, device_X, k, device_work);
    // The hierarchies agree to 200·ε per level (test_amg_gpu_solve), and a cycle
    // adds a few row sums per level on top.
    EXPECT_LE(relative_difference(X, to_host(device_X)),
              400.0 * std::numeric_limits<T>::epsilon() * cpu.num_levels())
        << "k = " << k;
  }
}

TYPED_TEST(BlockSolveGpu, BlockPcgMatchesTheCpuColumnByColumn) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  constexpr index_t k = 6;
  SolveOptions options;
  options.tolerance = std::is_same_v<T, float> ? 1e-5 : 1e-8;  // above float's floor
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_5, 64);
  std::vector<T> B = random_rhs<T>(A.rows, k);
  for (index_t i = 0; i < A.rows; ++i) B[std::size_t(i) * k + 4] = T(0);  // b = 0 column
  const std::vector<T> X0 = testing::random_vector<T>(B.size(), 41);
  std::vector<T> X = X0;
  const BlockSolveResult expected = pcg(build_hierarchy(A), B, X, k, options);

  const DeviceHierarchy<T> gpu = build_hierarchy(to_device(A));
  const DeviceBuffer<T> device_B = to_device(B);
  DeviceBuffer<T> device_X = to_device(X0);
  const BlockSolveResult actual = pcg(gpu, device_B, device_X, k, options);
  ASSERT_EQ(actual.columns.size(), std::size_t(k));
  for (index_t j = 0; j < k; ++j) {
    EXPECT_TRUE(actual.columns[j].converged) << "column " << j;
    EXPECT_LE(std::abs(expected.columns[j].iterations - actual.columns[j].iterations), 1)
        << "column " << j;
    EXPECT_LE(actual.columns[j].relative_residual, 10 * options.tolerance) << "column " << j;
  }
  EXPECT_EQ(actual.columns[4].iterations, 0);
  // Both solutions are within tolerance·κ of the exact one; compared loosely.
  const std::vector<T> device_solution = to_host(device_X);
  EXPECT_LE(relative_difference(X, device_solution), 1e4 * options.tolerance);
  for (index_t i = 0; i < A.rows; ++i) EXPECT_EQ(device_solution[std::size_t(i) * k + 4], T(0));

  // Deterministic: the same solve again gives the same bits.
  DeviceBuffer<T> again = to_device(X0);
  const BlockSolveResult repeated = pcg(gpu, device_B, again, k, options);
  EXPECT_EQ(to_host(again), device_solution);
  for (index_t j = 0; j < k; ++j)
    EXPECT_EQ(repeated.columns[j].residual_history, actual.columns[j].residual_history);
}

TYPED_TEST(BlockSolveGpu, BadBlockInputsAreRejectedByName) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  constexpr index_t k = 3;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_5, 20);
  const DeviceHierarchy<T> h = build_hierarchy(to_device(A));
  DeviceBuffer<T> X = to_device(std::vector<T>(std::size_t(A.rows) * k, T(0)));
  EXPECT_THROW(pcg(h, to_device(std::vector<T>(A.rows * k + 1, T(1))), X, k), InvalidInput);
  std::vector<T> B(std::size_t(A.rows) * k, T(1));
  B[std::size_t(5) * k + 1] = std::numeric_limits<T>::infinity();
  try {
    pcg(h, to_device(B), X, k);
    FAIL() << "an infinite right-hand side was accepted";
  } catch (const InvalidInput& error) {
    EXPECT_NE(std::string(error.what()).find("b[5, 1] is not finite"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace binamg
