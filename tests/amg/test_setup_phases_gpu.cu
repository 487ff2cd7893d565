// GPU setup phases (strength, MIS-2 aggregation, tentative prolongator, the ρ
// estimate) against the CPU versions on the same matrices: identical graphs,
// aggregates and T, and ρ to rounding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "binamg/amg/aggregation.hpp"
#include "binamg/amg/filtered.hpp"
#include "binamg/amg/spectral_radius.hpp"
#include "binamg/amg/strength.hpp"
#include "binamg/amg/tentative.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/sparse/add.hpp"
#include "binamg/sparse/transpose.hpp"
#include "support/gpu.hpp"
#include "support/random_matrix.hpp"
#include "support/same_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class AmgGpuSetup : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(AmgGpuSetup, Precisions);

/// Seeded random symmetric matrix with a dominant diagonal and some isolated nodes.
template <typename T>
CsrMatrix<T> random_symmetric(index_t n, std::uint64_t seed) {
  const auto B = testing::random_matrix<T>({n, n, 3, 0.2, 0, true}, seed);
  CsrMatrix<T> A = add(T(1), B, T(1), transpose(B));
  return add(T(1), A, T(20), identity_matrix<T>(n));
}

template <typename T>
std::vector<CsrMatrix<T>> test_matrices() {
  return {poisson<T>(Stencil::poisson2d_5, 37), poisson<T>(Stencil::poisson2d_9, 20),
          poisson<T>(Stencil::poisson3d_7, 13), poisson<T>(Stencil::poisson3d_27, 9),
          random_symmetric<T>(3000, 5)};
}

TYPED_TEST(AmgGpuSetup, StrengthGraphEqualsCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  for (const auto& A : test_matrices<T>())
    for (double theta : {0.0, 0.1, 0.3}) {
      testing::expect_same_matrix(strength(A, theta), to_host(strength(to_device(A), theta)));
      for (double classical : {theta, 0.5, 0.9})
        for (const StrengthMeasure m :
             {StrengthMeasure::classical, StrengthMeasure::signed_classical}) {
          std::int64_t weak = -1;
          testing::expect_same_matrix(strength(A, classical, m),
                                      to_host(strength(to_device(A), classical, nullptr, m, &weak)));
          EXPECT_EQ(weak, weak_entries(A, classical, m)) << classical;
        }
    }
}

TYPED_TEST(AmgGpuSetup, FilteredMatrixEqualsCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  for (const auto& A : test_matrices<T>())
    for (double theta : {0.0, 0.1, 0.3, 0.9}) {
      testing::expect_same_matrix(filtered_matrix(A, theta),
                                  to_host(filtered_matrix(to_device(A), theta)));
      EXPECT_EQ(weak_entries(A, theta), weak_entries(to_device(A), theta)) << theta;
      for (const StrengthMeasure m :
           {StrengthMeasure::classical, StrengthMeasure::signed_classical}) {
        testing::expect_same_matrix(filtered_matrix(A, theta, m),
                                    to_host(filtered_matrix(to_device(A), theta, nullptr, m)));
        EXPECT_EQ(weak_entries(A, theta, m), weak_entries(to_device(A), theta, nullptr, m))
            << theta;
      }
    }
}

// Scaled far from 1 (the diagonal products overflow or underflow double), the
// graph is still the CPU's (strength_test.hpp is one test for both).
TYPED_TEST(AmgGpuSetup, StrengthGraphOfAScaledMatrixEqualsCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const int exponent = std::is_same_v<T, float> ? 60 : 540;
  for (const int e : {-exponent, exponent}) {
    CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_9, 30);
    for (T& value : A.values) value = std::ldexp(value, e);
    testing::expect_same_matrix(strength(A, 0.3), to_host(strength(to_device(A), 0.3)));
  }
}

