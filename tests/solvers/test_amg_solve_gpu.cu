// The GPU hierarchy, smoother, V-cycle and PCG against the CPU path on the same
// inputs: identical level shapes, values and results to rounding, equal iteration
// counts (±1).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/smoothers/chebyshev.hpp"
#include "binamg/smoothers/jacobi.hpp"
#include "binamg/solvers/pcg.hpp"
#include "binamg/solvers/vcycle.hpp"
#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmv.hpp"
#include "binamg/vector/block_vector_ops.hpp"
#include "binamg/vector/vector_ops.hpp"
#include "support/anisotropic_poisson.hpp"
#include "support/gpu.hpp"
#include "support/matrix_of_rows.hpp"
#include "support/neumann_laplacian.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class AmgGpuSolve : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(AmgGpuSolve, Precisions);

// Relative tolerance of a GPU value against its CPU twin, per level of the
// hierarchy it went through. The two paths run the same arithmetic except for
// summation order (norms in the ρ estimate, sums inside SpGEMM/SpMV rows), each
// worth a few ulps; a Galerkin entry sums up to ~100 products and the error of
// each level feeds the next, so 200·ε per level bounds it with margin.
template <typename T>
double level_tolerance(index_t levels) {
  return 200.0 * std::numeric_limits<T>::epsilon() * levels;
}

template <typename T>
double max_abs(const std::vector<T>& v) {
  double m = 0;
  for (T x : v) m = std::max(m, std::abs(double(x)));
  return m;
}

// max |a − b| / max |a|.
template <typename T>
double relative_difference(const std::vector<T>& expected, const std::vector<T>& actual) {
  EXPECT_EQ(expected.size(), actual.size());
  double m = 0;
  for (std::size_t i = 0; i < std::min(expected.size(), actual.size()); ++i)
    m = std::max(m, std::abs(double(expected[i]) - double(actual[i])));
  const double scale = max_abs(expected);
  return scale > 0 ? m / scale : m;
}

// PCG on the GPU against the CPU on A, b = poisson_rhs: both converge in the
// true residual, within an iteration of each other, to solutions within
// tolerance·κ of the exact one (compared loosely).
template <typename T>
void expect_pcg_as_the_cpu(const CsrMatrix<T>& A, const SolveOptions& options) {
  const std::vector<T> b = poisson_rhs<T>(A.rows);
  std::vector<T> x(A.rows, T(0));
  const SolveResult expected = pcg(build_hierarchy(A), b, x, options);
  const DeviceHierarchy<T> gpu = build_hierarchy(to_device(A));
  DeviceBuffer<T> device_x = to_device(std::vector<T>(A.rows, T(0)));
  const SolveResult actual = pcg(gpu, to_device(b), device_x, options);
  EXPECT_TRUE(expected.converged);
  EXPECT_TRUE(actual.converged);
  EXPECT_LE(std::abs(expected.iterations - actual.iterations), 1);
  EXPECT_LE(actual.relative_residual, options.tolerance);  // true residual, recomputed
  EXPECT_LE(relative_difference(x, to_host(device_x)), 1e4 * options.tolerance);
}

template <typename T>
std::vector<CsrMatrix<T>> poisson_problems() {
  return {poisson<T>(Stencil::poisson2d_5, 64), poisson<T>(Stencil::poisson3d_7, 16)};
}

