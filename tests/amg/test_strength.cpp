// Strength of connection: which off-diagonal entries count, and the graph's shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "binamg/amg/strength.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/sparse/add.hpp"
#include "binamg/sparse/transpose.hpp"
#include "support/anisotropic_poisson.hpp"
#include "support/matrix_of_rows.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class Strength : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Strength, Precisions);

TYPED_TEST(Strength, ThresholdDropsWeakEntries) {
  using T = TypeParam;
  // Diagonal 4 everywhere, so the threshold θ·sqrt(a_ii a_jj) = 4θ = 1 at θ = 0.25:
  // a_01 = -2 is strong, a_02 = -0.5 is weak, a_12 = 1 sits exactly on the threshold (strong).
  const auto A = testing::matrix_of_rows<T>(
      {{{0, 4}, {1, -2}, {2, -0.5}}, {{0, -2}, {1, 4}, {2, 1}}, {{0, -0.5}, {1, 1}, {2, 4}}});
  const auto S = strength(A, 0.25);
  validate(S, "S");
  EXPECT_EQ(S.row_ptr, (std::vector<index_t>{0, 1, 3, 4}));
  EXPECT_EQ(S.col_idx, (std::vector<index_t>{1, 0, 2, 1}));
}

// The classical measure: |a_ij| ≥ θ·min(m_i, m_j), m_i the largest
// off-diagonal magnitude of row i. Row 0's largest is 2 and row 2's is 1, so
// at θ = 0.5 a_02 = -0.5 is strong through row 2 (0.5 ≥ 0.5·1) although it is
// weak for row 0 (0.5 < 0.5·2); a_01 = -2 and a_12 = 1 are strong.
TYPED_TEST(Strength, ClassicalMeasureIsRelativeToTheStrongerRowsLargestEntry) {
  using T = TypeParam;
  const auto A = testing::matrix_of_rows<T>(
      {{{0, 4}, {1, -2}, {2, -0.5}}, {{0, -2}, {1, 4}, {2, 1}}, {{0, -0.5}, {1, 1}, {2, 4}}});
  EXPECT_EQ(strength_scales(A, StrengthMeasure::classical), (std::vector<T>{2, 2, 1}));
  EXPECT_EQ(strength_scales(A, StrengthMeasure::symmetric), (std::vector<T>{4, 4, 4}));
  const auto S = strength(A, 0.5, StrengthMeasure::classical);
  validate(S, "S");
  EXPECT_EQ(S.row_ptr, (std::vector<index_t>{0, 2, 4, 6}));
  EXPECT_EQ(S.col_idx, (std::vector<index_t>{1, 2, 0, 2, 0, 1}));
  const auto weaker = strength(A, 0.6, StrengthMeasure::classical);  // 0.5 < 0.6·1
  EXPECT_EQ(weaker.col_idx, (std::vector<index_t>{1, 0, 2, 1}));
}

// The signed measure: the classical test for couplings of the sign opposite
// to the diagonal's alone. Row 1's a_12 = 1 (positive against a_11 = 4) is
// weak, a_21 = 1 too; row 2 of -A (a negative diagonal) takes its positive
// couplings: the same graph as A's.
TYPED_TEST(Strength, SignedMeasureReadsCouplingsOppositeToTheDiagonal) {
  using T = TypeParam;
  const auto A = testing::matrix_of_rows<T>(
      {{{0, 4}, {1, -2}, {2, -0.5}}, {{0, -2}, {1, 4}, {2, 1}}, {{0, -0.5}, {1, 1}, {2, 4}}});
  EXPECT_EQ(strength_scales(A, StrengthMeasure::signed_classical), (std::vector<T>{2, 2, 1}));
  const auto S = strength(A, 0.5, StrengthMeasure::signed_classical);
  validate(S, "S");
  EXPECT_EQ(S.row_ptr, (std::vector<index_t>{0, 2, 3, 4}));
  EXPECT_EQ(S.col_idx, (std::vector<index_t>{1, 2, 0, 0}));
  CsrMatrix<T> negated = A;
  for (T& v : negated.values) v = -v;
  EXPECT_EQ(strength_scales(negated, StrengthMeasure::signed_classical),
            (std::vector<T>{-2, -2, -1}));
  const auto N = strength(negated, 0.5, StrengthMeasure::signed_classical);
  EXPECT_EQ(N.row_ptr, S.row_ptr);
  EXPECT_EQ(N.col_idx, S.col_idx);
  // On an M-matrix it is the classical measure.
  const auto P = poisson<T>(Stencil::poisson3d_27, 6);
  EXPECT_EQ(strength(P, 0.3, StrengthMeasure::signed_classical).col_idx,
            strength(P, 0.3, StrengthMeasure::classical).col_idx);
}

