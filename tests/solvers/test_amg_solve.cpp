// The whole method: hierarchy setup, V-cycle convergence, and AMG-preconditioned CG.
#include <gtest/gtest.h>
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "binamg/amg/filtered.hpp"
#include "binamg/amg/hierarchy.hpp"
#include "binamg/amg/prolongation.hpp"
#include "binamg/amg/spectral_radius.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/solvers/pcg.hpp"
#include "binamg/solvers/vcycle.hpp"
#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmv.hpp"
#include "binamg/vector/block_vector_ops.hpp"
#include "binamg/vector/vector_ops.hpp"
#include "support/anisotropic_poisson.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class AmgSolve : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(AmgSolve, Precisions);

AmgParameters with(AggregationMethod method) {
  AmgParameters p;
  p.aggregation = method;
  return p;
}

template <typename T>
double energy_norm(const CsrMatrix<T>& A, const std::vector<T>& x) {
  std::vector<T> Ax;
  spmv(A, x, Ax);
  return std::sqrt(static_cast<double>(dot(x, Ax)));
}

// Asymptotic V(1,1) factor in the A-norm: b = 0, so x is the error; the geometric
// mean of ‖e_k+1‖_A/‖e_k‖_A over cycles 6–15, after the first cycles have removed
// the quickly damped components of the random start.
template <typename T>
double convergence_factor(const Hierarchy<T>& h) {
  const auto& A = h.matrix(0);
  const std::vector<T> b(A.rows, T(0));
  std::vector<T> x = testing::random_vector<T>(A.rows, 42);
  for (int k = 0; k < 5; ++k) vcycle(h, b, x);
  const double start = energy_norm(A, x);
  for (int k = 0; k < 10; ++k) vcycle(h, b, x);
  return std::pow(energy_norm(A, x) / start, 0.1);
}

TYPED_TEST(AmgSolve, VcycleConvergenceFactorOnPoisson2d) {
  using T = TypeParam;
  const auto A = poisson<T>(Stencil::poisson2d_5, 64);
  // Standard aggregation gives the textbook SA factor with V(1,1) Jacobi, at most
  // ~0.5–0.6 (measured 0.50); 0.6 is the upper end of that range.
  const double standard = convergence_factor(build_hierarchy(A, with(AggregationMethod::standard)));
  // MIS-2 aggregates reach distance 2 from their root (diameter up to 4, twice
  // that of standard aggregates), and coarsen faster on the denser coarse levels;
  // measured 0.665 here (0.71 for the two-grid residual factor); 0.75 flags a regression.
  const double mis2 = convergence_factor(build_hierarchy(A, with(AggregationMethod::mis2)));
  std::printf("V(1,1) A-norm factor, 2D 5-pt 64x64: standard %.3f, mis2 %.3f\n", standard, mis2);
  EXPECT_LT(standard, 0.6);
  EXPECT_LT(mis2, 0.75);
}

TYPED_TEST(AmgSolve, VcyclePreconditionerIsSymmetric) {
  using T = TypeParam;
  AmgParameters p;
  p.max_coarse_rows = 20;  // three levels or more, so the recursion is exercised
  const auto h = build_hierarchy(poisson<T>(Stencil::poisson2d_5, 40), p);
  ASSERT_GT(h.num_levels(), 2);
  const auto u = testing::random_vector<T>(h.matrix(0).rows, 1);
  const auto v = testing::random_vector<T>(h.matrix(0).rows, 2);
  std::vector<T> Bu(u.size(), T(0)), Bv(v.size(), T(0));
  vcycle(h, u, Bu);
  vcycle(h, v, Bv);
  // vᵀBu = uᵀBv exactly in exact arithmetic; the difference is rounding of a
  // ~1600-term dot product of O(1) values: 1e-4 relative in float, 1e-11 in double.
  const double vBu = dot(v, Bu), uBv = dot(u, Bv);
  EXPECT_NEAR(vBu, uBv, (std::is_same_v<T, float> ? 1e-4 : 1e-11) * std::abs(vBu));
}

TYPED_TEST(AmgSolve, CycleFromZeroMatchesCycleFromZeroedVector) {
  using T = TypeParam;
  for (int sweeps : {0, 1, 2}) {
    AmgParameters p;
    p.max_coarse_rows = 20;
    p.presweeps = p.postsweeps = sweeps;
    const auto h = build_hierarchy(poisson<T>(Stencil::poisson3d_7, 10), p);
    const auto b = testing::random_vector<T>(h.matrix(0).rows, 8);
    std::vector<T> zeroed(b.size(), T(0)), fresh;
    vcycle(h, b, zeroed);
    vcycle_from_zero(h, b, fresh);
    EXPECT_EQ(zeroed, fresh) << "sweeps " << sweeps;  // bitwise
  }
}