TYPED_TEST(AmgGpuSolve, HierarchyLevelsMatchTheCpuHierarchy) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  for (const CsrMatrix<T>& A : poisson_problems<T>()) {
    const Hierarchy<T> cpu = build_hierarchy(A);
    const DeviceHierarchy<T> gpu = build_hierarchy(to_device(A));
    ASSERT_EQ(cpu.num_levels(), gpu.num_levels());
    ASSERT_GE(cpu.num_levels(), 2);
    const double tolerance = level_tolerance<T>(cpu.num_levels());
    for (index_t l = 0; l < cpu.num_levels(); ++l) {
      const CsrMatrix<T> actual = to_host(gpu.matrix(l));
      const CsrMatrix<T>& expected = cpu.matrix(l);
      EXPECT_EQ(expected.rows, actual.rows) << "level " << l;
      EXPECT_EQ(expected.nnz(), actual.nnz()) << "level " << l;
      EXPECT_EQ(expected.row_ptr, actual.row_ptr) << "level " << l;
      EXPECT_EQ(expected.col_idx, actual.col_idx) << "level " << l;
      EXPECT_LE(relative_difference(expected.values, actual.values), tolerance) << "level " << l;
    }
    for (std::size_t l = 0; l < cpu.levels.size(); ++l) {
      const CsrMatrix<T> P = to_host(gpu.levels[l].P);
      EXPECT_EQ(cpu.levels[l].P.col_idx, P.col_idx) << "level " << l;
      EXPECT_LE(relative_difference(cpu.levels[l].P.values, P.values), tolerance);
      EXPECT_NEAR(cpu.levels[l].spectral_radius, gpu.levels[l].spectral_radius,
                  tolerance * cpu.levels[l].spectral_radius);
    }
  }
}

TYPED_TEST(AmgGpuSolve, StandardAggregationHierarchyMatchesTheCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  AmgParameters parameters;
  parameters.aggregation = AggregationMethod::standard;  // aggregated on the host, ids uploaded
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_9, 50);
  const Hierarchy<T> cpu = build_hierarchy(A, parameters);
  const DeviceHierarchy<T> gpu = build_hierarchy(to_device(A), parameters);
  ASSERT_EQ(cpu.num_levels(), gpu.num_levels());
  for (index_t l = 0; l < cpu.num_levels(); ++l) {
    const CsrMatrix<T> actual = to_host(gpu.matrix(l));
    EXPECT_EQ(cpu.matrix(l).col_idx, actual.col_idx) << "level " << l;
    EXPECT_LE(relative_difference(cpu.matrix(l).values, actual.values),
              level_tolerance<T>(cpu.num_levels()))
        << "level " << l;
  }
}

// A positive threshold with a decay per level and the filtered matrix in the
// prolongator, on a matrix with weak entries on every level; one filtered
// Jacobi step and two.
TYPED_TEST(AmgGpuSolve, FilteredHierarchyMatchesTheCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> A = testing::anisotropic_poisson<T>(60, T(0.01));
  AmgParameters parameters;
  parameters.strength_threshold = 0.08;
  parameters.strength_decay = 0.5;
  parameters.max_coarse_rows = 50;
  for (int steps : {1, 2}) {
    SCOPED_TRACE(std::to_string(steps) + " filtered steps");
    parameters.filtered_prolongator_steps = steps;
    const Hierarchy<T> cpu = build_hierarchy(A, parameters);
    const DeviceHierarchy<T> gpu = build_hierarchy(to_device(A), parameters);
    ASSERT_EQ(cpu.num_levels(), gpu.num_levels());
    ASSERT_GE(cpu.num_levels(), 3);
    const double tolerance = level_tolerance<T>(cpu.num_levels());
    for (std::size_t l = 0; l < cpu.levels.size(); ++l) {
      const CsrMatrix<T> P = to_host(gpu.levels[l].P);
      EXPECT_EQ(cpu.levels[l].P.row_ptr, P.row_ptr) << "level " << l;
      EXPECT_EQ(cpu.levels[l].P.col_idx, P.col_idx) << "level " << l;
      EXPECT_LE(relative_difference(cpu.levels[l].P.values, P.values), tolerance)
          << "level " << l;
    }
    for (index_t l = 0; l < cpu.num_levels(); ++l) {
      const CsrMatrix<T> actual = to_host(gpu.matrix(l));
      EXPECT_EQ(cpu.matrix(l).col_idx, actual.col_idx) << "level " << l;
      EXPECT_LE(relative_difference(cpu.matrix(l).values, actual.values), tolerance)
          << "level " << l;
    }
  }
}

