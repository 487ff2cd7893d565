#include "binamg/core/device_value.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/lower_bound.cuh"
#include "binamg/core/read_back.hpp"
#include "binamg/sparse/device_csr.hpp"

namespace binamg {
namespace {

constexpr int diagonal_threads = 256;

// One thread per row: binary search of the (sorted) row for its diagonal.
template <typename T>
__global__ void extract_diagonal(index_t rows, const index_t* row_ptr, const index_t* col_idx,
                                 const T* values, T* diag) {
  const index_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const index_t at = lower_bound_in(col_idx, row_ptr[row], row_ptr[row + 1], row);
  diag[row] = at < row_ptr[row + 1] && col_idx[at] == row ? values[at] : T(0);
}

// *longest = max(*longest, the longest row's nonzeros); max is order-free.
__global__ void longest_row(index_t rows, const index_t* row_ptr, index_t* longest) {
  const index_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) atomicMax(longest, row_ptr[row + 1] - row_ptr[row]);
}

// One thread per row: writes the row of each of its entries.
__global__ void expand_row_indices(index_t rows, const index_t* row_ptr, index_t* row_of) {
  const index_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  for (index_t k = row_ptr[row]; k < row_ptr[row + 1]; ++k) row_of[k] = row;
}

// *first = min(*first, each row whose length or columns differ).
__global__ void pattern_difference(index_t rows, const index_t* a_ptr, const index_t* a_col,
                                   const index_t* b_ptr, const index_t* b_col, index_t* first) {
  const index_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const index_t a_begin = a_ptr[row], length = a_ptr[row + 1] - a_begin;
  const index_t b_begin = b_ptr[row];
  bool differs = length != b_ptr[row + 1] - b_begin;
  for (index_t k = 0; k < length && !differs; ++k)
    differs = a_col[a_begin + k] != b_col[b_begin + k];
  if (differs) atomicMin(first, row);
}

// One thread per row: *broken = 1 where the row breaks an invariant that
// validate(CsrMatrix) checks. Offsets outside [0, nnz] or decreasing, or not
// starting at 0 and ending at nnz, are found before any entry is read.
template <typename T>
__global__ void find_broken_row(index_t rows, index_t cols, index_t nnz, const index_t* row_ptr,
                                const index_t* col_idx, const T* values, int* broken) {
  const index_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const index_t begin = row_ptr[row], end = row_ptr[row + 1];
  if (begin < 0 || begin > end || end > nnz || (row == 0 && begin != 0) ||
      (row == rows - 1 && end != nnz)) {
    *broken = 1;
    return;
  }
  for (index_t k = begin; k < end; ++k) {
    const index_t col = col_idx[k];
    if (col < 0 || col >= cols || (k > begin && col <= col_idx[k - 1]) || !isfinite(values[k])) {
      *broken = 1;
      return;
    }
  }
}

}  // namespace

template <typename T>
void validate(const DeviceCsr<T>& M, const std::string& what, cudaStream_t stream) {
  require_consistent(M, what);
  bool broken = false;
  if (M.rows > 0) {
    DeviceBuffer<int> flag = device_value(0, stream, "validity flag");
    find_broken_row<<<blocks_for(M.rows, diagonal_threads), diagonal_threads, 0, stream>>>(
        M.rows, M.cols, M.nnz(), M.row_ptr.data(), M.col_idx.data(), M.values.data(),
        flag.data());
    BINAMG_CHECK_LAUNCH();
    broken = read_back(flag.data(), stream) != 0;
  }
  // The host names the problem, with the words of validate(CsrMatrix).
  if (broken) {
    validate(to_host(M), what);
    throw InvalidInput(what + ": is not a valid CSR matrix");  // unreachable if the checks agree
  }
}

index_t max_row_length(index_t rows, const index_t* row_ptr, cudaStream_t stream) {
  DeviceBuffer<index_t> longest(1, stream, "longest row");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(longest.data(), 0, sizeof(index_t), stream));
  if (rows > 0) {
    longest_row<<<blocks_for(rows, diagonal_threads), diagonal_threads, 0, stream>>>(
        rows, row_ptr, longest.data());
    BINAMG_CHECK_LAUNCH();
  }
  return read_back(longest.data(), stream);
}

DeviceBuffer<index_t> entry_rows(index_t rows, const index_t* row_ptr, index_t nnz,
                                 cudaStream_t stream) {
  DeviceBuffer<index_t> row_of(nnz, stream, "rows of the entries");
  if (rows > 0 && nnz > 0) {
    expand_row_indices<<<blocks_for(rows, diagonal_threads), diagonal_threads, 0, stream>>>(
        rows, row_ptr, row_of.data());
    BINAMG_CHECK_LAUNCH();
  }
  return row_of;
}

index_t first_pattern_difference(index_t rows, const index_t* a_ptr, const index_t* a_col,
                                 const index_t* b_ptr, const index_t* b_col, cudaStream_t stream) {
  DeviceBuffer<index_t> first = device_value(rows, stream, "first differing row");
  if (rows > 0) {
    pattern_difference<<<blocks_for(rows, diagonal_threads), diagonal_threads, 0, stream>>>(
        rows, a_ptr, a_col, b_ptr, b_col, first.data());
    BINAMG_CHECK_LAUNCH();
  }
  const index_t row = read_back(first.data(), stream);
  return row == rows ? -1 : row;
}

template <typename T>
DeviceBuffer<T> diagonal(const DeviceCsr<T>& A, cudaStream_t stream) {
  DeviceBuffer<T> diag(A.rows, stream, "diagonal");
  if (A.rows > 0) {
    extract_diagonal<<<blocks_for(A.rows, diagonal_threads), diagonal_threads, 0, stream>>>(
        A.rows, A.row_ptr.data(), A.col_idx.data(), A.values.data(), diag.data());
    BINAMG_CHECK_LAUNCH();
  }
  return diag;
}

template void validate<float>(const DeviceCsr<float>&, const std::string&, cudaStream_t);
template void validate<double>(const DeviceCsr<double>&, const std::string&, cudaStream_t);
template DeviceBuffer<float> diagonal<float>(const DeviceCsr<float>&, cudaStream_t);
template DeviceBuffer<double> diagonal<double>(const DeviceCsr<double>&, cudaStream_t);

}  // namespace binamg
