// The fused steps of the GPU V-cycle against the pairs of calls they replace,
// on every level of a GPU hierarchy: the same bits while the SpMV runs its
// row-split kernel (the same lanes and summation order), rounding otherwise.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/smoothers/jacobi.hpp"
#include "binamg/solvers/solve_steps.hpp"
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
  AmgParameters parameters;
  parameters.max_coarse_rows = 300;  // two levels above the coarsest
  const DeviceHierarchy<T> h =
      build_hierarchy(to_device(poisson<T>(Stencil::poisson3d_7, 20)), parameters);
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

}  // namespace
}  // namespace binamg
