// The Poisson generators against closed formulas: sizes, nnz, symmetry,
// stencil values and row sums, for every stencil on small grids.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <utility>

#include "binamg/problems/poisson.hpp"

namespace binamg {
namespace {

template <typename T>
class Poisson : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Poisson, Precisions);

const Stencil all_stencils[] = {Stencil::poisson2d_5, Stencil::poisson2d_9, Stencil::poisson3d_7,
                                Stencil::poisson3d_27};
// n = 1 (a single point: no neighbours), 2 (every point on the boundary), 5.
const index_t grid_sizes[] = {1, 2, 5};

std::int64_t expected_rows(Stencil stencil, std::int64_t n) {
  return stencil_dimension(stencil) == 2 ? n * n : n * n * n;
}

// Each coupled offset pairs the points whose neighbour is inside the grid;
// summing over offsets gives these closed forms.
std::int64_t expected_nnz(Stencil stencil, std::int64_t n) {
  switch (stencil) {
    case Stencil::poisson2d_5:
      return 5 * n * n - 4 * n;
    case Stencil::poisson2d_9:
      return (3 * n - 2) * (3 * n - 2);
    case Stencil::poisson3d_7:
      return 7 * n * n * n - 6 * n * n;
    case Stencil::poisson3d_27:
      return (3 * n - 2) * (3 * n - 2) * (3 * n - 2);
  }
  return -1;
}

double expected_diagonal(Stencil stencil) {
  switch (stencil) {
    case Stencil::poisson2d_5:
      return 4;
    case Stencil::poisson2d_9:
      return 8;
    case Stencil::poisson3d_7:
      return 6;
    case Stencil::poisson3d_27:
      return 26;
  }
  return 0;
}

/// True when the grid point of `row` has every stencil neighbour inside the grid.
bool interior(Stencil stencil, index_t n, index_t row) {
  const index_t x = row % n, y = (row / n) % n, z = row / (n * n);
  const auto inside = [n](index_t c) { return c > 0 && c < n - 1; };
  return inside(x) && inside(y) && (stencil_dimension(stencil) == 2 || inside(z));
}

TYPED_TEST(Poisson, SizesAndNnzMatchClosedFormulas) {
  for (Stencil stencil : all_stencils)
    for (index_t n : grid_sizes) {
      const auto A = poisson<TypeParam>(stencil, n);
      SCOPED_TRACE(std::string(stencil_name(stencil)) + " n=" + std::to_string(n));
      EXPECT_EQ(A.rows, expected_rows(stencil, n));
      EXPECT_EQ(A.cols, A.rows);
      EXPECT_EQ(A.nnz(), expected_nnz(stencil, n));
    }
}

TYPED_TEST(Poisson, PassesValidate) {
  for (Stencil stencil : all_stencils)
    for (index_t n : grid_sizes)
      EXPECT_NO_THROW(validate(poisson<TypeParam>(stencil, n), stencil_name(stencil)));
}

TYPED_TEST(Poisson, IsSymmetric) {
  for (Stencil stencil : all_stencils) {
    const auto A = poisson<TypeParam>(stencil, 5);
    std::map<std::pair<index_t, index_t>, TypeParam> entries;
    for (index_t row = 0; row < A.rows; ++row)
      for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k)
        entries[{row, A.col_idx[k]}] = A.values[k];
    for (const auto& [position, value] : entries) {
      const auto mirror = entries.find({position.second, position.first});
      ASSERT_NE(mirror, entries.end()) << stencil_name(stencil) << " entry (" << position.first
                                       << ", " << position.second << ") has no mirror";
      EXPECT_EQ(mirror->second, value);
    }
  }
}

TYPED_TEST(Poisson, DiagonalIsStencilWeightAndOffDiagonalsAreMinusOne) {
  for (Stencil stencil : all_stencils) {
    const auto A = poisson<TypeParam>(stencil, 5);
    for (index_t row = 0; row < A.rows; ++row)
      for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k)
        // Small integers are exact in float and double: compare exactly.
        ASSERT_EQ(A.values[k],
                  A.col_idx[k] == row ? TypeParam(expected_diagonal(stencil)) : TypeParam(-1))
            << stencil_name(stencil) << " row " << row << " column " << A.col_idx[k];
  }
}

