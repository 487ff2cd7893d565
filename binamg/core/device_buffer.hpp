#pragma once
// RAII owner of a typed device array drawn from the binamg pool.
#include "binamg/core/config.hpp"
#if !BINAMG_WITH_CUDA
#error "binamg/core/device_buffer.hpp needs a binamg built with CUDA (BINAMG_WITH_CUDA is 0)"
#endif
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "binamg/core/cuda_check.hpp"
#include "binamg/core/device_pool.hpp"

namespace binamg {

template <typename T>
class DeviceBuffer {
 public:
  using value_type = T;
  DeviceBuffer() = default;
  /// Uninitialised storage for `count` elements, ordered on `stream`.
  DeviceBuffer(std::size_t count, cudaStream_t stream = nullptr,
               const char* what = "device buffer")
      : data_(static_cast<T*>(pool_allocate(count * sizeof(T), stream, what))),
        size_(count),
        stream_(stream) {}
  ~DeviceBuffer() { pool_free(data_, stream_); }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    DeviceBuffer(std::move(other)).swap(*this);
    return *this;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  cudaStream_t stream() const { return stream_; }

  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(stream_, other.stream_);
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
  cudaStream_t stream_ = nullptr;
};

/// Copies a host vector to a new device buffer (ordered on `stream`).
template <typename T>
DeviceBuffer<T> to_device(const std::vector<T>& host, cudaStream_t stream = nullptr) {
  DeviceBuffer<T> buffer(host.size(), stream, "host-to-device copy");
  if (!host.empty())
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(buffer.data(), host.data(),
                                      host.size() * sizeof(T),
                                      cudaMemcpyHostToDevice, stream));
  return buffer;
}

/// Copies a device buffer back to the host; synchronizes `stream`.
template <typename T>
std::vector<T> to_host(const DeviceBuffer<T>& buffer) {
  std::vector<T> host(buffer.size());
  if (!host.empty()) {
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(host.data(), buffer.data(),
                                      host.size() * sizeof(T),
                                      cudaMemcpyDeviceToHost, buffer.stream()));
    BINAMG_CUDA_CHECK(cudaStreamSynchronize(buffer.stream()));
  }
  return host;
}

}  // namespace binamg
