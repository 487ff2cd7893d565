// The GPU coarsest-level solve against the CPU's CoarseSolver on the same matrix:
// vector and multi-RHS solves agree with it to rounding, and every column of a
// multi-RHS solve has exactly the bits of the vector solve of that column.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "binamg/amg/coarse_solve.hpp"
#include "binamg/core/device_buffer.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/sparse/add.hpp"
#include "support/gpu.hpp"
#include "support/neumann_laplacian.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class CoarseSolveGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CoarseSolveGpu, Precisions);

// 289 rows, about the 128³ hierarchy's coarsest level (285 rows).
template <typename T>
CsrMatrix<T> coarse_matrix() {
  return poisson<T>(Stencil::poisson2d_5, 17);
}

// max_i |x_gpu,i − x_cpu,i| / max_i (|A⁻¹||b|)_i for one right-hand side. Both
// start from the same double factorisation. The GPU rounds A⁻¹ to T (half an ulp
// per entry) and sums 289 products in T along a fixed tree (10 fmas per lane, 5
// shuffle adds): at most ~16 ulps of T of |A⁻¹||b|. The CPU solves in double and
// rounds x once; for double the two double computations (triangular solves of b
// against a product with the inverse formed by the GPU's triangular solves of
// the same factors) differ by a few ulps times
// cond(A) ≈ 130, so the bound is 32 ulps of T plus 1000 ulps of double.
template <typename T>
double solve_tolerance() {
  return 32 * std::numeric_limits<T>::epsilon() + 1000 * std::numeric_limits<double>::epsilon();
}

// A⁻¹ row-major, column by column through the CPU solver (the scale of the checks).
template <typename T>
std::vector<T> inverse_of(const CoarseSolver<T>& solver) {
  const index_t n = solver.rows();
  std::vector<T> inverse(std::size_t(n) * n), unit(n, T(0)), column;
  for (index_t j = 0; j < n; ++j) {
    unit[j] = T(1);
    solver.solve(unit, column);
    unit[j] = T(0);
    for (index_t i = 0; i < n; ++i) inverse[std::size_t(i) * n + j] = column[i];
  }
  return inverse;
}

template <typename T>
double scaled_difference(const std::vector<T>& inverse, const std::vector<T>& b,
                         const std::vector<T>& expected, const std::vector<T>& actual) {
  const std::size_t n = b.size();
  double difference = 0, scale = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double magnitude = 0;
    for (std::size_t j = 0; j < n; ++j) magnitude += std::abs(double(inverse[i * n + j]) * b[j]);
    scale = std::max(scale, magnitude);
    difference = std::max(difference, std::abs(double(expected[i]) - double(actual[i])));
  }
  return difference / scale;
}

// The GPU's vector solve of A against the CPU's, both factored by `method`;
// the GPU's factor(DeviceCsr) when `from_device`.
template <typename T>
void expect_vector_solve_matches_cpu(const CsrMatrix<T>& A, const std::string& method,
                                     std::uint64_t seed, bool from_device = false) {
  CoarseSolver<T> cpu;
  cpu.factor(A);
  ASSERT_EQ(cpu.method(), method);
  DeviceCoarseSolver<T> gpu;
  if (from_device)
    gpu.factor(to_device(A));
  else
    gpu.factor(A);
  EXPECT_EQ(gpu.method(), "dense-inverse(" + method + ")");
  const std::vector<T> b = testing::random_vector<T>(A.rows, seed);
  std::vector<T> expected;
  cpu.solve(b, expected);
  const DeviceBuffer<T> b_device = to_device(b);
  DeviceBuffer<T> x_device(A.rows);
  gpu.solve(b_device.data(), x_device.data());
  EXPECT_LE(scaled_difference(inverse_of(cpu), b, expected, to_host(x_device)),
            solve_tolerance<T>());
}

TYPED_TEST(CoarseSolveGpu, VectorSolveMatchesTheCpu) {
  BINAMG_REQUIRE_GPU();
  expect_vector_solve_matches_cpu(coarse_matrix<TypeParam>(), "dense-llt", 21);
}

// A nonsymmetric matrix takes LU with partial pivoting: the inverse is formed
// from both triangles of Eigen's packed LU, read by columns, and its
// permutation (LLT's U is read from a transposed copy instead). 77 rows: the
// last block of 32 rows ends part-way.
TYPED_TEST(CoarseSolveGpu, NonsymmetricMatrixTakesLuAndMatchesTheCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> A = add(T(1), testing::random_matrix<T>({77, 77, 6, 0, 0, false}, 5), T(8),
                             identity_matrix<T>(77));
  expect_vector_solve_matches_cpu(A, "dense-lu", 23);
}