TYPED_TEST(AmgSolve, PcgConvergesInFloatAndDouble) {
  using T = TypeParam;
  const auto A = poisson<T>(Stencil::poisson2d_5, 64);
  const auto h = build_hierarchy(A);
  const auto b = poisson_rhs<T>(A.rows);
  std::vector<T> x(A.rows, T(0));
  // Converged means the true residual met the tolerance. float carries ~7
  // digits and cond(A) ≈ 1700, so its true residual stalls near 1e-4: 1e-3
  // leaves a margin.
  const double tolerance = std::is_same_v<T, float> ? 1e-3 : 1e-10;
  const auto result = pcg(h, b, x, {tolerance, 100});
  EXPECT_TRUE(result.converged);
  EXPECT_FALSE(result.stalled);
  EXPECT_EQ(result.residual_history.size(), static_cast<std::size_t>(result.iterations) + 1);
  EXPECT_DOUBLE_EQ(result.residual_history[0], 1.0);  // x0 = 0
  EXPECT_LE(result.relative_residual, tolerance);
}

TYPED_TEST(AmgSolve, ToleranceBelowWhatThePrecisionAttainsIsNotConverged) {
  // The iteration's own residual reaches the tolerance (or the precision's
  // rounding), but the true residual stays above it: not converged, stalled,
  // and no breakdown even at a tolerance of 1e-300.
  using T = TypeParam;
  const auto A = poisson<T>(Stencil::poisson2d_5, 64);
  const auto h = build_hierarchy(A);
  const auto b = poisson_rhs<T>(A.rows);
  const double attainable = std::is_same_v<T, float> ? 1e-3 : 1e-10;  // well above the stall
  for (const double tolerance : {std::is_same_v<T, float> ? 1e-8 : 1e-15, 1e-300}) {
    std::vector<T> x(A.rows, T(0));
    const auto result = pcg(h, b, x, {tolerance, 500});
    EXPECT_FALSE(result.converged) << tolerance;
    EXPECT_TRUE(result.stalled) << tolerance;
    EXPECT_LT(result.iterations, 100) << "stopped by the precision, not the limit";
    EXPECT_GT(result.relative_residual, tolerance);
    EXPECT_LT(result.relative_residual, attainable);
  }
}

// b far from unit scale (double: 1e±211, float: 1e±24, where CG's squared norms
// overflow or underflow) is solved as b itself: scaling by a power of two is
// exact, so iterations, residual history and x (times the same power) agree bit
// for bit, for pcg, the block pcg (each column alone) and vcycle_solve.
TYPED_TEST(AmgSolve, RightHandSideFarFromUnitScaleSolvesBitwiseAsAtUnitScale) {
  using T = TypeParam;
  const auto A = poisson<T>(Stencil::poisson2d_5, 40);
  const auto h = build_hierarchy(A);
  const auto b = poisson_rhs<T>(A.rows);
  const SolveOptions options{std::is_same_v<T, float> ? 1e-4 : 1e-9, 200};
  std::vector<T> x(A.rows, T(0));
  const SolveResult reference = pcg(h, b, x, options);
  std::vector<T> x_vcycle(A.rows, T(0));
  const SolveResult vcycle_reference = vcycle_solve(h, b, x_vcycle, options);
  ASSERT_TRUE(reference.converged && vcycle_reference.converged);
  const int exponent = std::is_same_v<T, float> ? 80 : 700;
  for (const int e : {-exponent, exponent}) {
    const std::vector<T> scaled_b = scaled_copy(b, 1, {e});
    std::vector<T> scaled_x(A.rows, T(0));
    const SolveResult result = pcg(h, scaled_b, scaled_x, options);
    EXPECT_TRUE(result.converged) << e;
    EXPECT_EQ(result.residual_history, reference.residual_history) << e;
    EXPECT_EQ(result.relative_residual, reference.relative_residual) << e;
    EXPECT_EQ(scaled_x, scaled_copy(x, 1, {e})) << e;

    std::fill(scaled_x.begin(), scaled_x.end(), T(0));
    const SolveResult cycles = vcycle_solve(h, scaled_b, scaled_x, options);
    EXPECT_EQ(cycles.residual_history, vcycle_reference.residual_history) << e;
    EXPECT_EQ(scaled_x, scaled_copy(x_vcycle, 1, {e})) << e;

    // Two columns, one scaled and one not: each is its own one-column solve.
    std::vector<T> B(2 * std::size_t(A.rows)), X(B.size(), T(0));
    for (index_t i = 0; i < A.rows; ++i) {
      B[2 * i] = scaled_b[i];
      B[2 * i + 1] = b[i];
    }
    const BlockSolveResult block = pcg(h, B, X, 2, options);
    for (int j = 0; j < 2; ++j)
      EXPECT_EQ(block.columns[j].residual_history, reference.residual_history) << e << " " << j;
    for (index_t i = 0; i < A.rows; ++i) EXPECT_EQ(X[2 * i], std::ldexp(x[i], e)) << i;
  }
}

