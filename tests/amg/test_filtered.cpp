// The filtered matrix: strong entries kept, weak ones lumped into the diagonal.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "binamg/amg/filtered.hpp"
#include "binamg/amg/strength.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/sparse/add.hpp"
#include "binamg/sparse/transpose.hpp"
#include "support/matrix_of_rows.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class Filtered : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Filtered, Precisions);

TYPED_TEST(Filtered, WeakEntriesAreLumpedIntoTheDiagonal) {
  using T = TypeParam;
  // Diagonal 4: at θ = 0.25 an entry is strong from |a_ij| >= 1.
  const auto A = testing::matrix_of_rows<T>(
      {{{0, 4}, {1, -2}, {2, -0.5}}, {{0, -2}, {1, 4}, {2, 1}}, {{0, -0.5}, {1, 1}, {2, 4}}});
  const CsrMatrix<T> F = filtered_matrix(A, 0.25);
  validate(F, "filtered");
  EXPECT_EQ(F.row_ptr, (std::vector<index_t>{0, 2, 5, 7}));
  EXPECT_EQ(F.col_idx, (std::vector<index_t>{0, 1, 0, 1, 2, 1, 2}));
  EXPECT_EQ(F.values, (std::vector<T>{T(3.5), T(-2), T(-2), T(4), T(1), T(1), T(3.5)}));
  EXPECT_EQ(weak_entries(A, 0.25), 2);
  EXPECT_EQ(weak_entries(A, 0.0), 0);
}

// The classical measure decides the same entries in the filtered matrix as
// in the strength graph: a_02 is strong through row 2 (see test_strength.cpp).
TYPED_TEST(Filtered, ClassicalMeasureKeepsWhatTheStrengthGraphKeeps) {
  using T = TypeParam;
  const auto A = testing::matrix_of_rows<T>(
      {{{0, 4}, {1, -2}, {2, -0.5}}, {{0, -2}, {1, 4}, {2, 1}}, {{0, -0.5}, {1, 1}, {2, 4}}});
  EXPECT_EQ(filtered_matrix(A, 0.5, StrengthMeasure::classical).values, A.values);
  EXPECT_EQ(weak_entries(A, 0.5, StrengthMeasure::classical), 0);
  const CsrMatrix<T> F = filtered_matrix(A, 0.6, StrengthMeasure::classical);
  EXPECT_EQ(F.col_idx, (std::vector<index_t>{0, 1, 0, 1, 2, 1, 2}));
  EXPECT_EQ(F.values, (std::vector<T>{T(3.5), T(-2), T(-2), T(4), T(1), T(1), T(3.5)}));
  EXPECT_EQ(weak_entries(A, 0.6, StrengthMeasure::classical), 2);
  for (double theta : {0.1, 0.3, 0.7}) {
    const CsrMatrix<T> R = testing::random_matrix<T>({200, 200, 6, 0.2, 0, true}, 3);
    const CsrMatrix<T> B =
        add(T(1), add(T(1), R, T(1), transpose(R)), T(20), identity_matrix<T>(200));
    const CsrMatrix<T> S = strength(B, theta, StrengthMeasure::classical);
    EXPECT_EQ(weak_entries(B, theta, StrengthMeasure::classical), B.nnz() - B.rows - S.nnz())
        << theta;
  }
}

// strength() counts the weak entries the setup would otherwise count with
// weak_entries(): the same number, including a nonsymmetric matrix's, whose
// graph (S ∪ Sᵀ) holds mirrors of weak entries.
TYPED_TEST(Filtered, StrengthCountsTheWeakEntries) {
  using T = TypeParam;
  const CsrMatrix<T> R = testing::random_matrix<T>({300, 300, 7, 0.3, 0, false}, 11);
  const CsrMatrix<T> A = add(T(1), R, T(30), identity_matrix<T>(300));
  for (double theta : {0.0, 0.1, 0.3, 0.7})
    for (StrengthMeasure m : {StrengthMeasure::symmetric, StrengthMeasure::classical,
                              StrengthMeasure::signed_classical}) {
      std::int64_t weak = -1;
      strength(A, theta, m, &weak);
      EXPECT_EQ(weak, weak_entries(A, theta, m)) << theta;
    }
  std::int64_t weak = -1;
  strength(poisson<T>(Stencil::poisson2d_5, 9), 0.25, StrengthMeasure::classical, &weak);
  EXPECT_EQ(weak, 0);
}

