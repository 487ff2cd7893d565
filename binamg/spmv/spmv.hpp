#pragma once
// Sparse matrix times dense vector: the host reference kernels and their GPU
// twins on device-resident data (spmv/spmm.hpp: many vectors at once).

#include <vector>

#include "binamg/core/config.hpp"
#include "binamg/sparse/csr.hpp"
#if BINAMG_WITH_CUDA
#include <cuda_runtime.h>

#include "binamg/sparse/device_csr.hpp"
#endif

namespace binamg {

/// y = A x  (y is resized to A.rows).
template <typename T>
void spmv(const CsrMatrix<T>& A, const std::vector<T>& x, std::vector<T>& y);

/// r = b - A x  (r is resized to A.rows).
template <typename T>
void residual(const CsrMatrix<T>& A, const std::vector<T>& x, const std::vector<T>& b,
              std::vector<T>& r);

#if BINAMG_WITH_CUDA
// ---- GPU twins (spmv/spmv.cu) ----
// Arguments are device pointers; work is ordered on `stream` and nothing
// synchronizes. Every output entry is summed in a fixed order, so the same
// input gives the same bits on every run (not the CPU's bits: the order and
// fused multiply-adds differ, within n·eps·Σ|a||x| for a row of length n).

/// y = A x (k = 1).
template <typename T>
void spmv(const DeviceCsr<T>& A, const T* x, T* y, cudaStream_t stream = nullptr);

/// r = b - A x; r must not alias x or b.
template <typename T>
void residual(const DeviceCsr<T>& A, const T* x, const T* b, T* r,
              cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