TYPED_TEST(CoarseSolveGpu, BlockSolveColumnsEqualVectorSolvesAndMatchTheCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> A = coarse_matrix<T>();
  const index_t n = A.rows;
  CoarseSolver<T> cpu;
  cpu.factor(A);
  const std::vector<T> inverse = inverse_of(cpu);
  DeviceCoarseSolver<T> gpu;
  gpu.factor(A);
  // 1 (the vector path through the block API), 8 (one full chunk of columns),
  // 19 (chunks of 8, 8 and 3).
  for (index_t k : {1, 8, 19}) {
    const std::vector<T> B = testing::random_vector<T>(std::size_t(n) * k, 30 + k);
    std::vector<T> expected;
    cpu.solve(B, k, expected);
    const DeviceBuffer<T> B_device = to_device(B);
    DeviceBuffer<T> X_device(std::size_t(n) * k);
    gpu.solve(B_device.data(), k, X_device.data());
    const std::vector<T> X = to_host(X_device);
    for (index_t j = 0; j < k; ++j) {
      const std::vector<T> b = testing::column_of(B, k, j);
      const DeviceBuffer<T> b_device = to_device(b);
      DeviceBuffer<T> x_device(n);
      gpu.solve(b_device.data(), x_device.data());
      EXPECT_EQ(testing::column_of(X, k, j), to_host(x_device)) << "k = " << k << ", column " << j;
      EXPECT_LE(scaled_difference(inverse, b, testing::column_of(expected, k, j), testing::column_of(X, k, j)),
                solve_tolerance<T>())
          << "k = " << k << ", column " << j;
    }
  }
}

// A matrix on the device: the common case (symmetric, no small pivot) is
// inverted there by sweeps of 32 pivots; 25, 64, 289 and 841 rows give one
// partial block, two whole ones, nine and a row, and 26 and a part. The solve
// agrees with the CPU's (Eigen's Cholesky rounds otherwise, within the same
// bound), and a second inversion gives the same bits.
TYPED_TEST(CoarseSolveGpu, DeviceMatrixIsInvertedOnTheDeviceAndMatchesTheCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  for (index_t side : {5, 8, 17, 29}) {
    const CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_5, side);
    CoarseSolver<T> cpu;
    cpu.factor(A);
    const DeviceCsr<T> A_device = to_device(A);
    DeviceCoarseSolver<T> gpu, again;
    gpu.factor(A_device);
    again.factor(A_device);
    EXPECT_EQ(gpu.method(), "dense-inverse(sweep)");
    EXPECT_EQ(gpu.nullity(), 0);
    const std::vector<T> b = testing::random_vector<T>(A.rows, 40 + side);
    std::vector<T> expected;
    cpu.solve(b, expected);
    const DeviceBuffer<T> b_device = to_device(b);
    DeviceBuffer<T> x(A.rows), x_again(A.rows);
    gpu.solve(b_device.data(), x.data());
    again.solve(b_device.data(), x_again.data());
    EXPECT_LE(scaled_difference(inverse_of(cpu), b, expected, to_host(x)), solve_tolerance<T>())
        << A.rows << " rows";
    EXPECT_EQ(to_host(x), to_host(x_again)) << A.rows << " rows";
  }
}

// Pivots below n·ε_T·scale (a scale at which a Galerkin product's rounding
// could hide a null direction) ask whether A is singular. This Laplacian's
// Cholesky pivots lie in [2, 4] and its λ_min is 8·sin²(π/42) = 0.045: at
// ε_T·scale = 0.02 every pivot is small, but 1/‖A⁻¹‖_∞ = 0.031 shows λ_min
// above the host's cut, so the device keeps its inverse, as the host's
// eigenvalue test keeps its Cholesky factor. At ε_T·scale = 0.5 the inverse
// cannot tell, and the host decides (its eigenvalues below 0.5 count as null).
TYPED_TEST(CoarseSolveGpu, SmallPivotsOfAMatrixFarFromSingularStayOnTheDevice) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> A = poisson<T>(Stencil::poisson2d_5, 20);
  const double epsilon = std::numeric_limits<T>::epsilon();
  const double scale = 0.02 / epsilon;
  CoarseSolver<T> cpu;
  cpu.factor(A, scale);
  ASSERT_EQ(cpu.method(), "dense-llt");
  DeviceCoarseSolver<T> gpu;
  gpu.factor(to_device(A), scale);
  EXPECT_EQ(gpu.method(), "dense-inverse(sweep)");
  const std::vector<T> b = testing::random_vector<T>(A.rows, 61);
  std::vector<T> expected;
  cpu.solve(b, expected);
  const DeviceBuffer<T> b_device = to_device(b);
  DeviceBuffer<T> x(A.rows);
  gpu.solve(b_device.data(), x.data());
  EXPECT_LE(scaled_difference(inverse_of(cpu), b, expected, to_host(x)), solve_tolerance<T>());

  gpu.factor(to_device(A), 0.5 / epsilon);
  EXPECT_EQ(gpu.method(), "dense-inverse(dense-pinv)");
}

