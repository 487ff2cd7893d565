#pragma once
// The node graph of a system: one row per node, for strength and aggregation
// to coarsen nodes (all unknowns of a node in one aggregate) rather than unknowns.
#include <vector>

#include "binamg/amg/aggregation.hpp"
#include "binamg/core/config.hpp"
#include "binamg/sparse/csr.hpp"
#if BINAMG_WITH_CUDA
#include "binamg/sparse/device_csr.hpp"
#endif

namespace binamg {

/// N(p, q) = ‖A_pq‖_F, the Frobenius norm of the block of A coupling node p's
/// rows to node q's columns (node_ptr: node p holds rows node_ptr[p] …
/// node_ptr[p+1]−1), for every block with an entry. Formed as Cᵀ (A∘A) C with
/// C the unknown-to-node incidence matrix, by the Galerkin product, then the
/// square root of each entry; so the strength test |n_pq| ≥ θ·sqrt(n_pp n_qq)
/// is the scalar one on a block matrix's norms. Throws InvalidInput unless
/// node_ptr runs from 0 to A.rows, every node holding a row.
template <typename T>
CsrMatrix<T> node_matrix(const CsrMatrix<T>& A, const std::vector<index_t>& node_ptr);

#if BINAMG_WITH_CUDA
template <typename T>
DeviceCsr<T> node_matrix(const DeviceCsr<T>& A, const DeviceBuffer<index_t>& node_ptr,
                         cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

/// Aggregates of unknowns from aggregates of nodes: each unknown joins its node's.
Aggregates unknown_aggregates(const Aggregates& nodes, const std::vector<index_t>& node_ptr);
#if BINAMG_WITH_CUDA
DeviceAggregates unknown_aggregates(const DeviceAggregates& nodes,
                                    const DeviceBuffer<index_t>& node_ptr,
                                    cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
