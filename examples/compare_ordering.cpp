// compare_ordering: the ordering question of the Galerkin product. Builds one SA
// hierarchy, then forms every level's A_c = Pᵀ·A·P from that level's A, P and
// R = Pᵀ both as (PᵀA)P and as Pᵀ(AP): time, scalar products of each SpGEMM,
// nnz of the intermediate and of A_c, peak extra memory, and a check that the
// two orders give the same A_c up to rounding.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "binamg/amg/galerkin.hpp"
#include "binamg/amg/hierarchy.hpp"
#include "binamg/amg/parameters.hpp"
#include "binamg/core/config.hpp"
#include "binamg/core/device.hpp"
#include "binamg/core/error.hpp"
#include "binamg/problems/model_problem.hpp"
#include "binamg/sparse/matrix_market.hpp"
#include "examples/cli.hpp"
#include "examples/near_nullspace_options.hpp"
#if BINAMG_WITH_CUDA
#include "binamg/core/device_pool.hpp"
#include "binamg/sparse/device_csr.hpp"
#endif

namespace {

using namespace binamg;
using cli::json_number;
using cli::json_string;

const char* usage_text =
    R"(usage: compare_ordering (--problem NAME --size N | --matrix FILE.mtx[.gz]) [options]

Builds one smoothed-aggregation hierarchy (default AMG parameters) and computes
every level's Galerkin product A_c = P^T A P in both orders, (P^T A) P
("ptap-left") and P^T (A P) ("ptap-right"), from the same A, P and R = P^T.

  --problem NAME       poisson2d-5 | poisson2d-9 | poisson3d-7 | poisson3d-27 |
                       elasticity2d | elasticity3d
  --size N             grid points per direction
  --matrix FILE        Matrix Market coordinate file, optionally gzipped
  --block-size B, --near-nullspace FILE, --coordinates FILE
                       a system of PDEs, as amg_solve takes it (the elasticity
                       problems carry their rigid-body modes)
  --device auto|cpu|gpu  (default auto: the GPU when present)
  --precision double|float  (default double)
  --aggregation mis2|standard  (default mis2)
  --max-coarse N       coarsen until at most N rows (default: amg_solve's, 1200)
  --repeat N           timed runs per product after one warm-up; the median is
                       reported (default 5)
  --json               one JSON object per level, then one for the total
  --help               this text

Per level and ordering: time (ms), scalar products (multiply-adds) of the first
and second SpGEMM, nnz of the intermediate (P^T A or A P) and of A_c, and peak
extra memory (GPU: pool bytes beyond the inputs; CPU: bytes of the intermediate
and A_c). The total sums times and counts over levels; its peak is the largest
level's. Both A_c must have the same sparsity pattern and entries within
rounding: |left - right| <= tol * S, S the sum of the magnitudes of the products
that form the entry (|P^T| |A| |P|), tol 1e-12 in double and 1e-5 in float.
The difference relative to the entries themselves is printed too; it is large
where the terms of an entry cancel. Exit status 0 when both orders agree on
every level, 3 when they do not, 2 on bad input, 1 on other errors.
)";

constexpr GalerkinOrdering orderings[] = {GalerkinOrdering::ptap_left,
                                          GalerkinOrdering::ptap_right};

struct Options {
  std::string problem, matrix;
  index_t size = 0;
  std::string device = "auto", precision = "double";
  AmgParameters amg;
  cli::NearNullspaceOptions system;
  int repeat = 5;
  bool json = false;
};

Options parse_arguments(int argc, char** argv) {
  Options options;
  const cli::Arguments arguments = cli::parse_arguments(
      argc, argv,
      {"--problem", "--size", "--matrix", "--device", "--precision", "--aggregation",
       "--max-coarse", "--repeat", "--block-size", "--near-nullspace", "--coordinates"},
      usage_text);
  options.json = arguments.json;
  if (auto v = arguments.get("--problem")) options.problem = *v;
  if (auto v = arguments.get("--matrix")) options.matrix = *v;
  if (auto v = arguments.get("--size")) options.size = cli::parse_number<index_t>("--size", *v);
  if (auto v = arguments.get("--device")) options.device = *v;
  if (auto v = arguments.get("--precision")) options.precision = *v;
  if (auto v = arguments.get("--aggregation")) options.amg.aggregation = parse_aggregation(*v);
  if (auto v = arguments.get("--max-coarse")) {
    options.amg.max_coarse_rows = cli::parse_number<index_t>("--max-coarse", *v);
    require(options.amg.max_coarse_rows >= 1, "--max-coarse must be at least 1");
    options.amg.max_direct_rows =
        std::max(options.amg.max_direct_rows, options.amg.max_coarse_rows);
  }
  if (auto v = arguments.get("--repeat")) options.repeat = cli::parse_number<int>("--repeat", *v);
  options.system = cli::NearNullspaceOptions::read(arguments);
  cli::validate_input_options(options.problem, options.size, options.matrix, options.precision,
                              options.device);
  require(options.repeat >= 1, "--repeat must be at least 1");
  return options;
}

/// One ordering on one level (or summed over levels).
struct Measurement {
  double ms = 0;
  GalerkinCost cost;
  std::size_t peak_bytes = 0;

