// The fused steps of the GPU V-cycle against the pairs of calls they replace,
// on every level of a GPU hierarchy: the same bits while the SpMV runs its
// row-split kernel (the same lanes and summation order), rounding otherwise.
// The coarse levels in one launch (tail_cycle.hpp) against a launch per step.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/smoothers/jacobi.hpp"
#include "binamg/solvers/pcg.hpp"
#include "binamg/solvers/solve_steps.hpp"
#include "binamg/solvers/tail_cycle.hpp"
#include "binamg/solvers/vcycle.hpp"
#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmv.hpp"
#include "binamg/vector/vector_ops.hpp"
#include "support/gpu.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class VcycleStepsGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(VcycleStepsGpu, Precisions);

template <typename T>
void expect_same(const DeviceCsr<T>& A, const std::vector<T>& expected,
                 const std::vector<T>& actual, const char* what) {
  if (spmm_algorithm_for(A.rows, A.nnz(), A.max_row_length, 1) == SpmmAlgorithm::row_split) {
    EXPECT_EQ(expected, actual) << what;
    return;
  }
  ASSERT_EQ(expected.size(), actual.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(expected[i], actual[i], 100 * std::numeric_limits<T>::epsilon()) << what << i;
}

TYPED_TEST(VcycleStepsGpu, FusedStepsEqualTheCallsTheyReplace) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const DeviceHierarchy<T> h = build_hierarchy(to_device(poisson<T>(Stencil::poisson3d_7, 20)));
  ASSERT_GE(h.levels.size(), 2u);
  for (std::size_t l = 0; l < h.levels.size(); ++l) {
    const DeviceLevel<T>& level = h.levels[l];
    const index_t rows = level.A.rows, coarse_rows = level.P.cols;
    const DeviceBuffer<T> b = to_device(testing::random_vector<T>(rows, 90 + l));
    const std::vector<T> x0 = testing::random_vector<T>(rows, 95 + l);
    const DeviceBuffer<T> e = to_device(testing::random_vector<T>(coarse_rows, 99 + l));

    // One sweep from zero and the residual.
    DeviceBuffer<T> x_expected(rows), r_expected(rows), scratch(rows);
    jacobi_from_zero(level.A, level.inverse_diagonal, level.jacobi_weight, b, x_expected, 1,
                     scratch);
    residual(level.A, x_expected.data(), b.data(), r_expected.data());
    DeviceBuffer<T> x(rows), r(rows);
    smooth_from_zero_with_residual(level, b, x, r);
    EXPECT_EQ(to_host(x_expected), to_host(x)) << "level " << l;
    expect_same(level.A, to_host(r_expected), to_host(r), "residual");

    // The prolongation and the correction.
    DeviceBuffer<T> corrected_expected = to_device(x0), product(rows);
    spmv(level.P, e.data(), product.data());
    axpy(T(1), product, corrected_expected);
    DeviceBuffer<T> corrected = to_device(x0);
    prolong_and_correct(level.P, e, corrected);
    expect_same(level.P, to_host(corrected_expected), to_host(corrected), "correction");
  }
}

// The tail's levels in one launch give the cycle of a launch per step, bit for
// bit, for each smoother and sweep count: the same hierarchy built twice, with
// and without the tail, takes the same V-cycles (from zero and from a guess)
// and the same PCG iterations; and the tail did run.
TYPED_TEST(VcycleStepsGpu, TailLaunchGivesTheCycleOfALaunchPerStep) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  struct Case {
    const char* name;
    Stencil stencil;
    index_t size;
    SmootherKind smoother;
    int presweeps, postsweeps, degree;
  };
  const Case cases[] = {
      {"2D 5-pt, Chebyshev", Stencil::poisson2d_5, 160, SmootherKind::chebyshev, 1, 1, 2},
      {"3D 7-pt, Jacobi V(2,1)", Stencil::poisson3d_7, 24, SmootherKind::jacobi, 2, 1, 2},
      {"2D 9-pt, l1-Jacobi V(0,2)", Stencil::poisson2d_9, 128, SmootherKind::l1_jacobi, 0, 2, 2},
      {"3D 27-pt, Chebyshev 3, V(2,2)", Stencil::poisson3d_27, 32, SmootherKind::chebyshev, 2, 2,
       3},
  };
  for (const Case& c : cases) {
    const CsrMatrix<T> A = poisson<T>(c.stencil, c.size);
    AmgParameters with_tail;
    with_tail.smoother = c.smoother;
    with_tail.presweeps = c.presweeps;
    with_tail.postsweeps = c.postsweeps;
    with_tail.chebyshev_degree = c.degree;
    AmgParameters per_step = with_tail;
    per_step.tail_launch_entries = 0;
    const DeviceHierarchy<T> tail = build_hierarchy(to_device(A), with_tail);
    const DeviceHierarchy<T> steps = build_hierarchy(to_device(A), per_step);
    ASSERT_LT(tail_cycle::first_level(tail), tail.levels.size()) << c.name;
    ASSERT_GT(tail_cycle::first_level(steps), steps.levels.size()) << c.name;

    const std::vector<T> b = testing::random_vector<T>(A.rows, 7);
    const std::vector<T> x0 = testing::random_vector<T>(A.rows, 8);
    std::vector<T> cycles[2];
    int which = 0;
    for (const DeviceHierarchy<T>* h : {&tail, &steps}) {
      const DeviceBuffer<T> device_b = to_device(b);
      DeviceBuffer<T> x(A.rows);
      vcycle_from_zero(*h, device_b, x);
      std::vector<T> both = to_host(x);
      DeviceBuffer<T> guess = to_device(x0);
      vcycle(*h, device_b, guess);
      const std::vector<T> from_guess = to_host(guess);
      both.insert(both.end(), from_guess.begin(), from_guess.end());
      cycles[which++] = both;
    }
    EXPECT_EQ(cycles[0], cycles[1]) << c.name;

    SolveOptions options;
    options.tolerance = 1e-5;
    const DeviceBuffer<T> device_b = to_device(b);
    DeviceBuffer<T> x_tail = to_device(std::vector<T>(A.rows, T(0)));
    DeviceBuffer<T> x_steps = to_device(std::vector<T>(A.rows, T(0)));
    const SolveResult solved_tail = pcg(tail, device_b, x_tail, options);
    const SolveResult solved_steps = pcg(steps, device_b, x_steps, options);
    EXPECT_TRUE(solved_tail.converged) << c.name;
    EXPECT_EQ(solved_tail.residual_history, solved_steps.residual_history) << c.name;
    EXPECT_EQ(to_host(x_tail), to_host(x_steps)) << c.name;
  }
}

}  // namespace
}  // namespace binamg
