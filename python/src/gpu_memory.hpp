#pragma once
// GPU memory as Python hands it over (NumPy arrays in host memory, CuPy arrays
// in device memory, told apart by cudaMemcpyDefault): the checks and the
// copies of the GPU solver's vectors and matrices. CUDA builds only.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "binamg/core/cuda_check.hpp"
#include "binamg/core/device_buffer.hpp"
#include "binamg/sparse/device_csr.hpp"

namespace binamg::python {

/// Throws InvalidInput naming `what` unless `pointer` is memory of the current GPU.
void require_device_memory(const void* pointer, const std::string& what);

/// A CSR matrix in GPU memory (a CuPy matrix's arrays): checked to be memory
/// of the current device, copied there and validated there (validate(DeviceCsr)).
template <typename T>
DeviceCsr<T> device_csr_from(index_t rows, index_t cols, const std::int32_t* indptr,
                             const std::int32_t* indices, const T* data, std::int64_t nnz);

// Column j of the rows × k block at `source` (host or device) into a new
// device buffer, and back: one strided copy each, ordered on `stream`.
template <typename T>
DeviceBuffer<T> column_to_device(const T* source, index_t rows, index_t k, index_t j,
                                 cudaStream_t stream) {
  DeviceBuffer<T> device(rows, stream, "Python vector");
  if (rows > 0)
    BINAMG_CUDA_CHECK(cudaMemcpy2DAsync(device.data(), sizeof(T), source + j, k * sizeof(T),
                                        sizeof(T), rows, cudaMemcpyDefault, stream));
  return device;
}

template <typename T>
void column_from_device(const DeviceBuffer<T>& device, T* target, index_t k, index_t j,
                        cudaStream_t stream) {
  if (device.size() > 0)
    BINAMG_CUDA_CHECK(cudaMemcpy2DAsync(target + j, k * sizeof(T), device.data(), sizeof(T),
                                        sizeof(T), device.size(), cudaMemcpyDefault, stream));
}

// A whole block (or zeros, for a null `source`) into a new device buffer.
template <typename T>
DeviceBuffer<T> block_to_device(const T* source, std::size_t n, cudaStream_t stream) {
  DeviceBuffer<T> device(n, stream, "Python vector");
  if (n > 0)
    BINAMG_CUDA_CHECK(
        source ? cudaMemcpyAsync(device.data(), source, n * sizeof(T), cudaMemcpyDefault, stream)
               : cudaMemsetAsync(device.data(), 0, n * sizeof(T), stream));
  return device;
}

// The block back to `target`, waiting for it: once a solve returns, its
// result is there, for NumPy and for CuPy's streams alike.
template <typename T>
void block_from_device(const DeviceBuffer<T>& device, T* target, cudaStream_t stream) {
  if (device.size() > 0)
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(target, device.data(), device.size() * sizeof(T),
                                      cudaMemcpyDefault, stream));
  BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace binamg::python