TYPED_TEST(AmgGpuSolve, JacobiSweepsMatchTheCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson3d_7, 12);
  const std::vector<T> b = testing::random_vector<T>(A.rows, 11);
  std::vector<T> x = testing::random_vector<T>(A.rows, 12), scratch;
  const std::vector<T> inverse = inverse_diagonal(A);
  const DeviceCsr<T> device_A = to_device(A);
  const DeviceBuffer<T> device_inverse = inverse_diagonal(device_A);
  const DeviceBuffer<T> device_b = to_device(b);
  DeviceBuffer<T> device_x = to_device(x), device_scratch(A.rows);
  const T weight = T(0.6);
  jacobi(A, inverse, weight, b, x, 3, scratch);
  jacobi(device_A, device_inverse, weight, device_b, device_x, 3, device_scratch);
  // Three sweeps of 7-term row sums: the CPU and GPU differ only by FMA
  // contraction, a few ulps per sweep.
  EXPECT_LE(relative_difference(x, to_host(device_x)), 20 * std::numeric_limits<T>::epsilon());
}

TYPED_TEST(AmgGpuSolve, ChebyshevMatchesTheCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson3d_7, 12);
  const std::vector<T> inverse = inverse_diagonal(A);
  const DeviceCsr<T> device_A = to_device(A);
  const DeviceBuffer<T> device_inverse = to_device(inverse);
  const ChebyshevSteps steps = chebyshev_steps(1.9, 3, 0.2);
  for (index_t k : {1, 3})
    for (bool zero_guess : {true, false}) {
      const std::vector<T> b = testing::random_vector<T>(std::size_t(A.rows) * k, 13);
      std::vector<T> x = testing::random_vector<T>(b.size(), 14), r, d;
      DeviceBuffer<T> device_x = to_device(x), scratch(b.size()), direction(b.size());
      chebyshev(A, inverse, steps, b, x, k, zero_guess, r, d);
      chebyshev(device_A, device_inverse, steps, to_device(b), device_x, k, zero_guess, scratch,
                direction);
      // Three steps of 7-term row sums: FMA contraction only, a few ulps per step.
      EXPECT_LE(relative_difference(x, to_host(device_x)), 50 * std::numeric_limits<T>::epsilon())
          << "k = " << k << (zero_guess ? ", from zero" : "");
    }
}

TYPED_TEST(AmgGpuSolve, ChebyshevRefusesAWorkspaceWithoutDirections) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  AmgParameters parameters;
  parameters.smoother = SmootherKind::jacobi;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_5, 40);
  DeviceHierarchy<T> h = build_hierarchy(to_device(A), parameters);
  h.parameters.smoother = SmootherKind::chebyshev;  // after the workspace was sized
  DeviceBuffer<T> x = to_device(std::vector<T>(A.rows, T(0)));
  EXPECT_THROW(vcycle(h, to_device(poisson_rhs<T>(A.rows)), x), InvalidInput);
}

TYPED_TEST(AmgGpuSolve, L1DiagonalIsBitwiseTheCpus) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson3d_27, 9);
  EXPECT_EQ(inverse_l1_diagonal(A), to_host(inverse_l1_diagonal(to_device(A))));
  CsrMatrix<T> bad = poisson<T>(Stencil::poisson2d_5, 4);
  for (index_t k = bad.row_ptr[6]; k < bad.row_ptr[7]; ++k)
    if (bad.col_idx[k] == 6) bad.values[k] = T(-4);  // row 6: -4 + 4·|-1| = 0
  try {
    inverse_l1_diagonal(to_device(bad));
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& error) {
    EXPECT_NE(std::string(error.what()).find("row 6:"), std::string::npos) << error.what();
  }
}

