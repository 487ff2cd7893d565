#pragma once
// Internal to spmv/spmm*.cu and spmv/spmv.cu: the tuning numbers of the
// CSR × dense kernels (one place) and the launchers behind spmm/spmv/residual.
// Arguments are validated by the public functions before they get here.
#include <cuda_runtime.h>

#include <cstdint>

#include "binamg/sparse/device_csr.hpp"

namespace binamg::spmm_detail {

/// Tuning shared by the row-split and merge-based kernels.
struct SpmmPolicy {
  static constexpr int threads = 256;         // threads per block, every kernel
  static constexpr int warp = 32;             // the widest lane group
  static constexpr int columns_per_lane = 2;  // so one pass covers 64 columns of Y
  static constexpr int columns_per_pass = warp * columns_per_lane;
  // Merge path: a group walks this many (rows + nonzeros) steps. About twice a
  // mean row, so that carries (one per segment, k values) stay well below Y's size;
  // at least a few steps to pay for the path search.
  // (k = 1 takes tiles of a whole block instead: spmv_merge.cu.)
  static constexpr int min_segment_steps = 32;
  static constexpr int max_segment_steps = 1024;
};

/// Lanes that share a row (row-split) or a segment (merge): the power of two
/// that covers min(k, 32) columns of Y, one column per lane.
inline int lanes_for_columns(std::int64_t k) {
  int lanes = 1;
  while (lanes < k && lanes < SpmmPolicy::warp) lanes *= 2;
  return lanes;
}

/// Row-split SpMV (k = 1): lanes per row, the power of two at or above the
/// mean row length (2..32), so that most lanes load a nonzero.
inline int spmv_lanes_per_row(index_t rows, index_t nnz) {
  const double mean = rows > 0 ? double(nnz) / rows : 0;
  int lanes = 2;
  while (lanes < mean && lanes < SpmmPolicy::warp) lanes *= 2;
  return lanes;
}

/// Merge path steps per segment (see SpmmPolicy).
inline int merge_segment_steps(index_t rows, index_t nnz) {
  const double mean = rows > 0 ? double(nnz) / rows : 0;
  int steps = SpmmPolicy::min_segment_steps;
  while (steps < 2 * (mean + 1) && steps < SpmmPolicy::max_segment_steps) steps *= 2;
  return steps;
}

/// Throws InvalidInput naming `what` unless A's buffers match its sizes, k > 0,
/// rows·k and cols·k fit index_t, and X, Y are not null where they are read.
template <typename T>
void check_arguments(const DeviceCsr<T>& A, const T* X, index_t k, const T* Y, const char* what);

/// Y = A X, row-split; k = 1 goes to the vector kernel below.
template <typename T>
void row_split(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, cudaStream_t stream);

/// Y = A X, row-split, with dots[j] = X(:, j)ᵀY(:, j) (A square).
template <typename T>
void row_split_with_dots(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, T* dots,
                         DeviceBuffer<T>& partials, cudaStream_t stream);

/// y = A x, or y = b - A x when b is not null: rows staged through shared
/// memory (spmv/row_stream.cuh).
template <typename T>
void row_split_vector(const DeviceCsr<T>& A, const T* x, const T* b, T* y, cudaStream_t stream);

/// Y = A X, merge-based; carries and path coordinates come from the pool.
template <typename T>
void merge_based(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, cudaStream_t stream);

/// y = A x, merge-based in tiles of a block (spmv/spmv_merge.cu); A has rows.
template <typename T>
void merge_based_vector(const DeviceCsr<T>& A, const T* x, T* y, cudaStream_t stream);

}  // namespace binamg::spmm_detail
