#include <cub/device/device_radix_sort.cuh>

#include "binamg/core/launch.hpp"
#include "binamg/core/lower_bound.cuh"
#include "binamg/core/radix_sort.hpp"
#include "binamg/sparse/transpose.hpp"

namespace binamg {
namespace {

constexpr int transpose_threads = 256;

// One thread per column c of A (row c of Aᵀ), plus one for the end: the first
// position in the column-sorted keys holding a key >= c.
__global__ void offsets_from_sorted_keys(index_t nnz, index_t cols, const index_t* sorted_cols,
                                         index_t* row_ptr_t) {
  const index_t c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c > cols) return;
  row_ptr_t[c] = lower_bound_in(sorted_cols, 0, nnz, c);
}

// One thread per entry of Aᵀ: gathers its row index and value from A's entry.
template <typename T>
__global__ void gather_entries(index_t nnz, const index_t* source_entry, const index_t* row_of,
                               const T* values, index_t* col_idx_t, T* values_t) {
  const index_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nnz) return;
  const index_t entry = source_entry[k];
  col_idx_t[k] = row_of[entry];
  values_t[k] = values[entry];
}

// One thread per entry of Aᵀ: its value from A's entry source_entry[k].
template <typename T>
__global__ void gather_values(index_t nnz, const index_t* source_entry, const T* values,
                              T* values_t) {
  const index_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nnz) values_t[k] = values[source_entry[k]];
}

}  // namespace

template <typename T>
DeviceCsr<T> transpose(const DeviceCsr<T>& A, cudaStream_t stream) {
  return transpose(A, stream, nullptr);
}

template <typename T>
DeviceCsr<T> transpose(const DeviceCsr<T>& A, cudaStream_t stream,
                       DeviceBuffer<index_t>* source_entries) {
  DeviceCsr<T> At;
  At.rows = A.cols;
  At.cols = A.rows;
  At.row_ptr =
      DeviceBuffer<index_t>(static_cast<std::size_t>(A.cols) + 1, stream, "transpose row_ptr");
  At.allocate_entries(A.nnz(), stream, "transpose entries");

  DeviceBuffer<index_t> sorted_cols(A.nnz(), stream, "transpose keys");
  DeviceBuffer<index_t> entry(A.nnz(), stream, "transpose entries");
  DeviceBuffer<index_t> sorted_entry(A.nnz(), stream, "transpose sorted entries");
  const DeviceBuffer<index_t> row_of = entry_rows(A, stream);
  if (A.nnz() > 0) {
    fill_identity(entry.data(), A.nnz(), stream);
    // LSD radix sort is stable: equal columns keep A's row-major entry order.
    const int bits = radix_key_bits(A.cols);
    std::size_t temp_bytes = 0;
    BINAMG_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        nullptr, temp_bytes, A.col_idx.data(), sorted_cols.data(), entry.data(),
        sorted_entry.data(), A.nnz(), 0, bits, stream));
    DeviceBuffer<unsigned char> temp(temp_bytes, stream, "transpose sort scratch");
    BINAMG_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        temp.data(), temp_bytes, A.col_idx.data(), sorted_cols.data(), entry.data(),
        sorted_entry.data(), A.nnz(), 0, bits, stream));
    gather_entries<<<blocks_for(A.nnz(), transpose_threads), transpose_threads, 0, stream>>>(
        A.nnz(), sorted_entry.data(), row_of.data(), A.values.data(), At.col_idx.data(),
        At.values.data());
    BINAMG_CHECK_LAUNCH();
  }
  offsets_from_sorted_keys<<<blocks_for(std::int64_t(A.cols) + 1, transpose_threads),
                             transpose_threads, 0, stream>>>(A.nnz(), A.cols, sorted_cols.data(),
                                                             At.row_ptr.data());
  BINAMG_CHECK_LAUNCH();
  if (source_entries != nullptr) *source_entries = std::move(sorted_entry);
  return At;
}

template <typename T>
void transpose_values(const DeviceCsr<T>& A, const DeviceBuffer<index_t>& source_entries,
                      DeviceCsr<T>& At, cudaStream_t stream) {
  require(At.rows == A.cols && At.cols == A.rows && At.nnz() == A.nnz() &&
              source_entries.size() == std::size_t(A.nnz()),
          "transpose_values: the transpose (" + std::to_string(At.rows) + " x " +
              std::to_string(At.cols) + ", nnz " + std::to_string(At.nnz()) +
              ") or its gather order (" + std::to_string(source_entries.size()) +
              " entries) is not of A (" + std::to_string(A.rows) + " x " +
              std::to_string(A.cols) + ", nnz " + std::to_string(A.nnz()) + ")");
  if (A.nnz() == 0) return;
  gather_values<<<blocks_for(A.nnz(), transpose_threads), transpose_threads, 0, stream>>>(
      A.nnz(), source_entries.data(), A.values.data(), At.values.data());
  BINAMG_CHECK_LAUNCH();
}

#define BINAMG_INSTANTIATE(T)                                                                \
  template DeviceCsr<T> transpose<T>(const DeviceCsr<T>&, cudaStream_t);                     \
  template DeviceCsr<T> transpose<T>(const DeviceCsr<T>&, cudaStream_t, DeviceBuffer<index_t>*); \
  template void transpose_values<T>(const DeviceCsr<T>&, const DeviceBuffer<index_t>&,         \
                                    DeviceCsr<T>&, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