TYPED_TEST(AmgGpuSolve, EverySmootherIteratesAsTheCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  SolveOptions options;
  options.tolerance = std::is_same_v<T, float> ? 1e-3 : 1e-8;
  for (SmootherKind kind : {SmootherKind::l1_jacobi, SmootherKind::chebyshev}) {
    AmgParameters parameters;
    parameters.smoother = kind;
    for (const CsrMatrix<T>& A : poisson_problems<T>()) {
      const std::vector<T> b = poisson_rhs<T>(A.rows);
      std::vector<T> x(A.rows, T(0));
      const SolveResult expected = pcg(build_hierarchy(A, parameters), b, x, options);
      const DeviceHierarchy<T> gpu = build_hierarchy(to_device(A), parameters);
      DeviceBuffer<T> device_x = to_device(std::vector<T>(A.rows, T(0)));
      const SolveResult actual = pcg(gpu, to_device(b), device_x, options);
      EXPECT_TRUE(actual.converged) << smoother_name(kind);
      EXPECT_LE(std::abs(expected.iterations - actual.iterations), 1) << smoother_name(kind);
      EXPECT_LE(actual.relative_residual, options.tolerance) << smoother_name(kind);
      // The block CG: its cycle forms bᵀx after the smoother (fused for Jacobi only).
      constexpr index_t k = 2;
      std::vector<T> B(std::size_t(A.rows) * k);
      for (index_t i = 0; i < A.rows; ++i) B[i * k] = B[i * k + 1] = b[i];
      DeviceBuffer<T> device_X = to_device(std::vector<T>(B.size(), T(0)));
      const BlockSolveResult block = pcg(gpu, to_device(B), device_X, k, options);
      for (const SolveResult& column : block.columns) {
        EXPECT_TRUE(column.converged) << smoother_name(kind);
        EXPECT_LE(std::abs(column.iterations - actual.iterations), 1) << smoother_name(kind);
      }
    }
  }
}

// CG's iterations, written out here step by step with the library's kernels
// (each launched on its own), for `iterations` iterations from x = 0.
template <typename T>
std::vector<T> cg_step_by_step(const DeviceHierarchy<T>& h, const std::vector<T>& b,
                               int iterations) {
  const DeviceCsr<T>& A = h.matrix(0);
  const std::size_t n = A.rows;
  EXPECT_EQ(spmm_algorithm_for(A.rows, A.nnz(), A.max_row_length, 1), SpmmAlgorithm::row_split);
  const DeviceBuffer<T> device_b = to_device(b);
  DeviceBuffer<T> x = to_device(std::vector<T>(n, T(0))), r(n), z(n), p(n), q(n);
  DeviceBuffer<T> scratch(std::max(reduction_scratch_size(A.rows), column_dots_scratch_size(A, 1)));
  DeviceBuffer<T> scalars(4);  // pq, rr, rz[0], rz[1]
  T* const pq = scalars.data();
  T* const rr = pq + 1;
  T* const rz[2] = {pq + 2, pq + 3};
  residual(A, x.data(), device_b.data(), r.data());
  vcycle_from_zero(h, r, z, 1, h.workspace, rz[0]);
  BINAMG_CUDA_CHECK(cudaMemcpy(p.data(), z.data(), sizeof(T) * n, cudaMemcpyDeviceToDevice));
  spmm_with_column_dots(A, p.data(), 1, q.data(), pq, scratch);
  cg_residual_update(rz[0], pq, q, r, rr, scratch);
  int slot = 0;
  for (int i = 1; i < iterations; ++i) {
    vcycle_from_zero(h, r, z, 1, h.workspace, rz[1 - slot]);
    cg_direction(rz[1 - slot], rz[slot], pq, z, p, x);
    spmm_with_column_dots(A, p.data(), 1, q.data(), pq, scratch);
    cg_residual_update(rz[1 - slot], pq, q, r, rr, scratch);
    slot = 1 - slot;
  }
  cg_last_step(rz[slot], pq, p, x);
  return to_host(x);
}

