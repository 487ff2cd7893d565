// A product's values refilled on its kept pattern (spgemm_refill) against
// spgemm of the new values: the same bits wherever spgemm's path sums in A's
// row order.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/problems/scaled.hpp"
#include "binamg/sparse/device_csr.hpp"
#include "binamg/spgemm/refill.hpp"
#include "binamg/spgemm/spgemm.hpp"
#include "support/gpu.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class RefillGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RefillGpu, Precisions);

// The same pattern, other values: each value times 1 + sin(entry), some negated.
template <typename T>
CsrMatrix<T> revalued(CsrMatrix<T> M) {
  for (std::size_t k = 0; k < M.values.size(); ++k)
    M.values[k] *= T((k % 7 == 3 ? -1 : 1) * (1 + 0.5 * std::sin(double(k))));
  return M;
}

// C = A·B formed whole, then refilled from A' and B' (new values on A's and
// B's patterns), against spgemm(A', B'). Returns whether the path summed in
// row order (only then are the bits compared).
template <typename T>
bool expect_refills_equal_spgemm(const CsrMatrix<T>& A, const CsrMatrix<T>& B) {
  const DeviceCsr<T> dA = to_device(A), dB = to_device(B);
  SpgemmReport report;
  const DeviceCsr<T> C = spgemm(dA, dB, nullptr, &report);
  if (!sums_in_row_order(report.path)) return false;
  const DeviceCsr<T> nA = to_device(revalued(A)), nB = to_device(revalued(B));
  const CsrMatrix<T> expected = to_host(spgemm(nA, nB));
  DeviceCsr<T> refilled = copy_of(C);
  spgemm_refill(nA, nB, refilled, entry_rows(refilled));
  const CsrMatrix<T> actual = to_host(refilled);
  EXPECT_EQ(actual.col_idx, expected.col_idx);
  EXPECT_EQ(actual.values, expected.values) << "path " << path_name(report.path);
  return true;
}

TYPED_TEST(RefillGpu, GivesSpgemmsBitsOnItsPattern) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  int compared = 0;
  // Random shapes: short rows, empty rows, a few dense rows (long rows of C).
  const testing::RandomMatrixShape shapes[][2] = {
      {{400, 300, 6, 0.1, 0, false}, {300, 500, 5, 0.1, 0, false}},
      {{200, 200, 20, 0, 2, false}, {200, 200, 20, 0, 0, false}},
      {{1000, 800, 4, 0.2, 0, true}, {800, 600, 3, 0, 0, true}},
  };
  std::uint64_t seed = 40;
  for (const auto& pair : shapes) {
    const auto A = testing::random_matrix<T>(pair[0], seed++);
    const auto B = testing::random_matrix<T>(pair[1], seed++);
    compared += expect_refills_equal_spgemm(A, B);
  }
  // A hierarchy's products, fine to coarse: A·P and R·(A·P) on every level.
  const auto hierarchy = build_hierarchy(poisson<T>(Stencil::poisson3d_27, 20));
  for (const auto& level : hierarchy.levels) {
    const CsrMatrix<T> AP = spgemm(level.A, level.P);
    compared += expect_refills_equal_spgemm(level.A, level.P);
    compared += expect_refills_equal_spgemm(level.R, AP);
  }
  EXPECT_GE(compared, 5);  // most products take a row-order path
}

}  // namespace
}  // namespace binamg
