// Solves a 2D Poisson problem through the installed library's umbrella header.
#include <binamg/binamg.hpp>

#include <cstdio>
#include <vector>

int main() {
  const auto A = binamg::poisson<double>(binamg::Stencil::poisson2d_5, 64);
  const auto hierarchy = binamg::build_hierarchy(A);
  std::vector<double> b(A.rows, 1.0), x(A.rows, 0.0);
  const binamg::SolveResult result = binamg::pcg(hierarchy, b, x);
  std::printf("binamg %s (%s): %d levels, %d iterations, relative residual %.3g\n",
              binamg::version(), binamg::build_commit(), int(hierarchy.num_levels()),
              result.iterations, result.relative_residual);
  return result.converged && result.relative_residual <= 1e-8 ? 0 : 1;
}