// pcg's fused iteration (rᵀz formed by the cycle, x's step deferred into the
// next direction's pass) gives the bits of the same steps written out one by
// one, with every smoother (their buffer swaps move the cycle's storage between
// owners), solve after solve on one hierarchy, and after the hierarchy ran
// another iteration (the mixed CG's, on the float hierarchy).
TYPED_TEST(AmgGpuSolve, PcgGivesTheBitsOfItsStepsLaunchedOneByOne) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  constexpr int iterations = 6;
  const SolveOptions options{std::is_same_v<T, float> ? 1e-7 : 1e-15, iterations};
  for (SmootherKind kind :
       {SmootherKind::jacobi, SmootherKind::l1_jacobi, SmootherKind::chebyshev}) {
    AmgParameters parameters;
    parameters.smoother = kind;
    parameters.max_coarse_rows = 50;
    const CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_5, 48);
    const DeviceHierarchy<T> h = build_hierarchy(to_device(A), parameters);
    ASSERT_GE(h.num_levels(), 3);
    const std::vector<T> b = poisson_rhs<T>(A.rows);
    const std::vector<T> expected = cg_step_by_step(h, b, iterations);
    for (int solve = 0; solve < 3; ++solve) {
      if constexpr (std::is_same_v<T, float>) {
        if (solve == 2) {  // the mixed CG on the same hierarchy between
          const CsrMatrix<double> A_double = poisson<double>(Stencil::poisson2d_5, 48);
          DeviceBuffer<double> x_double = to_device(std::vector<double>(A.rows, 0.0));
          pcg(h, to_device(A_double), to_device(std::vector<double>(A.rows, 1.0)), x_double,
              options);
        }
      }
      DeviceBuffer<T> x = to_device(std::vector<T>(A.rows, T(0)));
      const SolveResult result = pcg(h, to_device(b), x, options);
      EXPECT_EQ(result.iterations, iterations) << smoother_name(kind);
      EXPECT_EQ(to_host(x), expected) << smoother_name(kind) << ", solve " << solve;
    }
  }
}

TYPED_TEST(AmgGpuSolve, ZeroDiagonalIsRejectedWithItsRow) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_5, 8);
  for (index_t k = A.row_ptr[5]; k < A.row_ptr[6]; ++k)
    if (A.col_idx[k] == 5) A.values[k] = T(0);
  try {
    inverse_diagonal(to_device(A));
    FAIL() << "a zero diagonal was accepted";
  } catch (const InvalidInput& error) {
    EXPECT_NE(std::string(error.what()).find("row 5"), std::string::npos) << error.what();
  }
  EXPECT_THROW(build_hierarchy(to_device(A)), InvalidInput);
}

// A diagonal whose reciprocal overflows is named as on the CPU.
TYPED_TEST(AmgGpuSolve, SubnormalDiagonalIsRejectedWithItsRow) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_5, 8);
  for (index_t k = A.row_ptr[5]; k < A.row_ptr[6]; ++k)
    if (A.col_idx[k] == 5) A.values[k] = std::numeric_limits<T>::denorm_min();
  try {
    build_hierarchy(to_device(A));
    FAIL() << "a subnormal diagonal was accepted";
  } catch (const InvalidInput& error) {
    EXPECT_NE(std::string(error.what()).find("row 5 has the diagonal entry"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("reciprocal overflows"), std::string::npos)
        << error.what();
  }
}

// The setup loop is shared: the GPU's warnings are the CPU's, word for word.
TYPED_TEST(AmgGpuSolve, SetupWarningsAreTheCpus) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson3d_7, 12);
  AmgParameters stalled;
  stalled.strength_measure = StrengthMeasure::symmetric;
  stalled.strength_threshold = 0.5;
  stalled.max_direct_rows = 4000;
  AmgParameters shallow;
  shallow.max_levels = 2;
  shallow.max_coarse_rows = 10;
  for (const AmgParameters& parameters : {stalled, shallow}) {
    const auto cpu = build_hierarchy(A, parameters).warnings;
    EXPECT_EQ(cpu.size(), 1u);
    EXPECT_EQ(build_hierarchy(to_device(A), parameters).warnings, cpu);
  }
}

