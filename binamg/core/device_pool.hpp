#pragma once
// The one device memory pool binamg allocates from: CUDA's stream-ordered pool
// of the current device, told to keep freed memory so that repeated calls do
// not pay cudaMalloc, and able to report its high-water mark for benchmarks.
#include "binamg/core/config.hpp"
#if !BINAMG_WITH_CUDA
#error "binamg/core/device_pool.hpp needs a binamg built with CUDA (BINAMG_WITH_CUDA is 0)"
#endif
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>

namespace binamg {

/// Allocates `bytes` on `stream` from the pool; throws DeviceError naming
/// `what` and the size when the GPU is out of memory.
void* pool_allocate(std::size_t bytes, cudaStream_t stream, const char* what);
void pool_free(void* pointer, cudaStream_t stream) noexcept;

/// Bytes in use by live pool allocations now, and the most since the last reset.
std::size_t pool_bytes_in_use();
std::size_t pool_peak_bytes();
void pool_reset_peak();

/// Peak pool bytes `work` needs beyond those in use when it starts (its inputs):
/// synchronizes the device before and after, resets the peak.
std::size_t pool_peak_extra_bytes(const std::function<void()>& work);

/// Returns the memory the pool keeps to the driver (after a synchronize).
void pool_trim();

/// Caps the bytes the pool's live allocations may hold (0, the default: no cap
/// but the card's): an allocation that would pass it throws OutOfMemory as a
/// full card does. For a GPU shared with other work, and for tests of running
/// out of memory that must not take the card from other processes.
void set_pool_limit(std::size_t bytes);
std::size_t pool_limit();

}  // namespace binamg