TYPED_TEST(AmgSolve, VcycleSolveConverges) {
  using T = TypeParam;
  const auto A = poisson<T>(Stencil::poisson3d_7, 12);
  const auto h = build_hierarchy(A);
  const auto b = poisson_rhs<T>(A.rows);
  std::vector<T> x(A.rows, T(0));
  const double tolerance = std::is_same_v<T, float> ? 1e-5 : 1e-8;
  const auto result = vcycle_solve(h, b, x, {tolerance, 200});
  EXPECT_TRUE(result.converged);
  EXPECT_LE(result.relative_residual, tolerance);
  for (std::size_t k = 1; k < result.residual_history.size(); ++k)
    EXPECT_LT(result.residual_history[k], result.residual_history[k - 1]) << "cycle " << k;
}

TYPED_TEST(AmgSolve, ZeroRightHandSideGivesZeroSolution) {
  using T = TypeParam;
  const auto h = build_hierarchy(poisson<T>(Stencil::poisson2d_5, 20));
  const std::vector<T> b(400, T(0));
  std::vector<T> x = testing::random_vector<T>(400, 3);
  const auto result = pcg(h, b, x);
  EXPECT_TRUE(result.converged);
  EXPECT_EQ(result.iterations, 0);
  EXPECT_EQ(x, std::vector<T>(400, T(0)));
}

TYPED_TEST(AmgSolve, ResultsAreIndependentOfThreadCount) {
  using T = TypeParam;
  const auto A = poisson<T>(Stencil::poisson3d_7, 16);
  const auto b = poisson_rhs<T>(A.rows);
  const int threads = omp_get_max_threads();
  std::vector<std::vector<T>> solutions;
  std::vector<int> iterations;
  for (int count : {1, 2}) {
    omp_set_num_threads(count);
    const auto h = build_hierarchy(A);
    std::vector<T> x(A.rows, T(0));
    iterations.push_back(pcg(h, b, x, {1e-6, 100}).iterations);
    solutions.push_back(x);
  }
  omp_set_num_threads(threads);
  EXPECT_EQ(iterations[0], iterations[1]);
  EXPECT_EQ(solutions[0], solutions[1]);  // bitwise
}

TYPED_TEST(AmgSolve, HierarchyStopsAtCoarseSizeWithModestComplexity) {
  using T = TypeParam;
  AmgParameters p;
  p.max_coarse_rows = 50;
  const auto h = build_hierarchy(poisson<T>(Stencil::poisson2d_5, 48), p);
  EXPECT_LE(h.coarse_matrix.rows, 50);
  for (const auto& level : h.levels) EXPECT_GT(level.A.rows, 50);
  // Aggregation coarsens 2D 5-pt Poisson by ~6x per level and the smoothed P adds a
  // ring of neighbours: complexities land well inside (1, 2).
  EXPECT_GT(h.operator_complexity(), 1.0);
  EXPECT_LT(h.operator_complexity(), 2.0);
  EXPECT_GT(h.grid_complexity(), 1.0);
  EXPECT_LT(h.grid_complexity(), 1.5);
  const std::string table = h.describe();
  EXPECT_NE(table.find("2304"), std::string::npos) << table;  // 48² fine rows
  EXPECT_NE(table.find("operator complexity"), std::string::npos) << table;

  p.max_levels = 1;  // no coarsening: the coarse solver takes the whole matrix
  const auto direct = build_hierarchy(poisson<T>(Stencil::poisson2d_5, 10), p);
  EXPECT_EQ(direct.num_levels(), 1);
}

