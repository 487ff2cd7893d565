// The Galerkin pyramid (BENCH.md): for every level of binamg's GPU SA hierarchy,
// A_c = R·A·P (R = Pᵀ) as (R·A)·P and as R·(A·P), binamg's SpGEMM pair against
// the same pair through cusparseSpGEMM (ALG1, ALG3 where ALG1 runs out of
// memory), same CSR inputs, same process. One JSON line per (problem,
// precision, ordering, level), a pyramid total per (problem, precision,
// ordering), and per (problem, precision) the better ordering of each side.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/common.hpp"
#include "bench/cusparse_spgemm.hpp"
#include "binamg/amg/galerkin.hpp"
#include "binamg/amg/hierarchy.hpp"
#include "binamg/amg/parameters.hpp"
#include "binamg/core/device_pool.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/sparse/device_csr.hpp"
#include "examples/cli.hpp"

namespace binamg::bench {
namespace {

const char* usage_text = R"(usage: bench_galerkin [options]
  --problem NAME     poisson2d-5 | poisson2d-9 | poisson3d-7 | poisson3d-27 (repeatable;
                     default all four)
  --precision P      double | float (default both)
  --size2d N         grid points per direction of the 2D problems (default 1024)
  --size3d N         grid points per direction of the 3D problems (default 101)
  --quick            --size2d 256 --size3d 32
  --aggregation A    mis2 | standard (default: AmgParameters' default)
  --runs N           timed runs after one warm-up, median reported (default 5, at least 5)
)";

constexpr double target_speedup = 3.0;  // issue 4: the better ordering ≥ 3× cuSPARSE ALG1

struct Options {
  std::vector<Stencil> problems;
  std::vector<std::string> precisions;
  index_t size2d = 1024, size3d = 101;
  AmgParameters amg;
  int runs = 5;
};

/// One side (ours or cuSPARSE) summed over a pyramid.
struct Total {
  double ms = 0, peak_bytes = 0;
  bool checked = true;
  bool used_alg3 = false;
};

/// BENCH.md's tolerances, relative to each entry's sum of |terms|.
template <typename T>
double tolerance() {
  return std::is_same_v<T, double> ? 1e-12 : 1e-5;
}

/// The two SpGEMMs of `ordering` through `multiply` (X, Y) -> X·Y, the way
/// galerkin_product chains them.
template <typename T, typename Multiply>
DeviceCsr<T> galerkin_pair(const DeviceLevel<T>& level, GalerkinOrdering ordering,
                           const Multiply& multiply) {
  if (ordering == GalerkinOrdering::ptap_left)
    return multiply(multiply(level.R, level.A), level.P);
  return multiply(level.R, multiply(level.A, level.P));
}

/// Benchmarks one level in one ordering, prints its line and adds it to the totals.
template <typename T>
void run_level(cusparseHandle_t handle, const std::string& problem, const DeviceLevel<T>& level,
               int index, GalerkinOrdering ordering, int runs, Total& ours, Total& peer) {
  const char* precision = std::is_same_v<T, double> ? "double" : "float";
  JsonLine line;
  line.field("bench", "galerkin_pyramid").field("problem", problem)
      .field("precision", precision).field("ordering", ordering_name(ordering))
      .field("level", index);
  try {
    const CsrMatrix<T> A = to_host(level.A), P = to_host(level.P), R = to_host(level.R);
    const GalerkinCost cost = galerkin_cost(A, P, R, ordering);

    auto ours_pair = [&] { return galerkin_product(level.A, level.P, level.R, ordering); };
    cusparseSpGEMMAlg_t alg = CUSPARSE_SPGEMM_ALG1;
    auto peer_pair = [&] {
      return galerkin_pair(level, ordering, [&](const DeviceCsr<T>& X, const DeviceCsr<T>& Y) {
        return cusparse_spgemm(handle, X, Y, alg);
      });
    };
    DeviceCsr<T> peer_C;
    try {
      peer_C = peer_pair();
    } catch (const DeviceError&) {  // ALG1 out of memory: the low-memory algorithm
      alg = CUSPARSE_SPGEMM_ALG3;
      pool_trim();
      peer_C = peer_pair();
    }
    const CsrMatrix<T> peer_host = to_host(peer_C);
    peer_C = DeviceCsr<T>();
    const CsrMatrix<T> ours_host = to_host(ours_pair());
    // Relative to the sum of |terms| of each entry: cuSPARSE adds the products
    // in its own order, and entries whose terms cancel keep only their rounding.
    const CsrMatrix<double> magnitude = galerkin_magnitude(A, P, R);
    const std::string difference = compare(ours_host, peer_host, tolerance<T>(), &magnitude);
    if (!difference.empty()) throw std::runtime_error("result check failed: " + difference);

    const double ours_peak = peak_extra_bytes([&] { DeviceCsr<T> C = ours_pair(); });
    const double peer_peak = peak_extra_bytes([&] { DeviceCsr<T> C = peer_pair(); });
    const double ours_ms = median_ms([&] { DeviceCsr<T> C = ours_pair(); }, nullptr, runs);
    const double peer_ms = median_ms([&] { DeviceCsr<T> C = peer_pair(); }, nullptr, runs);
    ours.ms += ours_ms;
    peer.ms += peer_ms;
    ours.peak_bytes = std::max(ours.peak_bytes, ours_peak);
    peer.peak_bytes = std::max(peer.peak_bytes, peer_peak);
    peer.used_alg3 = peer.used_alg3 || alg == CUSPARSE_SPGEMM_ALG3;
    line.field("rows", A.rows)
        .field("coarse_rows", P.cols)
        .field("nnz_a", A.nnz())
        .field("nnz_p", P.nnz())
        .field("first_products", static_cast<long long>(cost.first_products))
        .field("second_products", static_cast<long long>(cost.second_products))
        .field("intermediate_nnz", cost.intermediate_nnz)
        .field("nnz_c", ours_host.nnz())
        .field("ours_ms", ours_ms)
        .field("peer", alg == CUSPARSE_SPGEMM_ALG1 ? "cusparse_alg1" : "cusparse_alg3")
        .field("peer_ms", peer_ms)
        .field("speedup", peer_ms / ours_ms)
        .field("ours_gflops", 2.0 * cost.products() / (ours_ms * 1e6))
        .field("ours_peak_bytes", ours_peak)
        .field("peer_peak_bytes", peer_peak)
        .field("checked", true);
  } catch (const std::exception& error) {
    ours.checked = peer.checked = false;
    line.field("checked", false).field("error", error.what());
  }
  line.print();
}

const char* peer_name(const Total& peer) {
  return peer.used_alg3 ? "cusparse_alg1+alg3" : "cusparse_alg1";
}

template <typename T>
void run_problem(cusparseHandle_t handle, Stencil stencil, index_t n, const Options& options) {
  const char* precision = std::is_same_v<T, double> ? "double" : "float";
  const std::string problem = std::string(stencil_name(stencil)) + "-" + std::to_string(n);
  try {
    const DeviceHierarchy<T> hierarchy = build_hierarchy(to_device(poisson<T>(stencil, n)),
                                                         options.amg);
    BINAMG_CUDA_CHECK(cudaDeviceSynchronize());
    Total ours[2], peer[2];
    const GalerkinOrdering orderings[2] = {GalerkinOrdering::ptap_left,
                                           GalerkinOrdering::ptap_right};
    for (int o = 0; o < 2; ++o) {
      for (std::size_t l = 0; l < hierarchy.levels.size(); ++l)
        run_level(handle, problem, hierarchy.levels[l], int(l), orderings[o], options.runs,
                  ours[o], peer[o]);
      JsonLine total;
      total.field("bench", "galerkin_pyramid").field("problem", problem)
          .field("precision", precision).field("ordering", ordering_name(orderings[o]))
          .field("level", "total").field("levels", hierarchy.levels.size())
          .field("aggregation", aggregation_name(options.amg.aggregation))
          .field("checked", ours[o].checked);
      if (ours[o].checked)
        total.field("ours_ms", ours[o].ms).field("peer", peer_name(peer[o]))
            .field("peer_ms", peer[o].ms).field("speedup", peer[o].ms / ours[o].ms)
            .field("ours_peak_bytes", ours[o].peak_bytes)
            .field("peer_peak_bytes", peer[o].peak_bytes);
      total.print();
    }
    if (!(ours[0].checked && ours[1].checked)) return;
    // The question of issue 4: each side in its better ordering, whole pyramid.
    const int ours_best = ours[0].ms <= ours[1].ms ? 0 : 1;
    const int peer_best = peer[0].ms <= peer[1].ms ? 0 : 1;
    const double speedup = peer[peer_best].ms / ours[ours_best].ms;
    JsonLine()
        .field("bench", "galerkin_pyramid").field("problem", problem)
        .field("precision", precision).field("level", "total").field("ordering", "best")
        .field("ours_ordering", ordering_name(orderings[ours_best]))
        .field("ours_ms", ours[ours_best].ms)
        .field("peer", peer_name(peer[peer_best]))
        .field("peer_ordering", ordering_name(orderings[peer_best]))
        .field("peer_ms", peer[peer_best].ms)
        .field("speedup", speedup)
        .field("target_speedup", target_speedup)
        .field("meets_target", speedup >= target_speedup && !peer[peer_best].used_alg3)
        .field("checked", true)
        .print();
  } catch (const std::exception& error) {
    JsonLine().field("bench", "galerkin_pyramid").field("problem", problem)
        .field("precision", precision).field("checked", false).field("error", error.what())
        .print();
  }
  pool_trim();
}

Options parse_arguments(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf("%s", usage_text);
      std::exit(0);
    }
    if (arg == "--quick") {
      options.size2d = 256;
      options.size3d = 32;
      continue;
    }
    require(i + 1 < argc, "unknown option or missing value: '" + arg + "' (see --help)");
    const std::string value = argv[++i];
    if (arg == "--problem") {
      options.problems.push_back(parse_stencil(value));
    } else if (arg == "--precision") {
      require(value == "double" || value == "float",
              "--precision must be double or float, got '" + value + "'");
      options.precisions.push_back(value);
    } else if (arg == "--size2d") {
      options.size2d = cli::parse_number<index_t>(arg, value);
    } else if (arg == "--size3d") {
      options.size3d = cli::parse_number<index_t>(arg, value);
    } else if (arg == "--aggregation") {
      options.amg.aggregation = parse_aggregation(value);
    } else if (arg == "--runs") {
      options.runs = cli::parse_number<int>(arg, value);
    } else {
      throw InvalidInput("unknown option '" + arg + "' (see --help)");
    }
  }
  require(options.size2d >= 2 && options.size3d >= 2, "--size2d and --size3d must be >= 2");
  require(options.runs >= 5, "--runs must be at least 5 (BENCH.md)");
  if (options.problems.empty())
    options.problems = {Stencil::poisson2d_5, Stencil::poisson2d_9, Stencil::poisson3d_7,
                        Stencil::poisson3d_27};
  if (options.precisions.empty()) options.precisions = {"double", "float"};
  return options;
}

}  // namespace
}  // namespace binamg::bench

int main(int argc, char** argv) {
  using namespace binamg;
  using namespace binamg::bench;
  try {
    const Options options = parse_arguments(argc, argv);
    print_device_banner("galerkin_pyramid", argc, argv);
    cusparseHandle_t handle = nullptr;
    BINAMG_CUSPARSE_CHECK(cusparseCreate(&handle));
    for (const std::string& precision : options.precisions)
      for (Stencil stencil : options.problems) {
        const index_t n = stencil_dimension(stencil) == 2 ? options.size2d : options.size3d;
        if (precision == "double")
          run_problem<double>(handle, stencil, n, options);
        else
          run_problem<float>(handle, stencil, n, options);
      }
    BINAMG_CUSPARSE_CHECK(cusparseDestroy(handle));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_galerkin: %s\n", error.what());
    return 1;
  }
  return 0;
}
