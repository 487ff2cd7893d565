// find_asymmetry: the first pair A_ij ≠ A_ji beyond rounding, or none.
#include <gtest/gtest.h>

#include "binamg/problems/poisson.hpp"
#include "binamg/sparse/add.hpp"
#include "binamg/sparse/symmetry.hpp"
#include "binamg/sparse/transpose.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class Symmetry : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Symmetry, Precisions);

TYPED_TEST(Symmetry, SymmetricMatricesHaveNone) {
  using T = TypeParam;
  EXPECT_FALSE(find_asymmetry(poisson<T>(Stencil::poisson3d_27, 6)).has_value());
  const auto R = testing::random_matrix<T>({60, 60, 5, 0, 0, false}, 2);
  EXPECT_FALSE(find_asymmetry(add(T(1), R, T(1), transpose(R))).has_value());
}

// Upwind convection makes A(i, i+1) ≠ A(i+1, i): the first such pair in row
// order is named with both values.
TYPED_TEST(Symmetry, NamesTheFirstUnequalPair) {
  using T = TypeParam;
  CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_5, 5);
  // A(7, 8) = -1.5 (row 7's entry in column 8), A(8, 7) stays -1.
  for (index_t k = A.row_ptr[7]; k < A.row_ptr[8]; ++k)
    if (A.col_idx[k] == 8) A.values[k] = T(-1.5);
  const auto asymmetry = find_asymmetry(A);
  ASSERT_TRUE(asymmetry.has_value());
  EXPECT_EQ(asymmetry->row, 7);
  EXPECT_EQ(asymmetry->col, 8);
  EXPECT_EQ(asymmetry->value, -1.5);
  EXPECT_EQ(asymmetry->transposed, -1.0);
  // A stored entry with no mirror at all is a difference too.
  const auto R = testing::random_matrix<T>({30, 30, 3, 0, 0, false}, 4);
  EXPECT_TRUE(find_asymmetry(R).has_value());
  EXPECT_THROW(find_asymmetry(testing::random_matrix<T>({3, 4, 2, 0, 0, false}, 1)), InvalidInput);
}

}  // namespace
}  // namespace binamg