// With θ > 0, level l tests strength at θ·decay^l and the prolongator is
// smoothed with the filtered matrix: on a strongly anisotropic problem P stays
// within the strong direction (sparser than smoothing with A), and PCG converges.
TYPED_TEST(AmgSolve, ThresholdScheduleAndFilteredSmoothing) {
  using T = TypeParam;
  const CsrMatrix<T> A = testing::anisotropic_poisson<T>(48, T(0.001));
  AmgParameters p;
  p.strength_measure = StrengthMeasure::symmetric;  // the thresholds below are this test's
  p.strength_threshold = 0.08;
  p.strength_decay = 0.5;
  p.max_coarse_rows = 300;  // two levels or more
  const Hierarchy<T> filtered = build_hierarchy(A, p);
  p.filtered_levels = 0;
  const Hierarchy<T> unfiltered = build_hierarchy(A, p);
  ASSERT_GE(filtered.levels.size(), 1u);
  EXPECT_EQ(filtered.levels[0].P.cols, unfiltered.levels[0].P.cols);  // the same aggregates
  EXPECT_LT(filtered.levels[0].P.nnz(), unfiltered.levels[0].P.nnz());
  const std::vector<T> b(A.rows, T(1));
  std::vector<T> x(A.rows, T(0));
  const SolveResult result = pcg(filtered, b, x, {std::is_same_v<T, float> ? 1e-3 : 1e-8, 300});
  EXPECT_TRUE(result.converged) << result.iterations;
  // filtered_levels = 1 (the default) filters level 0 only: filtering every
  // level gives level 0 the same P, and level 1 a sparser one.
  p.filtered_levels = 25;
  const Hierarchy<T> every_level = build_hierarchy(A, p);
  ASSERT_GE(every_level.levels.size(), 2u);
  ASSERT_GE(filtered.levels.size(), 2u);
  EXPECT_EQ(every_level.levels[0].P.values, filtered.levels[0].P.values);
  EXPECT_LT(every_level.levels[1].P.nnz(), filtered.levels[1].P.nnz());

  // The decay applies from level 1 on: the 9-point stencil's couplings are all
  // strong at θ = 0.1, its first Galerkin matrix's are not, so a lower
  // threshold there (0.025) makes larger aggregates. `decay` is the decay
  // that p.aggregation reads.
  const auto expect_decay_from_level_one = [&](double& decay) {
    decay = 1;
    const Hierarchy<T> fixed = build_hierarchy(poisson<T>(Stencil::poisson2d_9, 40), p);
    decay = 0.25;
    const Hierarchy<T> decayed = build_hierarchy(poisson<T>(Stencil::poisson2d_9, 40), p);
    ASSERT_GE(fixed.levels.size(), 2u);
    ASSERT_GE(decayed.levels.size(), 2u);
    EXPECT_EQ(fixed.levels[0].P.cols, decayed.levels[0].P.cols);
    EXPECT_GT(fixed.levels[1].P.cols, decayed.levels[1].P.cols);
  };
  p.strength_threshold = 0.1;
  p.max_coarse_rows = 20;
  expect_decay_from_level_one(p.strength_decay);
  p.strength_decay = 0;
  EXPECT_THROW(build_hierarchy(A, p), InvalidInput);

  // Standard aggregation decays by standard_strength_decay and ignores strength_decay.
  p.strength_decay = 0.25;
  p.aggregation = AggregationMethod::standard;
  expect_decay_from_level_one(p.standard_strength_decay);
  p.standard_strength_decay = 1.5;
  EXPECT_THROW(build_hierarchy(A, p), InvalidInput);
}

