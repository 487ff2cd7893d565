// GPU setups and solves between marker kernels, for a CUPTI timeline
// (scripts/timeline): timeline.py finds each setup between a
// timeline_mark_setup and the next timeline_mark_solve kernel, each solve
// between that and timeline_mark_end. Default AMG parameters, b = ones, x = 0.
//
//   bench_setup_timeline (--problem NAME --size N | --matrix FILE.mtx) [--repeat N]
//
// Prints each round's setup and solve; the first round pays CUDA's lazy
// loading and the pool's growth.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/core/cuda_check.hpp"
#include "binamg/core/error.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/solvers/pcg.hpp"
#include "binamg/sparse/matrix_market.hpp"

namespace {

__global__ void timeline_mark_setup() {}
__global__ void timeline_mark_solve() {}
__global__ void timeline_mark_end() {}

template <typename Kernel>
void mark(Kernel kernel) {
  BINAMG_CUDA_CHECK(cudaDeviceSynchronize());
  kernel<<<1, 1>>>();
  BINAMG_CHECK_LAUNCH();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace binamg;
  try {
    std::string problem, matrix;
    int size = 0, repeat = 6;
    for (int i = 1; i + 1 < argc; i += 2) {
      const std::string option = argv[i], value = argv[i + 1];
      if (option == "--problem")
        problem = value;
      else if (option == "--size")
        size = std::stoi(value);
      else if (option == "--matrix")
        matrix = value;
      else if (option == "--repeat")
        repeat = std::stoi(value);
      else
        throw InvalidInput("unknown option " + option);
    }
    require(matrix.empty() != problem.empty(), "give --problem NAME --size N or --matrix FILE");
    const CsrMatrix<double> A = matrix.empty() ? poisson<double>(parse_stencil(problem), size)
                                               : read_matrix_market<double>(matrix);
    const DeviceCsr<double> device_A = to_device(A);
    const DeviceBuffer<double> b = to_device(std::vector<double>(A.rows, 1.0));
    for (int round = 0; round < repeat; ++round) {
      DeviceBuffer<double> x = to_device(std::vector<double>(A.rows, 0.0));  // outside both
      mark(timeline_mark_setup);
      const DeviceHierarchy<double> h = build_hierarchy(device_A);
      mark(timeline_mark_solve);
      const SolveResult result = pcg(h, b, x);
      mark(timeline_mark_end);
      BINAMG_CUDA_CHECK(cudaDeviceSynchronize());
      std::printf("round %d: setup %.3f ms, %d iterations, solve %.3f ms\n", round,
                  h.timings.total_ms(), result.iterations, result.solve_ms);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_setup_timeline: %s\n", error.what());
    return 2;
  }
  return 0;
}
