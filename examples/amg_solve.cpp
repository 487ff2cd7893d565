// amg_solve: solve A x = b with smoothed-aggregation AMG (as a CG preconditioner or
// as a stationary V-cycle) for a Poisson model problem or a Matrix Market file.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/amg/parameters.hpp"
#include "binamg/core/config.hpp"
#include "binamg/core/device.hpp"
#include "binamg/core/error.hpp"
#include "binamg/core/memory.hpp"
#include "binamg/core/version.hpp"
#include "binamg/problems/model_problem.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/solvers/cycle_factors.hpp"
#include "binamg/solvers/pcg.hpp"
#include "binamg/solvers/vcycle.hpp"
#include "binamg/sparse/matrix_market.hpp"
#include "binamg/sparse/symmetry.hpp"
#include "binamg/vector/vector_ops.hpp"
#include "examples/cli.hpp"
#include "examples/near_nullspace_options.hpp"
#include "examples/refresh_runs.hpp"
#if BINAMG_WITH_CUDA
#include "binamg/sparse/device_csr.hpp"
#endif

namespace {

using namespace binamg;
using cli::json_number;
using cli::json_string;
using cli::parse_number;

const char* usage_text =
    R"(usage: amg_solve (--problem NAME --size N | --matrix FILE.mtx[.gz]) [options]

Problem
  --problem NAME       poisson2d-5 | poisson2d-9 | poisson3d-7 | poisson3d-27, or
                       elasticity2d | elasticity3d (linear elasticity, bilinear or
                       trilinear elements, clamped at x = 0; node-major dofs)
  --size N             grid points per direction (N^2 or N^3 unknowns; elasticity:
                       nodes, 2 or 3 dofs each)
  --matrix FILE        Matrix Market coordinate file, optionally gzipped
  --rhs FILE           right-hand side(s): Matrix Market array or coordinate, n x 1, or
                       n x K for K right-hand sides; default all ones
  --block-size B       unknowns per node (node-major), for a system of PDEs: strength
                       and aggregation then work on nodes (default 1; elasticity: 2 or 3)
  --near-nullspace FILE  near-nullspace vectors, Matrix Market array n x k (k <= 16):
                       the tentative prolongator interpolates them on every aggregate
                       (elasticity: its rigid-body modes; default: the constant, or
                       one constant per component with --block-size)
  --coordinates FILE   node coordinates, Matrix Market array nodes x 2 or 3: builds the
                       3 (2D) or 6 (3D) rigid-body modes, block size 2 or 3. The
                       elasticity problems have theirs built in.
  --rhs-count K        solve K right-hand sides at once (block CG; default 1, or the
                       columns of --rhs); without --rhs they are reproducible random
                       vectors, column j the same for every K
Solver
  --solver cg|vcycle   CG preconditioned by one V-cycle (default), or the V-cycle alone
  --tol X              relative residual target ||b-Ax||/||b|| (default 1e-8)
  --max-iters N        iteration limit (default 500)
  --device auto|cpu|gpu  where to run (default auto: the GPU when present and supported)
  --precision double|float|mixed  (default double; mixed: a float hierarchy and
                       V-cycle inside a double CG, one right-hand side)
AMG
  --aggregation mis2|standard   parallel MIS-2 (default, the same on CPU and GPU)
                       or the serial greedy aggregation (fewer iterations on 2D grids)
  --ordering ptap-left|ptap-right   Galerkin product (P^T A) P or P^T (A P) (default ptap-right)
  --strength X         strength-of-connection threshold theta (default 0.25, and 0.1
                       on a system's node graph; X sets both)
  --strength-measure classical|signed|symmetric   a_ij is strong when |a_ij| >= theta
                       times the smaller of rows i's and j's largest off-diagonal |a_ik|
                       (classical, default; signed: and a_ij of the sign opposite to
                       a_ii's) or times sqrt(|a_ii a_jj|) (symmetric)
  --strength-decay F   level l uses theta * F^l, F in (0, 1] (default 0.5 with mis2,
                       0.75 with standard; F sets both)
  --filter-levels N    where theta > 0, the first N levels smooth the prolongator with
                       the filtered matrix (weak entries lumped into the diagonal;
                       default 1, 0: none)
  --filter-steps N     Jacobi steps with the filtered matrix that smooth a filtered
                       level's prolongator, 1 to 4 (default 1; 2 suits anisotropy)
  --max-coarse N       coarsen until at most N rows (default 1200)
  --max-levels N       (default 25)
  --max-direct N       refuse to factor a coarsest matrix of more than N rows (default
                       10000; coarsening that stalls would otherwise factor a fine one)
  --smoother NAME      chebyshev (in D^-1 A on [F * 1.1 rho, 1.1 rho], default) |
                       jacobi (weight 4/3 / rho(D^-1 A)) | l1-jacobi (D = the rows'
                       l1 norms, weight 1)
  --chebyshev-degree N products with A per Chebyshev sweep (default 2)
  --chebyshev-lower F  the lower end F of Chebyshev's interval, in (0, 1) (default 0.2)
  --sweeps N           pre- and post-smoothing sweeps (default 1: V(1,1))
Output
  --json               last line of stdout is one JSON object with the results
  --repeat N           after the first (cold) setup and solve, repeat both N more times
                       and report the medians of the repeats too (default 0)
  --refresh-count N    after the solve, refresh the hierarchy N times with new values on
                       A's pattern (D A D, d_i = 1 + 0.1 sin(2 pi i/n + r)), timing each refresh
                       and solving with the refreshed hierarchy (default 0)
  --cycle-factors N    also estimate, with N power iterations, the V-cycle's convergence
                       factor from each level down (on the host's twin of the hierarchy):
                       a level whose factor jumps above the next one's is the weak one
  --help               this text
)";

struct Options {
  std::string problem, matrix, rhs;
  cli::NearNullspaceOptions system;
  index_t size = 0;
  std::string solver = "cg", device = "auto", precision = "double";
  SolveOptions solve;
  AmgParameters amg;
  bool json = false;
  int repeat = 0;         // warm setup+solve runs after the cold one (medians reported)
  int cycle_factors = 0;  // power iterations for the cycle's convergence factors (0: none)
  int refresh_count = 0;  // refreshes timed after the solve (--refresh-count)
  index_t rhs_count = 0;  // 0: one, or as many as --rhs has columns
};

Options parse_arguments(int argc, char** argv) {
  Options options;
  const cli::Arguments arguments =
      cli::parse_arguments(argc, argv, {"--problem",          "--size",
                                        "--matrix",           "--rhs",
                                        "--solver",           "--tol",
                                        "--max-iters",        "--device",
                                        "--precision",        "--aggregation",
                                        "--ordering",         "--strength",
                                        "--strength-decay",   "--filter-levels",
                                        "--max-coarse",       "--max-levels",
                                        "--sweeps",           "--repeat",
                                        "--cycle-factors",    "--rhs-count",
                                        "--max-direct",       "--smoother",
                                        "--chebyshev-degree", "--chebyshev-lower",
                                        "--block-size",       "--near-nullspace",
                                        "--coordinates",      "--strength-measure",
                                        "--refresh-count",    "--filter-steps"},
                           usage_text);
  options.json = arguments.json;
  auto get = [&](const char* name) { return arguments.get(name); };
  if (auto v = get("--problem")) options.problem = *v;
  if (auto v = get("--matrix")) options.matrix = *v;
  if (auto v = get("--rhs")) options.rhs = *v;
  options.system = cli::NearNullspaceOptions::read(arguments);
  if (auto v = get("--size")) options.size = parse_number<index_t>("--size", *v);
  if (auto v = get("--solver")) options.solver = *v;
  if (auto v = get("--device")) options.device = *v;
  if (auto v = get("--precision")) options.precision = *v;
  if (auto v = get("--tol")) options.solve.tolerance = parse_number<double>("--tol", *v);
  if (auto v = get("--max-iters"))
    options.solve.max_iterations = parse_number<int>("--max-iters", *v);
  if (auto v = get("--aggregation")) options.amg.aggregation = parse_aggregation(*v);
  if (auto v = get("--ordering")) options.amg.ordering = parse_ordering(*v);
  if (auto v = get("--strength"))
    options.amg.strength_threshold = options.amg.system_strength_threshold =
        parse_number<double>("--strength", *v);
  if (auto v = get("--filter-levels"))
    options.amg.filtered_levels = parse_number<int>("--filter-levels", *v);
  if (auto v = get("--filter-steps"))
    options.amg.filtered_prolongator_steps = parse_number<int>("--filter-steps", *v);
  if (auto v = get("--strength-measure"))
    options.amg.strength_measure = parse_strength_measure(*v);
  if (auto v = get("--strength-decay"))
    options.amg.strength_decay = options.amg.standard_strength_decay =
        parse_number<double>("--strength-decay", *v);
  if (auto v = get("--max-coarse"))
    options.amg.max_coarse_rows = parse_number<index_t>("--max-coarse", *v);
  if (auto v = get("--max-levels")) options.amg.max_levels = parse_number<int>("--max-levels", *v);
  // A --max-coarse above the default direct limit asks for that direct solve.
  options.amg.max_direct_rows = std::max(options.amg.max_direct_rows, options.amg.max_coarse_rows);
  if (auto v = get("--max-direct")) {
    options.amg.max_direct_rows = parse_number<index_t>("--max-direct", *v);
    require(options.amg.max_direct_rows >= options.amg.max_coarse_rows,
            "--max-direct must be at least --max-coarse (" +
                std::to_string(options.amg.max_coarse_rows) + ")");
  }
  if (auto v = get("--smoother")) options.amg.smoother = parse_smoother(*v);
  if (auto v = get("--chebyshev-degree"))
    options.amg.chebyshev_degree = parse_number<int>("--chebyshev-degree", *v);
  if (auto v = get("--chebyshev-lower"))
    options.amg.chebyshev_lower = parse_number<double>("--chebyshev-lower", *v);
  if (auto v = get("--sweeps"))
    options.amg.presweeps = options.amg.postsweeps = parse_number<int>("--sweeps", *v);
  if (auto v = get("--repeat")) options.repeat = parse_number<int>("--repeat", *v);
  if (auto v = get("--refresh-count"))
    options.refresh_count = parse_number<int>("--refresh-count", *v);
  if (auto v = get("--cycle-factors")) {
    options.cycle_factors = parse_number<int>("--cycle-factors", *v);
    require(options.cycle_factors >= 2, "--cycle-factors must be at least 2 (power iterations)");
  }
  if (auto v = get("--rhs-count")) {
    options.rhs_count = parse_number<index_t>("--rhs-count", *v);
    require(options.rhs_count >= 1, "--rhs-count must be at least 1");
  }

  const bool mixed = options.precision == "mixed";
  cli::validate_input_options(options.problem, options.size, options.matrix,
                              mixed ? "double" : options.precision, options.device);
  require(!mixed || (options.solver == "cg" && options.rhs_count <= 1),
          "--precision mixed runs one right-hand side with --solver cg (a float V-cycle "
          "preconditioning a double CG)");
  require(options.solver == "cg" || options.solver == "vcycle",
          "--solver must be cg or vcycle, got '" + options.solver + "'");
  require(options.solve.tolerance > 0 && options.solve.tolerance < 1, "--tol must lie in (0, 1)");
  require(options.solve.max_iterations >= 1, "--max-iters must be at least 1");
  require(options.amg.max_coarse_rows >= 1, "--max-coarse must be at least 1");
  require(options.amg.max_levels >= 1, "--max-levels must be at least 1");
  require(options.amg.presweeps >= 1, "--sweeps must be at least 1");
  require(options.amg.chebyshev_degree >= 1 && options.amg.chebyshev_degree <= max_chebyshev_degree,
          "--chebyshev-degree must lie in [1, " + std::to_string(max_chebyshev_degree) + "]");
  require(options.amg.chebyshev_lower > 0 && options.amg.chebyshev_lower < 1,
          "--chebyshev-lower must lie in (0, 1)");
  require(options.repeat >= 0, "--repeat must be at least 0");
  require(options.refresh_count >= 0, "--refresh-count must be at least 0");
  require(options.rhs_count <= 1 || options.solver == "cg",
          "--rhs-count above 1 needs --solver cg (the block solve is CG)");
  require(options.amg.strength_threshold >= 0 && options.amg.strength_threshold < 1,
          "--strength must lie in [0, 1)");
  return options;
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

/// Setup and solve times of the warm repeats (--repeat), reduced to medians per phase.
struct RepeatTimings {
  std::vector<SetupTimings> setups;
  std::vector<double> solves;

  SetupTimings median_setup() const {
    SetupTimings m;
    for (double SetupTimings::*phase :
         {&SetupTimings::prepare_ms, &SetupTimings::strength_ms, &SetupTimings::aggregation_ms,
          &SetupTimings::tentative_ms, &SetupTimings::prolongator_ms, &SetupTimings::restriction_ms,
          &SetupTimings::galerkin_ms, &SetupTimings::coarse_factor_ms, &SetupTimings::convert_ms}) {
      std::vector<double> values;
      for (const SetupTimings& t : setups) values.push_back(t.*phase);
      m.*phase = median(values);
    }
    return m;
  }
  double median_setup_total() const {
    std::vector<double> values;
    for (const SetupTimings& t : setups) values.push_back(t.total_ms());
    return median(values);
  }
};

std::string phases_json(const SetupTimings& t) {
  return "{\"prepare\":" + json_number(t.prepare_ms) +
         ",\"strength\":" + json_number(t.strength_ms) +
         ",\"aggregation\":" + json_number(t.aggregation_ms) +
         ",\"tentative\":" + json_number(t.tentative_ms) +
         ",\"prolongator\":" + json_number(t.prolongator_ms) +
         ",\"restriction\":" + json_number(t.restriction_ms) +
         ",\"galerkin\":" + json_number(t.galerkin_ms) +
         ",\"coarse_factor\":" + json_number(t.coarse_factor_ms) +
         (t.convert_ms > 0 ? ",\"convert\":" + json_number(t.convert_ms) : std::string()) + "}";
}

// ", convert to float X.X": a mixed-precision setup's rounding of A.
std::string convert_text(double ms) {
  char text[48];
  std::snprintf(text, sizeof text, ", convert to float %.1f", ms);
  return text;
}

void print_phases(const char* what, const SetupTimings& t, double total) {
  std::printf(
      "%s ms: prepare %.1f, strength %.1f, aggregation %.1f, tentative %.1f, prolongator %.1f, "
      "restriction %.1f, galerkin %.1f, coarse factor %.1f%s, total %.1f\n",
      what, t.prepare_ms, t.strength_ms, t.aggregation_ms, t.tentative_ms, t.prolongator_ms,
      t.restriction_ms, t.galerkin_ms, t.coarse_factor_ms,
      t.convert_ms > 0 ? convert_text(t.convert_ms).c_str() : "", total);
}

/// Per right-hand side: iterations and true relative residual, then the spread.
void print_block_report(const BlockSolveResult& block) {
  std::printf("rhs  iterations  converged  true relative residual\n");
  int fewest = block.columns[0].iterations;
  double worst = 0;
  for (std::size_t j = 0; j < block.columns.size(); ++j) {
    const SolveResult& column = block.columns[j];
    std::printf("%3zu  %10d  %9s  %.3e\n", j, column.iterations, column.converged ? "yes" : "NO",
                column.relative_residual);
    fewest = std::min(fewest, column.iterations);
    worst = std::max(worst, column.relative_residual);
  }
  std::printf(
      "%s %zu right-hand sides: %d to %d iterations, worst true relative residual "
      "%.3e, solve %.1f ms (%.2f ms per right-hand side)\n",
      block.all_converged() ? "converged all" : "NOT converged: some of", block.columns.size(),
      fewest, block.max_iterations(), worst, block.solve_ms, block.solve_ms / block.columns.size());
}

std::string block_json(const BlockSolveResult& block) {
  std::string json = ",\"rhs\":[";
  for (std::size_t j = 0; j < block.columns.size(); ++j)
    json += std::string(j > 0 ? "," : "") +
            "{\"iterations\":" + std::to_string(block.columns[j].iterations) +
            ",\"converged\":" + (block.columns[j].converged ? "true" : "false") +
            ",\"stalled\":" + (block.columns[j].stalled ? "true" : "false") +
            ",\"relative_residual\":" + json_number(block.columns[j].relative_residual) + "}";
  return json + "]";
}

/// Builds the hierarchy of A (a Hierarchy or a DeviceHierarchy), solves A x = b
/// for the k right-hand sides with it, prints the report.
// vcycle_convergence_factors of h, one line per level on stdout.
template <typename T>
std::vector<double> print_cycle_factors(const Hierarchy<T>& h, int iterations) {
  const std::vector<double> factors = vcycle_convergence_factors(h, iterations);
  for (std::size_t l = 0; l < factors.size(); ++l)
    std::printf("V-cycle convergence factor from level %zu (%d rows): %.3f\n", l,
                int(h.matrix(index_t(l)).rows), factors[l]);
  return factors;
}

/// `refreshes` is filled by build_and_solve's first call (--refresh-count).
template <typename T, typename BuildSolve>
int solve_and_report(const Options& options, Device device, const CsrMatrix<T>& A, index_t k,
                     const std::string& description, double load_ms, BuildSolve&& build_and_solve,
                     const cli::RefreshRuns& refreshes = {}) {
  std::cout << "binamg amg_solve: " << description << ", " << A.rows << " rows, " << A.nnz()
            << " nonzeros, " << options.precision << ", device " << device_name(device)
            << " (GPU: " << gpu_description() << ")";
  if (k > 1) std::cout << ", " << k << " right-hand sides";
  std::cout << "\n";
  // build_and_solve(report) builds the hierarchy, calls report(hierarchy) to print
  // its table, solves, and returns the BlockSolveResult.
  std::ostringstream levels_json;
  SetupTimings t;
  double operator_complexity = 0, grid_complexity = 0;
  std::vector<std::string> warnings;
  index_t nullity = 0;          // of the coarsest matrix
  std::string coarse_solver;    // how the coarsest matrix is solved
  std::vector<double> factors;  // --cycle-factors
  const BlockSolveResult block = build_and_solve([&](const auto& hierarchy) {
    std::cout << hierarchy.describe();
    warnings = hierarchy.warnings;
    nullity = hierarchy.coarse.nullity();
    coarse_solver = hierarchy.coarse.method();
    for (const std::string& warning : warnings)
      std::cerr << "amg_solve: warning: " << warning << "\n";
    t = hierarchy.timings;
    operator_complexity = hierarchy.operator_complexity();
    grid_complexity = hierarchy.grid_complexity();
    const std::vector<LevelSize> sizes = hierarchy.level_sizes();
    for (std::size_t l = 0; l < sizes.size(); ++l)
      levels_json << (l > 0 ? "," : "") << "{\"rows\":" << sizes[l].rows
                  << ",\"nnz\":" << sizes[l].nnz << "}";
    print_phases("setup", t, t.total_ms());
    // Where the hierarchy loses convergence, level by level: on the host's
    // hierarchy, or on the host's twin of the device's.
    if (options.cycle_factors > 0) {
      if constexpr (std::is_same_v<std::decay_t<decltype(hierarchy)>, Hierarchy<T>>)
        factors = print_cycle_factors(hierarchy, options.cycle_factors);
      else
        factors = print_cycle_factors(build_hierarchy(A, options.amg), options.cycle_factors);
    }
  });
  // Warm repeats: the same build and solve again; a different answer would be a
  // determinism bug, so it stops the run instead of being timed.
  RepeatTimings repeats;
  for (int run = 1; run <= options.repeat; ++run) {
    SetupTimings setup;
    const BlockSolveResult again =
        build_and_solve([&](const auto& hierarchy) { setup = hierarchy.timings; });
    for (std::size_t j = 0; j < block.columns.size(); ++j)
      if (again.columns[j].iterations != block.columns[j].iterations ||
          !cli::same_bits(again.columns[j].relative_residual, block.columns[j].relative_residual))
        throw std::runtime_error("repeat " + std::to_string(run) +
                                 " gave a different result than the first run");
    repeats.setups.push_back(setup);
    repeats.solves.push_back(again.solve_ms);
  }
  // One right-hand side: its residual history; several: a line each.
  const SolveResult& first = block.columns[0];
  double worst_residual = 0;
  for (const SolveResult& column : block.columns)
    worst_residual = std::max(worst_residual, column.relative_residual);
  if (k == 1) {
    for (std::size_t i = 0; i < first.residual_history.size(); ++i)
      std::printf("iteration %3zu  relative residual %.3e\n", i, first.residual_history[i]);
    std::printf(
        "%s after %d iterations: true relative residual %.3e, solve %.1f ms "
        "(%.2f ms per iteration), setup %.1f ms, load %.1f ms\n",
        first.converged ? "converged" : "NOT converged", first.iterations, first.relative_residual,
        block.solve_ms, first.iterations > 0 ? block.solve_ms / first.iterations : 0.0,
        t.total_ms(), load_ms);
  } else {
    print_block_report(block);
    std::printf("setup %.1f ms, load %.1f ms\n", t.total_ms(), load_ms);
  }
  bool stalled = false;
  for (const SolveResult& column : block.columns) stalled = stalled || column.stalled;
  if (!block.all_converged() && nullity > 0)
    std::printf(
        "the coarsest matrix is singular (a null space of dimension %d): the part of b in A's "
        "null space has no solution and no iteration reduces it, so b is probably not "
        "consistent (for a pure-Neumann Laplacian: its entries must sum to 0); subtract that "
        "part from b\n",
        int(nullity));
  else if (stalled)
    std::printf(
        "the iteration reached its own tolerance or %s's rounding, but the true relative "
        "residual stays at %.3e, above --tol %.3g: %s arithmetic cannot attain it for this "
        "problem (%s)\n",
        options.precision.c_str(), worst_residual, options.solve.tolerance,
        options.precision.c_str(),
        options.precision == "float" ? "use --precision double or a larger --tol"
                                     : "use a larger --tol");
  if (options.repeat > 0) {
    print_phases("median of repeats: setup", repeats.median_setup(), repeats.median_setup_total());
    std::printf(
        "median of %d repeats: solve %.1f ms (the first, cold run: setup %.1f ms, "
        "solve %.1f ms)\n",
        options.repeat, median(repeats.solves), t.total_ms(), block.solve_ms);
  }
  // Against the warm setup where there is one: the refreshes run warm.
  if (!refreshes.ms.empty())
    cli::print_refreshes(refreshes,
                         options.repeat > 0 ? repeats.median_setup_total() : t.total_ms(),
                         device == Device::gpu);

  if (options.json) {
    std::ostringstream json;
    const std::string problem = options.matrix.empty() ? options.problem : options.matrix;
    json << "{\"problem\":" << json_string(problem) << ",\"rows\":" << A.rows
         << ",\"nnz\":" << A.nnz() << ",\"levels\":[" << levels_json.str() << "]"
         << ",\"operator_complexity\":" << json_number(operator_complexity)
         << ",\"grid_complexity\":" << json_number(grid_complexity)
         << ",\"coarse_solver\":" << json_string(coarse_solver) << ",\"solver\":\""
         << options.solver << "\",\"rhs_count\":" << k
         << ",\"iterations\":" << block.max_iterations()
         << ",\"converged\":" << (block.all_converged() ? "true" : "false")
         << ",\"stalled\":" << (stalled ? "true" : "false")
         << ",\"relative_residual\":" << json_number(worst_residual);
    if (k > 1) json << block_json(block);
    json << ",\"setup_ms\":" << json_number(t.total_ms())
         << ",\"setup_phases_ms\":" << phases_json(t)
         << ",\"solve_ms\":" << json_number(block.solve_ms) << ",\"repeats\":" << options.repeat;
    if (options.repeat > 0)
      json << ",\"setup_ms_median\":" << json_number(repeats.median_setup_total())
           << ",\"setup_phases_ms_median\":" << phases_json(repeats.median_setup())
           << ",\"solve_ms_median\":" << json_number(median(repeats.solves));
    json << cli::refresh_json(refreshes);
    json << ",\"device\":\"" << device_name(device) << "\",\"precision\":\"" << options.precision
         << "\",\"aggregation\":\"" << aggregation_name(options.amg.aggregation)
         << "\",\"ordering\":\"" << ordering_name(options.amg.ordering)
         << "\",\"strength_measure\":\"" << strength_measure_name(options.amg.strength_measure)
         << "\",\"smoother\":\""
         << smoother_name(options.amg.smoother)
         << "\",\"filtered_prolongator_steps\":" << options.amg.filtered_prolongator_steps
         << ",\"block_size\":" << options.amg.near_nullspace.block_size
         << ",\"near_nullspace\":" << options.amg.near_nullspace.count << ",\"commit\":\""
         << build_commit() << "\"";
    if (!factors.empty()) {
      json << ",\"cycle_factors\":[";
      for (std::size_t l = 0; l < factors.size(); ++l)
        json << (l > 0 ? "," : "") << json_number(factors[l]);
      json << "]";
    }
    json << ",\"warnings\":[";
    for (std::size_t i = 0; i < warnings.size(); ++i)
      json << (i > 0 ? "," : "") << json_string(warnings[i]);
    json << "]}";
    std::cout << json.str() << std::endl;
  }
  return block.all_converged() ? 0 : 3;
}

/// --precision mixed: the hierarchy built from A rounded to float (the rounding
/// timed as setup), its V-cycle preconditioning CG in double on A. A refresh
/// (--refresh-count) rounds the new values, refreshes the float hierarchy with
/// them and gives CG the new A, all timed.
int run_mixed(const Options& options, Device device, const CsrMatrix<double>& A,
              const std::vector<double>& b, const std::string& description, double load_ms) {
  require(b.size() == std::size_t(A.rows),
          "--precision mixed takes one right-hand side (--rhs with one column)");
  auto single = [](const SolveResult& result) {
    BlockSolveResult block;
    block.columns = {result};
    block.solve_ms = result.solve_ms;
    return block;
  };
  cli::RefreshRuns refreshes;  // after the first (cold) solve only
  bool refreshed = false;
  if (device == Device::cpu)
    return solve_and_report(
        options, device, A, 1, description, load_ms,
        [&](auto&& report) {
          const auto start = std::chrono::steady_clock::now();
          const CsrMatrix<float> rounded = convert_values<float>(A);
          const double convert_ms = milliseconds_since(start);
          Hierarchy<float> hierarchy = build_hierarchy(rounded, options.amg);
          hierarchy.timings.convert_ms = convert_ms;
          report(hierarchy);
          std::vector<double> x(A.rows, 0.0);
          const BlockSolveResult result = single(pcg(hierarchy, A, b, x, options.solve));
          if (!refreshed) {
            refreshed = true;
            CsrMatrix<double> current;  // CG's A after a refresh
            refreshes = cli::time_refreshes(
                options.refresh_count, A, [](CsrMatrix<double> next) { return next; }, [] {},
                [&](CsrMatrix<double> values) {
                  const auto convert_start = std::chrono::steady_clock::now();
                  const CsrMatrix<float> next = convert_values<float>(values);
                  const double next_convert_ms = milliseconds_since(convert_start);
                  refresh(hierarchy, next);
                  current = std::move(values);
                  hierarchy.timings.convert_ms = next_convert_ms;
                  return hierarchy.timings;
                },
                [&] {
                  std::vector<double> y(A.rows, 0.0);
                  return single(pcg(hierarchy, current, b, y, options.solve));
                });
          }
          return result;
        },
        refreshes);
#if BINAMG_WITH_CUDA
  validate(A, "amg_solve: A");
  return solve_and_report(
      options, device, A, 1, description, load_ms,
      [&](auto&& report) {
        DeviceCsr<double> device_A = to_device(A);
        const DeviceBuffer<double> device_b = to_device(b);
        BINAMG_CUDA_CHECK(cudaDeviceSynchronize());
        const auto start = std::chrono::steady_clock::now();
        DeviceHierarchy<float> hierarchy;
        {
          const DeviceCsr<float> rounded = convert_values<float>(device_A);
          // The double CG multiplies A every iteration: packed and coded, as the
          // double hierarchy does its own copy (charged to the rounding's time).
          // This program owns device_A and gives it new value storage, never
          // new values in place, so codes cannot go stale.
          prepare_for_row_kernels(device_A);
          code_values(device_A);
          BINAMG_CUDA_CHECK(cudaDeviceSynchronize());
          const double convert_ms = milliseconds_since(start);
          hierarchy = build_hierarchy(rounded, options.amg);
          hierarchy.timings.convert_ms = convert_ms;
        }
        report(hierarchy);
        DeviceBuffer<double> x = to_device(std::vector<double>(A.rows, 0.0));
        const BlockSolveResult result =
            single(pcg(hierarchy, device_A, device_b, x, options.solve));
        require(all_finite(to_host(x)), "amg_solve: the GPU solution has non-finite entries");
        if (!refreshed) {
          refreshed = true;
          refreshes = cli::time_refreshes(
              options.refresh_count, A,
              [](const CsrMatrix<double>& next) { return to_device(next); },
              [] { BINAMG_CUDA_CHECK(cudaDeviceSynchronize()); },
              [&](DeviceCsr<double> values) {
                const auto convert_start = std::chrono::steady_clock::now();
                const DeviceCsr<float> next = convert_values<float>(values);
                BINAMG_CUDA_CHECK(cudaDeviceSynchronize());
                const double next_convert_ms = milliseconds_since(convert_start);
                refresh(hierarchy, next);
                const auto coded_start = std::chrono::steady_clock::now();
                device_A.values = std::move(values.values);  // the pattern refresh() checked
                code_values(device_A);  // the old codes describe the old values
                BINAMG_CUDA_CHECK(cudaDeviceSynchronize());
                hierarchy.timings.convert_ms = next_convert_ms + milliseconds_since(coded_start);
                return hierarchy.timings;
              },
              [&] {
                DeviceBuffer<double> y = to_device(std::vector<double>(A.rows, 0.0));
                return single(pcg(hierarchy, device_A, device_b, y, options.solve));
              });
        }
        return result;
      },
      refreshes);
#else
  // Not reached: cli::choose_device refuses --device gpu without CUDA.
  throw InvalidInput("--device gpu: binamg was built without CUDA");
#endif
}

template <typename T>
int run(Options options, Device device) {
  const auto load_start = std::chrono::steady_clock::now();
  CsrMatrix<T> A;
  std::string description;
  // What the problem declares is checked before anything is built: AMG needs
  // a diagonal entry in every row, and the CPU setup about six times the
  // matrix's memory at its peak (its levels, strength graphs and Galerkin
  // intermediates: 4.8-6.3 times on the model problems).
  std::int64_t rows = 0, nnz = 0;
  bool symmetric_by_construction = true;  // the Poisson problems, a symmetric file
  if (!options.matrix.empty()) {
    const MatrixMarketInfo info = read_matrix_market_info(options.matrix);
    symmetric_by_construction = info.symmetric;
    require(!info.coordinate || info.stored_entries >= info.rows,
            options.matrix + ": declares " + std::to_string(info.rows) + " rows but only " +
                std::to_string(info.stored_entries) +
                " entries, so some row has no diagonal entry (AMG needs one in every row)");
    description = options.matrix;
    rows = info.rows;
    nnz = std::int64_t(info.stored_entries) * (info.symmetric ? 2 : 1);
  } else {
    const ProblemSize size = model_problem_size(options.problem, options.size);
    description = options.problem + " n=" + std::to_string(options.size);
    rows = size.rows;
    nnz = size.nnz;
  }
  const std::uint64_t matrix_bytes = std::uint64_t(rows + 1) * sizeof(index_t) +
                                     std::uint64_t(nnz) * (sizeof(index_t) + sizeof(T));
  require_host_memory((device == Device::cpu ? 6 : 2) * matrix_bytes,
                      (device == Device::cpu ? "the setup of " : "the matrix of ") + description);
  A = options.matrix.empty() ? model_problem<T>(options.problem, options.size)
                             : read_matrix_market<T>(options.matrix);
  require(A.rows == A.cols, options.matrix + ": the matrix is " + std::to_string(A.rows) + " x " +
                                std::to_string(A.cols) +
                                "; AMG solves square systems (a rectangular one needs a least-"
                                "squares method)");
  // CG on a nonsymmetric matrix runs to the iteration limit or diverges without
  // saying why; the check is one pass over A and Aᵀ, less than reading the file.
  if (options.solver == "cg" && !symmetric_by_construction)
    if (const auto asymmetry = find_asymmetry(A)) {
      std::ostringstream message;
      message << options.matrix << ": the matrix is not symmetric: A(" << asymmetry->row + 1 << ", "
              << asymmetry->col + 1 << ") = " << asymmetry->value << " but A(" << asymmetry->col + 1
              << ", " << asymmetry->row + 1 << ") = " << asymmetry->transposed
              << " (1-based, as in the file); CG needs a symmetric positive definite matrix: "
                 "use --solver vcycle for a nonsymmetric one";
      throw InvalidInput(message.str());
    }
  // The right-hand sides, row-major rows x k.
  index_t k = std::max<index_t>(options.rhs_count, 1);
  std::vector<T> b;
  if (!options.rhs.empty()) {
    const MatrixMarketInfo info = read_matrix_market_info(options.rhs);
    require(info.rows == A.rows, "--rhs " + options.rhs + " has " + std::to_string(info.rows) +
                                     " entries but the matrix has " + std::to_string(A.rows) +
                                     " rows");
    DenseBlock<T> given = read_matrix_market_block<T>(options.rhs);  // rows as declared
    require(options.rhs_count == 0 || given.cols == options.rhs_count,
            "--rhs " + options.rhs + " has " + std::to_string(given.cols) +
                " columns but --rhs-count is " + std::to_string(options.rhs_count));
    require(given.cols == 1 || options.solver == "cg",
            "--rhs " + options.rhs + " has " + std::to_string(given.cols) +
                " columns: several right-hand sides need --solver cg");
    k = given.cols;
    b = std::move(given.values);
  } else {
    // --rhs-count (even 1) asks for the random right-hand sides, whose column j is
    // the same for every K, so K = 1 and K = 32 time the same first solve.
    b = options.rhs_count == 0 ? poisson_rhs<T>(A.rows) : random_rhs<T>(A.rows, k);
  }
  options.amg.near_nullspace =
      options.system.of(options.problem, options.size, !options.matrix.empty(), A.rows);
  const double load_ms = milliseconds_since(load_start);
  auto solve_block = [&](const auto& hierarchy, const auto& rhs, auto& x) {
    if (k > 1) return pcg(hierarchy, rhs, x, k, options.solve);
    BlockSolveResult single;
    single.columns = {options.solver == "cg" ? pcg(hierarchy, rhs, x, options.solve)
                                             : vcycle_solve(hierarchy, rhs, x, options.solve)};
    single.solve_ms = single.columns[0].solve_ms;
    return single;
  };

  const std::size_t entries = std::size_t(A.rows) * k;
  if constexpr (std::is_same_v<T, double>)
    if (options.precision == "mixed") return run_mixed(options, device, A, b, description, load_ms);
  // --refresh-count: after the first (cold) solve only.
  cli::RefreshRuns refreshes;
  bool refreshed = false;
  if (device == Device::cpu) {
    return solve_and_report(
        options, device, A, k, description, load_ms,
        [&](auto&& report) {
          Hierarchy<T> hierarchy = build_hierarchy(A, options.amg);
          report(hierarchy);
          std::vector<T> x(entries, T(0));
          const BlockSolveResult result = solve_block(hierarchy, b, x);
          if (!refreshed) {
            refreshed = true;
            refreshes = cli::time_refreshes(
                options.refresh_count, A, [](CsrMatrix<T> next) { return next; }, [] {},
                [&](const CsrMatrix<T>& values) {
                  refresh(hierarchy, values);
                  return hierarchy.timings;
                },
                [&] {
                  std::vector<T> y(entries, T(0));
                  return solve_block(hierarchy, b, y);
                });
          }
          return result;
        },
        refreshes);
  }
#if BINAMG_WITH_CUDA
  // The GPU path: A and b go up once, x comes down once for the report; the
  // hierarchy never leaves the device.
  validate(A, "amg_solve: A");
  return solve_and_report(
      options, device, A, k, description, load_ms,
      [&](auto&& report) {
        const DeviceCsr<T> device_A = to_device(A);
        const DeviceBuffer<T> device_b = to_device(b);
        DeviceHierarchy<T> hierarchy = build_hierarchy(device_A, options.amg);
        report(hierarchy);
        DeviceBuffer<T> x = to_device(std::vector<T>(entries, T(0)));
        const BlockSolveResult result = solve_block(hierarchy, device_b, x);
        // The solution, downloaded once; the report's residual was computed on the device.
        require(all_finite(to_host(x)), "amg_solve: the GPU solution has non-finite entries");
        if (!refreshed) {
          refreshed = true;
          refreshes = cli::time_refreshes(
              options.refresh_count, A, [](const CsrMatrix<T>& next) { return to_device(next); },
              [] { BINAMG_CUDA_CHECK(cudaDeviceSynchronize()); },
              [&](const DeviceCsr<T>& values) {
                refresh(hierarchy, values);
                return hierarchy.timings;
              },
              [&] {
                DeviceBuffer<T> y = to_device(std::vector<T>(entries, T(0)));
                return solve_block(hierarchy, device_b, y);
              });
        }
        return result;
      },
      refreshes);
#else
  // Not reached: cli::choose_device refuses --device gpu without CUDA.
  throw InvalidInput("--device gpu: binamg was built without CUDA");
#endif
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options options = parse_arguments(argc, argv);
    const Device device = cli::choose_device(options.device);
    return options.precision == "float" ? run<float>(options, device)
                                        : run<double>(options, device);
  } catch (const binamg::InvalidInput& error) {
    std::cerr << "amg_solve: " << error.what() << "\n";
    return 2;
  } catch (const binamg::OutOfMemory& error) {
    std::cerr << "amg_solve: " << error.what() << "; try a smaller problem or --device cpu\n";
    return 4;
  } catch (const std::bad_alloc&) {
    std::cerr << "amg_solve: out of host memory ("
              << binamg::format_bytes(binamg::available_host_bytes())
              << " available); try a smaller problem\n";
    return 4;
  } catch (const std::exception& error) {
    std::cerr << "amg_solve: error: " << error.what() << "\n";
    return 1;
  }
}
