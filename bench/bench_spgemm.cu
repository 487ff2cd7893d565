// C = A·A on the GPU: binamg's binned SpGEMM against cusparseSpGEMM (ALG1,
// ALG3 where ALG1 runs out of memory) in the same process, per BENCH.md.
// Usage: bench_spgemm [--quick] [--no-float] [--only PREFIX]   (--quick: small sizes for a smoke run;
// float runs the Poisson matrices only)
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "bench/common.hpp"
#include "bench/cusparse_spgemm.hpp"
#include "bench/synthetic_matrices.hpp"
#include "binamg/core/device_pool.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/sparse/device_csr.hpp"
#include "binamg/sparse/matrix_market.hpp"
#include "binamg/spgemm/spgemm.hpp"

namespace binamg::bench {
namespace {

std::string only_problem;  // --only PREFIX: run the problems whose name starts with it

template <typename T>
void square(cusparseHandle_t handle, const std::string& name, const CsrMatrix<T>& host_A) {
  if (name.compare(0, only_problem.size(), only_problem) != 0) return;
  const char* precision = std::is_same_v<T, double> ? "double" : "float";
  JsonLine line;
  line.field("bench", "spgemm_square").field("problem", name).field("precision", precision);
  try {
    const std::int64_t products = spgemm_product_count(host_A, host_A);
    const DeviceCsr<T> A = to_device(host_A);
    BINAMG_CUDA_CHECK(cudaDeviceSynchronize());

    cusparseSpGEMMAlg_t alg = CUSPARSE_SPGEMM_ALG1;
    DeviceCsr<T> peer_C;
    try {
      peer_C = cusparse_spgemm(handle, A, A, alg);
    } catch (const DeviceError& error) {  // ALG1 out of memory: the low-memory algorithm
      alg = CUSPARSE_SPGEMM_ALG3;
      pool_trim();
      peer_C = cusparse_spgemm(handle, A, A, alg);
    }
    const CsrMatrix<T> peer_host = to_host(peer_C);
    peer_C = DeviceCsr<T>();
    const CsrMatrix<T> ours_host = to_host(spgemm(A, A));
    const double tolerance = std::is_same_v<T, double> ? 1e-12 : 1e-5;
    std::string difference = compare(ours_host, peer_host, tolerance);
    if (!difference.empty()) {
      // Entries whose products cancel keep only rounding, in each library's
      // order of summation: judge them against the sum of the magnitudes of
      // their products, |A|·|A| (formed only here: it costs a CPU product).
      CsrMatrix<double> absolute = convert_values<double>(host_A);
      for (double& value : absolute.values) value = std::abs(value);
      const CsrMatrix<double> magnitude = spgemm(absolute, absolute);
      difference = compare(ours_host, peer_host, tolerance, &magnitude);
    }
    if (!difference.empty()) throw std::runtime_error("result check failed: " + difference);

    const double ours_peak = peak_extra_bytes([&] { DeviceCsr<T> C = spgemm(A, A); });
    const double peer_peak =
        peak_extra_bytes([&] { DeviceCsr<T> C = cusparse_spgemm(handle, A, A, alg); });
    const double ours_ms = median_ms([&] { DeviceCsr<T> C = spgemm(A, A); });
    const double peer_ms = median_ms([&] { DeviceCsr<T> C = cusparse_spgemm(handle, A, A, alg); });
    line.field("rows", host_A.rows)
        .field("nnz_a", host_A.nnz())
        .field("products", static_cast<long long>(products))
        .field("nnz_c", ours_host.nnz())
        .field("ours_ms", ours_ms)
        .field("peer", alg == CUSPARSE_SPGEMM_ALG1 ? "cusparse_alg1" : "cusparse_alg3")
        .field("peer_ms", peer_ms)
        .field("speedup", peer_ms / ours_ms)
        .field("ours_gflops", 2.0 * products / (ours_ms * 1e6))
        .field("peer_gflops", 2.0 * products / (peer_ms * 1e6))
        .field("ours_peak_bytes", ours_peak)
        .field("peer_peak_bytes", peer_peak)
        .field("memory_ratio", ours_peak / peer_peak)
        .field("checked", true);
  } catch (const std::exception& error) {
    line.field("checked", false).field("error", error.what());
  }
  line.print();
  pool_trim();
}

/// The Poisson squares, then (unless poisson_only) the synthetic suite and
/// the shared matrices when ../shared/matrices exists.
template <typename T>
void run_suite(cusparseHandle_t handle, bool quick, bool poisson_only) {
  const index_t n2 = quick ? 128 : 1024, n3 = quick ? 20 : 101;
  for (Stencil stencil : {Stencil::poisson2d_5, Stencil::poisson2d_9, Stencil::poisson3d_7,
                          Stencil::poisson3d_27}) {
    const index_t n = stencil_dimension(stencil) == 2 ? n2 : n3;
    square(handle, std::string(stencil_name(stencil)) + "-" + std::to_string(n),
           poisson<T>(stencil, n));
  }
  if (poisson_only) return;
  for (const auto& matrix : irregular_suite<T>(quick))
    square(handle, matrix.name, matrix.generate());
  const std::filesystem::path shared = "../shared/matrices";
  if (!quick && std::filesystem::is_directory(shared)) {
    std::vector<std::filesystem::path> files;  // in name order, so runs list them alike
    for (const auto& entry : std::filesystem::directory_iterator(shared)) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const std::filesystem::path& file : files) {
      std::string name = file.filename().string();
      if (name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0)
        name.resize(name.size() - 3);
      if (name.size() <= 4 || name.compare(name.size() - 4, 4, ".mtx") != 0) continue;
      name.resize(name.size() - 4);
      try {
        const CsrMatrix<T> M = read_matrix_market<T>(file.string());
        if (M.rows != M.cols) continue;
        square(handle, name, M);
      } catch (const std::exception& error) {
        JsonLine().field("bench", "spgemm_square").field("problem", file.string())
            .field("checked", false).field("error", error.what()).print();
      }
    }
  }
}

}  // namespace
}  // namespace binamg::bench

int main(int argc, char** argv) {
  using namespace binamg::bench;
  bool quick = false, with_float = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    if (std::strcmp(argv[i], "--no-float") == 0) with_float = false;
    if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) only_problem = argv[++i];
  }
  try {
    print_device_banner("spgemm_square", argc, argv);
    cusparseHandle_t handle = nullptr;
    BINAMG_CUSPARSE_CHECK(cusparseCreate(&handle));
    run_suite<double>(handle, quick, false);
    // Float on the Poisson matrices only: the synthetic suite in double
    // already dominates the run time.
    if (with_float) run_suite<float>(handle, quick, true);
    BINAMG_CUSPARSE_CHECK(cusparseDestroy(handle));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_spgemm: %s\n", error.what());
    return 1;
  }
  return 0;
}