TYPED_TEST(Poisson, RowSumsVanishInsideAndArePositiveOnTheBoundary) {
  for (Stencil stencil : all_stencils) {
    const index_t n = 5;
    const auto A = poisson<TypeParam>(stencil, n);
    for (index_t row = 0; row < A.rows; ++row) {
      // At most 27 small integers: every partial sum is exact in float.
      TypeParam sum = 0;
      for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k) sum += A.values[k];
      if (interior(stencil, n, row))
        EXPECT_EQ(sum, TypeParam(0)) << stencil_name(stencil) << " interior row " << row;
      else
        EXPECT_GT(sum, TypeParam(0)) << stencil_name(stencil) << " boundary row " << row;
    }
  }
}

TYPED_TEST(Poisson, RowsAreLexicographicWithXFastest) {
  // On a 3x3 grid the centre point (x=1, y=1) is row 4; with the 5-point
  // stencil its neighbours are rows 1 (y-1), 3 (x-1), 5 (x+1) and 7 (y+1).
  const auto A = poisson<TypeParam>(Stencil::poisson2d_5, 3);
  const std::vector<index_t> row4(A.col_idx.begin() + A.row_ptr[4],
                                  A.col_idx.begin() + A.row_ptr[5]);
  EXPECT_EQ(row4, (std::vector<index_t>{1, 3, 4, 5, 7}));
}

TYPED_TEST(Poisson, RejectsGridSizeBelowOne) {
  EXPECT_THROW(poisson<TypeParam>(Stencil::poisson2d_5, 0), InvalidInput);
  EXPECT_THROW(poisson<TypeParam>(Stencil::poisson3d_7, -3), InvalidInput);
}

TYPED_TEST(Poisson, RejectsRowsPastThirtyTwoBitIndices) {
  // 46341^2 and 1291^3 are the first grids past 2^31-1 rows; the check runs
  // before any allocation, so these cost nothing.
  EXPECT_THROW(poisson<TypeParam>(Stencil::poisson2d_5, 46341), InvalidInput);
  EXPECT_THROW(poisson<TypeParam>(Stencil::poisson3d_7, 1291), InvalidInput);
  // n^3 here overflows even 64-bit arithmetic; the generator must still throw.
  EXPECT_THROW(poisson<TypeParam>(Stencil::poisson3d_27, 2'100'000), InvalidInput);
  EXPECT_THROW(poisson<TypeParam>(Stencil::poisson3d_27, max_index), InvalidInput);
}

TYPED_TEST(Poisson, RejectsNnzPastThirtyTwoBitIndices) {
  // 27-point, n = 431: 80 million rows fit, but nnz = 1291^3 > 2^31-1.
  try {
    poisson<TypeParam>(Stencil::poisson3d_27, 431);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& error) {
    EXPECT_NE(std::string(error.what()).find("nnz"), std::string::npos) << error.what();
  }
}

TEST(PoissonStencilNames, ParseAndNameRoundTrip) {
  for (Stencil stencil : all_stencils) EXPECT_EQ(parse_stencil(stencil_name(stencil)), stencil);
  EXPECT_EQ(stencil_dimension(Stencil::poisson2d_9), 2);
  EXPECT_EQ(stencil_dimension(Stencil::poisson3d_27), 3);
}

TEST(PoissonStencilNames, UnknownNameThrowsNamingIt) {
  for (const char* name : {"poisson2d-7", "Poisson2d-5", "", "poisson3d-27 "}) {
    try {
      parse_stencil(name);
      FAIL() << "expected InvalidInput for '" << name << "'";
    } catch (const InvalidInput& error) {
      EXPECT_NE(std::string(error.what()).find("'" + std::string(name) + "'"), std::string::npos)
          << error.what();
    }
  }
}

TEST(PoissonRhs, IsAllOnes) {
  EXPECT_EQ(poisson_rhs<double>(4), (std::vector<double>{1, 1, 1, 1}));
  EXPECT_TRUE(poisson_rhs<float>(0).empty());
}

}  // namespace
}  // namespace binamg
