#pragma once
// Small device-to-host reads that the host waits for (sizes, totals, solver
// scalars), staged through pinned memory: a copy into pageable memory starts
// several microseconds after the work before it and returns several after the
// copy (H200 CUPTI timeline: 7.7 µs from a kernel's end to its 264-byte copy,
// 17-18 µs per read in all), and a coarse Galerkin level makes four reads.
#include <cuda_runtime.h>

#include <cstddef>

namespace binamg {

/// Copies `bytes` from device memory at `device` to `host` after the work
/// queued on `stream`; synchronizes `stream`. Staged in a pinned buffer of the
/// calling thread that grows to the largest read and lives until it exits.
void read_back(void* host, const void* device, std::size_t bytes, cudaStream_t stream);

/// One value read back (synchronizes `stream`).
template <typename T>
T read_back(const T* device, cudaStream_t stream) {
  T value{};
  read_back(&value, device, sizeof(T), stream);
  return value;
}

}  // namespace binamg
