#pragma once
// Device vectors from one precision to the other (mixed precision: the residual
// rounded to float for the cycle, the correction widened back).
#include <cuda_runtime.h>

#include "binamg/core/device_buffer.hpp"

namespace binamg {

/// out[i] = To(in[i]); out must have in's size.
template <typename To, typename From>
void convert(const DeviceBuffer<From>& in, DeviceBuffer<To>& out, cudaStream_t stream = nullptr);

}  // namespace binamg
