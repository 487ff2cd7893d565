// The GPU vector operations against the CPU ones, and the device-side reductions
// and fused CG updates against the host-synchronised operations they replace in
// pcg: the same bits.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "binamg/vector/block_vector_ops.hpp"
#include "binamg/vector/convert.hpp"
#include "binamg/vector/vector_ops.hpp"
#include "support/gpu.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

// Two columns: a subnormal and a huge entry among ordinary ones, and negatives.
template <typename T>
std::vector<T> x_with_extremes() {
  std::vector<T> x = testing::random_vector<T>(64, 62);
  x[10] = std::numeric_limits<T>::denorm_min();
  x[11] = -std::numeric_limits<T>::max();
  x[20] = T(-7.5);
  return x;
}

template <typename T>
class VectorOpsGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(VectorOpsGpu, Precisions);

const std::size_t lengths[] = {1, 1000, 3000017};

// A device copy of one scalar.
template <typename T>
DeviceBuffer<T> scalar(T value) {
  return to_device(std::vector<T>{value});
}

TYPED_TEST(VectorOpsGpu, DotMatchesCpuAndRepeatsBitwise) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(3000017)}) {
    const auto x = testing::random_vector<T>(n, 31);
    const auto y = testing::random_vector<T>(n, 32);
    const auto dx = to_device(x);
    const auto dy = to_device(y);
    const T first = dot(dx, dy);
    EXPECT_EQ(first, dot(dx, dy)) << "dot is not reproducible at n=" << n;
    // Both sums are of n terms in [-1, 1] in different orders: the difference is
    // bounded by ~n·eps·max|partial sum|; sqrt(n)·eps·(a few) is a loose typical bound,
    // so allow 1e-3 relative to sqrt(n) in float, 1e-11 in double.
    const double scale = std::sqrt(double(n) + 1);
    const double allowed = (std::is_same_v<T, float> ? 1e-3 : 1e-11) * scale;
    EXPECT_NEAR(first, dot(x, y), allowed);
  }
}

TYPED_TEST(VectorOpsGpu, AxpyAndXpbyMatchCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const std::size_t n = 100003;
  const auto x = testing::random_vector<T>(n, 41);
  auto y = testing::random_vector<T>(n, 42);
  auto dx = to_device(x);
  auto dy = to_device(y);
  axpy(T(0.75), dx, dy);
  axpy(T(0.75), x, y);
  xpby(dx, T(-1.5), dy);
  xpby(x, T(-1.5), y);
  const auto result = to_host(dy);
  // Each entry is two fused or unfused multiply-adds: within 2 ulps of ~3.
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_NEAR(result[i], y[i], 8 * std::numeric_limits<T>::epsilon() * 4) << i;
}

TYPED_TEST(VectorOpsGpu, MismatchedLengthsAreRejected) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const auto dx = to_device(testing::random_vector<T>(10, 1));
  const auto dy = to_device(testing::random_vector<T>(11, 2));
  EXPECT_THROW(dot(dx, dy), InvalidInput);
}

TYPED_TEST(VectorOpsGpu, DeviceDotIsTheHostDotBitwise) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  for (std::size_t n : lengths) {
    const auto x = to_device(testing::random_vector<T>(n, 51));
    const auto y = to_device(testing::random_vector<T>(n, 52));
    DeviceBuffer<T> scratch(reduction_scratch_size(static_cast<index_t>(n)));
    DeviceBuffer<T> result(1);
    dot(x, y, result.data(), scratch);
    EXPECT_EQ(to_host(result)[0], dot(x, y)) << "n=" << n;
  }
}

// Out of range the norms are rescued as on the host (the same scaled vector);
// in range norm2 is the root of the device dot, bit for bit. Device and host
// sum in different orders, so they agree to rounding.
TYPED_TEST(VectorOpsGpu, NormsNeitherOverflowNorUnderflowAndMatchTheHost) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const bool is_float = std::is_same_v<T, float>;
  const auto values = testing::random_vector<T>(30011, 61);
  for (const int e : is_float ? std::vector<int>{-100, -60, 0, 60, 120}
                              : std::vector<int>{-1060, -700, 0, 700, 1010}) {
    const std::vector<T> x = scaled_copy(values, 1, {e});
    const DeviceBuffer<T> device_x = to_device(x);
    EXPECT_NEAR(double(norm2(device_x)) / double(norm2(x)), 1.0, is_float ? 1e-5 : 1e-13) << e;
    if (e == 0) EXPECT_EQ(norm2(device_x), std::sqrt(dot(device_x, device_x)));
    const index_t k = 3;  // columns: x, 2^-8·x, 0
    std::vector<T> X(x.size() * k, T(0));
    for (std::size_t i = 0; i < x.size(); ++i) {
      X[i * k] = x[i];
      X[i * k + 1] = std::ldexp(x[i], -8);
    }
    const std::vector<double> host = column_norms(X, k);
    const std::vector<double> device = column_norms(to_device(X), k);
    for (index_t j = 0; j < 2; ++j)
      EXPECT_NEAR(device[j] / host[j], 1.0, is_float ? 1e-5 : 1e-13) << e << " column " << j;
    EXPECT_EQ(device[2], 0.0);
  }
  std::vector<T> with_nan(100, T(1));
  with_nan[3] = std::numeric_limits<T>::quiet_NaN();
  EXPECT_TRUE(std::isnan(norm2(to_device(with_nan))));
  EXPECT_TRUE(std::isnan(column_norms(to_device(with_nan), 1)[0]));
  const std::vector<T> extremes = x_with_extremes<T>();
  EXPECT_EQ(column_max_abs(to_device(extremes), 2), column_max_abs(extremes, 2));
}

