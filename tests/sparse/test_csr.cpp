// CSR validation: a broken invariant is named with its row.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "binamg/sparse/csr.hpp"

namespace binamg {
namespace {

template <typename T>
class Csr : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Csr, Precisions);

TYPED_TEST(Csr, ValidateNamesTheBadRow) {
  using T = TypeParam;
  CsrMatrix<T> A = identity_matrix<T>(4);
  A.col_idx = {0, 2, 1, 3};
  A.row_ptr = {0, 1, 3, 3, 4};  // row 1 has columns 2 then 1: unsorted
  try {
    validate(A, "A");
    FAIL() << "unsorted row accepted";
  } catch (const InvalidInput& error) {
    EXPECT_NE(std::string(error.what()).find("row 1"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace binamg
