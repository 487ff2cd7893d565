// GPU Y = A X: argument checks, the choice between the two kernels, dispatch.
#include <algorithm>
#include <string>

#include "binamg/spmv/block_row_split.cuh"
#include "binamg/spmv/row_stream.cuh"
#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmm_kernels.hpp"
#include "binamg/spmv/spmv.hpp"
#include "binamg/vector/block_vector_ops.hpp"

namespace binamg {

namespace spmm_detail {

template <typename T>
void check_arguments(const DeviceCsr<T>& A, const T* X, index_t k, const T* Y, const char* what) {
  const std::string name(what);
  require_consistent(A, name + ": A");
  require(k > 0, name + ": the number of right-hand sides k = " + std::to_string(k) +
                     " must be positive");
  checked_index(std::int64_t(A.rows) * k, name + ": rows x k");
  checked_index(std::int64_t(A.cols) * k, name + ": cols x k");
  require(A.cols == 0 || X != nullptr, name + ": the input vector(s) pointer is null");
  require(A.rows == 0 || Y != nullptr, name + ": the output pointer is null");
}

}  // namespace spmm_detail

// The longest row decides, not the mean: row_split won on the stencils at
// nearly every k, and on irregular rows whose longest is not far past the mean
// even at means near 100, while merge_based won clearly on R-MAT and hub rows,
// where a few rows hold most of the work. The tiled k = 1 merge kernel kept that
// split: row_split faster on the stencils, banded and 3-dof rows, merge_based
// on R-MAT and hub rows (docs/experiments.md).
SpmmAlgorithm spmm_algorithm_for(index_t rows, index_t nnz, index_t max_row_length, index_t k) {
  const int lanes = k == 1 ? row_stream::long_row_lanes : block_row_split::lanes_of_shape(k);
  return max_row_length > row_split::long_row_length(rows, nnz, lanes)
             ? SpmmAlgorithm::merge_based
             : SpmmAlgorithm::row_split;
}

const char* spmm_algorithm_name(SpmmAlgorithm algorithm) {
  switch (algorithm) {
    case SpmmAlgorithm::row_split: return "row_split";
    case SpmmAlgorithm::merge_based: return "merge_based";
    default: return "automatic";
  }
}

template <typename T>
void spmm(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, SpmmAlgorithm algorithm,
          cudaStream_t stream) {
  spmm_detail::check_arguments(A, X, k, Y, "spmm");
  if (algorithm == SpmmAlgorithm::automatic)
    algorithm = spmm_algorithm_for(A.rows, A.nnz(), A.max_row_length, k);
  if (algorithm == SpmmAlgorithm::merge_based)
    spmm_detail::merge_based(A, X, k, Y, stream);
  else
    spmm_detail::row_split(A, X, k, Y, stream);
}

template <typename T>
void spmm(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, cudaStream_t stream) {
  spmm(A, X, k, Y, SpmmAlgorithm::automatic, stream);
}

template <typename T>
std::size_t column_dots_scratch_size(const DeviceCsr<T>& A, index_t k) {
  const std::size_t vector_kernels = k == 1 ? row_stream::sum_scratch_size(A) : 0;
  return std::max(block_reduction_scratch_size(A.rows, k), vector_kernels);
}

template <typename T>
void spmm_with_column_dots(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, T* dots,
                           DeviceBuffer<T>& partials, cudaStream_t stream) {
  spmm_detail::check_arguments(A, X, k, Y, "spmm_with_column_dots");
  require(A.rows == A.cols, "spmm_with_column_dots: the matrix is not square (" +
                                std::to_string(A.rows) + " x " + std::to_string(A.cols) + ")");
  require(dots != nullptr, "spmm_with_column_dots: the dots pointer is null");
  require(partials.size() >= column_dots_scratch_size(A, k),
          "spmm_with_column_dots: the partial sums scratch is too small");
  spmm_detail::row_split_with_dots(A, X, k, Y, dots, partials, stream);
}

#define BINAMG_INSTANTIATE(T)                                                                     \
  template void spmm_detail::check_arguments<T>(const DeviceCsr<T>&, const T*, index_t, const T*, \
                                                const char*);                                     \
  template void spmm<T>(const DeviceCsr<T>&, const T*, index_t, T*, SpmmAlgorithm, cudaStream_t); \
  template void spmm<T>(const DeviceCsr<T>&, const T*, index_t, T*, cudaStream_t);                \
  template std::size_t column_dots_scratch_size<T>(const DeviceCsr<T>&, index_t);                 \
  template void spmm_with_column_dots<T>(const DeviceCsr<T>&, const T*, index_t, T*, T*,          \
                                         DeviceBuffer<T>&, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
