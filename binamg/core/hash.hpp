#pragma once
// A 32-bit integer hash shared by host and device code, so that CPU and GPU
// algorithms built on it (MIS-2 priorities, power-iteration start vectors)
// agree exactly. The xor-shift/odd-multiply rounds are each invertible, so the
// hash is a bijection on 32-bit integers: distinct inputs never tie.
#include <cstdint>

#include "binamg/core/host_device.hpp"

namespace binamg {

BINAMG_HOST_DEVICE inline std::uint32_t integer_hash(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

/// A reproducible pseudo-random value in (-1, 1) for index i: exact in double
/// (a 32-bit integer times a power of two), the same on host and device.
BINAMG_HOST_DEVICE inline double hashed_unit_value(std::uint32_t i) {
  return (static_cast<double>(integer_hash(i)) + 0.5) * (1.0 / 2147483648.0) - 1.0;
}

}  // namespace binamg
