#include "core/read_back.hpp"

#include <cstring>

#include "core/cuda_check.hpp"

namespace binamg {
namespace {

/// The calling thread's pinned staging buffer (portable: any device's copy
/// may use it).
class PinnedStaging {
 public:
  ~PinnedStaging() {
    // At thread exit the runtime may already be shut down; nothing to report.
    if (data_ != nullptr) cudaFreeHost(data_);
  }
  void* at_least(std::size_t bytes) {
    if (bytes > capacity_) {
      std::size_t capacity = capacity_ == 0 ? kMinimumBytes : capacity_;
      while (capacity < bytes) capacity *= 2;
      void* grown = nullptr;
      BINAMG_CUDA_CHECK(cudaHostAlloc(&grown, capacity, cudaHostAllocPortable));
      if (data_ != nullptr) BINAMG_CUDA_CHECK(cudaFreeHost(data_));
      data_ = grown;
      capacity_ = capacity;
    }
    return data_;
  }

 private:
  static constexpr std::size_t kMinimumBytes = 4096;
  void* data_ = nullptr;
  std::size_t capacity_ = 0;
};

}  // namespace

void read_back(void* host, const void* device, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  thread_local PinnedStaging staging;
  void* pinned = staging.at_least(bytes);
  BINAMG_CUDA_CHECK(cudaMemcpyAsync(pinned, device, bytes, cudaMemcpyDeviceToHost, stream));
  BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::memcpy(host, pinned, bytes);
}

}  // namespace binamg
