// convert_values() on the device (sparse/device_csr.hpp).
#include <cuda_runtime.h>

#include "binamg/core/cuda_check.hpp"
#include "binamg/sparse/device_csr.hpp"
#include "binamg/vector/convert.hpp"

namespace binamg {

template <typename To, typename From>
DeviceCsr<To> convert_values(const DeviceCsr<From>& matrix, cudaStream_t stream) {
  require_consistent(matrix, "convert_values: the matrix");
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
