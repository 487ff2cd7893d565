// The GPU Galerkin product in both orders against the CPU one on the same A, P
// and R, and the pool's peak probe that compare_ordering reports.
#include <gtest/gtest.h>

#include "binamg/amg/galerkin.hpp"
#include "binamg/amg/hierarchy.hpp"
#include "binamg/core/device_pool.hpp"
#include "binamg/problems/poisson.hpp"
#include "support/gpu.hpp"

namespace binamg {
namespace {

template <typename T>
class GalerkinGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GalerkinGpu, Precisions);

// Relative to each entry's sum of |terms| (see max_relative_difference).
template <typename T>
double tolerance() {
  return std::is_same_v<T, float> ? 1e-5 : 1e-12;
}

TYPED_TEST(GalerkinGpu, BothOrderingsMatchTheCpuOnEveryLevel) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  for (auto [stencil, n] : {std::pair{Stencil::poisson2d_9, 60}, std::pair{Stencil::poisson3d_7, 18},
                            std::pair{Stencil::poisson3d_27, 14}}) {
    const Hierarchy<T> hierarchy = build_hierarchy(poisson<T>(stencil, n));
    ASSERT_FALSE(hierarchy.levels.empty());
    for (const Level<T>& level : hierarchy.levels) {
      const DeviceCsr<T> A = to_device(level.A), P = to_device(level.P), R = to_device(level.R);
      const CsrMatrix<double> magnitude = galerkin_magnitude(level.A, level.P, level.R);
      for (auto ordering : {GalerkinOrdering::ptap_left, GalerkinOrdering::ptap_right}) {
        const CsrMatrix<T> expected = galerkin_product(level.A, level.P, level.R, ordering);
        const CsrMatrix<T> actual = to_host(galerkin_product(A, P, R, ordering));
        EXPECT_LE(max_relative_difference(expected, actual, "GPU vs CPU", &magnitude),
                  tolerance<T>())
            << stencil_name(stencil) << " " << ordering_name(ordering) << ", " << level.A.rows
            << " rows";
      }
    }
  }
}

TYPED_TEST(GalerkinGpu, PeakExtraBytesCoverTheResult) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const Hierarchy<T> hierarchy = build_hierarchy(poisson<T>(Stencil::poisson3d_7, 16));
  const Level<T>& level = hierarchy.levels.front();
  const DeviceCsr<T> A = to_device(level.A), P = to_device(level.P), R = to_device(level.R);
  index_t coarse_nnz = 0;
  const std::size_t peak = pool_peak_extra_bytes(
      [&] { coarse_nnz = galerkin_product(A, P, R, GalerkinOrdering::ptap_right).nnz(); });
  // At least A_c and the intermediate A·P (as big as A·P's rows and entries).
  const std::size_t result_bytes = std::size_t(coarse_nnz) * (sizeof(index_t) + sizeof(T));
  const GalerkinCost cost = galerkin_cost(level.A, level.P, level.R, GalerkinOrdering::ptap_right);
  const std::size_t intermediate_bytes =
      std::size_t(cost.intermediate_nnz) * (sizeof(index_t) + sizeof(T));
  EXPECT_GE(peak, result_bytes + intermediate_bytes);
  // Nothing is left in use once the result is gone.
  EXPECT_EQ(pool_peak_extra_bytes([] {}), 0u);
}

}  // namespace
}  // namespace binamg