// A symmetric pattern whose values differ in a few entries (as rounding makes a
// Galerkin product's a_ij and a_ji differ) leaves a few strong entries without
// a partner: the graph adds their mirror images where they fall in each row,
// on short rows (a lane each) and long ones (several lanes).
TYPED_TEST(AmgGpuSetup, StrengthGraphWithAFewUnpairedEntriesEqualsCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const index_t n = 3000;
  for (const double row_length : {3.0, 20.0}) {
    const CsrMatrix<T> R = testing::random_matrix<T>({n, n, row_length, 0, 0, false}, 17);
    CsrMatrix<T> A = add(T(1), add(T(1), R, T(1), transpose(R)), T(4), identity_matrix<T>(n));
    std::vector<std::pair<index_t, index_t>> weakened;
    for (index_t i = 0; i < n; i += 37)
      for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
        if (A.col_idx[k] != i) {
          A.values[k] *= T(1e-3);  // a_ij weak, a_ji as strong as before
          weakened.push_back({i, A.col_idx[k]});
          break;
        }
    for (const StrengthMeasure m : {StrengthMeasure::symmetric, StrengthMeasure::classical,
                                    StrengthMeasure::signed_classical}) {
      const CsrMatrix<T> expected = strength(A, 0.1, m);
      // (i, j) in the graph although a_ij is weak: the mirror of a strong a_ji.
      int mirrored = 0;
      for (const auto& [i, j] : weakened)
        mirrored += std::count(expected.col_idx.begin() + expected.row_ptr[i],
                               expected.col_idx.begin() + expected.row_ptr[i + 1], j);
      ASSERT_GT(mirrored, 10) << "row length " << row_length;
      testing::expect_same_matrix(expected, to_host(strength(to_device(A), 0.1, nullptr, m)));
    }
  }
}

// A nonsymmetric pattern takes the union path (symmetric ones skip it).
TYPED_TEST(AmgGpuSetup, StrengthGraphOfNonsymmetricMatrixEqualsCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const index_t n = 2000;
  const CsrMatrix<T> A = add(T(1), testing::random_matrix<T>({n, n, 4, 0.1, 0, true}, 9), T(20),
                             identity_matrix<T>(n));
  ASSERT_NE(A.col_idx, transpose(A).col_idx);  // the pattern really is nonsymmetric
  for (double theta : {0.0, 0.2}) {
    std::int64_t weak = -1;
    testing::expect_same_matrix(
        strength(A, theta),
        to_host(strength(to_device(A), theta, nullptr, StrengthMeasure::symmetric, &weak)));
    EXPECT_EQ(weak, weak_entries(A, theta)) << theta;
  }
}

// The power iteration runs in double on both sides and differs only in the
// summation order of row sums and norms. Begun on a side stream
// (SpectralRadiusEstimate), the estimate has the same bits, and the setup's
// stream may free A only after it; the 2D grid of 600² rows has a row sum
// kernel of its own size class.
TYPED_TEST(AmgGpuSetup, SpectralRadiusMatchesCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  std::vector<CsrMatrix<T>> matrices = test_matrices<T>();
  matrices.push_back(poisson<T>(Stencil::poisson2d_5, 600));
  cudaStream_t stream = nullptr, side = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking), cudaSuccess);
  for (const auto& A : matrices)
    for (int iterations : {1, 20}) {
      const double expected = spectral_radius_dinv_a(A, iterations);
      const DeviceCsr<T> device_A = to_device(A);
      const double actual = spectral_radius_dinv_a(device_A, iterations);
      EXPECT_NEAR(actual, expected, 1e-12 * expected)
          << A.rows << " rows, iterations " << iterations;
      EXPECT_EQ(actual, spectral_radius_dinv_a(device_A, diagonal(device_A), iterations));
      DeviceCsr<T> copy = copy_of(device_A, stream);
      auto diag = std::make_unique<DeviceBuffer<T>>(diagonal(copy, stream));
      {
        SpectralRadiusEstimate<T> begun(copy, *diag, iterations, stream, side);
        EXPECT_EQ(begun.wait(), actual) << A.rows << " rows, iterations " << iterations;
      }
      diag.reset();  // freed on `stream`, after the estimate's reads
      copy = DeviceCsr<T>{};
    }
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(side), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TYPED_TEST(AmgGpuSetup, Mis2AggregatesEqualCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  for (const auto& A : test_matrices<T>()) {
    const CsrMatrix<T> S = strength(A, 0.0);
    const Aggregates expected = mis2_aggregation(S);
    const DeviceAggregates actual = mis2_aggregation(to_device(S));
    EXPECT_EQ(actual.count, expected.count);
    EXPECT_EQ(to_host(actual.aggregate_of), expected.aggregate_of);
  }
}

