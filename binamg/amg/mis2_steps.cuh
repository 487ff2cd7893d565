#pragma once
// The device steps of the GPU mis2_aggregation (amg/aggregation.hpp), shared by
// its two drivers: pass by pass from the host (amg/aggregation.cu) and, for
// small graphs, all stages in one cooperative launch
// (amg/aggregation_one_launch.cu). mis2_hash is a bijection on 32-bit integers
// (each xor-shift and odd multiplication is invertible), so (state, hash) alone
// orders nodes exactly as the CPU's (state, hash) does and fits one
// 64-bit key. The hash changes with the round (mis2_round_hash).
#include <cooperative_groups.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "binamg/amg/aggregation.hpp"
#include "binamg/core/cuda_check.hpp"
#include "binamg/core/types.hpp"
#include "binamg/spmv/row_split.cuh"

namespace binamg::mis2_steps {

enum : std::uint8_t { state_out = 0, state_undecided = 1, state_in = 2 };

__device__ inline std::uint64_t mis2_key(std::uint8_t state, index_t node, std::uint32_t round) {
  return (std::uint64_t(state) << 32) | mis2_round_hash(static_cast<std::uint32_t>(node), round);
}

// Nodes still without an aggregate form the subgraph the next MIS-2 runs on.
__device__ inline bool is_free(const index_t* aggregate_of, index_t node) {
  return aggregate_of[node] < 0;
}

// The kernels of a pass give each node a group of L lanes (the row-split layout,
// spmv/row_split.cuh): the coarse strength graphs have 35-125 edges per node,
// which one thread per node walked serially. Maxima and integer sums are
// order-free, so the results do not depend on L.

// Lanes per node: about `edges_per_lane` of a node's edges each (a power of
// two, 1..32). Each lane reloads the node's own data, so on the large graphs
// that run pass by pass fewer lanes pay where the rows keep them busy: 16
// edges a lane against 8 took the 27-point stencil's finest aggregation from
// 2.32 to 2.00 ms and the P2 tetrahedra's from 1.07 to 0.98, and left the 5- to
// 9-point graphs as they were; 4 and 2 were slower everywhere. The small
// graphs of one launch keep 8: with 16 they were slower (2D 5-pt 512², 3D
// 7-pt 64³; docs/experiments.md).
constexpr double edges_per_lane_by_pass = 16;
constexpr double edges_per_lane_in_one_launch = 8;

/// Blocks of `threads` threads of `kernel` that the device holds at once: the
/// most a cooperative launch may have (a grid barrier needs every block resident).
template <typename Kernel>
unsigned resident_blocks(Kernel kernel, int threads) {
  int device = 0, sm_count = 0, blocks_per_sm = 0;
  BINAMG_CUDA_CHECK(cudaGetDevice(&device));
  BINAMG_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  BINAMG_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, threads, 0));
  return static_cast<unsigned>(blocks_per_sm) * static_cast<unsigned>(sm_count);
}

template <typename Launch>
void with_node_lanes(index_t n, std::int64_t edges, double edges_per_lane, Launch&& launch) {
  const double per_lane = n > 0 ? double(edges) / n / edges_per_lane : 0;
  int lanes = 1;
  while (lanes < per_lane && lanes < 32) lanes *= 2;
  switch (lanes) {
    case 1: return launch(std::integral_constant<int, 1>{});
    case 2: return launch(std::integral_constant<int, 2>{});
    case 4: return launch(std::integral_constant<int, 4>{});
    case 8: return launch(std::integral_constant<int, 8>{});
    case 16: return launch(std::integral_constant<int, 16>{});
    default: return launch(std::integral_constant<int, 32>{});
  }
}

template <int L>
__device__ index_t group_sum(index_t value) {
  if constexpr (L > 1) {
    const unsigned mask = row_split::group_mask<L>();
#pragma unroll
    for (int offset = L / 2; offset > 0; offset /= 2)
      value += __shfl_down_sync(mask, value, offset, L);
  }
  return value;
}