// Row sums are kept, except in rows whose lumped diagonal would fall to a
// residue (interior rows of the 27-point stencil once nothing is strong).
TYPED_TEST(Filtered, RowSumsAreKept) {
  using T = TypeParam;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson3d_27, 6);  // a_ii = 26, a_ij = -1
  for (double theta : {0.0, 0.02, 0.5}) {
    const CsrMatrix<T> F = filtered_matrix(A, theta);
    validate(F, "filtered");
    const CsrMatrix<T> S = strength(A, theta);
    EXPECT_EQ(F.nnz(), S.nnz() + A.rows) << theta;  // strong entries and the diagonal
    for (index_t i = 0; i < A.rows; ++i) {
      double a_sum = 0, f_sum = 0;
      for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) a_sum += A.values[k];
      for (index_t k = F.row_ptr[i]; k < F.row_ptr[i + 1]; ++k) f_sum += F.values[k];
      if (F.row_ptr[i + 1] - F.row_ptr[i] == 1 && std::abs(a_sum) < 1e-3)
        EXPECT_EQ(F.values[F.row_ptr[i]], T(26)) << "theta " << theta << " row " << i;
      else
        EXPECT_NEAR(f_sum, a_sum, 1e-5) << "theta " << theta << " row " << i;
    }
  }
}

// A row with nothing strong that sums to zero would lump to a rounding
// residue: it keeps a_ii instead.
TYPED_TEST(Filtered, RowWithoutStrongNeighboursKeepsItsDiagonal) {
  using T = TypeParam;
  const auto A = testing::matrix_of_rows<T>(
      {{{0, 1}, {1, -0.5}, {2, -0.5}}, {{0, -0.5}, {1, 4}}, {{0, -0.5}, {2, 4}}});
  const CsrMatrix<T> F = filtered_matrix(A, 0.9);  // nothing is strong
  EXPECT_EQ(F.col_idx, (std::vector<index_t>{0, 1, 2}));
  EXPECT_EQ(F.values, (std::vector<T>{T(1), T(3.5), T(3.5)}));
}

// The setup smooths with A and its own ρ when the filtered matrix dropped no
// entry: that is exact only because such an A_F is A, bit for bit.
TYPED_TEST(Filtered, NothingWeakLeavesTheMatrixAsItIs) {
  using T = TypeParam;
  for (Stencil stencil : {Stencil::poisson2d_5, Stencil::poisson3d_27}) {
    const CsrMatrix<T> A = poisson<T>(stencil, 6);
    const CsrMatrix<T> F = filtered_matrix(A, 0.03);  // 5-pt: 1/4, 27-pt: 1/26 are strong
    EXPECT_EQ(weak_entries(A, 0.03), 0);
    EXPECT_EQ(F.row_ptr, A.row_ptr);
    EXPECT_EQ(F.col_idx, A.col_idx);
    EXPECT_EQ(F.values, A.values);
  }
}

TYPED_TEST(Filtered, RejectsBadInput) {
  using T = TypeParam;
  EXPECT_THROW(filtered_matrix(testing::random_matrix<T>({3, 4, 2, 0, 0, false}, 1), 0.1),
               InvalidInput);
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_5, 4);
  EXPECT_THROW(filtered_matrix(A, -0.1), InvalidInput);
  EXPECT_THROW(filtered_matrix(A, std::numeric_limits<double>::quiet_NaN()), InvalidInput);
  CsrMatrix<T> no_diagonal = A;
  no_diagonal.values[0] = T(0);  // row 0's diagonal entry
  EXPECT_THROW(filtered_matrix(no_diagonal, 0.1), InvalidInput);
}

}  // namespace
}  // namespace binamg
