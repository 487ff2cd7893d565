#pragma once
// One-element device buffers that a kernel sets: the flags and first-bad-row
// markers the setup's checks write. A pageable upload of a few bytes costs a
// copy-engine round trip of several µs (docs/experiments.md); a one-thread
// kernel queued behind the work costs about one.
#include <cuda_runtime.h>

#include "binamg/core/device_buffer.hpp"

namespace binamg {

/// A device buffer of one element holding `value`, set on `stream`.
/// Defined for int (index_t) and unsigned long long.
template <typename T>
DeviceBuffer<T> device_value(T value, cudaStream_t stream, const char* what);

}  // namespace binamg
