#pragma once
// Tentative prolongator of a system: the near-nullspace vectors restricted to
// each aggregate, orthonormalised by a thin QR (Vaněk, Mandel, Brezina 1996).
#include <string>

#include "binamg/amg/aggregation.hpp"
#include "binamg/amg/near_nullspace.hpp"
#include "binamg/core/config.hpp"
#include "binamg/core/error.hpp"
#include "binamg/sparse/csr.hpp"
#if BINAMG_WITH_CUDA
#include "binamg/sparse/device_csr.hpp"
#endif

namespace binamg {

#if BINAMG_WITH_CUDA
/// Candidates on the GPU: as Candidates, in device memory.
struct DeviceCandidates {
  index_t k = 0;
  DeviceBuffer<double> vectors;    // row-major rows × k
  DeviceBuffer<index_t> node_ptr;  // nodes + 1
  index_t nodes() const { return static_cast<index_t>(node_ptr.size()) - 1; }
};

DeviceCandidates to_device(const Candidates& host, cudaStream_t stream = nullptr);
Candidates to_host(const DeviceCandidates& device);

/// The GPU twin of finest_candidates(): B is uploaded once, from the caller's
/// vectors, and checked where it lands, with the host's messages. The Gram
/// matrix is summed in a fixed order of the GPU's (amg/near_nullspace.cu), so
/// the two devices may judge a vector at the edge of the 1e-7 test apart.
DeviceCandidates finest_candidates(const NearNullspace& nullspace, index_t rows,
                                   cudaStream_t stream);
#endif  // BINAMG_WITH_CUDA

namespace qr_detail {
/// Throws InvalidInput unless k lies in [1, max_near_nullspace_vectors] and
/// `values` = rows · k (the candidates of either device).
inline void require_candidate_values(index_t rows, index_t k, std::size_t values) {
  require(k >= 1 && k <= max_near_nullspace_vectors && values == std::size_t(rows) * std::size_t(k),
          "tentative_qr: " + std::to_string(values) + " candidate values for " +
              std::to_string(rows) + " rows of " + std::to_string(k) + " vectors");
}
}  // namespace qr_detail

/// One level's tentative prolongator and the next level's candidates.
template <typename T>
struct SystemTentative {
  CsrMatrix<T> P;
  Candidates coarse;
};

#if BINAMG_WITH_CUDA
template <typename T>
struct DeviceSystemTentative {
  DeviceCsr<T> P;
  DeviceCandidates coarse;
};
#endif  // BINAMG_WITH_CUDA

/// For each aggregate a (of unknowns: `aggregates` maps rows to aggregates),
/// B_a = Q_a R_a, the thin QR of B's rows in a (rows in increasing order;
/// qr_detail::aggregate_qr). Columns that the aggregate cannot represent (to
/// 1e-10 relative) are dropped, so aggregate a gets r_a ≤ k coarse unknowns:
/// P(i, c_a + t) = Q_a(i, j_t) for its kept columns j_0 < j_1 < …, c_a = Σ_{b<a}
/// r_b; the coarse vectors are the kept rows of R_a (B = P·B_coarse up to the
/// tolerance, PᵀP = I), and each aggregate is a coarse node. Throws
/// InvalidInput if an aggregate id is out of range, an aggregate is empty,
/// the sizes disagree, or the vectors vanish on an aggregate (naming it).
template <typename T>
SystemTentative<T> tentative_qr(const Aggregates& aggregates, const Candidates& candidates);

#if BINAMG_WITH_CUDA
/// The GPU twin (a warp per aggregate): bitwise the same P and candidates.
template <typename T>
DeviceSystemTentative<T> tentative_qr(const DeviceAggregates& aggregates,
                                      const DeviceCandidates& candidates,
                                      cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
