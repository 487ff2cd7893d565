#include "gpu_memory.hpp"

namespace binamg::python {

void require_device_memory(const void* pointer, const std::string& what) {
  cudaPointerAttributes attributes{};
  const cudaError_t status = cudaPointerGetAttributes(&attributes, pointer);
  // Cleared before anything else reads it: the failure is reported below, and
  // a later launch check would otherwise take it for its own.
  if (status != cudaSuccess) cudaGetLastError();
  int current = -1;
  BINAMG_CUDA_CHECK(cudaGetDevice(&current));
  require(
      status == cudaSuccess &&
          (attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged) &&
          attributes.device == current,
      what + " is not memory of the GPU binamg runs on (device " + std::to_string(current) + ")");
}

template <typename T>
DeviceCsr<T> device_csr_from(index_t rows, index_t cols, const std::int32_t* indptr,
                             const std::int32_t* indices, const T* data, std::int64_t nnz) {
  require(rows >= 0 && cols >= 0, "A has a negative dimension");
  require(
      nnz >= 0 && nnz < std::int64_t(1) << 31,
      "A has " + std::to_string(nnz) + " entries; binamg's 32-bit indices take at most 2^31 - 1");
  require_device_memory(indptr, "A's indptr");
  if (nnz > 0) {
    require_device_memory(indices, "A's indices");
    require_device_memory(data, "A's data");
  }
  DeviceCsr<T> A;
  A.rows = rows;
  A.cols = cols;
  A.row_ptr = block_to_device(indptr, std::size_t(rows) + 1, nullptr);
  A.col_idx = block_to_device(indices, std::size_t(nnz), nullptr);
  A.values = block_to_device(data, std::size_t(nnz), nullptr);
  validate(A, "A");  // on the device
  return A;
}

template DeviceCsr<float> device_csr_from<float>(index_t, index_t, const std::int32_t*,
                                                 const std::int32_t*, const float*, std::int64_t);
template DeviceCsr<double> device_csr_from<double>(index_t, index_t, const std::int32_t*,
                                                   const std::int32_t*, const double*,
                                                   std::int64_t);

}  // namespace binamg::python