// M1(i), the largest key over {i} ∪ N(i) in this round. Only undecided nodes in
// {i} ∪ N(i) read M1(i); once it holds none (no node becomes undecided again),
// M1(i) is read no more and need not follow the rounds' hashes. Returns, in
// lane 0 of the group, whether i needs M1 in the next round. `state`
// and `max1` are not __restrict__: the MIS-2 kernel writes them between its grid
// barriers, so they must not be read through the read-only cache.
template <int L>
__device__ bool neighbourhood_max_key(index_t i, const index_t* __restrict__ row_ptr,
                                      const index_t* __restrict__ col_idx,
                                      const std::uint8_t* state, std::uint64_t* max1,
                                      std::uint32_t round) {
  const std::uint8_t own = state[i];
  std::uint64_t best = mis2_key(own, i, round);
  bool undecided = own == state_undecided;
  for (index_t k = row_ptr[i] + threadIdx.x % L; k < row_ptr[i + 1]; k += L) {
    const index_t j = col_idx[k];
    const std::uint8_t s = state[j];
    best = max(best, mis2_key(s, j, round));
    undecided |= s == state_undecided;
  }
  best = row_split::group_max<L>(best);
  undecided = __any_sync(row_split::group_mask<L>(), undecided);
  if (threadIdx.x % L != 0) return false;
  max1[i] = best;
  return undecided;
}

// An undecided node's new state from M2 = the largest M1 over {i} ∪ N(i), as on
// the CPU. It writes its own state in place: no other node's update reads it
// (they read M1, which holds the round's old states). True in lane 0 of the group
// while the node stays undecided.
template <int L>
__device__ bool update_state(index_t i, const index_t* __restrict__ row_ptr,
                             const index_t* __restrict__ col_idx, std::uint8_t* state,
                             const std::uint64_t* max1, std::uint32_t round) {
  if (state[i] != state_undecided) return false;  // uniform in the group
  std::uint64_t best = max1[i];
  for (index_t k = row_ptr[i] + threadIdx.x % L; k < row_ptr[i + 1]; k += L)
    best = max(best, max1[col_idx[k]]);
  best = row_split::group_max<L>(best);
  if (threadIdx.x % L != 0) return false;
  if (best == mis2_key(state_undecided, i, round))
    state[i] = state_in;
  else if ((best >> 32) == state_in)
    state[i] = state_out;
  else
    return true;
  return false;
}

// A grid barrier. A grid of one block (the smallest graphs) takes
// __syncthreads instead: the grid-wide barrier costs about 1.7 µs, which on a
// coarse level's rounds is most of their time (docs/experiments.md).
__device__ inline void grid_barrier(const cooperative_groups::grid_group& grid) {
  if (gridDim.x == 1)
    __syncthreads();
  else
    grid.sync();
}

// A flag other blocks set before the last grid barrier.
__device__ inline int read_volatile(const int* value) {
  return *static_cast<const volatile int*>(value);
}

// Threads per block of mis2_rounds: the largest block, so that the fewest blocks
// arrive at each grid barrier (a round's floor on the late, nearly empty rounds).
constexpr int mis2_round_threads = 1024;

// The whole MIS-2 of a pass in one cooperative launch: rounds of (M1, grid
// barrier, state updates, grid barrier) until a round leaves no node undecided,
// with no host round trip (on the coarse levels a round is a few µs of work, less
// than a launch and far less than a host read). Each group of L lanes strides
// over the nodes. needs_max[i] says whether M1(i) may still change, so late
// rounds skip nearly every neighbourhood for a byte per node. A compacted list
// of those nodes, built by atomic appends, measured slower (docs/experiments.md):
// the appends to one size cost more than the sweep they save.
//
// The flag of round r is undecided_left[r % 3]: block 0 clears the one round
// r + 1 sets while round r's is being set, and every thread has read the one it
// clears (round r - 2's) two barriers ago. Slot 0 is zero at launch.
template <int L>
__device__ void mis2_of_states(const cooperative_groups::grid_group& grid, index_t n,
                               const index_t* __restrict__ row_ptr,
                               const index_t* __restrict__ col_idx, std::uint8_t* state,
                               std::uint64_t* max1, std::uint8_t* needs_max, int* undecided_left) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x / L;
  for (std::int64_t i = row_split::group_row<L>(); i < n; i += stride)
    if (threadIdx.x % L == 0) needs_max[i] = state[i] != state_out;
  grid_barrier(grid);
  for (std::uint32_t round = 0;; ++round) {
    for (std::int64_t i = row_split::group_row<L>(); i < n; i += stride) {
      if (!needs_max[i]) continue;
      const bool keep = neighbourhood_max_key<L>(i, row_ptr, col_idx, state, max1, round);
      if (threadIdx.x % L == 0 && !keep) needs_max[i] = 0;
    }
    grid_barrier(grid);
    bool undecided = false;
    for (std::int64_t i = row_split::group_row<L>(); i < n; i += stride)
      undecided |= update_state<L>(i, row_ptr, col_idx, state, max1, round);
    if (blockIdx.x == 0 && threadIdx.x == 0) undecided_left[(round + 1) % 3] = 0;
    if (__syncthreads_or(undecided) && threadIdx.x == 0) undecided_left[round % 3] = 1;
    grid_barrier(grid);
    if (read_volatile(undecided_left + round % 3) == 0) return;
  }
}

