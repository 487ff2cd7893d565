// V-cycle benchmark (BENCH.md, AMG workloads): builds the GPU hierarchy (mis2,
// defaults) of a Poisson problem, checks one V(1,1) cycle against the CPU cycle
// on the same hierarchy downloaded, then times (one warm-up, median of the runs,
// CUDA events) every component of the cycle per level, the whole cycle, and one
// PCG iteration, each against its bytes-moved lower bound at the measured copy
// bandwidth: ratio = time / (bytes / bandwidth), target ≤ 1.5. Then one block PCG
// iteration on K right-hand sides against its own bound (the matrices once, the
// vectors K times), which also says how far apart the two bounds are.
//
//   bench_vcycle [--problem NAME --size N] [--precision double|float] [--runs N]
//                [--rhs-count K]   (default 32)
//
// Without --problem it runs the two AMG workloads, 3D 7-pt 128³ and 2D 5-pt 2048².
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "bench/common.hpp"
#include "binamg/amg/hierarchy.hpp"
#include "binamg/core/hash.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/smoothers/jacobi.hpp"
#include "binamg/smoothers/smooth.hpp"
#include "binamg/solvers/pcg.hpp"
#include "binamg/solvers/solve_steps.hpp"
#include "binamg/solvers/vcycle.hpp"
#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmv.hpp"
#include "binamg/vector/vector_ops.hpp"

using namespace binamg;
using bench::JsonLine;

namespace {

struct Workload {
  std::string problem;
  index_t size;
};

struct Options {
  std::vector<Workload> workloads = {{"poisson3d-7", 128}, {"poisson2d-5", 2048}};
  std::string precision = "double";
  int runs = 7;
  index_t rhs_count = 32;
};

// The bytes every operation must move at least: each index and value array read
// once, each vector read or written once (BENCH.md's roofline).
template <typename T>
double matrix_bytes(const DeviceCsr<T>& M) {
  return double(M.rows + 1) * sizeof(index_t) + double(M.nnz()) * (sizeof(index_t) + sizeof(T));
}
template <typename T>
double vector_bytes(index_t n, int vectors) {
  return double(n) * sizeof(T) * vectors;
}

struct Bytes {
  double matrix, vectors;
};

// What `sweeps` Chebyshev applications of `degree` steps move at least
// (smoothers/chebyshev.cu): from zero, the first step reads b and d⁻¹ and writes
// x and the direction; every other step reads A, x, b, d⁻¹ and the direction
// (not on an application's first step) and writes x and the direction (not on
// its last).
template <typename T>
Bytes chebyshev_bytes(const DeviceCsr<T>& A, int degree, int sweeps, bool zero_guess) {
  Bytes bytes{0, 0};
  for (int sweep = 0; sweep < sweeps; ++sweep)
    for (int step = 0; step < degree; ++step) {
      const bool first = step == 0, last = step + 1 == degree;
      const bool from_zero = zero_guess && sweep == 0 && first;
      const int vectors = from_zero ? 3 + !last : 4 + !first + !last;
      if (!from_zero) bytes.matrix += matrix_bytes(A);
      bytes.vectors += vector_bytes<T>(A.rows, vectors);
    }
  return bytes;
}

// The host hierarchy with the device hierarchy's matrices, weights and inverse
// diagonals, so the CPU cycle is the reference for the GPU cycle on equal operators.
template <typename T>
Hierarchy<T> download(const DeviceHierarchy<T>& device) {
  Hierarchy<T> host;
  host.parameters = device.parameters;
  for (const DeviceLevel<T>& level : device.levels) {
    Level<T> copy;
    copy.A = to_host(level.A);
    copy.P = to_host(level.P);
    copy.R = to_host(level.R);
    copy.inverse_diagonal = to_host(level.inverse_diagonal);
    copy.jacobi_weight = level.jacobi_weight;
    copy.spectral_radius = level.spectral_radius;
    host.levels.push_back(std::move(copy));
  }
  host.coarse_matrix = to_host(device.coarse_matrix);
  host.coarse.factor(host.coarse_matrix);
  host.workspace = cycle_workspace(host, 1);  // Chebyshev's directions too
  return host;
}

// A reproducible vector with entries in (-1, 1).
template <typename T>
std::vector<T> hashed_vector(index_t n, std::uint32_t seed) {
  std::vector<T> v(n);
  for (index_t i = 0; i < n; ++i)
    v[i] = static_cast<T>(hashed_unit_value(static_cast<std::uint32_t>(i) ^ integer_hash(seed)));
  return v;
}

// max |a − b| / max |a|.
template <typename T>
double relative_difference(const std::vector<T>& expected, const std::vector<T>& actual) {
  double difference = 0, scale = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    difference = std::max(difference, std::abs(double(expected[i]) - double(actual[i])));
    scale = std::max(scale, std::abs(double(expected[i])));
  }
  return scale > 0 ? difference / scale : difference;
}