// filtered_prolongator_steps = 2 applies the filtered Jacobi step twice on a
// filtered level, P = (I − ωD_F⁻¹A_F)²T with the one ω of A_F's ρ estimate;
// the aggregates stay, P widens, and PCG still converges. Out of [1, 4] the
// setup is refused, naming the parameter.
TYPED_TEST(AmgSolve, FilteredProlongatorStepsRepeatTheFilteredStep) {
  using T = TypeParam;
  const CsrMatrix<T> A = testing::anisotropic_poisson<T>(48, T(0.001));
  AmgParameters p;
  p.max_coarse_rows = 300;
  const Hierarchy<T> one_step = build_hierarchy(A, p);
  p.filtered_prolongator_steps = 2;
  const Hierarchy<T> two_steps = build_hierarchy(A, p);
  ASSERT_GE(two_steps.levels.size(), 1u);
  ASSERT_TRUE(two_steps.levels[0].filtered);
  const CsrMatrix<T> filtered = filtered_matrix(A, p.strength_threshold, p.strength_measure);
  const double omega =
      p.prolongator_weight / spectral_radius_dinv_a(filtered, p.spectral_radius_iterations);
  const CsrMatrix<T> expected = smoothed_prolongator(filtered, one_step.levels[0].P, omega);
  EXPECT_EQ(expected.row_ptr, two_steps.levels[0].P.row_ptr);
  EXPECT_EQ(expected.col_idx, two_steps.levels[0].P.col_idx);
  EXPECT_EQ(expected.values, two_steps.levels[0].P.values);
  EXPECT_EQ(one_step.levels[0].P.cols, two_steps.levels[0].P.cols);  // the same aggregates
  EXPECT_GT(two_steps.levels[0].P.nnz(), one_step.levels[0].P.nnz());
  const std::vector<T> b(A.rows, T(1));
  std::vector<T> x(A.rows, T(0));
  const SolveResult result = pcg(two_steps, b, x, {std::is_same_v<T, float> ? 1e-3 : 1e-8, 300});
  EXPECT_TRUE(result.converged) << result.iterations;
  for (int steps : {0, 5}) {
    p.filtered_prolongator_steps = steps;
    try {
      build_hierarchy(A, p);
      ADD_FAILURE() << steps << " steps were accepted";
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find("filtered_prolongator_steps"), std::string::npos);
    }
  }
}

// Coarsening that ends above max_coarse_rows says why in `warnings`; above
// max_direct_rows the setup is refused, naming the parameters.
TYPED_TEST(AmgSolve, StalledCoarseningWarnsAndHugeDirectSolvesAreRefused) {
  using T = TypeParam;
  const auto A = poisson<T>(Stencil::poisson3d_7, 12);  // 1728 rows
  AmgParameters p;
  p.strength_measure = StrengthMeasure::symmetric;
  p.strength_threshold = 0.5;  // above every off-diagonal's 1/6 of √(a_ii a_jj): nothing is strong
  const auto stalled = build_hierarchy(A, p);
  EXPECT_EQ(stalled.num_levels(), 1);
  ASSERT_EQ(stalled.warnings.size(), 1u);
  EXPECT_NE(stalled.warnings[0].find("coarsening stalled at level 0"), std::string::npos)
      << stalled.warnings[0];
  EXPECT_NE(stalled.warnings[0].find("strength threshold 0.5"), std::string::npos)
      << stalled.warnings[0];
  p.max_coarse_rows = 300;
  p.max_direct_rows = 1000;
  try {
    build_hierarchy(A, p);
    ADD_FAILURE() << "a stalled hierarchy factored 1728 rows above max_direct_rows = 1000";
  } catch (const InvalidInput& error) {
    EXPECT_NE(std::string(error.what()).find("max_direct_rows = 1000"), std::string::npos)
        << error.what();
  }
  AmgParameters shallow;
  shallow.max_levels = 2;
  shallow.max_coarse_rows = 10;
  const auto two_levels = build_hierarchy(A, shallow);
  ASSERT_EQ(two_levels.warnings.size(), 1u);
  EXPECT_NE(two_levels.warnings[0].find("max_levels = 2"), std::string::npos);
  EXPECT_TRUE(build_hierarchy(A).warnings.empty());
}

// A diagonal whose reciprocal overflows (a subnormal one) is named at the setup
// instead of surfacing as a non-finite coarse matrix.
TYPED_TEST(AmgSolve, DiagonalWhoseReciprocalOverflowsIsRejected) {
  using T = TypeParam;
  auto A = poisson<T>(Stencil::poisson2d_5, 6);
  for (T& value : A.values) value *= std::numeric_limits<T>::denorm_min() * T(4);
  try {
    build_hierarchy(A);
    ADD_FAILURE() << "a matrix of subnormal entries was accepted";
  } catch (const InvalidInput& error) {
    EXPECT_NE(std::string(error.what()).find("reciprocal overflows"), std::string::npos)
        << error.what();
  }
}

