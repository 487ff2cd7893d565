#pragma once
// GoogleTest check that two CSR matrices are the same, bit for bit.
#include <gtest/gtest.h>

#include <string>

#include "binamg/sparse/csr.hpp"

namespace binamg::testing {

/// Same shape, pattern and value bits; `what` names the case in a failure.
template <typename T>
void expect_same_matrix(const CsrMatrix<T>& expected, const CsrMatrix<T>& actual,
                        const std::string& what = "") {
  EXPECT_EQ(expected.rows, actual.rows) << what;
  EXPECT_EQ(expected.cols, actual.cols) << what;
  EXPECT_EQ(expected.row_ptr, actual.row_ptr) << what;
  EXPECT_EQ(expected.col_idx, actual.col_idx) << what;
  EXPECT_EQ(expected.values, actual.values) << what;
}

}  // namespace binamg::testing