class Reporter {
 public:
  Reporter(const Workload& w, const std::string& precision, double bandwidth_gbs)
      : workload_(w), precision_(precision), bandwidth_gbs_(bandwidth_gbs) {}

  /// One JSON line: time, bytes, the time the bytes take at copy bandwidth, ratio.
  void line(const std::string& component, int level, double ms, double bytes,
            const std::string& note = "") const {
    const double bound_ms = bytes / (bandwidth_gbs_ * 1e9) * 1e3;
    JsonLine json;
    json.field("bench", "vcycle")
        .field("problem", workload_.problem)
        .field("size", static_cast<int>(workload_.size))
        .field("precision", precision_)
        .field("component", component);
    if (level >= 0) json.field("level", level);
    json.field("ms", ms)
        .field("bytes", bytes)
        .field("bound_ms", bound_ms)
        .field("ratio", ms / bound_ms);
    if (!note.empty()) json.field("note", note);
    json.print();
  }

 private:
  Workload workload_;
  std::string precision_;
  double bandwidth_gbs_;
};

template <typename T>
void run_workload(const Workload& workload, const Options& options, double bandwidth_gbs) {
  const CsrMatrix<T> A = poisson<T>(parse_stencil(workload.problem), workload.size);
  const DeviceCsr<T> device_A = to_device(A);
  AmgParameters parameters;
  parameters.aggregation = AggregationMethod::mis2;  // the GPU default of amg_solve
  const DeviceHierarchy<T> h = build_hierarchy(device_A, parameters);
  cudaStream_t stream = h.stream;
  const std::size_t fine_levels = h.levels.size();
  require(fine_levels >= 1, "bench_vcycle: the problem is too small for a multilevel hierarchy");
  const index_t n = A.rows;

  // Correctness first: one cycle from a random x against the CPU cycle on the
  // same operators. Both compute the same arithmetic in a different summation
  // order (and the coarse solve by a different factorisation): rounding only.
  const std::vector<T> b = hashed_vector<T>(n, 31);
  std::vector<T> x = hashed_vector<T>(n, 32);
  const DeviceBuffer<T> device_b = to_device(b, stream);
  DeviceBuffer<T> device_x = to_device(x, stream);
  vcycle(h, device_b, device_x);
  const std::vector<T> gpu_x = to_host(device_x);
  const Hierarchy<T> host = download(h);
  vcycle(host, b, x);
  const double difference = relative_difference(x, gpu_x);
  const double tolerance = 1000.0 * std::numeric_limits<T>::epsilon() * h.num_levels();
  require(difference <= tolerance,
          "bench_vcycle: the GPU V-cycle differs from the CPU cycle by " +
              std::to_string(difference) + " (relative), more than " + std::to_string(tolerance));

  std::ostringstream shape;
  for (index_t l = 0; l < h.num_levels(); ++l)
    shape << (l ? "," : "") << h.matrix(l).rows << "/" << h.matrix(l).nnz();
  JsonLine()
      .field("bench", "vcycle")
      .field("problem", workload.problem)
      .field("size", static_cast<int>(workload.size))
      .field("precision", options.precision)
      .field("levels", shape.str())
      .field("cpu_max_relative_difference", difference)
      .field("tolerance", tolerance)
      .field("copy_bandwidth_gbs", bandwidth_gbs)
      .field("checked", true)
      .print();

  const Reporter report(workload, options.precision, bandwidth_gbs);
  auto median = [&](const auto& work) { return bench::median_ms(work, stream, options.runs); };
  DeviceCycleWorkspace<T>& work = h.workspace;
  // Matrix and vector bytes apart: a block cycle moves the vectors k times.
  double cycle_matrix_bytes = 0, cycle_vector_bytes = 0, components_ms = 0;

  // Per level, each operation of vcycle_from_zero (the preconditioner) on the
  // level's own workspace vectors; sizes as in the cycle. With one presweep the
  // cycle fuses the sweep from zero with the residual, and always the
  // prolongation with the correction (solvers/vcycle.hpp).
  for (std::size_t l = 0; l < fine_levels; ++l) {
    const DeviceLevel<T>& level = h.levels[l];
    const index_t rows = level.A.rows, coarse_rows = h.matrix(index_t(l + 1)).rows;
    DeviceBuffer<T> level_b(rows, stream, "bench level b"), level_x(rows, stream, "bench x");
    BINAMG_CUDA_CHECK(cudaMemsetAsync(level_b.data(), 0, sizeof(T) * rows, stream));
    BINAMG_CUDA_CHECK(cudaMemsetAsync(level_x.data(), 0, sizeof(T) * rows, stream));
    DeviceBuffer<T>& r = work.residual[l];
    DeviceBuffer<T>& direction = work.direction[l];
    const AmgParameters& parameters = h.parameters;
    const int sweeps = parameters.presweeps;
    struct Component {
      const char* name;
      double matrix, vectors;  // bytes
      std::function<void()> run;
    };
    // The level's smoother as the cycle runs it (smoother_detail::smooth).
    auto smooth = [&](int count, bool zero_guess) {
      smoother_detail::smooth(parameters, level, level_b, level_x, 1, count, zero_guess, r,
                              direction, stream);
    };
    const bool chebyshev = parameters.smoother == SmootherKind::chebyshev;
    std::vector<Component> components;
    if (chebyshev) {
      const Bytes pre = chebyshev_bytes<T>(level.A, parameters.chebyshev_degree, sweeps, true);
      components.push_back(
          {"presmooth_from_zero", pre.matrix, pre.vectors, [&] { smooth(sweeps, true); }});
      components.push_back({"residual", matrix_bytes(level.A), vector_bytes<T>(rows, 3), [&] {
                              residual(level.A, level_x.data(), level_b.data(), r.data(), stream);
                            }});
    } else if (sweeps == 1) {
      // Reads A, b and d⁻¹, writes x and r.
      components.push_back({"presmooth_from_zero_with_residual", matrix_bytes(level.A),
                            vector_bytes<T>(rows, 4), [&] {
                              smooth_from_zero_with_residual(level, level_b, level_x, r, stream);
                            }});
    } else {
      components.push_back(
          {"presmooth_from_zero", (sweeps - 1) * matrix_bytes(level.A),
           vector_bytes<T>(rows, 3) + (sweeps - 1) * vector_bytes<T>(rows, 4),
           [&] {
             jacobi_from_zero(level.A, level.inverse_diagonal, level.jacobi_weight, level_b,
                              level_x, sweeps, r, stream);
           }});
      components.push_back({"residual", matrix_bytes(level.A), vector_bytes<T>(rows, 3), [&] {
                              residual(level.A, level_x.data(), level_b.data(), r.data(), stream);
                            }});
    }
    const Bytes post = chebyshev ? chebyshev_bytes<T>(level.A, parameters.chebyshev_degree,
                                                      parameters.postsweeps, false)
                                 : Bytes{parameters.postsweeps * matrix_bytes(level.A),
                                         parameters.postsweeps * vector_bytes<T>(rows, 4)};
    const std::vector<Component> rest = {
        {"restriction", matrix_bytes(level.R), vector_bytes<T>(rows + coarse_rows, 1),
         [&] { spmv(level.R, r.data(), work.rhs[l + 1].data(), stream); }},
        // Reads P, e and x, writes x.
        {"prolong_and_correct", matrix_bytes(level.P), vector_bytes<T>(coarse_rows + 2 * rows, 1),
         [&] { prolong_and_correct(level.P, work.solution[l + 1], level_x, stream); }},
        {"postsmooth", post.matrix, post.vectors, [&] { smooth(parameters.postsweeps, false); }},
    };
    components.insert(components.end(), rest.begin(), rest.end());
    for (const Component& c : components) {
      const double ms = median(c.run);
      report.line(c.name, static_cast<int>(l), ms, c.matrix + c.vectors);
      cycle_matrix_bytes += c.matrix;
      cycle_vector_bytes += c.vectors;
      components_ms += ms;
    }
  }
  {
    const DeviceCsr<T>& C = h.coarse_matrix;
    const double bytes = matrix_bytes(C) + vector_bytes<T>(C.rows, 2);
    cycle_matrix_bytes += matrix_bytes(C);
    cycle_vector_bytes += vector_bytes<T>(C.rows, 2);
    const double ms = median([&] {
      h.coarse.solve(work.rhs[fine_levels].data(), work.solution[fine_levels].data(), stream);
    });
    report.line("coarse_solve", static_cast<int>(fine_levels), ms, bytes,
                "bound: the coarse CSR matrix and two vectors (method " + h.coarse.method() + ")");
    components_ms += ms;
  }
  const double cycle_bytes = cycle_matrix_bytes + cycle_vector_bytes;
  report.line("sum_of_components", -1, components_ms, cycle_bytes);

  // The whole cycle as PCG applies it (from zero), and the extra device memory it takes.
  DeviceBuffer<T> z(n, stream, "bench z");
  BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream));
  pool_reset_peak();
  const std::size_t in_use = pool_bytes_in_use();
  const double cycle_ms = median([&] { vcycle_from_zero(h, device_b, z); });
  const std::size_t peak = pool_peak_bytes();
  report.line("vcycle_from_zero", -1, cycle_ms, cycle_bytes,
              "extra device bytes " + std::to_string(peak > in_use ? peak - in_use : 0));

  // One PCG iteration, as pcg() runs it (host synchronisation included): the
  // difference of two solves with a fixed number of iterations, per iteration.
  // Bound: the cycle, A·p, and the vector passes p·q (2n), x/r update with ‖r‖²
  // (6n), r·z (2n), p = z + βp (3n).
  SolveOptions fixed;
  fixed.tolerance = 0;  // never met: the iteration count is max_iterations
  auto solve_ms = [&](int iterations) {
    fixed.max_iterations = iterations;
    DeviceBuffer<T> solution(n, stream, "bench pcg x");
    return median([&] {
      BINAMG_CUDA_CHECK(cudaMemsetAsync(solution.data(), 0, sizeof(T) * n, stream));
      const SolveResult result = pcg(h, device_b, solution, fixed);
      require(result.iterations == iterations, "bench_vcycle: pcg stopped early");
    });
  };
  const int few = 2, many = 8;
  const double iteration_ms = (solve_ms(many) - solve_ms(few)) / (many - few);
  const double iteration_matrix_bytes = cycle_matrix_bytes + matrix_bytes(device_A);
  const double iteration_vector_bytes = cycle_vector_bytes + vector_bytes<T>(n, 2 + 2 + 6 + 2 + 3);
  const double iteration_bytes = iteration_matrix_bytes + iteration_vector_bytes;
  report.line("pcg_iteration", -1, iteration_ms, iteration_bytes);

  // One iteration of the block PCG on k right-hand sides, measured the same way.
  // Bound: the matrices once and every vector pass k times (the per-column
  // scalars are negligible). The block iteration makes fewer passes than the
  // vector one: A·p with p·q (2n), r update with ‖r‖² (3n), r·z inside the
  // cycle's last sweep, and x += αp with p = z + βp (5n). Its ratio to the
  // one-RHS bound is the least that k right-hand sides can cost relative to one,
  // both at the bandwidth bound.
  const index_t k = options.rhs_count;
  const std::size_t entries = std::size_t(n) * k;
  std::vector<T> block_b(entries);
  for (index_t j = 0; j < k; ++j) {
    const std::vector<T> column = hashed_vector<T>(n, 40 + std::uint32_t(j));
    for (index_t i = 0; i < n; ++i) block_b[std::size_t(i) * k + j] = column[i];
  }
  const DeviceBuffer<T> device_block_b = to_device(block_b, stream);
  auto block_solve_ms = [&](int iterations) {
    fixed.max_iterations = iterations;
    DeviceBuffer<T> solution(entries, stream, "bench block pcg x");
    return median([&] {
      BINAMG_CUDA_CHECK(cudaMemsetAsync(solution.data(), 0, sizeof(T) * entries, stream));
      const BlockSolveResult result = pcg(h, device_block_b, solution, k, fixed);
      for (const SolveResult& column : result.columns)
        require(column.iterations == iterations, "bench_vcycle: block pcg stopped early");
    });
  };
  const double block_iteration_ms =
      (block_solve_ms(many) - block_solve_ms(few)) / (many - few);
  const double block_vector_bytes = cycle_vector_bytes + vector_bytes<T>(n, 2 + 3 + 5);
  const double block_bytes = iteration_matrix_bytes + double(k) * block_vector_bytes;
  std::ostringstream note;
  note << "k " << k << "; bound / one-RHS bound " << block_bytes / iteration_bytes
       << "; time / one-RHS time " << block_iteration_ms / iteration_ms;
  report.line("block_pcg_iteration", -1, block_iteration_ms, block_bytes, note.str());
}

