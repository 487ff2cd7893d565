// SpMM/SpMV benchmark (BENCH.md): ours (row-split, merge-based, automatic) vs
// the best cusparseSpMM CSR algorithm with row-major X and Y, and k = 1 vs
// cusparseSpMV, double, on the Poisson stencils (BENCH.md's SpMM workload) and
// on BENCH.md's irregular synthetic suite (the matrices whose row lengths vary,
// which the choice between the two kernels has to be measured on; "suite" says
// which). For k a multiple of 16 it also times the planned SpMM
// (spmv/spmm_plan.hpp), whose build is timed once per matrix and printed
// beside it. Every result is checked against the CPU reference before its time
// is printed.
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "bench/common.hpp"
#include "bench/synthetic_matrices.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmm_plan.hpp"
#include "binamg/spmv/spmv.hpp"

using namespace binamg;
using bench::JsonLine;

namespace {

using T = double;

// Same argument as the tests: each entry within 2·n·eps·Σ|a| of the CPU's (|x| <= 1).
bool matches_reference(const CsrMatrix<T>& A, index_t k, const std::vector<T>& reference,
                       const DeviceBuffer<T>& result) {
  const std::vector<T> got = to_host(result);
  const double eps = std::numeric_limits<T>::epsilon();
  for (index_t row = 0; row < A.rows; ++row) {
    double magnitude = 0;
    for (index_t e = A.row_ptr[row]; e < A.row_ptr[row + 1]; ++e) magnitude += std::abs(A.values[e]);
    const double bound = 2.0 * A.row_length(row) * eps * magnitude + 1e-300;
    for (index_t j = 0; j < k; ++j) {
      const std::size_t i = std::size_t(row) * k + j;
      if (!(std::abs(got[i] - reference[i]) <= bound)) return false;
    }
  }
  return true;
}

double minimal_bytes(const CsrMatrix<T>& A, index_t k) {
  return double(A.rows + 1) * sizeof(index_t) + double(A.nnz()) * (sizeof(index_t) + sizeof(T)) +
         double(A.cols) * k * sizeof(T) + double(A.rows) * k * sizeof(T);
}

void run_problem(const std::string& name, const char* suite, const CsrMatrix<T>& A,
                 double bandwidth_gbs) {
  const DeviceCsr<T> dA = to_device(A);
  cusparseHandle_t handle = nullptr;
  BINAMG_CUSPARSE_CHECK(cusparseCreate(&handle));
  cusparseSpMatDescr_t matA = nullptr;
  BINAMG_CUSPARSE_CHECK(cusparseCreateCsr(&matA, A.rows, A.cols, A.nnz(),
                                          const_cast<index_t*>(dA.row_ptr.data()),
                                          const_cast<index_t*>(dA.col_idx.data()),
                                          const_cast<T*>(dA.values.data()), CUSPARSE_INDEX_32I,
                                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  // The planned SpMM (spmv/spmm_plan.hpp) is built once per matrix, as a
  // block solve would: its build is timed here and printed, not in the products.
  const auto build_start = std::chrono::steady_clock::now();
  const SpmmPlan plan = make_spmm_plan(dA);
  BINAMG_CUDA_CHECK(cudaDeviceSynchronize());
  const double plan_build_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - build_start).count();
  for (index_t k : {1, 8, 32, 64}) {
    std::vector<T> X(std::size_t(A.cols) * k);
    for (std::size_t i = 0; i < X.size(); ++i) X[i] = std::sin(0.37 * double(i % 100003));
    std::vector<T> reference;
    spmm(A, X, k, reference);
    const DeviceBuffer<T> dX = to_device(X);
    DeviceBuffer<T> dY(std::size_t(A.rows) * k);
    const double bytes = minimal_bytes(A, k);
    // The fields of every timed line; callers may add more before printing.
    auto timed = [&](const char* who, double ms, bool checked) {
      JsonLine json;
      json.field("bench", "spmm")
          .field("problem", name)
          .field("suite", suite)
          .field("precision", "double")
          .field("rows", A.rows)
          .field("nnz", A.nnz())
          .field("mean_row_length", double(A.nnz()) / A.rows)
          .field("k", k)
          .field("impl", who)
          .field("ms", ms)
          .field("roofline_fraction", bytes / (ms * 1e-3) / 1e9 / bandwidth_gbs)
          .field("checked", checked);
      return json;
    };
    auto line = [&](const char* who, double ms, bool checked) { timed(who, ms, checked).print(); };
    double best_ours = 1e30, best_peer = 1e30;
    std::string best_peer_name = "none";
    for (auto algorithm : {SpmmAlgorithm::row_split, SpmmAlgorithm::merge_based,
                           SpmmAlgorithm::automatic}) {
      BINAMG_CUDA_CHECK(cudaMemset(dY.data(), 0, dY.size() * sizeof(T)));
      const double ms = bench::median_ms([&] { spmm(dA, dX.data(), k, dY.data(), algorithm); });
      const bool ok = matches_reference(A, k, reference, dY);
      if (!ok) throw DeviceError(std::string("wrong result: ") + spmm_algorithm_name(algorithm));
      line(spmm_algorithm_name(algorithm), ms, ok);
      if (algorithm == SpmmAlgorithm::automatic) best_ours = ms;
    }
    double planned_ms = 0;
    if (k % 16 == 0) {
      BINAMG_CUDA_CHECK(cudaMemset(dY.data(), 0, dY.size() * sizeof(T)));
      planned_ms = bench::median_ms([&] { spmm(plan, dX.data(), k, dY.data()); });
      const bool ok = matches_reference(A, k, reference, dY);
      if (!ok) throw DeviceError("wrong result: planned");
      // Its own bytes: the plan instead of the CSR arrays, then X and Y.
      const double plan_bytes = plan.plan_bytes + (double(A.cols) + A.rows) * k * sizeof(T);
      timed("planned", planned_ms, ok)
          .field("plan_roofline_fraction", plan_bytes / (planned_ms * 1e-3) / 1e9 / bandwidth_gbs)
          .field("plan_build_ms", plan_build_ms)
          .field("plan_mb", plan.plan_bytes / 1e6)
          .field("plan_lines", plan.shape.lines)
          .field("plan_line_length", plan.shape.line_length)
          .field("union_per_row", plan.union_per_row)
          .print();
    }
    const T alpha = 1, beta = 0;
    if (k == 1) {
      cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
      BINAMG_CUSPARSE_CHECK(cusparseCreateDnVec(&vx, A.cols, const_cast<T*>(dX.data()), CUDA_R_64F));
      BINAMG_CUSPARSE_CHECK(cusparseCreateDnVec(&vy, A.rows, dY.data(), CUDA_R_64F));
      BINAMG_CUDA_CHECK(cudaMemset(dY.data(), 0, dY.size() * sizeof(T)));
      const double ms = bench::median_ms([&] {
        std::size_t size = 0;
        BINAMG_CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                      &alpha, matA, vx, &beta, vy, CUDA_R_64F,
                                                      CUSPARSE_SPMV_ALG_DEFAULT, &size));
        DeviceBuffer<char> buffer(size, nullptr, "cusparse spmv buffer");
        BINAMG_CUSPARSE_CHECK(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA,
                                           vx, &beta, vy, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT,
                                           buffer.data()));
      });
      const bool ok = matches_reference(A, k, reference, dY);
      line("cusparse_spmv_default", ms, ok);
      if (ok) best_peer = ms, best_peer_name = "cusparse_spmv_default";
      cusparseDestroyDnVec(vx);
      cusparseDestroyDnVec(vy);
    }
    const std::pair<cusparseSpMMAlg_t, const char*> peers[] = {
        {CUSPARSE_SPMM_ALG_DEFAULT, "cusparse_spmm_default"},
        {CUSPARSE_SPMM_CSR_ALG1, "cusparse_spmm_csr_alg1"},
        {CUSPARSE_SPMM_CSR_ALG2, "cusparse_spmm_csr_alg2"},
        {CUSPARSE_SPMM_CSR_ALG3, "cusparse_spmm_csr_alg3"}};
    cusparseDnMatDescr_t mx = nullptr, my = nullptr;
    BINAMG_CUSPARSE_CHECK(cusparseCreateDnMat(&mx, A.cols, k, k, const_cast<T*>(dX.data()),
                                              CUDA_R_64F, CUSPARSE_ORDER_ROW));
    BINAMG_CUSPARSE_CHECK(cusparseCreateDnMat(&my, A.rows, k, k, dY.data(), CUDA_R_64F,
                                              CUSPARSE_ORDER_ROW));
    for (const auto& peer : peers) {
      const cusparseSpMMAlg_t algorithm = peer.first;
      const char* name = peer.second;
      std::size_t size = 0;
      if (cusparseSpMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                  CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, mx, &beta, my,
                                  CUDA_R_64F, algorithm, &size) != CUSPARSE_STATUS_SUCCESS) {
        JsonLine().field("bench", "spmm").field("k", k).field("impl", name).field("skipped", "rejected").print();
        continue;
      }
      BINAMG_CUDA_CHECK(cudaMemset(dY.data(), 0, dY.size() * sizeof(T)));
      bool accepted = true;
      const double ms = bench::median_ms([&] {
        std::size_t bytes_needed = 0;
        BINAMG_CUSPARSE_CHECK(cusparseSpMM_bufferSize(
            handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
            matA, mx, &beta, my, CUDA_R_64F, algorithm, &bytes_needed));
        DeviceBuffer<char> buffer(bytes_needed, nullptr, "cusparse spmm buffer");
        if (cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                         &alpha, matA, mx, &beta, my, CUDA_R_64F, algorithm,
                         buffer.data()) != CUSPARSE_STATUS_SUCCESS)
          accepted = false;
      });
      if (!accepted) {
        JsonLine().field("bench", "spmm").field("k", k).field("impl", name).field("skipped", "rejected").print();
        continue;
      }
      const bool ok = matches_reference(A, k, reference, dY);
      line(name, ms, ok);
      if (ok && ms < best_peer) best_peer = ms, best_peer_name = name;
    }
    cusparseDestroyDnMat(mx);
    cusparseDestroyDnMat(my);
    JsonLine()
        .field("bench", "spmm_summary")
        .field("problem", name)
        .field("suite", suite)
        .field("k", k)
        .field("ours_ms", best_ours)
        .field("peer", best_peer_name)
        .field("peer_ms", best_peer)
        .field("speedup", best_peer / best_ours)
        .field("planned_ms", planned_ms)
        .field("planned_speedup", planned_ms > 0 ? best_peer / planned_ms : 0.0)
        .print();
  }
  cusparseDestroySpMat(matA);
  cusparseDestroy(handle);
}

}  // namespace

// Usage: bench_spmm [--only PREFIX]: only the problems whose name starts with
// PREFIX (poisson3d-27, rmat, ...).
int main(int argc, char** argv) {
  std::string only;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--only" && i + 1 < argc) only = argv[++i];
  try {
    bench::print_device_banner("spmm", argc, argv);
    const double bandwidth = bench::measure_copy_bandwidth_gbs();
    const auto wanted = [&](const std::string& name) { return name.rfind(only, 0) == 0; };
    const std::pair<Stencil, index_t> stencils[] = {
        {Stencil::poisson3d_7, 128}, {Stencil::poisson2d_5, 2048}, {Stencil::poisson3d_27, 101}};
    for (const auto& [stencil, n] : stencils) {
      const std::string name = std::string(stencil_name(stencil)) + "-" + std::to_string(n);
      if (wanted(name)) run_problem(name, "stencils", poisson<T>(stencil, n), bandwidth);
    }
    for (const auto& matrix : bench::irregular_suite<T>())
      if (wanted(matrix.name)) run_problem(matrix.name, "irregular", matrix.generate(), bandwidth);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_spmm: %s\n", error.what());
    return 1;
  }
  return 0;
}
