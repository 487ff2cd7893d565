#pragma once
// A device matrix's SpMV and residual brought home, and a bitwise comparison:
// the checks that a storage of the same matrix (packed columns, coded values)
// gives the row kernels' bits.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "binamg/sparse/device_csr.hpp"
#include "binamg/spmv/spmv.hpp"

namespace binamg::testing {

template <typename T>
std::vector<T> spmv_of(const DeviceCsr<T>& A, const DeviceBuffer<T>& x) {
  DeviceBuffer<T> y(A.rows);
  spmv(A, x.data(), y.data());
  return to_host(y);
}

template <typename T>
std::vector<T> residual_of(const DeviceCsr<T>& A, const DeviceBuffer<T>& x,
                           const DeviceBuffer<T>& b) {
  DeviceBuffer<T> r(A.rows);
  residual(A, x.data(), b.data(), r.data());
  return to_host(r);
}

template <typename T>
void expect_same_bits(const std::vector<T>& a, const std::vector<T>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), sizeof(T) * a.size())) << what;
}

}  // namespace binamg::testing
