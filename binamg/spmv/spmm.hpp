#pragma once
// Sparse matrix times a block of dense vectors (k right-hand sides stored
// row-major: entry (i, j) at [i*k + j]): the host reference kernels and their
// GPU twins on device-resident data.

#include <vector>

#include "binamg/core/config.hpp"
#include "binamg/sparse/csr.hpp"
#if BINAMG_WITH_CUDA
#include <cuda_runtime.h>

#include "binamg/sparse/device_csr.hpp"
#endif

namespace binamg {

/// R = B − A X for k right-hand sides stored row-major (R resized), column j
/// bitwise residual() of column j.
template <typename T>
void residual(const CsrMatrix<T>& A, const std::vector<T>& X, const std::vector<T>& B, index_t k,
              std::vector<T>& R);

/// Y = A X for k right-hand sides stored row-major: X is A.cols×k, Y is A.rows×k,
/// entry (i, j) at [i*k + j].
template <typename T>
void spmm(const CsrMatrix<T>& A, const std::vector<T>& X, index_t k, std::vector<T>& Y);

#if BINAMG_WITH_CUDA
// ---- GPU twins (spmv/spmm.cu, spmv/spmm_row_split.cu, spmv/spmm_merge.cu) ----
// As spmv(): device pointers, ordered on `stream`, nothing synchronizes, and
// the same input gives the same bits on every run.

/// The two CSR × dense kernels of Yang, Buluç & Owens (Euro-Par 2018).
enum class SpmmAlgorithm {
  automatic,    // spmm_algorithm_for() picks from the row lengths
  row_split,    // a group of lanes per row, lanes own columns of Y
  merge_based,  // equal merge-path work (rows + nonzeros) per group, carry fix-up
};

/// The heuristic behind `automatic`, measured with bench/bench_spmm.cu
/// (docs/experiments.md): merge_based when the longest row (max_row_length, -1
/// if unknown) is one that row_split would hand to a whole thread block, far
/// past the mean (the hubs of a power-law graph); row_split otherwise.
SpmmAlgorithm spmm_algorithm_for(index_t rows, index_t nnz, index_t max_row_length, index_t k);
const char* spmm_algorithm_name(SpmmAlgorithm algorithm);

/// Y = A X with X row-major A.cols×k and Y row-major A.rows×k (k >= 1).
template <typename T>
void spmm(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, cudaStream_t stream = nullptr);

/// The same with the kernel forced (tests and benchmarks).
template <typename T>
void spmm(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, SpmmAlgorithm algorithm,
          cudaStream_t stream = nullptr);

/// Entries of the partial sums that a pass over A's rows needs to fuse k column
/// dots (spmm_with_column_dots, the smoothers' *_with_column_dots): at least
/// block_reduction_scratch_size(A.rows, k) (vector/block_vector_ops.hpp), and for
/// k = 1 one per block of the vector kernels, which depends on A's rows and
/// nonzeros.
template <typename T>
std::size_t column_dots_scratch_size(const DeviceCsr<T>& A, index_t k);

/// Y = A X and dots[j] = X(:, j)ᵀY(:, j) (k device entries) in one row-split
/// pass, for square A: the CG's q = A p with pᵀq. `partials` holds
/// column_dots_scratch_size(A, k) entries; Y's bits are those of spmm() with the
/// row-split kernel, the dots repeat bitwise run to run.
template <typename T>
void spmm_with_column_dots(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, T* dots,
                           DeviceBuffer<T>& partials, cudaStream_t stream = nullptr);

/// R = B − A X for k row-major right-hand sides in one row-split pass; R must not
/// alias X or B.
template <typename T>
void residual(const DeviceCsr<T>& A, const T* X, const T* B, index_t k, T* R,
              cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
