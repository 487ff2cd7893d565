// Multi-RHS on the GPU against the CPU block operations on the same inputs: block
// residual, smoother and fused cycle steps to rounding, column dots, the block
// V-cycle, the reductions fused into the SpMM, the smoother and the cycle, the
// block CG's passes, and the block CG (per-column iterations within ±1,
// solutions close).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/smoothers/chebyshev.hpp"
#include "binamg/smoothers/jacobi.hpp"
#include "binamg/solvers/pcg.hpp"
#include "binamg/solvers/vcycle.hpp"
#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmv.hpp"
#include "binamg/vector/block_vector_ops.hpp"
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
// The fused reductions also serve the vector CG (k = 1, spmv/row_stream.cuh).
const index_t with_vector[] = {1, 3, 8, 32, 70};

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

// Device column dots against the CPU's: sums of n products in another order, so
// within n·ε·Σ|x y| of each other (compared in absolute terms, scaled by Σ|x y|).
template <typename T>
void expect_column_dots_near(const std::vector<T>& X, const std::vector<T>& Y, index_t k,
                             const std::vector<T>& actual, const std::string& what) {
  const std::vector<T> expected = column_dots(X, Y, k);
  ASSERT_EQ(actual.size(), std::size_t(k)) << what;
  const std::size_t n = X.size() / k;
  for (index_t j = 0; j < k; ++j) {
    double magnitude = 0;
    for (std::size_t i = 0; i < n; ++i) magnitude += std::abs(double(X[i * k + j]) * Y[i * k + j]);
    EXPECT_NEAR(double(expected[j]), double(actual[j]),
                64 * std::numeric_limits<T>::epsilon() * magnitude)
        << what << ", column " << j;
  }
}

TYPED_TEST(BlockSolveGpu, ColumnDotsMatchTheCpuAndRepeatBitwise) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  for (index_t k : block_sizes) {
    const index_t n = 100003;  // several reduction blocks and a ragged end
    const std::vector<T> X = testing::random_vector<T>(std::size_t(n) * k, 31);
    const std::vector<T> Y = testing::random_vector<T>(std::size_t(n) * k, 32);
    const DeviceBuffer<T> device_X = to_device(X), device_Y = to_device(Y);
    DeviceBuffer<T> scratch(block_reduction_scratch_size(n, k)), result(k), again(k);
    column_dots(device_X, device_Y, k, result.data(), scratch);
    column_dots(device_X, device_Y, k, again.data(), scratch);
    EXPECT_EQ(to_host(result), to_host(again)) << "k = " << k;
    expect_column_dots_near(X, Y, k, to_host(result), "k = " + std::to_string(k));
  }
}

// The dots fused into the SpMM's epilogue: Y has the bits of the row-split SpMM,
// the dots those of the CPU to rounding, and they repeat bitwise. k = 1 is the
// vector CG's q = A p with pᵀq (spmv/row_stream.cuh): this matrix's rows of
// about 9 take lane pairs, its two dense rows a block each.
TYPED_TEST(BlockSolveGpu, SpmmWithColumnDotsIsTheSpmmAndItsDots) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  testing::RandomMatrixShape shape;
  shape.rows = shape.cols = 20011;  // several row blocks, a ragged last one
  shape.mean_row_length = 9;
  shape.empty_row_fraction = 0.1;
  shape.dense_rows = 2;
  const CsrMatrix<T> A = testing::random_matrix<T>(shape, 51);
  const DeviceCsr<T> device_A = to_device(A);
  for (index_t k : with_vector) {
    const std::string what = "k = " + std::to_string(k);
    const std::vector<T> X = testing::random_vector<T>(std::size_t(A.rows) * k, 52);
    const DeviceBuffer<T> device_X = to_device(X);
    DeviceBuffer<T> expected_Y(X.size()), Y(X.size()), dots(k), again(k);
    DeviceBuffer<T> partials(column_dots_scratch_size(device_A, k));
    spmm(device_A, device_X.data(), k, expected_Y.data(), SpmmAlgorithm::row_split);
    spmm_with_column_dots(device_A, device_X.data(), k, Y.data(), dots.data(), partials);
    spmm_with_column_dots(device_A, device_X.data(), k, Y.data(), again.data(), partials);
    const std::vector<T> host_Y = to_host(Y);
    EXPECT_EQ(host_Y, to_host(expected_Y)) << what;
    EXPECT_EQ(to_host(dots), to_host(again)) << what;
    expect_column_dots_near(X, host_Y, k, to_host(dots), what);
  }
  shape.cols = shape.rows + 1;
  const DeviceCsr<T> wide = to_device(testing::random_matrix<T>(shape, 53));
  DeviceBuffer<T> X(std::size_t(wide.cols) * 4), Y(std::size_t(wide.rows) * 4), dots(4);
  DeviceBuffer<T> partials(block_reduction_scratch_size(wide.rows, 4));
  EXPECT_THROW(spmm_with_column_dots(wide, X.data(), 4, Y.data(), dots.data(), partials),
               InvalidInput);
  DeviceBuffer<T> small(1);
  EXPECT_THROW(spmm_with_column_dots(device_A, Y.data(), 4, X.data(), dots.data(), small),
               InvalidInput);
}