  void add(const Measurement& level) {
    ms += level.ms;
    cost.first_products += level.cost.first_products;
    cost.second_products += level.cost.second_products;
    cost.intermediate_nnz += level.cost.intermediate_nnz;
    cost.coarse_nnz += level.cost.coarse_nnz;
    peak_bytes = std::max(peak_bytes, level.peak_bytes);
  }
};

struct LevelReport {
  index_t rows = 0, coarse_rows = 0, nnz = 0, prolongator_nnz = 0;
  Measurement ordering[2];  // indexed like `orderings`
  // Largest entrywise difference of the two A_c relative to the larger entry
  // (reported), and relative to the sum of |terms| of the entry (checked: see
  // max_relative_difference for why).
  double difference = 0, scaled_difference = 0;
  std::string mismatch;  // non-empty when the patterns differ
};

/// Bound on the scaled difference of the two A_c (BENCH.md's tolerances): the
/// rounding of a sum is a few ulps of the sum of its |terms|; measured on the
/// Poisson hierarchies up to 3D 60³ it stays below 1e-15 (double), 6e-7 (float).
template <typename T>
double agreement_tolerance() {
  return std::is_same_v<T, float> ? 1e-5 : 1e-12;
}

/// Median wall-clock milliseconds of `repeat` calls of `run` after one warm-up;
/// `run` returns only when its work is complete.
template <typename Run>
double median_ms(int repeat, Run&& run) {
  run();
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// Host bytes of a CSR matrix with `rows` rows and `nnz` entries.
template <typename T>
std::size_t csr_bytes(index_t rows, index_t nnz) {
  return (std::size_t(rows) + 1) * sizeof(index_t) + std::size_t(nnz) * (sizeof(index_t) + sizeof(T));
}

/// Fills everything but the timings and peaks from host copies of the level.
template <typename T>
LevelReport describe_level(const CsrMatrix<T>& A, const CsrMatrix<T>& P, const CsrMatrix<T>& R,
                           const CsrMatrix<T> (&coarse)[2]) {
  LevelReport report;
  report.rows = A.rows;
  report.coarse_rows = P.cols;
  report.nnz = A.nnz();
  report.prolongator_nnz = P.nnz();
  for (int o = 0; o < 2; ++o) report.ordering[o].cost = galerkin_cost(A, P, R, orderings[o]);
  try {
    const std::string what = "A_c (P^T A) P vs P^T (A P)";
    report.difference = max_relative_difference(coarse[0], coarse[1], what);
    const CsrMatrix<double> magnitude = galerkin_magnitude(A, P, R);
    report.scaled_difference = max_relative_difference(coarse[0], coarse[1], what, &magnitude);
  } catch (const InvalidInput& error) {
    report.mismatch = error.what();
  }
  return report;
}

template <typename T>
std::vector<LevelReport> compare_on_cpu(const CsrMatrix<T>& A, const Options& options) {
  const Hierarchy<T> hierarchy = build_hierarchy(A, options.amg);
  std::vector<LevelReport> reports;
  for (const Level<T>& level : hierarchy.levels) {
    CsrMatrix<T> coarse[2];
    double ms[2];
    for (int o = 0; o < 2; ++o)
      ms[o] = median_ms(options.repeat, [&] {
        coarse[o] = galerkin_product(level.A, level.P, level.R, orderings[o]);
      });
    LevelReport report = describe_level(level.A, level.P, level.R, coarse);
    for (int o = 0; o < 2; ++o) {
      Measurement& m = report.ordering[o];
      m.ms = ms[o];
      const index_t intermediate_rows =
          orderings[o] == GalerkinOrdering::ptap_left ? level.R.rows : level.A.rows;
      m.peak_bytes = csr_bytes<T>(intermediate_rows, m.cost.intermediate_nnz) +
                     csr_bytes<T>(report.coarse_rows, m.cost.coarse_nnz);
    }
    reports.push_back(std::move(report));
  }
  return reports;
}

#if BINAMG_WITH_CUDA
template <typename T>
std::vector<LevelReport> compare_on_gpu(const CsrMatrix<T>& A, const Options& options) {
  validate(A, "compare_ordering: A");
  const DeviceHierarchy<T> hierarchy = build_hierarchy(to_device(A), options.amg);
  std::vector<LevelReport> reports;
  for (const DeviceLevel<T>& level : hierarchy.levels) {
    CsrMatrix<T> coarse[2];
    double ms[2];
    std::size_t peak[2];
    for (int o = 0; o < 2; ++o) {
      auto product = [&] {
        return galerkin_product(level.A, level.P, level.R, orderings[o], hierarchy.stream);
      };
      ms[o] = median_ms(options.repeat, [&] {
        DeviceCsr<T> result = product();
        BINAMG_CUDA_CHECK(cudaStreamSynchronize(hierarchy.stream));
      });
      peak[o] = pool_peak_extra_bytes([&] { DeviceCsr<T> result = product(); });
      coarse[o] = to_host(product());
    }
    LevelReport report =
        describe_level(to_host(level.A), to_host(level.P), to_host(level.R), coarse);
    for (int o = 0; o < 2; ++o) {
      report.ordering[o].ms = ms[o];
      report.ordering[o].peak_bytes = peak[o];
    }
    reports.push_back(std::move(report));
  }
  return reports;
}
#endif  // BINAMG_WITH_CUDA

std::string json_measurement(const Measurement& m) {
  std::ostringstream json;
  json << "{\"ms\":" << json_number(m.ms) << ",\"first_products\":" << m.cost.first_products
       << ",\"second_products\":" << m.cost.second_products
       << ",\"products\":" << m.cost.products()
       << ",\"intermediate_nnz\":" << m.cost.intermediate_nnz
       << ",\"coarse_nnz\":" << m.cost.coarse_nnz << ",\"peak_bytes\":" << m.peak_bytes << "}";
  return json.str();
}

void print_measurement(const char* level, const std::string& sizes, GalerkinOrdering ordering,
                       const Measurement& m) {
  std::printf("%-6s %-22s %-10s %10.3f %14lld %14lld %13d %11d %12zu\n", level, sizes.c_str(),
              ordering_name(ordering), m.ms, static_cast<long long>(m.cost.first_products),
              static_cast<long long>(m.cost.second_products), m.cost.intermediate_nnz,
              m.cost.coarse_nnz, m.peak_bytes);
}

/// Prints the table (or JSON lines) and returns the exit status.
int report(const std::vector<LevelReport>& levels, const Options& options, Device device,
           const std::string& description, double tolerance) {
  const std::string common = "\"problem\":" + json_string(description) + ",\"device\":\"" +
                             device_name(device) + "\",\"precision\":\"" + options.precision +
                             "\",\"block_size\":" +
                             std::to_string(options.amg.near_nullspace.block_size) +
                             ",\"near_nullspace\":" +
                             std::to_string(options.amg.near_nullspace.count);
  if (!options.json) {
    std::printf("compare_ordering: %s, %s, device %s (GPU: %s), median of %d", description.c_str(),
                options.precision.c_str(), device_name(device), gpu_description().c_str(),
                options.repeat);
    const NearNullspace& system = options.amg.near_nullspace;
    if (is_system(system))
      std::printf(", block size %d, %d near-nullspace vectors", int(system.block_size),
                  int(system.count));
    std::printf("\n");
    std::printf("%-6s %-22s %-10s %10s %14s %14s %13s %11s %12s\n", "level", "rows -> coarse",
                "ordering", "ms", "products 1st", "products 2nd", "nnz interm.", "nnz A_c",
                "peak bytes");
  }
  Measurement total[2];
  bool agree = true;
  for (std::size_t l = 0; l < levels.size(); ++l) {
    const LevelReport& r = levels[l];
    const bool level_agrees = r.mismatch.empty() && r.scaled_difference <= tolerance;
    agree = agree && level_agrees;
    for (int o = 0; o < 2; ++o) total[o].add(r.ordering[o]);
    if (options.json) {
      std::cout << "{" << common << ",\"level\":" << l << ",\"rows\":" << r.rows
                << ",\"coarse_rows\":" << r.coarse_rows << ",\"nnz\":" << r.nnz
                << ",\"prolongator_nnz\":" << r.prolongator_nnz
                << ",\"ptap_left\":" << json_measurement(r.ordering[0])
                << ",\"ptap_right\":" << json_measurement(r.ordering[1])
                << ",\"max_relative_difference\":" << json_number(r.difference)
                << ",\"max_scaled_difference\":" << json_number(r.scaled_difference)
                << ",\"agree\":" << (level_agrees ? "true" : "false") << "}\n";
    } else {
      const std::string sizes = std::to_string(r.rows) + " -> " + std::to_string(r.coarse_rows);
      for (int o = 0; o < 2; ++o)
        print_measurement(o == 0 ? std::to_string(l).c_str() : "", o == 0 ? sizes : "",
                          orderings[o], r.ordering[o]);
      std::printf("%-6s A_c differ by %.3g relative to |terms| (tolerance %.0e), %.3g relative "
                  "to the entries%s\n",
                  "", r.scaled_difference, tolerance, r.difference,
                  level_agrees ? "" : "  <-- DISAGREE");
    }
    if (!r.mismatch.empty()) std::cerr << "compare_ordering: level " << l << ": " << r.mismatch << "\n";
  }
  if (options.json) {
    std::cout << "{" << common << ",\"level\":\"total\",\"levels\":" << levels.size()
              << ",\"ptap_left\":" << json_measurement(total[0])
              << ",\"ptap_right\":" << json_measurement(total[1])
              << ",\"agree\":" << (agree ? "true" : "false") << "}" << std::endl;
  } else {
    for (int o = 0; o < 2; ++o) print_measurement(o == 0 ? "total" : "", "", orderings[o], total[o]);
    std::printf("%s\n", agree ? "both orderings agree on every level"
                              : "the orderings DISAGREE (see above)");
  }
  return agree ? 0 : 3;
}

template <typename T>
int run(Options options, Device device) {
  CsrMatrix<T> A;
  std::string description;
  if (!options.matrix.empty()) {
    A = read_matrix_market<T>(options.matrix);
    description = options.matrix;
  } else {
    A = model_problem<T>(options.problem, options.size);
    description = options.problem + "-" + std::to_string(options.size);
  }
  options.amg.near_nullspace =
      options.system.of(options.problem, options.size, !options.matrix.empty(), A.rows);
#if BINAMG_WITH_CUDA
  const std::vector<LevelReport> levels =
      device == Device::cpu ? compare_on_cpu(A, options) : compare_on_gpu(A, options);
#else
  const std::vector<LevelReport> levels = compare_on_cpu(A, options);  // the only device
#endif
  require(!levels.empty(), description + " has " +
                               std::to_string(A.rows) +
                               " rows, too few to coarsen (no Galerkin product to compare)");
  return report(levels, options, device, description, agreement_tolerance<T>());
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options options = parse_arguments(argc, argv);
    const Device device = cli::choose_device(options.device);
    return options.precision == "float" ? run<float>(options, device)
                                        : run<double>(options, device);
  } catch (const binamg::InvalidInput& error) {
    std::cerr << "compare_ordering: " << error.what() << "\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "compare_ordering: error: " << error.what() << "\n";
    return 1;
  }
}