TYPED_TEST(AmgSolve, RejectsBadInput) {
  using T = TypeParam;
  EXPECT_THROW(build_hierarchy(testing::random_matrix<T>({6, 5, 2, 0, 0, false}, 1)), InvalidInput);
  auto zero_diagonal = poisson<T>(Stencil::poisson2d_5, 4);
  zero_diagonal.values[0] = T(0);  // row 0's first entry is its diagonal
  EXPECT_THROW(build_hierarchy(zero_diagonal), InvalidInput);
  auto not_finite = poisson<T>(Stencil::poisson2d_5, 4);
  not_finite.values[5] = std::numeric_limits<T>::quiet_NaN();
  EXPECT_THROW(build_hierarchy(not_finite), InvalidInput);

  const auto h = build_hierarchy(poisson<T>(Stencil::poisson2d_5, 4));
  std::vector<T> x(16, T(0));
  EXPECT_THROW(pcg(h, std::vector<T>(15, T(1)), x), InvalidInput);
  std::vector<T> b(16, T(1));
  b[3] = std::numeric_limits<T>::infinity();
  EXPECT_THROW(pcg(h, b, x), InvalidInput);
  EXPECT_THROW(vcycle_solve(h, b, x), InvalidInput);
  EXPECT_THROW(parse_aggregation("classical"), InvalidInput);
  EXPECT_THROW(parse_ordering("ptap"), InvalidInput);
}

// Iteration counts of PCG(V(1,1)) to 1e-8 as the grid doubles, in double (the
// float solve cannot reach 1e-8). Optimal multigrid keeps them flat.
struct ScalingCase {
  Stencil stencil;
  std::vector<index_t> sizes;
};

std::vector<int> pcg_iterations(const ScalingCase& c, AggregationMethod method) {
  std::vector<int> counts;
  for (index_t n : c.sizes) {
    const auto A = poisson<double>(c.stencil, n);
    const auto h = build_hierarchy(A, with(method));
    const auto b = poisson_rhs<double>(A.rows);
    std::vector<double> x(A.rows, 0.0);
    const auto result = pcg(h, b, x, {1e-8, 200});
    EXPECT_TRUE(result.converged) << stencil_name(c.stencil) << " n=" << n;
    EXPECT_LT(result.relative_residual, 1e-7) << stencil_name(c.stencil) << " n=" << n;
    std::printf("%s %s n=%d: %d levels, operator complexity %.3f, %d iterations\n",
                aggregation_name(method), stencil_name(c.stencil), static_cast<int>(n),
                static_cast<int>(h.num_levels()), h.operator_complexity(), result.iterations);
    counts.push_back(result.iterations);
  }
  return counts;
}

const ScalingCase scaling_cases[] = {{Stencil::poisson2d_5, {64, 128, 256}},
                                     {Stencil::poisson3d_7, {16, 32, 64}}};

TEST(AmgScaling, StandardAggregationIterationsStayFlat) {
  for (const auto& c : scaling_cases) {
    const auto counts = pcg_iterations(c, AggregationMethod::standard);
    for (std::size_t k = 1; k < counts.size(); ++k) EXPECT_LE(counts[k], counts[k - 1] + 2);
    EXPECT_LE(counts.back(), 25);
  }
}

TEST(AmgScaling, Mis2IterationsGrowAtMostTwoPerDoubling) {
  // Repeated-pass MIS-2 aggregation: measured 2D 5-pt 64/128/256 and 3D 7-pt
  // 16/32/64 in mis2_min_neighbours' comment (a single pass grew 21, 23, 31).
  // The bound holds over these sizes; beyond them 2D still grows (24 at 512,
  // 38 at 1024, standard: 16, 20), so the test does not claim more.
  for (const auto& c : scaling_cases) {
    const auto counts = pcg_iterations(c, AggregationMethod::mis2);
    for (std::size_t k = 1; k < counts.size(); ++k) EXPECT_LE(counts[k], counts[k - 1] + 2);
    EXPECT_LE(counts.back(), 25);
  }
}

// The phases are the whole setup (the check and copy of A, its diagonal and
// the cycle's scratch charged to prepare_ms): only the glue between the
// phases' clocks is left out.
TEST(AmgSolve, SetupPhasesAddUpToTheWholeSetup) {
  const CsrMatrix<double> A = poisson<double>(Stencil::poisson3d_7, 32);
  const auto start = std::chrono::steady_clock::now();
  const Hierarchy<double> h = build_hierarchy(A);
  const double wall =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GT(h.timings.prepare_ms, 0);
  EXPECT_LE(h.timings.total_ms(), wall);
  EXPECT_GE(h.timings.total_ms(), 0.9 * wall - 0.2);
}

}  // namespace
}  // namespace binamg