// A singular coarsest matrix gets its pseudo-inverse on the GPU too: a
// consistent b (entries summing to 0) solves, as on the CPU.
TYPED_TEST(AmgGpuSolve, SingularSystemWithConsistentRightHandSideSolves) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> A = testing::neumann_laplacian<T>(30);  // 900 rows
  AmgParameters direct;
  direct.max_levels = 1;
  std::vector<T> b(A.rows);
  for (index_t i = 0; i < A.rows; ++i) b[i] = T(i % 2 == 0 ? 1 : -1);
  const SolveOptions options{std::is_same_v<T, float> ? 1e-4 : 1e-10, 50};
  for (const AmgParameters& parameters : {direct, AmgParameters{}}) {
    const Hierarchy<T> cpu = build_hierarchy(A, parameters);
    const DeviceHierarchy<T> gpu = build_hierarchy(to_device(A), parameters);
    EXPECT_EQ(gpu.coarse.nullity(), cpu.coarse.nullity());
    EXPECT_EQ(gpu.warnings, cpu.warnings);
    std::vector<T> x(A.rows, T(0));
    const SolveResult expected = pcg(cpu, b, x, options);
    DeviceBuffer<T> device_x = to_device(std::vector<T>(A.rows, T(0)));
    const SolveResult actual = pcg(gpu, to_device(b), device_x, options);
    EXPECT_TRUE(expected.converged);
    EXPECT_TRUE(actual.converged);
    EXPECT_LE(std::abs(expected.iterations - actual.iterations), 1);
  }
  EXPECT_EQ(build_hierarchy(to_device(A), direct).coarse.nullity(), 1);
}

// b far from unit scale solves bit for bit as at unit scale (x scaled by the
// same power of two), for the vector pcg, the block pcg and vcycle_solve.
TYPED_TEST(AmgGpuSolve, RightHandSideFarFromUnitScaleSolvesBitwiseAsAtUnitScale) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_5, 40);
  const DeviceHierarchy<T> h = build_hierarchy(to_device(A));
  const std::vector<T> b = poisson_rhs<T>(A.rows);
  const SolveOptions options{std::is_same_v<T, float> ? 1e-4 : 1e-9, 200};
  auto zeros = [&](std::size_t count) { return to_device(std::vector<T>(count, T(0))); };
  DeviceBuffer<T> x = zeros(A.rows), x_cycles = zeros(A.rows);
  const SolveResult reference = pcg(h, to_device(b), x, options);
  const SolveResult cycles_reference = vcycle_solve(h, to_device(b), x_cycles, options);
  ASSERT_TRUE(reference.converged && cycles_reference.converged);
  const std::vector<T> host_x = to_host(x), host_x_cycles = to_host(x_cycles);
  const int exponent = std::is_same_v<T, float> ? 80 : 700;
  for (const int e : {-exponent, exponent}) {
    const std::vector<T> scaled_b = scaled_copy(b, 1, {e});
    DeviceBuffer<T> scaled_x = zeros(A.rows);
    const SolveResult result = pcg(h, to_device(scaled_b), scaled_x, options);
    EXPECT_TRUE(result.converged) << e;
    EXPECT_EQ(result.residual_history, reference.residual_history) << e;
    EXPECT_EQ(to_host(scaled_x), scaled_copy(host_x, 1, {e})) << e;
    DeviceBuffer<T> scaled_x_cycles = zeros(A.rows);
    const SolveResult cycles = vcycle_solve(h, to_device(scaled_b), scaled_x_cycles, options);
    EXPECT_EQ(cycles.residual_history, cycles_reference.residual_history) << e;
    EXPECT_EQ(to_host(scaled_x_cycles), scaled_copy(host_x_cycles, 1, {e})) << e;

    // Two columns, one scaled: each column's history is the block's unscaled one.
    std::vector<T> B(2 * std::size_t(A.rows));
    for (index_t i = 0; i < A.rows; ++i) {
      B[2 * i] = scaled_b[i];
      B[2 * i + 1] = b[i];
    }
    DeviceBuffer<T> X = zeros(B.size());
    const BlockSolveResult block = pcg(h, to_device(B), X, 2, options);
    EXPECT_TRUE(block.all_converged()) << e;
    EXPECT_EQ(block.columns[0].residual_history, block.columns[1].residual_history) << e;
    const std::vector<T> host_X = to_host(X);
    for (index_t i = 0; i < A.rows; ++i)
      ASSERT_EQ(host_X[2 * i], std::ldexp(host_X[2 * i + 1], e)) << e << " row " << i;
  }
}