// The last Jacobi sweep with bᵀx fused: x has the bits of jacobi(), the dots
// those of the CPU's column dots of b and x to rounding.
TYPED_TEST(BlockSolveGpu, JacobiWithColumnDotsIsJacobiAndItsDots) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson3d_27, 9);
  const DeviceCsr<T> device_A = to_device(A);
  const DeviceBuffer<T> device_inverse = to_device(inverse_diagonal(A));
  for (index_t k : with_vector) {
    const std::string what = "k = " + std::to_string(k);
    const std::size_t entries = std::size_t(A.rows) * k;
    const std::vector<T> B = testing::random_vector<T>(entries, 61);
    const std::vector<T> X0 = testing::random_vector<T>(entries, 62);
    const DeviceBuffer<T> device_B = to_device(B);
    DeviceBuffer<T> expected = to_device(X0), X = to_device(X0), scratch(entries), dots(k);
    DeviceBuffer<T> partials(column_dots_scratch_size(device_A, k));
    jacobi(device_A, device_inverse, T(0.6), device_B, expected, k, 2, scratch);
    jacobi_with_column_dots(device_A, device_inverse, T(0.6), device_B, X, k, 2, scratch,
                            dots.data(), partials);
    const std::vector<T> host_X = to_host(X);
    EXPECT_EQ(host_X, to_host(expected)) << what;
    expect_column_dots_near(B, host_X, k, to_host(dots), what);
  }
}

// The last Chebyshev step with bᵀx fused, from a guess and from zero (degree 1
// from zero has no product with A: its dots are a pass of their own): x has
// the bits of chebyshev(), the dots those of the CPU to rounding, and they
// repeat bitwise.
TYPED_TEST(BlockSolveGpu, ChebyshevWithColumnDotsIsChebyshevAndItsDots) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson3d_27, 9);
  const DeviceCsr<T> device_A = to_device(A);
  const DeviceBuffer<T> device_inverse = to_device(inverse_diagonal(A));
  for (int degree : {1, 3})
    for (bool zero_guess : {false, true})
      for (index_t k : with_vector) {
        const std::string what = "k = " + std::to_string(k) + ", degree " + std::to_string(degree) +
                                 (zero_guess ? ", from zero" : "");
        const ChebyshevSteps steps = chebyshev_steps(1.9, degree, 0.3);
        const std::size_t entries = std::size_t(A.rows) * k;
        const std::vector<T> B = testing::random_vector<T>(entries, 63);
        const std::vector<T> X0 = testing::random_vector<T>(entries, 64);
        const DeviceBuffer<T> device_B = to_device(B);
        DeviceBuffer<T> expected = to_device(X0), X = to_device(X0), scratch(entries),
                        direction(entries), dots(k), again(k);
        DeviceBuffer<T> partials(column_dots_scratch_size(device_A, k));
        chebyshev(device_A, device_inverse, steps, device_B, expected, k, zero_guess, scratch,
                  direction);
        chebyshev_with_column_dots(device_A, device_inverse, steps, device_B, X, k, zero_guess,
                                   scratch, direction, dots.data(), partials);
        const std::vector<T> host_X = to_host(X);
        EXPECT_EQ(host_X, to_host(expected)) << what;
        expect_column_dots_near(B, host_X, k, to_host(dots), what);
        X = to_device(X0);
        chebyshev_with_column_dots(device_A, device_inverse, steps, device_B, X, k, zero_guess,
                                   scratch, direction, again.data(), partials);
        EXPECT_EQ(to_host(dots), to_host(again)) << what;
      }
  DeviceBuffer<T> X(A.rows), scratch(A.rows), direction(A.rows), dots(1), small(1);
  const DeviceBuffer<T> B(A.rows);
  EXPECT_THROW(chebyshev_with_column_dots(device_A, device_inverse, chebyshev_steps(1.9, 2, 0.3), B,
                                          X, 1, false, scratch, direction, dots.data(), small),
               InvalidInput);
}