// 1 for an MIS-2 root with at least `min_neighbours` free neighbours, and at
// least free_percent of its neighbours free (it forms
// an aggregate this pass), else 0.
template <int L>
__device__ bool forms_aggregate(std::int64_t i, index_t n, const index_t* __restrict__ row_ptr,
                                const index_t* __restrict__ col_idx, const index_t* aggregate_of,
                                const std::uint8_t* state, index_t min_neighbours,
                                int free_percent) {
  bool forming = false;
  if (i < n && state[i] == state_in) {  // uniform in the group
    index_t free_neighbours = 0;
    for (index_t k = row_ptr[i] + threadIdx.x % L; k < row_ptr[i + 1]; k += L)
      free_neighbours += is_free(aggregate_of, col_idx[k]);
    const index_t free_total = group_sum<L>(free_neighbours);
    const std::int64_t degree = row_ptr[i + 1] - row_ptr[i];
    forming =
        free_total >= min_neighbours && 100 * std::int64_t(free_total) >= free_percent * degree;
  }
  return forming;
}

// A forming root takes id first + its rank among forming roots; a free node next
// to a forming root (at most one: roots are 3 edges apart in the free subgraph)
// takes that root's id. Reads `placed`, writes `out`.
template <int L>
__device__ index_t aggregate_after_pass(std::int64_t i, const index_t* __restrict__ row_ptr,
                                        const index_t* __restrict__ col_idx, const index_t* placed,
                                        const index_t* forms, const index_t* root_offsets,
                                        index_t first) {
  index_t id = placed[i];
  if (id < 0) {  // uniform in the group
    if (forms[i]) {
      id = first + root_offsets[i];
    } else {
      for (index_t k = row_ptr[i] + threadIdx.x % L; k < row_ptr[i + 1]; k += L)
        if (forms[col_idx[k]]) id = first + root_offsets[col_idx[k]];
      id = row_split::group_max<L>(id);
    }
  }
  return id;
}

// The aggregate free node i joins (the smallest among its neighbours', ties to
// the neighbour of the largest hash), or -1.
__device__ inline index_t smallest_neighbour_aggregate(index_t i, const index_t* row_ptr,
                                                       const index_t* col_idx,
                                                       const index_t* placed, const index_t* size) {
  index_t best = -1;
  index_t best_size = 0;
  std::uint32_t best_hash = 0;
  for (index_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
    const index_t j = col_idx[k];
    if (placed[j] < 0) continue;
    const index_t s = size[placed[j]];
    const std::uint32_t h = mis2_hash(static_cast<std::uint32_t>(j));
    if (best < 0 || s < best_size || (s == best_size && h > best_hash)) {
      best = j;
      best_size = s;
      best_hash = h;
    }
  }
  return best >= 0 ? placed[best] : -1;
}

/// Graphs that mis2_aggregation runs in one cooperative launch: at most
/// 32768 nodes, or at most 65536 nodes with at most 524288 edges. The sparse
/// larger ones still spend more in the passes' launches and read-backs than
/// in their sweeps: 2D 5-pt 512²'s level 1 (38,016 nodes, under 415,008
/// edges) took the aggregation phase from 1.21–1.24 to 1.04–1.05 ms. Denser
/// graphs of that size (the 27-point stencil's level 1, 59,001 nodes and 3.7 M
/// entries) were not measured that way and keep their passes
/// (docs/experiments.md).
inline bool runs_in_one_launch(index_t nodes, std::int64_t edges) {
  return nodes <= 32768 || (nodes <= 65536 && edges <= 524288);
}

/// mis2_aggregation of a graph that runs_in_one_launch in one cooperative
/// launch, into `ids` (all -1 on entry); returns the number of aggregates.
/// Throws as mis2_aggregation when nodes are left unassigned.
template <typename T>
index_t one_launch_mis2(const DeviceCsr<T>& S, cudaStream_t stream, int free_percent,
                        DeviceBuffer<index_t>& ids);

/// The message of nodes the aggregation left without an aggregate.
std::string unassigned_message(index_t left_out);

}  // namespace binamg::mis2_steps
