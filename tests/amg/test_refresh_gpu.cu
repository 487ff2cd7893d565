// The GPU refresh against the GPU setup of the new values (bit for bit, on
// the first refresh, which forms the middle products whole, and on the next,
// which reuses them) and against the CPU refresh (to rounding); its messages
// are the CPU's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/solvers/pcg.hpp"
#include "support/gpu.hpp"
#include "support/message_of.hpp"
#include "support/refresh_cases.hpp"

namespace binamg {
namespace {

template <typename T>
class RefreshGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RefreshGpu, Precisions);

const auto download = [](const auto& x) { return to_host(x); };

// max |a − b| / max |a| over two matrices of one pattern: the ρ estimates and
// so P differ to rounding, and a coarse entry whose terms cancel would make
// an entrywise relative difference large.
template <typename T>
double normwise_difference(const CsrMatrix<T>& a, const CsrMatrix<T>& b) {
  EXPECT_EQ(a.col_idx, b.col_idx);
  double difference = 0, largest = 0;
  for (std::size_t k = 0; k < a.values.size() && k < b.values.size(); ++k) {
    difference = std::max(difference, std::abs(double(a.values[k]) - double(b.values[k])));
    largest = std::max(largest, std::abs(double(a.values[k])));
  }
  return difference / largest;
}

TYPED_TEST(RefreshGpu, EqualsTheGpuSetupOfTheNewValues) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  for (const auto& c : testing::refresh_cases<T>()) {
    DeviceHierarchy<T> h = build_hierarchy(to_device(c.A), c.parameters);
    // Three refreshes, the third back to the first values: the phases whose
    // setups find the cases' aggregates (support/refresh_cases.hpp).
    for (double phase : {0.0, 1.0, 0.0}) {
      const CsrMatrix<T> A = symmetrically_scaled(c.A, 0.03, phase);
      refresh(h, to_device(A));
      const std::string what = c.name + ", phase " + std::to_string(phase);
      testing::expect_same_hierarchy(build_hierarchy(to_device(A), c.parameters), h, download,
                                     what);
      EXPECT_EQ(h.refresh_products.size(), h.levels.size()) << what;
    }
  }
}

TYPED_TEST(RefreshGpu, MatchesTheCpuRefresh) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const double tolerance = sizeof(T) == 4 ? 2e-4 : 1e-11;
  for (const auto& c : testing::refresh_cases<T>()) {
    Hierarchy<T> cpu = build_hierarchy(c.A, c.parameters);
    DeviceHierarchy<T> gpu = build_hierarchy(to_device(c.A), c.parameters);
    ASSERT_EQ(cpu.levels.size(), gpu.levels.size()) << c.name;
    for (double phase : {0.0, 1.0}) {
      const CsrMatrix<T> A = symmetrically_scaled(c.A, 0.03, phase);
      refresh(cpu, A);
      refresh(gpu, to_device(A));
      for (index_t l = 0; l < cpu.num_levels(); ++l)
        EXPECT_LE(normwise_difference(cpu.matrix(l), to_host(gpu.matrix(l))), tolerance)
            << c.name << ", level " << l;
    }
  }
}

// Values that move entries across θ change the finest level's filtered
// pattern, and with it P's and every coarser pattern: from isotropic values
// (nothing filtered) to anisotropic ones and back, the GPU refresh follows
// the CPU's and the hierarchy solves.
TEST(RefreshGpu, FollowsPatternsThatChangeWithTheValues) {
  BINAMG_REQUIRE_GPU();
  AmgParameters parameters;
  parameters.max_coarse_rows = 40;
  const CsrMatrix<double> isotropic = testing::anisotropic_poisson<double>(60, 1.0);
  Hierarchy<double> cpu = build_hierarchy(isotropic, parameters);
  DeviceHierarchy<double> gpu = build_hierarchy(to_device(isotropic), parameters);
  ASSERT_GE(cpu.levels.size(), 3u);
  for (double weak : {0.05, 0.2, 1.0, 0.05, 0.05}) {
    const CsrMatrix<double> A = testing::anisotropic_poisson<double>(60, weak);
    refresh(cpu, A);
    refresh(gpu, to_device(A));
    EXPECT_EQ(gpu.levels[0].filtered, weak < 1) << weak;
    for (index_t l = 0; l < cpu.num_levels(); ++l)
      EXPECT_LE(normwise_difference(cpu.matrix(l), to_host(gpu.matrix(l))), 1e-11)
          << "weak " << weak << ", level " << l;
    const DeviceBuffer<double> b = to_device(std::vector<double>(A.rows, 1.0));
    DeviceBuffer<double> x = to_device(std::vector<double>(A.rows, 0.0));
    EXPECT_TRUE(pcg(gpu, b, x).converged) << weak;
  }
}

TEST(RefreshGpuErrors, AreTheCpus) {
  BINAMG_REQUIRE_GPU();
  const CsrMatrix<double> A = poisson<double>(Stencil::poisson2d_5, 20);
  Hierarchy<double> cpu = build_hierarchy(A);
  DeviceHierarchy<double> gpu = build_hierarchy(to_device(A));
  CsrMatrix<double> moved = A;
  moved.col_idx[moved.row_ptr[58] - 1] = 76;
  for (const CsrMatrix<double>& bad : {poisson<double>(Stencil::poisson2d_5, 21), moved}) {
    const std::string expected = testing::message_of([&] { refresh(cpu, bad); });
    EXPECT_NE(expected.find("refresh: A"), std::string::npos) << expected;
    EXPECT_EQ(testing::message_of([&] { refresh(gpu, to_device(bad)); }), expected);
  }
  CsrMatrix<double> zero = A;
  for (index_t k = zero.row_ptr[123]; k < zero.row_ptr[124]; ++k)
    if (zero.col_idx[k] == 123) zero.values[k] = 0;
  const std::string message = testing::message_of([&] { refresh(gpu, to_device(zero)); });
  EXPECT_EQ(message.rfind("refresh: A: ", 0), 0u) << message;
  EXPECT_NE(message.find("row 123 has a zero or missing diagonal entry"), std::string::npos)
      << message;
}

}  // namespace
}  // namespace binamg