// Every coupling of an isotropic stencil is strong under the classical
// measure at any θ ≤ 1 (the symmetric one drops the 27-point stencil's at
// θ > 1/26); of an anisotropic one, only the strong direction.
TYPED_TEST(Strength, ClassicalMeasureKeepsIsotropicStencilsAndCutsAnisotropy) {
  using T = TypeParam;
  for (Stencil stencil : {Stencil::poisson2d_5, Stencil::poisson3d_27}) {
    const auto A = poisson<T>(stencil, 8);
    EXPECT_EQ(strength(A, 0.9, StrengthMeasure::classical).nnz(), A.nnz() - A.rows);
  }
  EXPECT_EQ(strength(poisson<T>(Stencil::poisson3d_27, 8), 0.1).nnz(), 0);
  const index_t n = 10;
  const auto A = testing::anisotropic_poisson<T>(n, T(0.01));
  const auto S = strength(A, 0.25, StrengthMeasure::classical);
  for (index_t i = 0; i < S.rows; ++i)
    for (index_t k = S.row_ptr[i]; k < S.row_ptr[i + 1]; ++k)
      EXPECT_EQ(S.col_idx[k] / n, i / n) << "row " << i;  // x neighbours only
  EXPECT_EQ(S.nnz(), 2 * n * (n - 1));
}

TYPED_TEST(Strength, ZeroThresholdKeepsEveryNonzeroOffDiagonal) {
  using T = TypeParam;
  const auto A = poisson<T>(Stencil::poisson2d_5, 6);
  const auto S = strength(A, 0.0);
  EXPECT_EQ(S.nnz(), A.nnz() - A.rows);  // every entry but the diagonal
  for (index_t i = 0; i < S.rows; ++i)
    for (index_t k = S.row_ptr[i]; k < S.row_ptr[i + 1]; ++k) EXPECT_NE(S.col_idx[k], i);
}

TYPED_TEST(Strength, ExplicitZerosAreNotStrong) {
  using T = TypeParam;
  const auto A =
      testing::matrix_of_rows<T>({{{0, 1}, {1, 0}}, {{0, 0}, {1, 1}, {2, -1}}, {{1, -1}, {2, 1}}});
  const auto S = strength(A, 0.0);
  EXPECT_EQ(S.row_ptr, (std::vector<index_t>{0, 0, 1, 2}));
  EXPECT_EQ(S.col_idx, (std::vector<index_t>{2, 1}));
}

TYPED_TEST(Strength, GraphIsSymmetrisedForNonsymmetricInput) {
  using T = TypeParam;
  // A random nonsymmetric pattern plus a unit diagonal, so the threshold is defined.
  const auto A = add(T(1), testing::random_matrix<T>({60, 60, 4, 0.1, 0, false}, 7), T(1),
                     identity_matrix<T>(60));
  const auto S = strength(A, 0.3);
  validate(S, "S");
  const auto St = transpose(S);
  EXPECT_EQ(S.row_ptr, St.row_ptr);
  EXPECT_EQ(S.col_idx, St.col_idx);
  // Every strong directed entry of A is in S.
  const auto diag = diagonal(A);
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      const index_t j = A.col_idx[k];
      const double a = A.values[k];
      if (j == i || a == 0 ||
          std::abs(a) < 0.3 * std::sqrt(std::abs(double(diag[i]) * double(diag[j]))))
        continue;
      EXPECT_TRUE(std::binary_search(S.col_idx.begin() + S.row_ptr[i],
                                     S.col_idx.begin() + S.row_ptr[i + 1], j))
          << "strong entry (" << i << ", " << j << ") missing";
    }
}

// The test compares |a_ij| with θ·√|a_ii·a_jj|: a matrix scaled far from 1 (the
// diagonal product overflowing or underflowing double) has the same graph.
TYPED_TEST(Strength, GraphDoesNotDependOnTheMatrixScale) {
  using T = TypeParam;
  const auto A = poisson<T>(Stencil::poisson2d_9, 12);
  const double theta = 0.3;
  const auto S = strength(A, theta);
  const int exponent = std::is_same_v<T, float> ? 60 : 540;  // 1e±18 or 1e±162
  for (const int e : {-exponent, exponent}) {
    CsrMatrix<T> scaled = A;
    for (T& value : scaled.values) value = std::ldexp(value, e);
    const auto scaled_S = strength(scaled, theta);
    EXPECT_EQ(scaled_S.row_ptr, S.row_ptr) << e;
    EXPECT_EQ(scaled_S.col_idx, S.col_idx) << e;
  }
}

TYPED_TEST(Strength, RejectsNonSquareAndBadThreshold) {
  using T = TypeParam;
  const auto rectangular = testing::random_matrix<T>({5, 7, 2, 0, 0, false}, 3);
  EXPECT_THROW(strength(rectangular, 0.0), InvalidInput);
  const auto A = poisson<T>(Stencil::poisson2d_5, 3);
  EXPECT_THROW(strength(A, -0.1), InvalidInput);
  EXPECT_THROW(strength(A, std::nan("")), InvalidInput);
}

}  // namespace
}  // namespace binamg
