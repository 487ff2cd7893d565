// The GPU vector operations against the CPU ones, and the device-side reductions
// and fused CG updates against the host-synchronised operations they replace in
// pcg: the same bits.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "binamg/vector/block_vector_ops.hpp"
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

TYPED_TEST(VectorOpsGpu, CgUpdateIsTwoAxpysAndADotBitwise) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  for (std::size_t n : lengths) {
    const auto p = to_device(testing::random_vector<T>(n, 61));
    const auto q = to_device(testing::random_vector<T>(n, 62));
    const std::vector<T> x0 = testing::random_vector<T>(n, 63);
    const std::vector<T> r0 = testing::random_vector<T>(n, 64);
    const T rz = T(0.8125), pq = T(1.3);
    // The host-synchronised step of pcg.
    auto x_expected = to_device(x0), r_expected = to_device(r0);
    const T alpha = static_cast<T>(double(rz) / double(pq));
    axpy(alpha, p, x_expected);
    axpy(-alpha, q, r_expected);
    const T rr_expected = dot(r_expected, r_expected);
    // The fused step on device scalars.
    auto x = to_device(x0), r = to_device(r0);
    const auto device_rz = scalar(rz), device_pq = scalar(pq);
    DeviceBuffer<T> rr(1), scratch(reduction_scratch_size(static_cast<index_t>(n)));
    cg_update(device_rz.data(), device_pq.data(), p, q, x, r, rr.data(), scratch);
    EXPECT_EQ(to_host(x), to_host(x_expected)) << "n=" << n;
    EXPECT_EQ(to_host(r), to_host(r_expected)) << "n=" << n;
    EXPECT_EQ(to_host(rr)[0], rr_expected) << "n=" << n;
  }
}

TYPED_TEST(VectorOpsGpu, CgDirectionIsXpbyBitwise) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const std::size_t n = 100003;
  const auto z = to_device(testing::random_vector<T>(n, 71));
  const std::vector<T> p0 = testing::random_vector<T>(n, 72);
  const T rz_next = T(0.37), rz = T(0.91);
  auto expected = to_device(p0);
  xpby(z, static_cast<T>(double(rz_next) / double(rz)), expected);
  auto p = to_device(p0);
  const auto device_next = scalar(rz_next), device_rz = scalar(rz);
  cg_direction(device_next.data(), device_rz.data(), z, p);
  EXPECT_EQ(to_host(p), to_host(expected));
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
