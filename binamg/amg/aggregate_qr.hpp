#pragma once
// The thin QR of one aggregate's rows of the near-nullspace vectors, written
// once for both devices (amg/tentative_qr.cpp and .cu call it): modified
// Gram-Schmidt in double with fma(), so the host and the GPU give the same bits.
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

BINAMG_HOST_DEVICE inline double fused(double a, double b, double c) {
#ifdef __CUDA_ARCH__
  return fma(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

/// QR of the m × k matrix whose row s is B's row rows[s] (B row-major, k
/// columns): writes Q (m × k row-major, dropped columns zero) to q, the k × k
/// upper-triangular R (row-major) to r, and returns the columns kept as a bit
/// mask (bit j: column j). R's row j for a kept column j is that column's
/// coarse near-nullspace row; Q's kept columns are the aggregate's columns of P.
BINAMG_HOST_DEVICE inline unsigned aggregate_qr(const index_t* rows, index_t m, const double* B,
                                                int k, double* q, double* r) {
  unsigned kept = 0;
  for (int j = 0; j < k; ++j) {
    double norm0 = 0;
    for (index_t s = 0; s < m; ++s) {
      const double v = B[static_cast<std::int64_t>(rows[s]) * k + j];
      q[s * k + j] = v;
      norm0 = fused(v, v, norm0);
    }
    for (int l = 0; l < k; ++l) r[j * k + l] = 0;
    for (int l = 0; l < j; ++l) {
      if (!(kept >> l & 1u)) continue;
      double dot = 0;
      for (index_t s = 0; s < m; ++s) dot = fused(q[s * k + l], q[s * k + j], dot);
      r[l * k + j] = dot;
      for (index_t s = 0; s < m; ++s) q[s * k + j] = fused(-dot, q[s * k + l], q[s * k + j]);
    }
    double norm = 0;
    for (index_t s = 0; s < m; ++s) norm = fused(q[s * k + j], q[s * k + j], norm);
    norm = sqrt(norm);
    if (norm0 > 0 && norm > kRankTolerance * sqrt(norm0)) {
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
