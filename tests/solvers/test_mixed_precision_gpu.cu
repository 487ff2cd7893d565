// Mixed precision on the GPU against the CPU: the rounded matrix bit for bit,
// and the solve's iterations and true residual.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/solvers/pcg.hpp"
#include "support/gpu.hpp"
#include "support/same_matrix.hpp"

namespace binamg {
namespace {

TEST(MixedPrecisionGpu, RoundingIsTheCpusAndTheSolveMatchesIt) {
  BINAMG_REQUIRE_GPU();
  for (Stencil stencil : {Stencil::poisson3d_7, Stencil::poisson2d_5}) {
    const index_t n = stencil == Stencil::poisson3d_7 ? 24 : 96;
    const CsrMatrix<double> A = poisson<double>(stencil, n);
    const CsrMatrix<float> rounded = convert_values<float>(A);
    const DeviceCsr<double> device_A = to_device(A);
    testing::expect_same_matrix(rounded, to_host(convert_values<float>(device_A)));

    const SolveOptions options{1e-11, 200};
    const std::vector<double> b(A.rows, 1.0);
    std::vector<double> x(A.rows, 0.0);
    const SolveResult cpu = pcg(build_hierarchy(rounded), A, b, x, options);
    const DeviceHierarchy<float> h = build_hierarchy(to_device(rounded));
    DeviceBuffer<double> device_x = to_device(std::vector<double>(A.rows, 0.0));
    const SolveResult gpu = pcg(h, device_A, to_device(b), device_x, options);
    EXPECT_TRUE(gpu.converged) << gpu.relative_residual;
    EXPECT_LE(std::abs(gpu.iterations - cpu.iterations), 1)
        << gpu.iterations << " against " << cpu.iterations;
    EXPECT_LE(gpu.relative_residual, 1e-11);
    // Both solutions meet 1e-11 in the residual: they agree to the condition number's share.
    const std::vector<double> solution = to_host(device_x);
    double difference = 0, norm = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      difference += (solution[i] - x[i]) * (solution[i] - x[i]);
      norm += x[i] * x[i];
    }
    EXPECT_LE(std::sqrt(difference / norm), 1e-6);

    std::vector<double> bad = b;
    bad[3] = std::numeric_limits<double>::infinity();
    try {
      pcg(h, device_A, to_device(bad), device_x, options);
      ADD_FAILURE() << "no error";
    } catch (const InvalidInput& error) {
      EXPECT_NE(std::string(error.what()).find("b[3] is not finite"), std::string::npos)
          << error.what();
    }
  }
}

// The device's rounding names the entry the host's names, with its message.
TEST(MixedPrecisionGpu, RoundingNamesTheEntryTheCpuNames) {
  BINAMG_REQUIRE_GPU();
  for (const double value : {4e300, 1e-300}) {
    CsrMatrix<double> A = poisson<double>(Stencil::poisson2d_5, 6);
    for (index_t k = A.row_ptr[7]; k < A.row_ptr[8]; ++k)
      if (A.col_idx[k] == 8) A.values[k] = value;
    A.values[A.row_ptr[20]] = 5e300;  // a later entry: not the one named
    std::string cpu, gpu;
    try {
      convert_values<float>(A);
    } catch (const InvalidInput& error) {
      cpu = error.what();
    }
    try {
      convert_values<float>(to_device(A));
    } catch (const InvalidInput& error) {
      gpu = error.what();
    }
    EXPECT_NE(cpu.find("A(row 7, column 8)"), std::string::npos) << cpu;
    EXPECT_EQ(gpu, cpu);
  }
}

}  // namespace
}  // namespace binamg
