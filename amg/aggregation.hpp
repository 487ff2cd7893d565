#pragma once
// Aggregation: partitions the nodes of the (undirected) strength graph into
// connected aggregates, one coarse unknown each.
#include <cstdint>
#include <vector>

#include "amg/parameters.hpp"
#include "sparse/csr.hpp"
#include "sparse/device_csr.hpp"

namespace binamg {

struct Aggregates {
  std::vector<index_t> aggregate_of;  // node -> aggregate id in [0, count)
  index_t count = 0;
};

/// Aggregates on the GPU: the same ids as Aggregates, in device memory.
struct DeviceAggregates {
  DeviceBuffer<index_t> aggregate_of;
  index_t count = 0;
};

/// The 32-bit integer hash that orders MIS-2 keys (part of the algorithm's
/// definition: the GPU version uses the same one).
inline std::uint32_t mis2_hash(std::uint32_t i) {
  std::uint32_t x = i;
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

/// Roots of the distance-2 maximal independent set of the graph S (pattern only,
/// no diagonal, symmetric): root[i] = 1 for IN nodes. Any two roots are at least
/// 3 edges apart and every node is within 2 edges of a root. Jacobi-style rounds
/// on keys (state, hash(i), i), so the result does not depend on thread count.
template <typename T>
std::vector<std::uint8_t> mis2_roots(const CsrMatrix<T>& S);

/// Aggregates around the MIS-2 roots (ids in increasing root order). Phase 1:
/// a non-root joins its root neighbour with the largest (hash, index); phase 2:
/// the rest join the aggregate of their phase-1 or root neighbour with the largest
/// (hash, index). Isolated nodes become singleton aggregates.
template <typename T>
Aggregates mis2_aggregation(const CsrMatrix<T>& S);

/// The GPU twin: identical aggregates, node for node.
template <typename T>
DeviceAggregates mis2_aggregation(const DeviceCsr<T>& S, cudaStream_t stream = nullptr);

/// Vaněk's serial greedy aggregation (PyAMG's standard_aggregation): pass 1 in
/// node order makes {i} ∪ N(i) an aggregate when no node of N(i) is aggregated
/// yet; pass 2 puts each remaining node in the pass-1 aggregate of its first
/// such neighbour; pass 3 groups leftovers with their unaggregated neighbours.
/// Unlike PyAMG, which leaves isolated nodes out of every aggregate, isolated
/// nodes here become singleton aggregates so P has no zero rows.
template <typename T>
Aggregates standard_aggregation(const CsrMatrix<T>& S);

/// Dispatches on `method`. S must be square.
template <typename T>
Aggregates aggregate(const CsrMatrix<T>& S, AggregationMethod method);

}  // namespace binamg
