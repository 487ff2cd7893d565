// Mixed precision: CG in double preconditioned by a float hierarchy's V-cycle
// reaches a tolerance a float solve cannot, in about the double solve's iterations.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/solvers/pcg.hpp"

namespace binamg {
namespace {

double true_residual(const CsrMatrix<double>& A, const std::vector<double>& x,
                     const std::vector<double>& b) {
  double rr = 0, bb = 0;
  for (index_t i = 0; i < A.rows; ++i) {
    double ax = 0;
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) ax += A.values[k] * x[A.col_idx[k]];
    rr += (b[i] - ax) * (b[i] - ax);
    bb += b[i] * b[i];
  }
  return std::sqrt(rr / bb);
}

TEST(MixedPrecision, ReachesWhatFloatCannotInTheDoubleIterations) {
  for (Stencil stencil : {Stencil::poisson3d_7, Stencil::poisson2d_5}) {
    const index_t n = stencil == Stencil::poisson3d_7 ? 24 : 96;
    const CsrMatrix<double> A = poisson<double>(stencil, n);
    const std::vector<double> b(A.rows, 1.0);
    const SolveOptions options{1e-11, 200};
    const Hierarchy<double> full = build_hierarchy(A);
    std::vector<double> x_double(A.rows, 0.0);
    const SolveResult exact = pcg(full, b, x_double, options);
    ASSERT_TRUE(exact.converged);

    const Hierarchy<float> rounded = build_hierarchy(convert_values<float>(A));
    std::vector<float> x_float(A.rows, 0.0f);
    const SolveResult single = pcg(rounded, std::vector<float>(A.rows, 1.0f), x_float, options);
    EXPECT_FALSE(single.converged);  // 1e-11 is below float's reach

    std::vector<double> x(A.rows, 0.0);
    const SolveResult mixed = pcg(rounded, A, b, x, options);
    EXPECT_TRUE(mixed.converged) << mixed.relative_residual;
    EXPECT_LE(std::abs(mixed.iterations - exact.iterations), 2)
        << mixed.iterations << " against " << exact.iterations;
    EXPECT_LE(true_residual(A, x, b), 1e-11);
  }
}

TEST(MixedPrecision, BadInputIsNamed) {
  const CsrMatrix<double> A = poisson<double>(Stencil::poisson2d_5, 20);
  const Hierarchy<float> h = build_hierarchy(convert_values<float>(A));
  std::vector<double> b(A.rows, 1.0), x(A.rows, 0.0);
  const CsrMatrix<double> other = poisson<double>(Stencil::poisson2d_5, 21);
  EXPECT_THROW(pcg(h, other, std::vector<double>(other.rows, 1.0), x, {}), InvalidInput);
  b[7] = std::numeric_limits<double>::quiet_NaN();
  try {
    pcg(h, A, b, x, {});
    ADD_FAILURE() << "no error";
  } catch (const InvalidInput& error) {
    EXPECT_NE(std::string(error.what()).find("b[7] is not finite"), std::string::npos)
        << error.what();
  }
  std::vector<double> short_x(5, 0.0);
  EXPECT_THROW(pcg(h, A, std::vector<double>(A.rows, 1.0), short_x, {}), InvalidInput);
}

// Rounding a matrix to float names the first entry float cannot hold: one that
// overflows, or a nonzero one float would store as 0 (the hierarchy would
// divide by an infinity or a zero diagonal without a word); zeros, subnormal
// floats and widening pass.
TEST(MixedPrecision, RoundingNamesTheFirstEntryFloatCannotHold) {
  CsrMatrix<double> A = poisson<double>(Stencil::poisson2d_5, 6);
  const auto entry = [&](index_t row, index_t col) -> double& {
    for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k)
      if (A.col_idx[k] == col) return A.values[k];
    throw std::logic_error("no such entry");
  };
  entry(3, 4) = 1e-40;  // a subnormal float: kept
  entry(5, 5) = 0.0;
  EXPECT_NO_THROW(convert_values<float>(A));
  EXPECT_NO_THROW(convert_values<double>(convert_values<float>(A)));
  const struct {
    double value;
    const char* says;
  } cases[] = {{4e300, "A(row 7, column 8) = 4e+300 overflows float"},
               {-1e39, "A(row 7, column 8) = -1e+39 overflows float"},
               {1e-300, "A(row 7, column 8) = 1e-300 would be stored as 0 in float"}};
  for (const auto& c : cases) {
    CsrMatrix<double> bad = A;
    for (index_t k = bad.row_ptr[7]; k < bad.row_ptr[8]; ++k)
      if (bad.col_idx[k] == 8) bad.values[k] = c.value;
    for (index_t k = bad.row_ptr[20]; k < bad.row_ptr[21]; ++k) bad.values[k] = 5e300;  // later
    try {
      convert_values<float>(bad);
      ADD_FAILURE() << "no error for " << c.value;
    } catch (const InvalidInput& error) {
      EXPECT_NE(std::string(error.what()).find(c.says), std::string::npos) << error.what();
    }
  }
}

}  // namespace
}  // namespace binamg
