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
#include "bench/synthetic_matrices.hpp"
#include "core/device_pool.hpp"
#include "problems/poisson.hpp"
#include "sparse/device_csr.hpp"
#include "sparse/matrix_market.hpp"
#include "spgemm/spgemm.hpp"

namespace binamg::bench {
namespace {

template <typename T>
cudaDataType cuda_type() {
  return std::is_same_v<T, double> ? CUDA_R_64F : CUDA_R_32F;
}

template <typename T>
cusparseSpMatDescr_t describe(const DeviceCsr<T>& M) {
  cusparseSpMatDescr_t descr = nullptr;
  BINAMG_CUSPARSE_CHECK(cusparseCreateCsr(
      &descr, M.rows, M.cols, M.nnz, const_cast<index_t*>(M.row_ptr.data()),
      const_cast<index_t*>(M.col_idx.data()), const_cast<T*>(M.values.data()),
      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, cuda_type<T>()));
  return descr;
}

/// Everything a cuSPARSE user pays for one product: descriptors, buffer
/// queries, buffers (from the same pool as ours), compute, C's arrays, copy.
template <typename T>
DeviceCsr<T> cusparse_spgemm(cusparseHandle_t handle, const DeviceCsr<T>& A,
                             const DeviceCsr<T>& B, cusparseSpGEMMAlg_t alg) {
  const T alpha = 1, beta = 0;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const cudaDataType type = cuda_type<T>();
  cusparseSpMatDescr_t a = describe(A), b = describe(B), c = nullptr;
  BINAMG_CUSPARSE_CHECK(cusparseCreateCsr(&c, A.rows, B.cols, 0, nullptr, nullptr, nullptr,
                                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                          CUSPARSE_INDEX_BASE_ZERO, type));
  cusparseSpGEMMDescr_t spgemm_descr = nullptr;
  BINAMG_CUSPARSE_CHECK(cusparseSpGEMM_createDescr(&spgemm_descr));
  DeviceCsr<T> C;
  try {
    std::size_t size1 = 0, size2 = 0;
    BINAMG_CUSPARSE_CHECK(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, a, b, &beta,
                                                        c, type, alg, spgemm_descr, &size1,
                                                        nullptr));
    DeviceBuffer<char> buffer1(size1, nullptr, "cuSPARSE buffer 1");
    BINAMG_CUSPARSE_CHECK(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, a, b, &beta,
                                                        c, type, alg, spgemm_descr, &size1,
                                                        buffer1.data()));
    if (alg == CUSPARSE_SPGEMM_ALG3) {
      std::size_t size3 = 0;
      const float chunk_fraction = 0.2f;
      BINAMG_CUSPARSE_CHECK(cusparseSpGEMM_estimateMemory(handle, op, op, &alpha, a, b, &beta,
                                                          c, type, alg, spgemm_descr,
                                                          chunk_fraction, &size3, nullptr,
                                                          nullptr));
      DeviceBuffer<char> buffer3(size3, nullptr, "cuSPARSE buffer 3");
      BINAMG_CUSPARSE_CHECK(cusparseSpGEMM_estimateMemory(handle, op, op, &alpha, a, b, &beta,
                                                          c, type, alg, spgemm_descr,
                                                          chunk_fraction, &size3,
                                                          buffer3.data(), &size2));
    } else {
      BINAMG_CUSPARSE_CHECK(cusparseSpGEMM_compute(handle, op, op, &alpha, a, b, &beta, c, type,
                                                   alg, spgemm_descr, &size2, nullptr));
    }
    DeviceBuffer<char> buffer2(size2, nullptr, "cuSPARSE buffer 2");
    BINAMG_CUSPARSE_CHECK(cusparseSpGEMM_compute(handle, op, op, &alpha, a, b, &beta, c, type,
                                                 alg, spgemm_descr, &size2, buffer2.data()));
    std::int64_t rows = 0, cols = 0, nnz = 0;
    BINAMG_CUSPARSE_CHECK(cusparseSpMatGetSize(c, &rows, &cols, &nnz));
    C.rows = index_t(rows);
    C.cols = index_t(cols);
    C.nnz = checked_index(nnz, "cuSPARSE nnz(C)");
    C.row_ptr = DeviceBuffer<index_t>(std::size_t(rows) + 1, nullptr, "cuSPARSE C rows");
    C.col_idx = DeviceBuffer<index_t>(C.nnz, nullptr, "cuSPARSE C columns");
    C.values = DeviceBuffer<T>(C.nnz, nullptr, "cuSPARSE C values");
    BINAMG_CUSPARSE_CHECK(
        cusparseCsrSetPointers(c, C.row_ptr.data(), C.col_idx.data(), C.values.data()));
    BINAMG_CUSPARSE_CHECK(cusparseSpGEMM_copy(handle, op, op, &alpha, a, b, &beta, c, type,
                                              alg, spgemm_descr));
  } catch (...) {
    cusparseSpGEMM_destroyDescr(spgemm_descr);
    cusparseDestroySpMat(a);
    cusparseDestroySpMat(b);
    cusparseDestroySpMat(c);
    throw;
  }
  BINAMG_CUSPARSE_CHECK(cusparseSpGEMM_destroyDescr(spgemm_descr));
  BINAMG_CUSPARSE_CHECK(cusparseDestroySpMat(a));
  BINAMG_CUSPARSE_CHECK(cusparseDestroySpMat(b));
  BINAMG_CUSPARSE_CHECK(cusparseDestroySpMat(c));
  return C;
}

