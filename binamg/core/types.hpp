#pragma once
// Index type and the checks that keep sizes inside it.
#include <cstdint>
#include <limits>
#include <string>

#include "binamg/core/error.hpp"

namespace binamg {

/// Row/column indices and CSR offsets are 32-bit, as in cuSPARSE's default.
using index_t = std::int32_t;
constexpr std::int64_t max_index = std::numeric_limits<index_t>::max();

/// Narrows a 64-bit count to index_t, or throws naming `what` when it does not fit.
inline index_t checked_index(std::int64_t value, const std::string& what) {
  if (value < 0 || value > max_index)
    throw InvalidInput(what + " = " + std::to_string(value) +
                       " does not fit in 32-bit indices (limit 2^31-1)");
  return static_cast<index_t>(value);
}

}  // namespace binamg
