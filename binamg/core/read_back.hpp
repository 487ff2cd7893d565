#pragma once
// Small device-to-host reads that the host waits for (sizes, totals, solver
// scalars): a kernel copies them into mapped pinned memory. A copy-engine
// transfer started several µs after the kernel before it ended, into pageable
// or pinned memory alike, a delay paid on every read (CUPTI timelines of a
// coarse Galerkin level, which makes four such reads; docs/experiments.md).
#include <cuda_runtime.h>

#include <cstddef>

namespace binamg {

/// Copies `bytes` from device memory at `device` to `host` after the work
/// queued on `stream`; synchronizes `stream`. Staged in a mapped pinned buffer
/// of the calling thread that grows to the largest read and lives until the
/// thread exits.
void read_back(void* host, const void* device, std::size_t bytes, cudaStream_t stream);

/// A read queued on `stream` that the host collects later: for a result
/// computed on a stream of its own beside other work, which the host must not
/// wait for until it needs the result. Each pending read has its own mapped
/// pinned staging and event (from a pool of the calling thread's, kept for reuse).
class PendingRead {
 public:
  /// Queues the copy of `bytes` from `device` on `stream`, after the work
  /// queued there so far.
  PendingRead(const void* device, std::size_t bytes, cudaStream_t stream);
  /// Waits for the copy if it is still in flight (its staging is reused).
  ~PendingRead();
  PendingRead(const PendingRead&) = delete;
  PendingRead& operator=(const PendingRead&) = delete;

  /// Waits for the copy (not for the rest of its stream) and copies the bytes to `host`.
  void wait(void* host);
  /// Recorded on the stream right after the copy: another stream may wait for it.
  cudaEvent_t done() const { return done_; }

 private:
  void* staging_ = nullptr;  // read_back.cu's PinnedStaging
  cudaEvent_t done_ = nullptr;
  std::size_t bytes_ = 0;
};

/// One value read back (synchronizes `stream`).
template <typename T>
T read_back(const T* device, cudaStream_t stream) {
  T value{};
  read_back(&value, device, sizeof(T), stream);
  return value;
}

}  // namespace binamg