TYPED_TEST(AmgGpuSolve, VcycleMatchesTheCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_5, 64);
  const Hierarchy<T> cpu = build_hierarchy(A);
  const DeviceHierarchy<T> gpu = build_hierarchy(to_device(A));
  const std::vector<T> b = testing::random_vector<T>(A.rows, 21);
  std::vector<T> x = testing::random_vector<T>(A.rows, 22);
  DeviceBuffer<T> device_x = to_device(x);
  vcycle(cpu, b, x);
  vcycle(gpu, to_device(b), device_x);
  // The cycle applies every level's operators once more: the hierarchy's
  // tolerance, twice (smoothing and transfer).
  EXPECT_LE(relative_difference(x, to_host(device_x)), 2 * level_tolerance<T>(cpu.num_levels()));
}

TYPED_TEST(AmgGpuSolve, PcgIterationsMatchTheCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // Converged means the true residual met the tolerance: float's stalls near
  // 1e-4 on these problems, so 1e-3 leaves a margin.
  SolveOptions options;
  options.tolerance = std::is_same_v<T, float> ? 1e-3 : 1e-8;
  for (const CsrMatrix<T>& A : poisson_problems<T>()) expect_pcg_as_the_cpu(A, options);
}

// A hub row (a node weakly coupled to every other) gives A the merge-based
// SpMV: the vector CG then forms q = A p and pᵀq in two passes instead of the
// row-split pass with the dot fused, and still iterates as the CPU does.
TYPED_TEST(AmgGpuSolve, PcgWithAHubRowMatchesTheCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> grid = poisson<T>(Stencil::poisson2d_5, 32);
  const index_t hub = grid.rows - 1;
  const double weak = 1e-3;
  std::vector<std::vector<std::pair<index_t, double>>> rows(grid.rows);
  for (index_t i = 0; i < grid.rows; ++i) {
    for (index_t e = grid.row_ptr[i]; e < grid.row_ptr[i + 1]; ++e) {
      const index_t j = grid.col_idx[e];
      double value = grid.values[e];
      if (i == hub && j == hub)
        value += weak * (grid.rows - 1);
      else if (i == j)
        value += weak;
      else if (i == hub || j == hub)
        continue;  // the hub's own couplings follow
      rows[i].push_back({j, value});
    }
    if (i != hub) rows[i].push_back({hub, -weak});
  }
  for (index_t j = 0; j < hub; ++j) rows[hub].push_back({j, -weak});
  for (auto& row : rows) std::sort(row.begin(), row.end());
  const CsrMatrix<T> A = testing::matrix_of_rows<T>(rows);
  const DeviceCsr<T> device_A = to_device(A);
  ASSERT_EQ(spmm_algorithm_for(device_A.rows, device_A.nnz(), device_A.max_row_length, 1),
            SpmmAlgorithm::merge_based);
  SolveOptions options;
  options.tolerance = std::is_same_v<T, float> ? 1e-3 : 1e-8;
  expect_pcg_as_the_cpu(A, options);
}

TYPED_TEST(AmgGpuSolve, VcycleSolveIterationsMatchTheCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  SolveOptions options;
  options.tolerance =
      std::is_same_v<T, float> ? 1e-4 : 1e-8;  // float's true residual stalls near 5e-6
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson3d_7, 16);
  const std::vector<T> b = poisson_rhs<T>(A.rows);
  std::vector<T> x(A.rows, T(0));
  const SolveResult expected = vcycle_solve(build_hierarchy(A), b, x, options);
  DeviceBuffer<T> device_x = to_device(std::vector<T>(A.rows, T(0)));
  const SolveResult actual =
      vcycle_solve(build_hierarchy(to_device(A)), to_device(b), device_x, options);
  EXPECT_TRUE(actual.converged);
  EXPECT_LE(std::abs(expected.iterations - actual.iterations), 1);
}

