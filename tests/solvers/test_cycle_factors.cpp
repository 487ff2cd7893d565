// The V-cycle's convergence factor from each level down.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/solvers/cycle_factors.hpp"
#include "binamg/solvers/vcycle.hpp"

namespace binamg {
namespace {

// ρ(I − B_l A_l), formed densely: column j is the cycle from level l applied
// to e_j with b = 0.
double dense_factor(const Hierarchy<double>& h, index_t l) {
  const index_t n = h.matrix(l).rows;
  Eigen::MatrixXd E(n, n);
  const std::vector<double> zero(n, 0.0);
  for (index_t j = 0; j < n; ++j) {
    std::vector<double> e(n, 0.0);
    e[j] = 1;
    vcycle(h, l, zero, e);
    for (index_t i = 0; i < n; ++i) E(i, j) = e[i];
  }
  return E.eigenvalues().cwiseAbs().maxCoeff();
}

TEST(CycleFactors, PowerMethodFindsTheSpectralRadiusOfEachLevel) {
  AmgParameters parameters;
  parameters.max_coarse_rows = 10;
  const Hierarchy<double> h =
      build_hierarchy(poisson<double>(Stencil::poisson2d_9, 24), parameters);
  ASSERT_GE(h.num_levels(), 3);
  const std::vector<double> factors = vcycle_convergence_factors(h, 60);
  ASSERT_EQ(factors.size(), std::size_t(h.num_levels() - 1));
  for (index_t l = 0; l + 1 < h.num_levels(); ++l) {
    const double exact = dense_factor(h, l);
    EXPECT_GT(factors[l], 0.0) << l;
    EXPECT_LT(factors[l], 1.0) << l;
    EXPECT_NEAR(factors[l], exact, 0.02 * exact) << "level " << l;
  }
}

TEST(CycleFactors, LevelCycleIsTheCycleAtLevelZero) {
  AmgParameters parameters;
  parameters.max_coarse_rows = 50;  // a cycle through more than the coarse solve
  const Hierarchy<double> h =
      build_hierarchy(poisson<double>(Stencil::poisson2d_5, 20), parameters);
  const std::vector<double> b(400, 1.0);
  std::vector<double> x(400, 0.25), y(400, 0.25);
  vcycle(h, b, x);
  vcycle(h, 0, b, y);
  EXPECT_EQ(x, y);
  std::vector<double> wrong(7);
  EXPECT_THROW(vcycle(h, 1, wrong, wrong), InvalidInput);
  EXPECT_THROW(vcycle(h, h.num_levels(), b, y), InvalidInput);
}

TEST(CycleFactors, RejectsTooFewIterationsAndWorksInFloat) {
  const Hierarchy<float> h = build_hierarchy(poisson<float>(Stencil::poisson3d_7, 12));
  EXPECT_THROW(vcycle_convergence_factors(h, 1), InvalidInput);
  for (double factor : vcycle_convergence_factors(h, 10)) {
    EXPECT_GT(factor, 0.0);
    EXPECT_LT(factor, 1.0);
  }
}

}  // namespace
}  // namespace binamg
