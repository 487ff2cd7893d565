#pragma once
// Grid sizing shared by the kernels.
#include <cstdint>

#include "binamg/core/types.hpp"

namespace binamg {

/// Blocks of `threads` threads needed to give one thread to each of `count` items.
inline unsigned blocks_for(std::int64_t count, int threads) {
  return static_cast<unsigned>((count + threads - 1) / threads);
}

}  // namespace binamg