// The sweeps keep A⁻¹ exactly symmetric: x = A⁻¹e_i is row i of it, so
// x_j = (A⁻¹e_j)_i bit for bit.
TYPED_TEST(CoarseSolveGpu, DeviceInverseIsExactlySymmetric) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> A =
      poisson<T>(Stencil::poisson2d_9, 9);  // 81 rows: 3 blocks, the last partial
  const index_t n = A.rows;
  DeviceCoarseSolver<T> gpu;
  gpu.factor(to_device(A));
  ASSERT_EQ(gpu.method(), "dense-inverse(sweep)");
  std::vector<T> identity(std::size_t(n) * n, T(0));
  for (index_t i = 0; i < n; ++i) identity[std::size_t(i) * n + i] = T(1);
  const DeviceBuffer<T> I_device = to_device(identity);
  DeviceBuffer<T> X(std::size_t(n) * n);
  gpu.solve(I_device.data(), n, X.data());
  const std::vector<T> inverse = to_host(X);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < i; ++j)
      ASSERT_EQ(inverse[std::size_t(i) * n + j], inverse[std::size_t(j) * n + i])
          << "(" << i << ", " << j << ")";
}

// What the device does not decide goes to the host's CoarseSolver, with its
// methods and messages: a singular matrix (its pseudo-inverse), a
// nonsymmetric one (LU), an indefinite one (LU), and invalid entries.
TYPED_TEST(CoarseSolveGpu, DeviceMatrixTheDeviceDeclinesIsFactoredOnTheHost) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  DeviceCoarseSolver<T> gpu;
  gpu.factor(to_device(testing::neumann_laplacian<T>(12)));
  EXPECT_EQ(gpu.method(), "dense-inverse(dense-pinv)");
  EXPECT_EQ(gpu.nullity(), 1);

  const CsrMatrix<T> nonsymmetric = add(
      T(1), testing::random_matrix<T>({77, 77, 6, 0, 0, false}, 5), T(8), identity_matrix<T>(77));
  gpu.factor(to_device(nonsymmetric));
  EXPECT_EQ(gpu.method(), "dense-inverse(dense-lu)");

  // Symmetric but indefinite (a pivot turns negative): Eigen's LU on the host.
  const CsrMatrix<T> indefinite =
      add(T(1), poisson<T>(Stencil::poisson2d_5, 7), T(-2), identity_matrix<T>(49));
  expect_vector_solve_matches_cpu(indefinite, "dense-lu", 27, true);

  CsrMatrix<T> invalid = poisson<T>(Stencil::poisson2d_5, 5);
  invalid.values[7] = std::numeric_limits<T>::quiet_NaN();
  try {
    gpu.factor(to_device(invalid));
    ADD_FAILURE() << "a NaN entry was factored";
  } catch (const InvalidInput& error) {
    EXPECT_NE(std::string(error.what()).find("coarse matrix"), std::string::npos) << error.what();
  }
}

TYPED_TEST(CoarseSolveGpu, BadArgumentsAreRejected) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  DeviceCoarseSolver<T> gpu;
  DeviceBuffer<T> B = to_device(std::vector<T>(6, T(1))), X(6);
  EXPECT_THROW(gpu.solve(B.data(), 2, X.data()), InvalidInput);  // not factored
  gpu.factor(identity_matrix<T>(3));
  EXPECT_THROW(gpu.solve(B.data(), 0, X.data()), InvalidInput);
  EXPECT_THROW(gpu.solve(B.data(), -2, X.data()), InvalidInput);
  EXPECT_THROW(gpu.solve(B.data(), 2, B.data()), InvalidInput);      // X = B
  EXPECT_THROW(gpu.solve(B.data(), 2, B.data() + 3), InvalidInput);  // overlapping
  EXPECT_THROW(gpu.solve(B.data(), std::numeric_limits<index_t>::max(), X.data()), InvalidInput);
  EXPECT_NO_THROW(gpu.solve(B.data(), 1, B.data() + 3));  // adjacent, not overlapping
}

}  // namespace
}  // namespace binamg
