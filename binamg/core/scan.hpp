#pragma once
// Offsets from per-row counts on the GPU, with the 32-bit overflow check that
// every CSR-producing kernel needs.
#include <cuda_runtime.h>

#include <string>

#include "binamg/core/types.hpp"

namespace binamg {

/// offsets[0] = 0, offsets[i+1] = counts[0] + ... + counts[i] for i < n (device
/// arrays; offsets has n+1 entries). The sum is formed in 64 bits; a total past
/// 2^31-1 throws InvalidInput naming `what`. Returns the total; synchronizes `stream`.
index_t offsets_from_counts(const index_t* counts, index_t n, index_t* offsets,
                            const std::string& what, cudaStream_t stream);

}  // namespace binamg
