// convert_values() on the device (sparse/device_csr.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "binamg/core/cuda_check.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"
#include "binamg/sparse/device_csr.hpp"
#include "binamg/vector/convert.hpp"

namespace binamg {
namespace {

constexpr int check_threads = 256;

// One thread per entry: lowers *first to the index of an entry that rounding
// to To turns into an infinity or a zero (csr.hpp's unrepresentable()), so the
// smallest such index is reported.
template <typename To, typename From>
__global__ void find_unrepresentable(std::int64_t entries, const From* values, index_t* first) {
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= entries) return;
  const From value = values[k];
  const To rounded = static_cast<To>(value);
  if (isfinite(value) && (!isfinite(rounded) || (rounded == To(0) && value != From(0))))
    atomicMin(first, index_t(k));
}

// Throws csr.hpp's message for the first entry of `matrix` that does not
// survive rounding to To (one kernel and one read-back; an error path reads more).
template <typename To, typename From>
void require_representable(const DeviceCsr<From>& matrix, cudaStream_t stream) {
  if (matrix.nnz() == 0) return;
  DeviceBuffer<index_t> first = to_device(std::vector<index_t>{INT_MAX}, stream);
  find_unrepresentable<To, From>
      <<<blocks_for(matrix.nnz(), check_threads), check_threads, 0, stream>>>(
          matrix.nnz(), matrix.values.data(), first.data());
  BINAMG_CHECK_LAUNCH();
  const index_t bad = read_back(first.data(), stream);
  if (bad == INT_MAX) return;
  const std::vector<index_t> row_ptr = to_host(matrix.row_ptr);
  const index_t row =
      index_t(std::upper_bound(row_ptr.begin(), row_ptr.end(), bad) - row_ptr.begin()) - 1;
  index_t col = 0;
  From value{};
  read_back(&col, matrix.col_idx.data() + bad, sizeof(index_t), stream);
  read_back(&value, matrix.values.data() + bad, sizeof(From), stream);
  throw InvalidInput(unrepresentable_entry_message(row, col, unrepresentable<To>(value)));
}

}  // namespace

template <typename To, typename From>
DeviceCsr<To> convert_values(const DeviceCsr<From>& matrix, cudaStream_t stream) {
  require_consistent(matrix, "convert_values: the matrix");
  if constexpr (sizeof(To) < sizeof(From)) require_representable<To>(matrix, stream);
  DeviceCsr<To> result;
  result.rows = matrix.rows;
  result.cols = matrix.cols;
  result.max_row_length = matrix.max_row_length;
  result.row_ptr = DeviceBuffer<index_t>(matrix.row_ptr.size(), stream, "converted row_ptr");
  BINAMG_CUDA_CHECK(cudaMemcpyAsync(result.row_ptr.data(), matrix.row_ptr.data(),
                                    matrix.row_ptr.size() * sizeof(index_t),
                                    cudaMemcpyDeviceToDevice, stream));
  result.allocate_entries(matrix.nnz(), stream, "converted entries");
  if (matrix.nnz() > 0)
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(result.col_idx.data(), matrix.col_idx.data(),
                                      matrix.col_idx.size() * sizeof(index_t),
                                      cudaMemcpyDeviceToDevice, stream));
  convert(matrix.values, result.values, stream);
  return result;
}

template DeviceCsr<float> convert_values<float, double>(const DeviceCsr<double>&, cudaStream_t);
template DeviceCsr<double> convert_values<double, float>(const DeviceCsr<float>&, cudaStream_t);

}  // namespace binamg
