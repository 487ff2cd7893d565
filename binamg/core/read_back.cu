#include "binamg/core/read_back.hpp"

#include <cstring>
#include <memory>
#include <vector>

#include "binamg/core/cuda_check.hpp"

namespace binamg {
namespace {

/// The calling thread's mapped pinned staging buffer (portable: any device
/// may write it) and its device address, asked once per allocation (under
/// UVA the same on every device); and the event a pending read records on
/// it, made once rather than at each read (a PCG iteration makes one).
class PinnedStaging {
 public:
  ~PinnedStaging() {
    // At thread exit the runtime may already be shut down; nothing to report.
    if (event_ != nullptr) cudaEventDestroy(event_);
    if (data_ != nullptr) cudaFreeHost(data_);
  }
  /// The event, of the current device (an event records only on its own
  /// device's streams).
  cudaEvent_t event() {
    int device = 0;
    BINAMG_CUDA_CHECK(cudaGetDevice(&device));
    if (event_ != nullptr && event_device_ != device) {
      BINAMG_CUDA_CHECK(cudaEventDestroy(event_));
      event_ = nullptr;
    }
    if (event_ == nullptr) {
      BINAMG_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming));
      event_device_ = device;
    }
    return event_;
  }
  void grow_to(std::size_t bytes) {
    if (bytes <= capacity_) return;
    std::size_t capacity = capacity_ == 0 ? kMinimumBytes : capacity_;
    while (capacity < bytes) capacity *= 2;
    void* grown = nullptr;
    BINAMG_CUDA_CHECK(cudaHostAlloc(&grown, capacity, cudaHostAllocMapped | cudaHostAllocPortable));
    void* grown_on_device = nullptr;
    const cudaError_t mapped = cudaHostGetDevicePointer(&grown_on_device, grown, 0);
    if (mapped != cudaSuccess) cudaFreeHost(grown);
    BINAMG_CUDA_CHECK(mapped);
    if (data_ != nullptr) BINAMG_CUDA_CHECK(cudaFreeHost(data_));
    data_ = static_cast<unsigned char*>(grown);
    on_device_ = static_cast<unsigned char*>(grown_on_device);
    capacity_ = capacity;
  }
  unsigned char* data() const { return data_; }
  unsigned char* on_device() const { return on_device_; }

 private:
  static constexpr std::size_t kMinimumBytes = 4096;
  unsigned char* data_ = nullptr;
  unsigned char* on_device_ = nullptr;
  std::size_t capacity_ = 0;
  cudaEvent_t event_ = nullptr;
  int event_device_ = -1;
};

constexpr int kCopyThreads = 128;

/// The calling thread's stagings that no pending read holds.
std::vector<std::unique_ptr<PinnedStaging>>& idle_stagings() {
  thread_local std::vector<std::unique_ptr<PinnedStaging>> idle;
  return idle;
}

/// Device bytes into mapped host memory: a kernel queued behind the work
/// starts about a microsecond after it, a copy-engine transfer about seven.
__global__ void copy_to_host_kernel(unsigned char* host, const unsigned char* device,
                                    std::size_t bytes) {
  for (std::size_t i = threadIdx.x; i < bytes; i += kCopyThreads) host[i] = device[i];
}

}  // namespace

void read_back(void* host, const void* device, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  thread_local PinnedStaging staging;
  staging.grow_to(bytes);
  copy_to_host_kernel<<<1, kCopyThreads, 0, stream>>>(
      staging.on_device(), static_cast<const unsigned char*>(device), bytes);
  BINAMG_CHECK_LAUNCH();
  BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::memcpy(host, staging.data(), bytes);
}

PendingRead::PendingRead(const void* device, std::size_t bytes, cudaStream_t stream)
    : bytes_(bytes) {
  auto& idle = idle_stagings();
  std::unique_ptr<PinnedStaging> staging;
  if (idle.empty()) {
    staging = std::make_unique<PinnedStaging>();
  } else {
    staging = std::move(idle.back());
    idle.pop_back();
  }
  staging->grow_to(bytes);
  if (bytes > 0) {
    copy_to_host_kernel<<<1, kCopyThreads, 0, stream>>>(
        staging->on_device(), static_cast<const unsigned char*>(device), bytes);
    BINAMG_CHECK_LAUNCH();
  }
  done_ = staging->event();
  BINAMG_CUDA_CHECK(cudaEventRecord(done_, stream));
  staging_ = staging.release();
}

PendingRead::~PendingRead() {
  auto* staging = static_cast<PinnedStaging*>(staging_);
  // A destructor reports nothing; a failed wait leaves the staging unused.
  if (cudaEventSynchronize(done_) == cudaSuccess)
    idle_stagings().emplace_back(staging);
  else
    delete staging;
}

void PendingRead::wait(void* host) {
  BINAMG_CUDA_CHECK(cudaEventSynchronize(done_));
  std::memcpy(host, static_cast<PinnedStaging*>(staging_)->data(), bytes_);
}

}  // namespace binamg
