#pragma once
// What the radix sorts by key (the transpose, the SpGEMM's sorted rows) share:
// the bits a key needs and the identity permutation that the sort carries along.
#include <cuda_runtime.h>

#include "binamg/core/types.hpp"

namespace binamg {

/// Number of low bits that hold every key below `bound` (at least 1, at most
/// 31): the passes a radix sort of such keys needs.
inline int radix_key_bits(index_t bound) {
  int bits = 1;
  while (bits < 31 && (index_t(1) << bits) < bound) ++bits;
  return bits;
}

/// out[i] = i for i < count (device array), on `stream`.
void fill_identity(index_t* out, index_t count, cudaStream_t stream);

}  // namespace binamg
