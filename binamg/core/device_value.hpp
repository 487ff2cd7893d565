#pragma once
// One-element device buffers that a kernel sets: the flags and first-bad-row
// markers the setup's checks write, set in stream order by a one-thread kernel
// instead of a pageable upload through the copy engine. The host pays a launch
// (3.6 µs) where the upload cost it 1.2; whether the device's shorter wait
// makes up for it is not yet measured on its own (docs/experiments.md).
#include <cuda_runtime.h>

#include "binamg/core/device_buffer.hpp"

namespace binamg {

/// A device buffer of one element holding `value`, set on `stream`.
/// Defined for int (index_t) and unsigned long long.
template <typename T>
DeviceBuffer<T> device_value(T value, cudaStream_t stream, const char* what);

}  // namespace binamg