TYPED_TEST(AmgGpuSolve, BadSolveInputsAreRejected) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_5, 30);
  const DeviceHierarchy<T> h = build_hierarchy(to_device(A));
  DeviceBuffer<T> x = to_device(std::vector<T>(A.rows, T(0)));
  EXPECT_THROW(pcg(h, to_device(std::vector<T>(A.rows + 1, T(1))), x), InvalidInput);
  std::vector<T> b(A.rows, T(1));
  b[7] = std::numeric_limits<T>::quiet_NaN();
  try {
    pcg(h, to_device(b), x);
    FAIL() << "a NaN in b was accepted";
  } catch (const InvalidInput& error) {
    EXPECT_NE(std::string(error.what()).find("b[7]"), std::string::npos) << error.what();
  }
  // x's first non-finite entry is named (the smaller index of two), and b's
  // before x's where both hold one.
  std::vector<T> bad_x(A.rows, T(0));
  bad_x[A.rows - 1] = -std::numeric_limits<T>::infinity();
  bad_x[300] = std::numeric_limits<T>::quiet_NaN();
  DeviceBuffer<T> device_bad_x = to_device(bad_x);
  const std::pair<std::vector<T>, std::string> cases[] = {
      {std::vector<T>(A.rows, T(1)), "pcg: x[300] is not finite"}, {b, "pcg: b[7] is not finite"}};
  for (const auto& [rhs, message] : cases) {
    try {
      pcg(h, to_device(rhs), device_bad_x);
      FAIL() << "non-finite input was accepted";
    } catch (const InvalidInput& error) {
      EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what();
    }
  }
}

// The phases are the whole setup: the work outside the levels (the copy of A
// packed and coded, its diagonal, the cycle's scratch) is charged to
// prepare_ms, so that a benchmark reporting their sum reports what a caller
// waits for. Only the glue between the phases' clocks is left out.
TYPED_TEST(AmgGpuSolve, SetupPhasesAddUpToTheWholeSetup) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const DeviceCsr<T> A = to_device(poisson<T>(Stencil::poisson3d_7, 64));
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (int run = 0; run < 2; ++run) {  // the first pays the pool's growth
    const auto start = std::chrono::steady_clock::now();
    const DeviceHierarchy<T> h = build_hierarchy(A);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const double wall =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    EXPECT_GT(h.timings.prepare_ms, 0);
    EXPECT_LE(h.timings.total_ms(), wall);
    EXPECT_GE(h.timings.total_ms(), 0.9 * wall - 0.2) << "run " << run;
  }
}

TYPED_TEST(AmgGpuSolve, OversizedCoarsestLevelIsRejected) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  AmgParameters parameters;
  parameters.max_levels = 1;  // the 4900-row matrix itself becomes the coarsest level
  EXPECT_THROW(build_hierarchy(to_device(poisson<T>(Stencil::poisson2d_5, 70)), parameters),
               InvalidInput);
}

TYPED_TEST(AmgGpuSolve, NonSquareMatrixIsRejected) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> A = testing::random_matrix<T>({40, 30, 3, 0.0, 0, true}, 3);
  EXPECT_THROW(build_hierarchy(to_device(A)), InvalidInput);
}

TYPED_TEST(AmgGpuSolve, SolvesAreDeterministic) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson3d_7, 14);
  const std::vector<T> b = poisson_rhs<T>(A.rows);
  std::vector<std::vector<T>> solutions;
  for (int run = 0; run < 2; ++run) {
    const DeviceHierarchy<T> h = build_hierarchy(to_device(A));
    DeviceBuffer<T> x = to_device(std::vector<T>(A.rows, T(0)));
    pcg(h, to_device(b), x);
    solutions.push_back(to_host(x));
  }
  EXPECT_EQ(solutions[0], solutions[1]);
}

}  // namespace
}  // namespace binamg
