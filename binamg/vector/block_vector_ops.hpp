#pragma once
// Column-wise operations on blocks of k vectors stored row-major (n×k, entry
// (i, j) at [i·k + j]), the layout of the SpMM and of the multi-RHS solvers.
// Column j of each operation gives the bits of the matching vector operation
// (vector_ops.hpp) on column j, so k = 1 is the vector case.
#include <vector>

#include "binamg/core/config.hpp"
#include "binamg/core/types.hpp"
#if BINAMG_WITH_CUDA
#include "binamg/core/device_buffer.hpp"
#endif

namespace binamg {

/// Per column j: Σ_i X(i, j)·Y(i, j), bitwise dot() of the two columns (the same
/// row blocks of reduction_block rows, summed in the same order).
template <typename T>
std::vector<T> column_dots(const std::vector<T>& X, const std::vector<T>& Y, index_t k);

/// Per column j: ‖X(:, j)‖₂, without overflow or underflow (as BLAS nrm2): the
/// root of column_dots(X, X) where that sum of squares is in range (its bits),
/// otherwise the column rescaled by a power of two. NaN if the column holds one.
template <typename T>
std::vector<double> column_norms(const std::vector<T>& X, index_t k);

/// Per column j: max_i |X(i, j)|; NaN if the column holds one.
template <typename T>
std::vector<T> column_max_abs(const std::vector<T>& X, index_t k);

/// X(:, j) *= 2^exponents[j] for every column: exact unless an entry leaves the
/// range of T.
template <typename T>
void scale_columns(std::vector<T>& X, index_t k, const std::vector<int>& exponents);

/// A copy of X with column j times 2^exponents[j].
template <typename T>
std::vector<T> scaled_copy(const std::vector<T>& X, index_t k, const std::vector<int>& exponents);

/// Y(:, j) += alpha[j]·X(:, j) for every column.
template <typename T>
void column_axpy(const std::vector<T>& alpha, const std::vector<T>& X, std::vector<T>& Y,
                 index_t k);

/// Y(:, j) = X(:, j) + beta[j]·Y(:, j) for every column.
template <typename T>
void column_xpby(const std::vector<T>& X, const std::vector<T>& beta, std::vector<T>& Y,
                 index_t k);

#if BINAMG_WITH_CUDA
// GPU twins for the block CG. Scalars live in device arrays of k entries (T*
// below), nothing synchronizes; `active` (k flags) freezes the columns whose
// solve has ended: their x, r and p are left as they are. Reductions sum in a
// fixed tree that depends only on n and k, so they are bitwise reproducible run
// to run (not the CPU's bits). `scratch` holds the partial sums: at least
// block_reduction_scratch_size(n, k) entries, which also serves the reductions
// fused into the block kernels (spmm with column dots, the block V-cycle).

std::size_t block_reduction_scratch_size(index_t n, index_t k);

/// result[j] = X(:, j)ᵀY(:, j).
template <typename T>
void column_dots(const DeviceBuffer<T>& X, const DeviceBuffer<T>& Y, index_t k, T* result,
                 DeviceBuffer<T>& scratch, cudaStream_t stream = nullptr);

/// column_norms, column_max_abs, scale_columns and scaled_copy on the GPU (synchronize `stream`
/// where they return host values). The in-range norms are the roots of the device
/// column_dots.
template <typename T>
std::vector<double> column_norms(const DeviceBuffer<T>& X, index_t k,
                                 cudaStream_t stream = nullptr);
template <typename T>
std::vector<T> column_max_abs(const DeviceBuffer<T>& X, index_t k, cudaStream_t stream = nullptr);
template <typename T>
void scale_columns(DeviceBuffer<T>& X, index_t k, const std::vector<int>& exponents,
                   cudaStream_t stream = nullptr);
template <typename T>
DeviceBuffer<T> scaled_copy(const DeviceBuffer<T>& X, index_t k,
                            const std::vector<int>& exponents, cudaStream_t stream = nullptr);

/// The block CG's residual step: for each active column j, with
/// alpha = T(double(rz[j]) / double(pq[j])), R(:, j) −= alpha·Q(:, j); then
/// rr[j] = R(:, j)ᵀR(:, j) for every column, in one pass.
template <typename T>
void block_cg_residual_update(const int* active, const T* rz, const T* pq,
                              const DeviceBuffer<T>& Q, DeviceBuffer<T>& R, T* rr, index_t k,
                              DeviceBuffer<T>& scratch, cudaStream_t stream = nullptr);

/// The solution step of the same iteration, deferred to share a pass with the
/// next direction: X(:, j) += alpha·P(:, j) for each column that `stepped` (alpha
/// as above), then P(:, j) = Z(:, j) + beta·P(:, j) for each column that goes on
/// (`continuing`), beta = T(double(rz_next[j]) / double(rz[j])). The bits of the
/// two updates made in separate passes.
template <typename T>
void block_cg_step_and_direction(const int* stepped, const int* continuing, const T* rz_next,
                                 const T* rz, const T* pq, const DeviceBuffer<T>& Z,
                                 DeviceBuffer<T>& P, DeviceBuffer<T>& X, index_t k,
                                 cudaStream_t stream = nullptr);

/// The last solution step alone: X(:, j) += alpha·P(:, j) for the stepped columns.
template <typename T>
void block_cg_step(const int* stepped, const T* rz, const T* pq, const DeviceBuffer<T>& P,
                   DeviceBuffer<T>& X, index_t k, cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
