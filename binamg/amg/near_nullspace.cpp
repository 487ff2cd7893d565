#include "binamg/amg/near_nullspace.hpp"

#include <cmath>
#include <cstdint>

#include "binamg/amg/near_nullspace_check.hpp"
#include "binamg/core/error.hpp"

namespace binamg {

bool is_system(const NearNullspace& nullspace) {
  if (nullspace.block_size > 1) return true;
  if (nullspace.count == 0) return false;
  if (nullspace.count > 1) return true;
  for (double value : nullspace.vectors)
    if (value != nullspace.vectors.front()) return true;
  return false;
}

namespace near_nullspace_detail {

// A vector whose part outside the span of the vectors before it is below this
// fraction of its norm counts as dependent. The test runs on the Gram matrix
// BᵀB, whose pivots are the squares of those parts, and squares below ~1e-14 of
// the diagonal are rounding there: 1e-7 is as fine as it can resolve.
constexpr double kDependentTolerance = 1e-7;

void require_shape(const NearNullspace& nullspace, index_t rows, const std::string& what) {
  const index_t b = nullspace.block_size, k = nullspace.count;
  require(b >= 1 && b <= max_near_nullspace_vectors,
          what + ": the block size must lie in [1, " + std::to_string(max_near_nullspace_vectors) +
              "], got " + std::to_string(b));
  require(rows % b == 0, what + ": the block size " + std::to_string(b) +
                             " does not divide the matrix's " + std::to_string(rows) + " rows");
  require(k >= 0 && k <= max_near_nullspace_vectors,
          what + ": the number of near-nullspace vectors must lie in [0, " +
              std::to_string(max_near_nullspace_vectors) + "], got " + std::to_string(k));
  require(k <= rows, what + ": " + std::to_string(k) + " near-nullspace vectors for a matrix of " +
                         std::to_string(rows) + " rows");
  require(nullspace.vectors.size() == std::size_t(rows) * std::size_t(k),
          what + ": the near-nullspace vectors have " +
              std::to_string(k == 0 ? nullspace.vectors.size() : nullspace.vectors.size() / k) +
              (k == 0 ? " values but no count" : " rows") + " for a matrix of " +
              std::to_string(rows) + " rows");
}

void throw_non_finite(std::int64_t entry, index_t k, const std::string& what) {
  throw InvalidInput(what + ": near-nullspace vector " + std::to_string(entry % k) +
                     " has a non-finite entry in row " + std::to_string(entry / k));
}

void require_independent(const std::vector<double>& G, index_t k, const std::string& what) {
  // G = L Lᵀ, row by row; L(j, j)² / G(j, j) is the squared relative size of
  // column j's part outside the columns before it.
  std::vector<double> L(std::size_t(k) * k, 0.0);
  for (index_t j = 0; j < k; ++j) {
    for (index_t l = 0; l <= j; ++l) {
      double sum = G[j * k + l];
      for (index_t m = 0; m < l; ++m) sum -= L[j * k + m] * L[l * k + m];
      if (l < j) {
        L[j * k + l] = sum / L[l * k + l];
        continue;
      }
      if (!(G[j * k + j] > 0) ||
          !(sum > kDependentTolerance * kDependentTolerance * G[j * k + j]))
        throw InvalidInput(what + ": near-nullspace vector " + std::to_string(j) +
                           (j == 0 ? " is zero"
                                   : " is (to 1e-7) a linear combination of the vectors before it") +
                           "; give linearly independent vectors");
      L[j * k + j] = std::sqrt(sum);
    }
  }
}

}  // namespace near_nullspace_detail

void validate_near_nullspace(const NearNullspace& nullspace, index_t rows,
                             const std::string& what) {
  near_nullspace_detail::require_shape(nullspace, rows, what);
  const index_t k = nullspace.count;
  if (k == 0) return;
  const std::vector<double>& B = nullspace.vectors;
  for (std::size_t e = 0; e < B.size(); ++e)  // no message built here: a hot loop
    if (!std::isfinite(B[e])) near_nullspace_detail::throw_non_finite(std::int64_t(e), k, what);
  // BᵀB in one pass over row-major B (modified Gram-Schmidt over B's columns
  // took 1.3 s for a million rows).
  std::vector<double> G(std::size_t(k) * k, 0.0);
  for (index_t i = 0; i < rows; ++i) {
    const double* b = B.data() + std::size_t(i) * k;
    for (index_t j = 0; j < k; ++j)
      for (index_t l = 0; l <= j; ++l) G[j * k + l] += b[j] * b[l];
  }
  near_nullspace_detail::require_independent(G, k, what);
}

Candidates finest_candidates(const NearNullspace& nullspace, index_t rows) {
  validate_near_nullspace(nullspace, rows, "build_hierarchy: near_nullspace");
  const index_t b = nullspace.block_size;
  Candidates c;
  c.node_ptr.resize(std::size_t(rows / b) + 1);
  for (std::size_t p = 0; p < c.node_ptr.size(); ++p) c.node_ptr[p] = index_t(p) * b;
  if (nullspace.count > 0) {
    c.k = nullspace.count;
    c.vectors = nullspace.vectors;
    return c;
  }
  c.k = b;  // one vector per component
  c.vectors.assign(std::size_t(rows) * b, 0.0);
  for (index_t i = 0; i < rows; ++i) c.vectors[std::size_t(i) * b + i % b] = 1.0;
  return c;
}

}  // namespace binamg
