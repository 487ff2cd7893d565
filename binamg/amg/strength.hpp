#pragma once
// Strength of connection for smoothed aggregation (Vaněk, Mandel, Brezina 1996).
#include "binamg/sparse/csr.hpp"
#include "binamg/sparse/device_csr.hpp"

namespace binamg {

/// The strength graph of A: j ≠ i is a strong neighbour of i iff a_ij ≠ 0 and
/// |a_ij| ≥ θ·sqrt(|a_ii·a_jj|). The result is the pattern S ∪ Sᵀ (symmetrised, so
/// aggregation sees an undirected graph) with all values 1 and no diagonal; rows
/// sorted. A must be square; θ must be finite and ≥ 0 (θ = 0 keeps every nonzero).
template <typename T>
CsrMatrix<T> strength(const CsrMatrix<T>& A, double theta);

/// The GPU twin: the same graph, entry for entry.
template <typename T>
DeviceCsr<T> strength(const DeviceCsr<T>& A, double theta, cudaStream_t stream = nullptr);

}  // namespace binamg