// A grid large enough that the MIS-2 blocks stride over several nodes each and
// passes take many rounds, and random graphs dense enough for 16 and 32 lanes
// per node (the coarse levels' degrees). Graphs of up to 32768 nodes run in
// one cooperative launch, larger ones pass by pass: the 4000-node graphs take
// the first, the grid (373,248 nodes) and the 40,000-node graph the second.
TYPED_TEST(AmgGpuSetup, Mis2AggregatesEqualCpuOnLargeAndDenseGraphs) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  std::vector<CsrMatrix<T>> graphs{strength(poisson<T>(Stencil::poisson3d_7, 72), 0.0)};
  for (auto [rows, row_length] : {std::pair{4000, 60.0}, std::pair{4000, 140.0},
                                  std::pair{40000, 60.0}}) {
    const auto B = testing::random_matrix<T>({rows, rows, row_length, 0.01, 0, false}, 11);
    graphs.push_back(strength(add(T(1), B, T(1), transpose(B)), 0.0));
  }
  for (const auto& S : graphs) {
    const Aggregates expected = mis2_aggregation(S);
    const DeviceAggregates actual = mis2_aggregation(to_device(S));
    EXPECT_EQ(actual.count, expected.count);
    EXPECT_EQ(to_host(actual.aggregate_of), expected.aggregate_of);
  }
}

TYPED_TEST(AmgGpuSetup, TentativeProlongatorEqualsCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  for (const auto& A : test_matrices<T>()) {
    const CsrMatrix<T> S = strength(A, 0.0);
    const Aggregates aggregates = mis2_aggregation(S);
    DeviceAggregates device_aggregates;
    device_aggregates.aggregate_of = to_device(aggregates.aggregate_of);
    device_aggregates.count = aggregates.count;
    testing::expect_same_matrix(tentative_prolongator<T>(aggregates),
                                to_host(tentative_prolongator<T>(device_aggregates)));
    // A coarse level's: node weights of unequal sizes.
    std::vector<index_t> weights(aggregates.aggregate_of.size());
    for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = 1 + index_t(i * 7919 % 13);
    const Tentative<T> expected = tentative_prolongator<T>(aggregates, weights);
    const DeviceTentative<T> actual =
        tentative_prolongator<T>(device_aggregates, to_device(weights));
    testing::expect_same_matrix(expected.P, to_host(actual.P));
    EXPECT_EQ(to_host(actual.coarse_weights), expected.coarse_weights);
  }
}

TYPED_TEST(AmgGpuSetup, TentativeRejectsOutOfRangeAggregate) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  DeviceAggregates bad;
  bad.aggregate_of = to_device(std::vector<index_t>{0, 1, 2});
  bad.count = 2;
  EXPECT_THROW(tentative_prolongator<T>(bad), InvalidInput);
  bad.count = 3;
  EXPECT_THROW(tentative_prolongator<T>(bad, to_device(std::vector<index_t>{1, 0, 1})),
               InvalidInput);
  EXPECT_THROW(tentative_prolongator<T>(bad, to_device(std::vector<index_t>{1, 1})), InvalidInput);
}

}  // namespace
}  // namespace binamg
