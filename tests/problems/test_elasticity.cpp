// Linear elasticity on a structured grid: the operator's symmetry, its null
// space (the rigid-body modes) when free, positive definiteness when clamped,
// sizes and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "binamg/problems/elasticity.hpp"
#include "binamg/problems/model_problem.hpp"
#include "binamg/sparse/symmetry.hpp"
#include "binamg/spmv/spmm.hpp"

namespace binamg {
namespace {

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

TEST(Elasticity, SizesMatchTheMatrixAndItIsSymmetricWithAPositiveDiagonal) {
  for (int d : {2, 3})
    for (bool clamped : {true, false})
      for (index_t n : {2, 3, 5}) {
        const CsrMatrix<double> A = elasticity<double>(d, n, clamped);
        validate(A, "elasticity");
        const ElasticitySize size = elasticity_size(d, n, clamped);
        EXPECT_EQ(A.rows, size.rows);
        EXPECT_EQ(A.nnz(), size.nnz);
        const index_t nodes = (clamped ? n - 1 : n) * n * (d == 3 ? n : 1);
        EXPECT_EQ(A.rows, nodes * d);
        EXPECT_FALSE(find_asymmetry(A, 1e-14).has_value()) << d << "D n=" << n;
        for (double value : diagonal(A)) EXPECT_GT(value, 0);
      }
}

TEST(Elasticity, FreeOperatorMapsTheRigidBodyModesToZero) {
  for (int d : {2, 3}) {
    const index_t n = 6;
    const CsrMatrix<double> A = elasticity<double>(d, n, false);
    const std::vector<double> B = rigid_body_modes(d, n, false);
    const index_t modes = d == 2 ? 3 : 6;
    ASSERT_EQ(B.size(), std::size_t(A.rows) * modes);
    std::vector<double> AB;
    spmm(A, B, modes, AB);
    // A's entries are O(1) in 2D and O(h) in 3D; B's O(1).
    EXPECT_LT(max_abs(AB), 1e-12) << d << "D";
  }
}

TEST(Elasticity, ClampedOperatorIsPositiveDefiniteOnTheModes) {
  // xᵀAx > 0 for every rigid-body mode: the clamp removed the null space.
  for (int d : {2, 3}) {
    const index_t n = 5, modes = d == 2 ? 3 : 6;
    const CsrMatrix<double> A = elasticity<double>(d, n);
    const std::vector<double> B = rigid_body_modes(d, n);
    std::vector<double> AB;
    spmm(A, B, modes, AB);
    for (index_t m = 0; m < modes; ++m) {
      double energy = 0;
      for (index_t i = 0; i < A.rows; ++i) energy += B[i * modes + m] * AB[i * modes + m];
      EXPECT_GT(energy, 1e-3) << d << "D mode " << m;
    }
  }
}

TEST(Elasticity, BadInputIsRejected) {
  EXPECT_THROW(elasticity<double>(1, 5), InvalidInput);
  EXPECT_THROW(elasticity<double>(2, 1), InvalidInput);
  EXPECT_THROW(elasticity_size(3, 1000), InvalidInput);  // 3·999·10^6 rows pass 2^31-1
  EXPECT_THROW(rigid_body_modes(4, 5), InvalidInput);
  try {
    validate_problem_name("elasticity4d");
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& error) {
    EXPECT_NE(std::string(error.what()).find("elasticity3d"), std::string::npos);
  }
}

TEST(ModelProblem, NamesGiveTheirGenerators) {
  EXPECT_EQ(model_problem<double>("elasticity2d", 4).values, elasticity<double>(2, 4).values);
  EXPECT_EQ(model_problem_size("poisson3d-7", 5).rows, 125);
  EXPECT_EQ(model_problem_size("elasticity3d", 4).rows, 3 * 3 * 4 * 4);
}

}  // namespace
}  // namespace binamg
