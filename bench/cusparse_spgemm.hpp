#pragma once
// The cuSPARSE SpGEMM peer of the benchmarks (BENCH.md), the entry-by-entry
// check of our result against it, and the peak-memory probe; shared by
// bench_spgemm and bench_galerkin.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench/common.hpp"
#include "binamg/core/device_pool.hpp"
#include "binamg/sparse/csr.hpp"
#include "binamg/sparse/device_csr.hpp"

namespace binamg::bench {

template <typename T>
cudaDataType cuda_type() {
  return std::is_same_v<T, double> ? CUDA_R_64F : CUDA_R_32F;
}

template <typename T>
cusparseSpMatDescr_t describe(const DeviceCsr<T>& M) {
  cusparseSpMatDescr_t descr = nullptr;
  BINAMG_CUSPARSE_CHECK(cusparseCreateCsr(
      &descr, M.rows, M.cols, M.nnz(), const_cast<index_t*>(M.row_ptr.data()),
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
    C.row_ptr = DeviceBuffer<index_t>(std::size_t(rows) + 1, nullptr, "cuSPARSE C rows");
    C.allocate_entries(checked_index(nnz, "cuSPARSE nnz(C)"), nullptr, "cuSPARSE C entries");
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
/// values within `tolerance` relative to the larger magnitude, or to the
/// entry's `scale` where that is larger (the sum of the |terms| of the entry,
/// see max_relative_difference; same pattern as `ours`). Returns a description
/// of the first difference, or "" when they agree.
template <typename T>
std::string compare(const CsrMatrix<T>& ours, CsrMatrix<T> peer, double tolerance,
                    const CsrMatrix<double>* scale = nullptr) {
  if (ours.rows != peer.rows || ours.cols != peer.cols) return "shapes differ";
  if (scale != nullptr && (scale->row_ptr != ours.row_ptr || scale->col_idx != ours.col_idx))
    return "the scale does not have our result's pattern";
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
      const double magnitude =
          std::max({std::abs(x), std::abs(y), scale != nullptr ? scale->values[k] : 0.0});
      if (std::abs(x - y) > tolerance * magnitude)
        return "value differs in row " + std::to_string(row) + ": " + std::to_string(x) +
               " vs " + std::to_string(y);
    }
  }
  return "";
}

/// Peak pool bytes of one call beyond what was in use before it (inputs).
inline double peak_extra_bytes(const std::function<void()>& work) {
  return double(pool_peak_extra_bytes(work));
}

}  // namespace binamg::bench
