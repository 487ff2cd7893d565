#pragma once
// CSR matrix resident on the GPU: the same invariants as CsrMatrix.
#include <cuda_runtime.h>

#include "core/device_buffer.hpp"
#include "sparse/csr.hpp"

namespace binamg {

template <typename T>
struct DeviceCsr {
  index_t rows = 0;
  index_t cols = 0;
  index_t nnz = 0;
  DeviceBuffer<index_t> row_ptr;  // rows + 1
  DeviceBuffer<index_t> col_idx;  // nnz
  DeviceBuffer<T> values;         // nnz
};

/// Uploads a host matrix (asynchronous on `stream`).
template <typename T>
DeviceCsr<T> to_device(const CsrMatrix<T>& host, cudaStream_t stream = nullptr) {
  DeviceCsr<T> device;
  device.rows = host.rows;
  device.cols = host.cols;
  device.nnz = host.nnz();
  device.row_ptr = to_device(host.row_ptr, stream);
  device.col_idx = to_device(host.col_idx, stream);
  device.values = to_device(host.values, stream);
  return device;
}

/// Downloads a device matrix; synchronizes its streams.
template <typename T>
CsrMatrix<T> to_host(const DeviceCsr<T>& device) {
  CsrMatrix<T> host;
  host.rows = device.rows;
  host.cols = device.cols;
  host.row_ptr = to_host(device.row_ptr);
  host.col_idx = to_host(device.col_idx);
  host.values = to_host(device.values);
  return host;
}

/// The diagonal as a device vector (zero where a row has no diagonal entry).
template <typename T>
DeviceBuffer<T> diagonal(const DeviceCsr<T>& A, cudaStream_t stream = nullptr);

}  // namespace binamg
