// refresh(): new values on the pattern a hierarchy was built for give the
// hierarchy a setup with the same aggregates would build, bit for bit; a
// refreshed hierarchy solves; a new pattern or an unusable value is named.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/solvers/pcg.hpp"
#include "support/message_of.hpp"
#include "support/neumann_laplacian.hpp"
#include "support/refresh_cases.hpp"

namespace binamg {
namespace {

template <typename T>
class Refresh : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Refresh, Precisions);

const auto same = [](const auto& x) -> const auto& { return x; };

// Values scaled by a few percent keep every strong connection strong, so a
// setup of the new matrix finds the same aggregates: refresh must give its bits.
TYPED_TEST(Refresh, EqualsTheSetupOfTheNewValues) {
  using T = TypeParam;
  for (const auto& c : testing::refresh_cases<T>()) {
    Hierarchy<T> h = build_hierarchy(c.A, c.parameters);
    ASSERT_GE(h.levels.size(), 2u) << c.name;
    for (double phase : {0.0, 1.0}) {  // twice: a refreshed hierarchy refreshes again
      const CsrMatrix<T> A = symmetrically_scaled(c.A, 0.03, phase);
      refresh(h, A);
      testing::expect_same_hierarchy(build_hierarchy(A, c.parameters), h, same,
                                     c.name + ", phase " + std::to_string(phase));
      EXPECT_EQ(h.timings.strength_ms + h.timings.aggregation_ms + h.timings.tentative_ms, 0)
          << c.name;
    }
  }
}

// Values far from those the aggregates were chosen for (an isotropic operator
// made strongly anisotropic) still give a working preconditioner.
TEST(Refresh, RefreshedHierarchySolvesOtherValues) {
  const CsrMatrix<double> isotropic = testing::anisotropic_poisson<double>(64, 1.0);
  const CsrMatrix<double> anisotropic = testing::anisotropic_poisson<double>(64, 0.05);
  Hierarchy<double> h = build_hierarchy(isotropic);
  refresh(h, anisotropic);
  const std::vector<double> b(anisotropic.rows, 1.0);
  std::vector<double> x(b.size(), 0.0);
  const auto result = pcg(h, b, x, {1e-8, 300});
  EXPECT_TRUE(result.converged);
  EXPECT_LE(result.relative_residual, 1e-8);
}

TEST(Refresh, NamesAnotherShapeOrPattern) {
  const CsrMatrix<double> A = poisson<double>(Stencil::poisson2d_5, 20);
  Hierarchy<double> h = build_hierarchy(A);
  EXPECT_NE(testing::message_of([&] { refresh(h, poisson<double>(Stencil::poisson2d_5, 21)); })
                .find("refresh: A is 441 x 441, the hierarchy was built for 400 x 400"),
            std::string::npos);
  // Row 57's entry in column 77 moves to column 76: the patterns part there.
  CsrMatrix<double> moved = A;
  ASSERT_EQ(moved.col_idx[moved.row_ptr[58] - 1], 77);
  moved.col_idx[moved.row_ptr[58] - 1] = 76;
  const std::string message = testing::message_of([&] { refresh(h, moved); });
  EXPECT_NE(message.find("refresh: A's sparsity pattern differs from the one the hierarchy was "
                         "built for, first in row 57"),
            std::string::npos)
      << message;
}

TEST(Refresh, NamesAZeroDiagonal) {
  const CsrMatrix<double> A = poisson<double>(Stencil::poisson2d_5, 20);
  Hierarchy<double> h = build_hierarchy(A);
  CsrMatrix<double> zero = A;
  for (index_t k = zero.row_ptr[123]; k < zero.row_ptr[124]; ++k)
    if (zero.col_idx[k] == 123) zero.values[k] = 0;
  const std::string message = testing::message_of([&] { refresh(h, zero); });
  EXPECT_NE(message.find("refresh: A"), std::string::npos) << message;
  EXPECT_NE(message.find("123"), std::string::npos) << message;
}

// A singular coarsest matrix's warning goes when the new values make it regular.
TEST(Refresh, RenewsTheSingularCoarseWarning) {
  const CsrMatrix<double> neumann = testing::neumann_laplacian<double>(30);
  Hierarchy<double> h = build_hierarchy(neumann);
  ASSERT_EQ(h.coarse.nullity(), 1);
  ASSERT_EQ(h.warnings.size(), 1u);
  CsrMatrix<double> shifted = neumann;
  for (index_t i = 0; i < shifted.rows; ++i)
    for (index_t k = shifted.row_ptr[i]; k < shifted.row_ptr[i + 1]; ++k)
      if (shifted.col_idx[k] == i) shifted.values[k] += 0.5;
  refresh(h, shifted);
  EXPECT_EQ(h.coarse.nullity(), 0);
  EXPECT_TRUE(h.warnings.empty());
  refresh(h, neumann);
  EXPECT_EQ(h.coarse.nullity(), 1);
  EXPECT_EQ(h.warnings.size(), 1u);
}

}  // namespace
}  // namespace binamg
