// validate(DeviceCsr) against validate(CsrMatrix): the same verdict and the
// same message on every broken invariant, found without the host reading A.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "binamg/sparse/csr.hpp"
#include "binamg/sparse/device_csr.hpp"
#include "support/gpu.hpp"
#include "support/message_of.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class CsrGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CsrGpu, Precisions);

// A 4 x 5 matrix with rows {0, 2}, {1, 3, 4}, {}, {2}, then `edit` applied.
template <typename T, typename Edit>
CsrMatrix<T> edited(Edit&& edit) {
  CsrMatrix<T> A;
  A.rows = 4;
  A.cols = 5;
  A.row_ptr = {0, 2, 5, 5, 6};
  A.col_idx = {0, 2, 1, 3, 4, 2};
  A.values = {T(1), T(2), T(3), T(4), T(5), T(6)};
  edit(A);
  return A;
}

TYPED_TEST(CsrGpu, ValidateMatchesTheHostsMessages) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  using M = CsrMatrix<T>;
  const T inf = std::numeric_limits<T>::infinity();
  const std::vector<M> cases = {
      edited<T>([](M&) {}),                        // valid
      edited<T>([](M& A) { A.col_idx[3] = 1; }),   // row 1: duplicate column
      edited<T>([](M& A) { A.col_idx[0] = 3; }),   // row 0: unsorted
      edited<T>([](M& A) { A.col_idx[5] = 5; }),   // row 3: column out of range
      edited<T>([](M& A) { A.col_idx[2] = -1; }),  // row 1: negative column
      edited<T>([inf](M& A) { A.values[4] = inf; }),  // row 1: Inf
      edited<T>([](M& A) { A.values[5] = std::numeric_limits<T>::quiet_NaN(); }),  // row 3: NaN
      edited<T>([](M& A) {
        A.row_ptr = {0, 5, 2, 5, 6};
      }),  // row 1: decreasing offsets
      edited<T>([](M& A) {
        A.row_ptr = {1, 2, 5, 5, 6};
      }),  // offsets not from 0
      edited<T>([](M& A) {
        A.row_ptr = {0, 2, 5, 5, 5};
      }),  // offsets end before nnz
      edited<T>([](M& A) {
        A.row_ptr = {0, 2, 9, 5, 6};
      }),  // an offset past nnz
  };
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const std::string host = testing::message_of([&] { validate(cases[c], "A"); });
    const DeviceCsr<T> device = to_device(cases[c]);
    EXPECT_EQ(testing::message_of([&] { validate(device, "A"); }), host) << "case " << c;
    EXPECT_EQ(host == "(no error)", c == 0) << host;
  }
}

TYPED_TEST(CsrGpu, ValidateAcceptsValidMatrices) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const testing::RandomMatrixShape shapes[] = {
      {300, 200, 5, 0.2, 2, false}, {1000, 3000, 8, 0.1, 0, true}, {50, 40, 0, 1.0, 0, false}};
  std::uint64_t seed = 5;
  for (const auto& shape : shapes) {
    const auto A = testing::random_matrix<T>(shape, seed++);
    EXPECT_NO_THROW(validate(to_device(A), "A"));
  }
}

}  // namespace
}  // namespace binamg