Options parse(int argc, char** argv) {
  Options options;
  std::string problem;
  index_t size = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    require(i + 1 < argc, "bench_vcycle: option " + arg + " needs a value");
    const std::string value = argv[++i];
    if (arg == "--problem") problem = value;
    else if (arg == "--size") size = std::stoi(value);
    else if (arg == "--precision") options.precision = value;
    else if (arg == "--runs") options.runs = std::stoi(value);
    else if (arg == "--rhs-count") options.rhs_count = std::stoi(value);
    else throw InvalidInput("bench_vcycle: unknown option " + arg);
  }
  if (!problem.empty()) {
    parse_stencil(problem);
    require(size >= 2, "bench_vcycle: --problem needs --size N >= 2");
    options.workloads = {{problem, size}};
  }
  require(options.precision == "double" || options.precision == "float",
          "bench_vcycle: --precision must be double or float");
  require(options.runs >= 5, "bench_vcycle: --runs must be at least 5 (BENCH.md)");
  require(options.rhs_count >= 1, "bench_vcycle: --rhs-count must be at least 1");
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options options = parse(argc, argv);
    bench::print_device_banner("vcycle", argc, argv);
    const double bandwidth = bench::measure_copy_bandwidth_gbs();
    for (const Workload& w : options.workloads) {
      if (options.precision == "float") run_workload<float>(w, options, bandwidth);
      else run_workload<double>(w, options, bandwidth);
    }
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_vcycle: %s\n", error.what());
    return 1;
  }
}