// Each column's largest |x| wherever it lies: one long column (more entries
// than the kernel has threads), a few and many columns (past those a block
// gathers in shared memory), and a NaN, which is the largest.
TYPED_TEST(VectorOpsGpu, ColumnMaxAbsIsTheHostsOnEveryShape) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  for (auto [n, k] : {std::pair<std::size_t, index_t>{3000017, 1},
                      {1, 1},
                      {100003, 3},
                      {40, 300},
                      {7, 2049},
                      {5, 4100}}) {
    std::vector<T> X = testing::random_vector<T>(n * k, 84);
    X[n * k - 1] = T(-9);  // the last entry, in the last column
    X[(n / 2) * k] = T(-7);
    const std::vector<T> expected = column_max_abs(X, k);
    EXPECT_EQ(column_max_abs(to_device(X), k), expected) << n << " x " << k;
    X[(n / 3) * k + k / 2] = std::numeric_limits<T>::quiet_NaN();
    EXPECT_TRUE(std::isnan(column_max_abs(to_device(X), k)[k / 2])) << n << " x " << k;
  }
}

TYPED_TEST(VectorOpsGpu, CgResidualUpdateIsAnAxpyAndADotBitwise) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  for (std::size_t n : lengths) {
    const auto q = to_device(testing::random_vector<T>(n, 62));
    const std::vector<T> r0 = testing::random_vector<T>(n, 64);
    const T rz = T(0.8125), pq = T(1.3);
    // The host-synchronised step of pcg.
    auto r_expected = to_device(r0);
    axpy(-static_cast<T>(double(rz) / double(pq)), q, r_expected);
    const T rr_expected = dot(r_expected, r_expected);
    // The fused step on device scalars.
    auto r = to_device(r0);
    const auto device_rz = scalar(rz), device_pq = scalar(pq);
    DeviceBuffer<T> rr(1), scratch(reduction_scratch_size(static_cast<index_t>(n)));
    cg_residual_update(device_rz.data(), device_pq.data(), q, r, rr.data(), scratch);
    EXPECT_EQ(to_host(r), to_host(r_expected)) << "n=" << n;
    EXPECT_EQ(to_host(rr)[0], rr_expected) << "n=" << n;
  }
}

// x's deferred step and the next direction in one pass, and the last step alone.
TYPED_TEST(VectorOpsGpu, CgDirectionIsAnAxpyThenXpbyBitwise) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const std::size_t n = 100003;
  const auto z = to_device(testing::random_vector<T>(n, 71));
  const std::vector<T> p0 = testing::random_vector<T>(n, 72);
  const std::vector<T> x0 = testing::random_vector<T>(n, 73);
  const T rz_next = T(0.37), rz = T(0.91), pq = T(1.7);
  auto p_expected = to_device(p0), x_expected = to_device(x0);
  axpy(static_cast<T>(double(rz) / double(pq)), p_expected, x_expected);
  xpby(z, static_cast<T>(double(rz_next) / double(rz)), p_expected);
  auto p = to_device(p0), x = to_device(x0);
  const auto device_next = scalar(rz_next), device_rz = scalar(rz), device_pq = scalar(pq);
  cg_direction(device_next.data(), device_rz.data(), device_pq.data(), z, p, x);
  EXPECT_EQ(to_host(p), to_host(p_expected));
  EXPECT_EQ(to_host(x), to_host(x_expected));

  auto x_last_expected = to_device(x0), x_last = to_device(x0);
  const auto p_last = to_device(p0);
  axpy(static_cast<T>(double(rz) / double(pq)), p_last, x_last_expected);
  cg_last_step(device_rz.data(), device_pq.data(), p_last, x_last);
  EXPECT_EQ(to_host(x_last), to_host(x_last_expected));
  EXPECT_EQ(to_host(p_last), p0);
}

// The mixed CG's widened correction and its rᵀz: convert, then dot, bitwise.
TEST(VectorOpsGpuMixed, WidenWithDotIsConvertThenDotBitwise) {
  BINAMG_REQUIRE_GPU();
  for (std::size_t n : lengths) {
    const auto z_float = to_device(testing::random_vector<float>(n, 81));
    const auto r = to_device(testing::random_vector<double>(n, 82));
    DeviceBuffer<double> z_expected(n), z(n), rz(1);
    convert(z_float, z_expected);
    const double rz_expected = dot(r, z_expected);
    DeviceBuffer<double> scratch(reduction_scratch_size(static_cast<index_t>(n)));
    widen_with_dot(z_float, z, r, rz.data(), scratch);
    EXPECT_EQ(to_host(z), to_host(z_expected)) << "n=" << n;
    EXPECT_EQ(to_host(rz)[0], rz_expected) << "n=" << n;
  }
  DeviceBuffer<float> short_z(3);
  DeviceBuffer<double> z(4), r(4), rz(1), scratch(8);
  EXPECT_THROW(widen_with_dot(short_z, z, r, rz.data(), scratch), InvalidInput);
}

TYPED_TEST(VectorOpsGpu, TooSmallScratchIsRejected) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const auto x = to_device(testing::random_vector<T>(1000000, 81));
  DeviceBuffer<T> scratch(1), result(1);
  EXPECT_THROW(dot(x, x, result.data(), scratch), InvalidInput);
}

}  // namespace
}  // namespace binamg
