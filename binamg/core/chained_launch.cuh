#pragma once
// The solve's kernels follow one another on a stream, most of them a few µs long
// on small and coarse levels, where the gap between two kernels is a good part of
// each. Launched as programmatic dependents (Hopper's PDL), a kernel is set up
// while the one before it drains, and its threads wait at the top for that
// kernel to finish: the order and the bits are a plain launch's, the gap
// shorter (a chain of small kernels on an H200: 3.4 → 2.8 µs each,
// docs/experiments.md).
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "binamg/core/cuda_check.hpp"

namespace binamg {

/// The first statement of every kernel launch_chained starts: waits until the
/// kernel before it on the stream has finished and its writes are visible. In a
/// kernel launched otherwise it returns at once.
__device__ __forceinline__ void wait_for_prior_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Whether the current device starts programmatic dependents (compute
/// capability 9.0 and up); asked of the runtime once per device.
bool device_chains_launches();

/// kernel<<<grid, block, shared_bytes, stream>>>(args...), allowed to start
/// before the kernel ahead of it on the stream ends where the device can (a
/// plain launch elsewhere). The kernel must call wait_for_prior_kernel() before
/// anything else.
template <typename... Params, typename... Args>
void launch_chained(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes,
                    cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = device_chains_launches() ? 1 : 0;
  BINAMG_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

}  // namespace binamg