// The block CG's passes against the same arithmetic on the host: stopped
// columns keep their bits, the others are within an ulp or two (the GPU may
// fuse a multiply-add).
TYPED_TEST(BlockSolveGpu, BlockCgPassesMatchTheHostAndFreezeStoppedColumns) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  constexpr index_t k = 5, n = 30011;
  const std::size_t entries = std::size_t(n) * k;
  const std::vector<int> stepped = {1, 0, 1, 1, 0}, continuing = {1, 0, 0, 1, 0};
  const std::vector<T> rz = {T(2), T(1), T(0.5), T(3), T(1)};
  const std::vector<T> rz_next = {T(1), T(1), T(0.25), T(0.75), T(1)};
  const std::vector<T> pq = {T(4), T(1), T(2), T(1.5), T(1)};
  const std::vector<T> P = testing::random_vector<T>(entries, 71);
  const std::vector<T> Q = testing::random_vector<T>(entries, 72);
  const std::vector<T> R0 = testing::random_vector<T>(entries, 73);
  const std::vector<T> X0 = testing::random_vector<T>(entries, 74);
  const std::vector<T> Z = testing::random_vector<T>(entries, 75);
  auto ratio = [](T a, T b) { return static_cast<T>(double(a) / double(b)); };
  std::vector<T> R = R0, X = X0, next_P = P, X_step = X0;
  for (std::size_t e = 0; e < entries; ++e) {
    const index_t c = index_t(e % k);
    if (!stepped[c]) continue;
    R[e] += -ratio(rz[c], pq[c]) * Q[e];
    X[e] += ratio(rz[c], pq[c]) * P[e];
    X_step[e] = X[e];
    if (continuing[c]) next_P[e] = Z[e] + ratio(rz_next[c], rz[c]) * P[e];
  }
  const DeviceBuffer<int> device_stepped = to_device(stepped);
  const DeviceBuffer<int> device_continuing = to_device(continuing);
  const DeviceBuffer<T> device_rz = to_device(rz), device_rz_next = to_device(rz_next),
                        device_pq = to_device(pq), device_Q = to_device(Q),
                        device_Z = to_device(Z);
  DeviceBuffer<T> device_R = to_device(R0), device_X = to_device(X0), device_P = to_device(P),
                  rr(k), scratch(block_reduction_scratch_size(n, k));
  block_cg_residual_update(device_stepped.data(), device_rz.data(), device_pq.data(), device_Q,
                           device_R, rr.data(), k, scratch);
  block_cg_step_and_direction(device_stepped.data(), device_continuing.data(),
                              device_rz_next.data(), device_rz.data(), device_pq.data(), device_Z,
                              device_P, device_X, k);
  DeviceBuffer<T> device_X_step = to_device(X0);
  const DeviceBuffer<T> original_P = to_device(P);
  block_cg_step(device_stepped.data(), device_rz.data(), device_pq.data(), original_P,
                device_X_step, k);

  const std::vector<T> host_R = to_host(device_R), host_X = to_host(device_X),
                       host_P = to_host(device_P), host_X_step = to_host(device_X_step);
  const double ulps = 4 * std::numeric_limits<T>::epsilon();
  for (std::size_t e = 0; e < entries; ++e) {
    const index_t c = index_t(e % k);
    if (!stepped[c]) {
      ASSERT_EQ(host_R[e], R0[e]) << "stopped column " << c;
      ASSERT_EQ(host_X[e], X0[e]) << "stopped column " << c;
      ASSERT_EQ(host_X_step[e], X0[e]) << "stopped column " << c;
    }
    if (!continuing[c]) ASSERT_EQ(host_P[e], P[e]) << "column " << c << " turned";
    ASSERT_NEAR(host_R[e], R[e], ulps * 4) << "entry " << e;
    ASSERT_NEAR(host_X[e], X[e], ulps * 4) << "entry " << e;
    ASSERT_EQ(host_X_step[e], host_X[e]) << "entry " << e;
    ASSERT_NEAR(host_P[e], next_P[e], ulps * 4) << "entry " << e;
  }
  expect_column_dots_near(host_R, host_R, k, to_host(rr), "rr");
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
    // With bᵀx fused into the last sweep: the same bits, and the dots of them.
    DeviceBuffer<T> fused_X(B.size()), dots(k);
    vcycle_from_zero(gpu, device_B, fused_X, k, device_work, dots.data());
    EXPECT_EQ(to_host(fused_X), to_host(device_X)) << "k = " << k;
    expect_column_dots_near(B, to_host(fused_X), k, to_host(dots), "k = " + std::to_string(k));
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
  // Converged means the true residual met it: float's stalls near 1e-4 here.
  options.tolerance = std::is_same_v<T, float> ? 1e-3 : 1e-8;
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
    EXPECT_LE(actual.columns[j].relative_residual, options.tolerance) << "column " << j;
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