/// Entry-by-entry check: same pattern (cuSPARSE rows sorted here if needed),
/// values within `tolerance` relative to the larger magnitude. Returns a
/// description of the first difference, or "" when they agree.
template <typename T>
std::string compare(const CsrMatrix<T>& ours, CsrMatrix<T> peer, double tolerance) {
  if (ours.rows != peer.rows || ours.cols != peer.cols) return "shapes differ";
  if (ours.row_ptr != peer.row_ptr) return "row offsets differ";
  for (index_t row = 0; row < peer.rows; ++row) {
    const index_t begin = peer.row_ptr[row], end = peer.row_ptr[row + 1];
    if (!std::is_sorted(peer.col_idx.begin() + begin, peer.col_idx.begin() + end)) {
      std::vector<std::pair<index_t, T>> entries;
      for (index_t k = begin; k < end; ++k) entries.emplace_back(peer.col_idx[k], peer.values[k]);
      std::sort(entries.begin(), entries.end(),
                [](const auto& x, const auto& y) { return x.first < y.first; });
      for (index_t k = begin; k < end; ++k) {
        peer.col_idx[k] = entries[k - begin].first;
        peer.values[k] = entries[k - begin].second;
      }
    }
    for (index_t k = begin; k < end; ++k) {
      if (ours.col_idx[k] != peer.col_idx[k]) return "columns differ in row " + std::to_string(row);
      const double x = ours.values[k], y = peer.values[k];
      if (std::abs(x - y) > tolerance * std::max(std::abs(x), std::abs(y)))
        return "value differs in row " + std::to_string(row) + ": " + std::to_string(x) +
               " vs " + std::to_string(y);
    }
  }
  return "";
}

/// Peak pool bytes of one call beyond what was in use before it (inputs).
double peak_extra_bytes(const std::function<void()>& work) {
  BINAMG_CUDA_CHECK(cudaDeviceSynchronize());
  const std::size_t before = pool_bytes_in_use();
  pool_reset_peak();
  work();
  BINAMG_CUDA_CHECK(cudaDeviceSynchronize());
  return double(pool_peak_bytes() - before);
}

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
    const std::string difference =
        compare(ours_host, peer_host, std::is_same_v<T, double> ? 1e-12 : 1e-5);
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
  square(handle, "rmat-s" + std::to_string(quick ? 12 : 18),
         rmat<T>(quick ? 12 : 18, 8, 0.57, 0.19, 0.19, 42));
  square(handle, "random-hubs", random_with_hubs<T>(quick ? 1 << 12 : 1 << 18, 8, 4, 43));
  square(handle, "banded-64-128", banded<T>(quick ? 1 << 12 : 1 << 16, 64, 128, 44));
  square(handle, "block27-3dof", block_stencil_27<T>(quick ? 8 : 32, 3, 45));
  const std::filesystem::path shared = "../shared/matrices";
  if (!quick && std::filesystem::is_directory(shared)) {
    for (const auto& entry : std::filesystem::directory_iterator(shared)) {
      if (entry.path().extension() != ".mtx") continue;
      try {
        const CsrMatrix<T> M = read_matrix_market<T>(entry.path().string());
        if (M.rows != M.cols) continue;
        square(handle, entry.path().stem().string(), M);
      } catch (const std::exception& error) {
        JsonLine().field("bench", "spgemm_square").field("problem", entry.path().string())
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
    print_device_banner("spgemm_square");
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
