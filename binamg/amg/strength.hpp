#pragma once
// Strength of connection for smoothed aggregation (Vaněk, Mandel, Brezina 1996).
#include <cstdint>
#include <vector>

#include "binamg/amg/strength_measure.hpp"
#include "binamg/core/config.hpp"
#include "binamg/sparse/csr.hpp"
#if BINAMG_WITH_CUDA
#include "binamg/core/device_buffer.hpp"
#include "binamg/sparse/device_csr.hpp"
#endif

namespace binamg {

/// The strength graph of A: j ≠ i is a strong neighbour of i iff a_ij ≠ 0 and
/// |a_ij| ≥ θ·sqrt(|a_ii·a_jj|) (the symmetric measure) or |a_ij| ≥ θ·min(m_i,
/// m_j), m_i = max_{k≠i} |a_ik| (the classical one; strength_measure.hpp). The
/// result is the pattern S ∪ Sᵀ (symmetrised, so aggregation sees an undirected
/// graph) with all values 1 and no diagonal; rows sorted. A must be square; θ
/// must be finite and ≥ 0 (θ = 0 keeps every nonzero). With `weak`, also
/// stores how many off-diagonal entries of A are not strong (weak_entries() of
/// amg/filtered.hpp at the same θ and measure; the setup then needs no pass of
/// its own to count them).
template <typename T>
CsrMatrix<T> strength(const CsrMatrix<T>& A, double theta,
                      StrengthMeasure measure = StrengthMeasure::symmetric,
                      std::int64_t* weak = nullptr);

#if BINAMG_WITH_CUDA
/// The GPU twin: the same graph, entry for entry.
template <typename T>
DeviceCsr<T> strength(const DeviceCsr<T>& A, double theta, cudaStream_t stream = nullptr,
                      StrengthMeasure measure = StrengthMeasure::symmetric,
                      std::int64_t* weak = nullptr);
#endif  // BINAMG_WITH_CUDA

/// Each row's scale in the strength test: a_ii (symmetric) or max_{k≠i} |a_ik|
/// (classical; 0 for a row without off-diagonal entries). Exact, so both
/// devices give the same scales.
template <typename T>
std::vector<T> strength_scales(const CsrMatrix<T>& A, StrengthMeasure measure);

#if BINAMG_WITH_CUDA
template <typename T>
DeviceBuffer<T> strength_scales(const DeviceCsr<T>& A, StrengthMeasure measure,
                                cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
