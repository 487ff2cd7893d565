#pragma once
// Aggregation: partitions the nodes of the (undirected) strength graph into
// connected aggregates, one coarse unknown each.
#include <cstdint>
#include <vector>

#include "binamg/amg/parameters.hpp"
#include "binamg/core/config.hpp"
#include "binamg/core/hash.hpp"
#include "binamg/sparse/csr.hpp"
#if BINAMG_WITH_CUDA
#include "binamg/sparse/device_csr.hpp"
#endif

namespace binamg {

struct Aggregates {
  std::vector<index_t> aggregate_of;  // node -> aggregate id in [0, count)
  index_t count = 0;
};

#if BINAMG_WITH_CUDA
/// Aggregates on the GPU: the same ids as Aggregates, in device memory.
struct DeviceAggregates {
  DeviceBuffer<index_t> aggregate_of;
  index_t count = 0;
};
#endif  // BINAMG_WITH_CUDA

/// The hash that orders MIS-2 keys (part of the algorithm's definition: the
/// GPU version calls the same function).
BINAMG_HOST_DEVICE inline std::uint32_t mis2_hash(std::uint32_t i) { return integer_hash(i); }

/// The hash that orders MIS-2 keys in round r of an MIS-2: fresh priorities
/// each round (as Luby's MIS draws them) free the nodes a fixed order leaves
/// waiting behind a chain of larger neighbours. On 3D 7-pt 128³ level 0's
/// passes take 10 / 8 / 7 rounds instead of 16 / 12 / 10, and form about as
/// many aggregates (docs/experiments.md). For each r it is a bijection
/// of i (a xor, then mis2_hash), so keys never tie; round 0 is mis2_hash.
BINAMG_HOST_DEVICE inline std::uint32_t mis2_round_hash(std::uint32_t i, std::uint32_t round) {
  return mis2_hash(i ^ (round * 0x9e3779b9u));
}

/// Roots of the distance-2 maximal independent set of the graph S (pattern only,
/// no diagonal, symmetric): root[i] = 1 for IN nodes. Any two roots are at least
/// 3 edges apart and every node is within 2 edges of a root. Jacobi-style rounds
/// on keys (state, mis2_round_hash(i, round)), so the result does not depend on
/// thread count.
template <typename T>
std::vector<std::uint8_t> mis2_roots(const CsrMatrix<T>& S);

/// An MIS-2 root forms an aggregate only with at least this many unaggregated
/// neighbours; smaller groups are left to join their neighbours. Measured with
/// PCG(V(1,1)) on 2D 5-pt and 3D 7-pt, against 3: 1 gives a higher operator
/// complexity in 2D, 2 a higher complexity in 3D for about the same iteration
/// counts, and 4 more iterations in 2D (docs/experiments.md).
constexpr index_t mis2_min_neighbours = 3;

/// On a system's finest level, a root also needs this share (in percent) of its
/// strong neighbours unaggregated. Coarse nodes carry up to k unknowns (6 for
/// 3D elasticity) for b per fine node (3), so an aggregate of m nodes coarsens
/// by m·b/k only, and the small aggregates of later passes cost complexity.
/// On the 360,000-dof P1 beam the scalar rule gave operator complexity 2.73
/// (19 PCG iterations), this one 1.69 (23) and a Galerkin product of level 0
/// half the size; Q1 elasticity 3D 49³ 1.67 → 1.23 (12 → 14), 2D 257²
/// 1.50 → 1.30 (15 → 17). On every level it coarsened the coarse levels too
/// far: 2D took 16 / 18 / 22 iterations from 65² to 257² (docs/experiments.md).
constexpr int mis2_system_free_percent = 65;

/// The passes stop after one that forms fewer than 1/mis2_tail_share of the
/// aggregates formed before it (or none). Each pass is a whole MIS-2 of the
/// free nodes (6–16 rounds), and the last ones form few: on 3D 7-pt 128³
/// level 0's passes formed 188428, 53051, 4384, 49 and 0 aggregates (with
/// one hash for every round); the join
/// places what they would have taken, in aggregates a little larger. Against
/// 20, a half kept the iterations of every stencil and fem matrix but the
/// rotated anisotropy's (66 → 67) at lower operator complexity (3D 7-pt 128³
/// 1.750 → 1.693, 27-pt 1.167 → 1.152, jump3d 1.755 → 1.704), and cut the GPU
/// aggregation by a fifth; stopping after any pass that forms fewer than the
/// passes before it (1) cost 2D 5-pt 2048² 15 → 17 iterations (docs/experiments.md).
constexpr index_t mis2_tail_share = 2;
BINAMG_HOST_DEVICE inline bool mis2_passes_continue(index_t formed, index_t formed_before) {
  return formed > 0 && std::int64_t(formed) * mis2_tail_share >= formed_before;
}

/// Aggregation by repeated MIS-2 passes (after Kelley & Rajamanickam's MIS-2
/// coarsening): each pass computes the MIS-2 of the subgraph of still
/// unaggregated nodes, and every root with at least mis2_min_neighbours
/// unaggregated neighbours forms an aggregate with them; passes repeat while
/// they form a share of the aggregates (mis2_passes_continue). Then, in Jacobi
/// rounds, each remaining node joins the smallest neighbouring aggregate (ties:
/// neighbour with the largest (hash, index)); nodes with no aggregate in reach
/// (isolated nodes) get aggregates of their own. Ids
/// follow the order of each aggregate's smallest node, so coarse rows keep the
/// fine rows' locality (numbering by pass put many of the 3D aggregates, those of
/// later passes, far from their neighbours). Aggregates are connected and
/// bounded by a root's neighbourhood plus joiners, so coarse levels coarsen
/// about as fast as standard_aggregation rather than many times faster, as
/// single-pass MIS-2 aggregates (every node within two edges of a root) do
/// (docs/experiments.md). With free_percent > 0, a root forms an aggregate only
/// when at least that share of its neighbours is unaggregated as well.
template <typename T>
Aggregates mis2_aggregation(const CsrMatrix<T>& S, int free_percent = 0);

#if BINAMG_WITH_CUDA
/// The GPU twin: identical aggregates, node for node.
template <typename T>
DeviceAggregates mis2_aggregation(const DeviceCsr<T>& S, cudaStream_t stream = nullptr,
                                  int free_percent = 0);
#endif  // BINAMG_WITH_CUDA

/// Vaněk's serial greedy aggregation (PyAMG's standard_aggregation): pass 1 in
/// node order makes {i} ∪ N(i) an aggregate when no node of N(i) is aggregated
/// yet; pass 2 puts each remaining node in the pass-1 aggregate of its first
/// such neighbour; pass 3 groups leftovers with their unaggregated neighbours.
/// Unlike PyAMG, which leaves isolated nodes out of every aggregate, isolated
/// nodes here become singleton aggregates so P has no zero rows.
template <typename T>
Aggregates standard_aggregation(const CsrMatrix<T>& S);

/// Dispatches on `method` (free_percent: mis2's, above). S must be square.
template <typename T>
Aggregates aggregate(const CsrMatrix<T>& S, AggregationMethod method, int free_percent = 0);

}  // namespace binamg
