#pragma once
// Tentative prolongator: the constant near-nullspace restricted to each aggregate.
#include <vector>

#include "binamg/amg/aggregation.hpp"
#include "binamg/core/config.hpp"
#include "binamg/sparse/csr.hpp"

namespace binamg {

/// One level's tentative prolongator and the node weights of the next level.
template <typename T>
struct Tentative {
  CsrMatrix<T> P;
  std::vector<index_t> coarse_weights;  // W_a, one per aggregate
};

#if BINAMG_WITH_CUDA
/// The GPU twin's result.
template <typename T>
struct DeviceTentative {
  DeviceCsr<T> P;
  DeviceBuffer<index_t> coarse_weights;
};
#endif  // BINAMG_WITH_CUDA

/// The constant vector of the finest level, restricted to each aggregate and
/// normalised: T(i, a) = sqrt(w_i) / sqrt(W_a) with W_a = Σ_{i ∈ a} w_i, one
/// entry per row, columns orthonormal (TᵀT = I). The weight w_i counts the
/// finest-level nodes that node i stands for: all 1 on the finest level (pass
/// `weights` empty), the previous level's W below it. So the coarse vector
/// sqrt(W) is what T maps to the constant, as PyAMG's fit_candidates carries
/// its candidate's coarse representation down; with the constant vector on
/// every level instead, aggregates of unequal sizes lose the near-nullspace
/// from level 2 on and the V-cycle degrades with each level (2D 5-pt 2048²:
/// 63 PCG iterations against 27, docs/experiments.md). The weights are
/// integers, so the sums are exact and order-free on both devices.
/// Throws InvalidInput if an aggregate id is out of range, an aggregate is
/// empty, or `weights` has neither 0 nor n entries or one below 1.
template <typename T>
Tentative<T> tentative_prolongator(const Aggregates& aggregates,
                                   const std::vector<index_t>& weights);

/// The finest level's: all weights 1, T(i, a) = 1/sqrt(|a|).
template <typename T>
CsrMatrix<T> tentative_prolongator(const Aggregates& aggregates);

#if BINAMG_WITH_CUDA
/// The GPU twins: bitwise the same matrices and weights.
template <typename T>
DeviceTentative<T> tentative_prolongator(const DeviceAggregates& aggregates,
                                         const DeviceBuffer<index_t>& weights,
                                         cudaStream_t stream = nullptr);

template <typename T>
DeviceCsr<T> tentative_prolongator(const DeviceAggregates& aggregates,
                                   cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
