// The README's library example, built against the installed tree through its
// umbrella header: a 2D Poisson solve on the CPU, then on the GPU when one is usable
// (and the library was built with CUDA).
#include <binamg/binamg.hpp>

#include <cstdio>
#include <vector>

int main() {
  const auto A = binamg::poisson<double>(binamg::Stencil::poisson2d_5, 64);
  const auto hierarchy = binamg::build_hierarchy(A);
  std::vector<double> b(A.rows, 1.0), x(A.rows, 0.0);
  binamg::SolveResult result = binamg::pcg(hierarchy, b, x);
  std::printf("binamg %s (%s): %d levels, %d iterations, relative residual %.3g\n",
              binamg::version(), binamg::build_commit(), int(hierarchy.num_levels()),
              result.iterations, result.relative_residual);
  bool solved = result.converged && result.relative_residual <= 1e-8;
#if BINAMG_WITH_CUDA
  if (binamg::gpu_available()) {
    auto dA = binamg::to_device(A);
    auto device_hierarchy = binamg::build_hierarchy(dA);
    auto db = binamg::to_device(b), dx = binamg::to_device(std::vector<double>(A.rows, 0.0));
    result = binamg::pcg(device_hierarchy, db, dx);
    binamg::SpgemmReport report;
    const auto C = binamg::spgemm(dA, dA, nullptr, &report);
    std::printf("on the GPU: %d iterations, relative residual %.3g; A·A took %s\n",
                result.iterations, result.relative_residual, binamg::path_name(report.path));
    solved = solved && result.converged && result.relative_residual <= 1e-8 && C.nnz() > 0;
  }
#endif
  return solved ? 0 : 1;
}
