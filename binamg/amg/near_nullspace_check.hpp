#pragma once
// The pieces of validate_near_nullspace() that both devices share: the GPU
// checks the values where it has uploaded them (amg/near_nullspace.cu) and
// reports with the same messages.
#include <cstdint>
#include <string>
#include <vector>

#include "binamg/amg/near_nullspace.hpp"

namespace binamg::near_nullspace_detail {

/// Throws InvalidInput naming the problem unless the block size, the count and
/// the number of values fit a matrix of `rows` rows (the values are not read).
void require_shape(const NearNullspace& nullspace, index_t rows, const std::string& what);

/// The message for B's first non-finite entry, `entry` = row · k + vector.
[[noreturn]] void throw_non_finite(std::int64_t entry, index_t k, const std::string& what);

/// Throws InvalidInput naming the first vector that is, to 1e-7 relative, a
/// combination of the ones before it, judged by the Cholesky pivots of the
/// Gram matrix G = BᵀB (k × k, row-major; only its lower triangle is read).
void require_independent(const std::vector<double>& gram, index_t k, const std::string& what);

}  // namespace binamg::near_nullspace_detail
