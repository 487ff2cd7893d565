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

/// One value read back (synchronizes `stream`).
template <typename T>
T read_back(const T* device, cudaStream_t stream) {
  T value{};
  read_back(&value, device, sizeof(T), stream);
  return value;
}

}  // namespace binamg
