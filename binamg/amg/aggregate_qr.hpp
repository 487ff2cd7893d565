#pragma once
// The thin QR of one aggregate's rows of the near-nullspace vectors: modified
// Gram-Schmidt in double with fma(), on the host (amg/tentative_qr.cpp) and,
// a warp per aggregate, on the GPU (amg/tentative_qr.cu), summing in the same
// order so that the two give the same bits.
#include <cmath>

#include "binamg/core/host_device.hpp"
#include "binamg/core/types.hpp"

namespace binamg::qr_detail {

// A column whose part outside the span of the columns before it is at most
// this fraction of its norm on the aggregate is dropped (PyAMG's
// fit_candidates: 1e-10): the aggregate's nodes cannot tell it apart (one 3D
// node cannot rotate), and a zero column of P would give the coarse matrix a
// zero row.
constexpr double kRankTolerance = 1e-10;

/// Lanes of the GPU's warp per aggregate: every sum over an aggregate's rows
/// is formed as 32 partial sums (lane l takes rows l, l+32, …, in order) added
/// in a tree (l += l+16, then l += l+8, …, as __shfl_down_sync does), here and
/// in the GPU's kernel alike, so the two give the same bits.
constexpr int kQrLanes = 32;

/// Σ_s f(s) for s < m in the lanes' order (above).
template <typename Term>
double lane_sum(index_t m, Term&& term) {
  double part[kQrLanes];
  for (int lane = 0; lane < kQrLanes; ++lane) {
    part[lane] = 0;
    for (index_t s = lane; s < m; s += kQrLanes) part[lane] = term(s, part[lane]);
  }
  for (int offset = kQrLanes / 2; offset > 0; offset /= 2)
    for (int lane = 0; lane < offset; ++lane) part[lane] = part[lane] + part[lane + offset];
  return part[0];
}

/// QR of the m × k matrix whose row s is B's row rows[s] (B row-major, k
/// columns): writes Q (m × k row-major, dropped columns zero) to q, the k × k
/// upper-triangular R (row-major) to r, and returns the columns kept as a bit
/// mask (bit j: column j). R's row j for a kept column j is that column's
/// coarse near-nullspace row; Q's kept columns are the aggregate's columns of
/// P. The host's reference of the GPU's warp per aggregate (tentative_qr.cu).
inline unsigned aggregate_qr(const index_t* rows, index_t m, const double* B, int k, double* q,
                             double* r) {
  unsigned kept = 0;
  for (int j = 0; j < k; ++j) {
    for (index_t s = 0; s < m; ++s) q[s * k + j] = B[static_cast<std::int64_t>(rows[s]) * k + j];
    const double norm0 = lane_sum(
        m, [&](index_t s, double sum) { return std::fma(q[s * k + j], q[s * k + j], sum); });
    for (int l = 0; l < k; ++l) r[j * k + l] = 0;
    for (int l = 0; l < j; ++l) {
      if (!(kept >> l & 1u)) continue;
      const double dot = lane_sum(
          m, [&](index_t s, double sum) { return std::fma(q[s * k + l], q[s * k + j], sum); });
      r[l * k + j] = dot;
      for (index_t s = 0; s < m; ++s) q[s * k + j] = std::fma(-dot, q[s * k + l], q[s * k + j]);
    }
    const double norm = std::sqrt(lane_sum(
        m, [&](index_t s, double sum) { return std::fma(q[s * k + j], q[s * k + j], sum); }));
    if (norm0 > 0 && norm > kRankTolerance * std::sqrt(norm0)) {
      kept |= 1u << j;
      r[j * k + j] = norm;
      for (index_t s = 0; s < m; ++s) q[s * k + j] = q[s * k + j] / norm;
    } else {
      for (index_t s = 0; s < m; ++s) q[s * k + j] = 0;
    }
  }
  return kept;
}

/// The number of set bits of a kept mask (a column count).
BINAMG_HOST_DEVICE inline int kept_count(unsigned kept) {
  int count = 0;
  for (; kept; kept &= kept - 1) ++count;
  return count;
}

}  // namespace binamg::qr_detail
