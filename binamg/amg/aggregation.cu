// GPU twin of mis2_aggregation(): the same rounds, the same keys, the same
// aggregates, node for node. mis2_hash is a bijection on 32-bit integers (each
// xor-shift and odd multiplication is invertible), so (state, hash) alone orders
// nodes exactly as the CPU's (state, hash, index) does and fits one 64-bit key.
//
// Host round trips: each MIS-2 runs as one cooperative launch that loops over
// its rounds behind grid barriers, and each pass reads its number of new
// aggregates once, after the pass's work is queued, through a scan whose scratch
// is allocated once. The rounds of the joining stage are launched in batches of
// rounds_per_check, and the host reads one count per batch instead of one per
// round. That leaves the result as it was: a join round after one with no joins
// leaves placements and sizes as they were, so it joins nobody either, and such
// rounds leave at once on reading the zero.
#include <cooperative_groups.h>

#include <algorithm>
#include <cub/device/device_scan.cuh>
#include <string>
#include <tuple>
#include <type_traits>

#include "binamg/amg/aggregation.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"
#include "binamg/spmv/row_split.cuh"

namespace binamg {
namespace {

constexpr int aggregation_threads = 256;
// Joining takes a handful of rounds: 4 per check keeps the extra rounds after
// convergence (a launch each, a few µs) below the cost of the host round trips
// they save, each of which costs several launches (docs/experiments.md).
constexpr int rounds_per_check = 4;
enum : std::uint8_t { state_out = 0, state_undecided = 1, state_in = 2 };

__device__ std::uint64_t mis2_key(std::uint8_t state, index_t node) {
  return (std::uint64_t(state) << 32) | mis2_hash(static_cast<std::uint32_t>(node));
}

// Nodes still without an aggregate form the subgraph the next MIS-2 runs on.
__device__ bool is_free(const index_t* aggregate_of, index_t node) {
  return aggregate_of[node] < 0;
}

// True for a round queued after the round before it counted zero: it would
// change nothing, so it leaves at once. `previous_count` is null for the first
// round of a batch, which always runs (the batch before ended above zero).
__device__ bool after_convergence(const int* previous_count) {
  return previous_count != nullptr && *previous_count == 0;
}

// Starts an MIS-2 of the free subgraph. Aggregated nodes take part as OUT nodes
// with neighbourhood maximum 0: their keys are below every undecided key and
// nothing passes through them, so every comparison that decides a state comes
// out as on the CPU, which leaves them out, and no round has to look them up in
// aggregate_of. A free node's M1 is written in the first round.
__global__ void initial_states(index_t n, const index_t* aggregate_of, std::uint8_t* state,
                               std::uint64_t* max1) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const bool free = is_free(aggregate_of, i);
  state[i] = free ? state_undecided : state_out;
  if (!free) max1[i] = 0;
}

// The kernels of a pass give each node a group of L lanes (the row-split layout,
// spmv/row_split.cuh): the coarse strength graphs have 35-125 edges per node,
// which one thread per node walked serially. Maxima and integer sums are
// order-free, so the results do not depend on L.

// Lanes per node: about edges_per_lane of a node's edges each (a power of two,
// 1..32). More lanes on the fine grid's 6-edge nodes measured slower (8 lanes;
// docs/experiments.md): each lane reloads the node's own data.
constexpr double edges_per_lane = 8;

template <typename Launch>
void with_node_lanes(index_t n, std::int64_t edges, Launch&& launch) {
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

// M1(i), the largest key over {i} ∪ N(i). M1(i) changes only while {i} ∪ N(i)
// holds an undecided node (a key changes only when its node decides, and no node
// becomes undecided again); once it holds none, the M1 written now is final.
// Returns, in lane 0 of the group, whether i needs M1 in the next round. `state`
// and `max1` are not __restrict__: the MIS-2 kernel writes them between its grid
// barriers, so they must not be read through the read-only cache.
template <int L>
__device__ bool neighbourhood_max_key(index_t i, const index_t* __restrict__ row_ptr,
                                      const index_t* __restrict__ col_idx,
                                      const std::uint8_t* state, std::uint64_t* max1) {
  const std::uint8_t own = state[i];
  std::uint64_t best = mis2_key(own, i);
  bool undecided = own == state_undecided;
  for (index_t k = row_ptr[i] + threadIdx.x % L; k < row_ptr[i + 1]; k += L) {
    const index_t j = col_idx[k];
    const std::uint8_t s = state[j];
    best = max(best, mis2_key(s, j));
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
                             const std::uint64_t* max1) {
  if (state[i] != state_undecided) return false;  // uniform in the group
  std::uint64_t best = max1[i];
  for (index_t k = row_ptr[i] + threadIdx.x % L; k < row_ptr[i + 1]; k += L)
    best = max(best, max1[col_idx[k]]);
  best = row_split::group_max<L>(best);
  if (threadIdx.x % L != 0) return false;
  if (best == mis2_key(state_undecided, i))
    state[i] = state_in;
  else if ((best >> 32) == state_in)
    state[i] = state_out;
  else
    return true;
  return false;
}

// A flag other blocks set before the last grid barrier.
__device__ int read_volatile(const int* value) { return *static_cast<const volatile int*>(value); }

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
__global__ void __launch_bounds__(mis2_round_threads)
    mis2_rounds(index_t n, const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
                std::uint8_t* state, std::uint64_t* max1, std::uint8_t* needs_max,
                int* undecided_left) {
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x / L;
  for (std::int64_t i = row_split::group_row<L>(); i < n; i += stride)
    if (threadIdx.x % L == 0) needs_max[i] = state[i] != state_out;
  grid.sync();
  for (int round = 0;; ++round) {
    for (std::int64_t i = row_split::group_row<L>(); i < n; i += stride) {
      if (!needs_max[i]) continue;
      const bool keep = neighbourhood_max_key<L>(i, row_ptr, col_idx, state, max1);
      if (threadIdx.x % L == 0 && !keep) needs_max[i] = 0;
    }
    grid.sync();
    bool undecided = false;
    for (std::int64_t i = row_split::group_row<L>(); i < n; i += stride)
      undecided |= update_state<L>(i, row_ptr, col_idx, state, max1);
    if (blockIdx.x == 0 && threadIdx.x == 0) undecided_left[(round + 1) % 3] = 0;
    if (__syncthreads_or(undecided) && threadIdx.x == 0) undecided_left[round % 3] = 1;
    grid.sync();
    if (read_volatile(undecided_left + round % 3) == 0) return;
  }
}

// 1 for an MIS-2 root with at least `min_neighbours` free neighbours, and at
// least free_percent of its neighbours free (it forms
// an aggregate this pass), else 0; group n writes the 0 that ends the scan, so
// that its last offset is the number of forming roots.
template <int L>
__global__ void __launch_bounds__(row_split::threads)
    forming_roots(index_t n, const index_t* __restrict__ row_ptr,
                  const index_t* __restrict__ col_idx, const index_t* aggregate_of,
                  const std::uint8_t* state, index_t min_neighbours, int free_percent,
                  index_t* forms) {
  const std::int64_t i = row_split::group_row<L>();
  if (i > n) return;
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
  if (threadIdx.x % L == 0) forms[i] = forming;
}

// A forming root takes id first + its rank among forming roots; a free node next
// to a forming root (at most one: roots are 3 edges apart in the free subgraph)
// takes that root's id. Reads `placed`, writes `out`.
template <int L>
__global__ void __launch_bounds__(row_split::threads)
    form_aggregates(index_t n, const index_t* __restrict__ row_ptr,
                    const index_t* __restrict__ col_idx, const index_t* placed,
                    const index_t* forms, const index_t* root_offsets, index_t first,
                    index_t* out) {
  const std::int64_t i = row_split::group_row<L>();
  if (i >= n) return;
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
  if (threadIdx.x % L == 0) out[i] = id;
}

// One thread per aggregated node: sizes by integer atomics (order-free).
__global__ void aggregate_sizes(index_t n, const index_t* aggregate_of, const int* previous_joined,
                                index_t* size) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && aggregate_of[i] >= 0 && !after_convergence(previous_joined))
    atomicAdd(&size[aggregate_of[i]], 1);
}

// One thread per node: a free node joins the smallest aggregate among its
// neighbours' (ties to the neighbour with the largest hash), reading `placed`
// and `size` from before the round and writing `out`. Counts the joins. After
// convergence it only copies `placed`, since the host swaps the id buffers.
__global__ void join_smallest_neighbour(index_t n, const index_t* row_ptr, const index_t* col_idx,
                                        const index_t* placed, const index_t* size,
                                        const int* previous_joined, index_t* out, int* joined) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (placed[i] >= 0 || after_convergence(previous_joined)) {
    out[i] = placed[i];
    return;
  }
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
  out[i] = best >= 0 ? placed[best] : -1;
  if (best >= 0) atomicAdd(joined, 1);
}

__global__ void count_unassigned(index_t n, const index_t* aggregate_of, int* unassigned) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && aggregate_of[i] < 0) atomicAdd(unassigned, 1);
}

// first[a] = n for every aggregate, before first_nodes lowers it.
__global__ void reset_first_nodes(index_t count, index_t n, index_t* first) {
  const index_t a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a < count) first[a] = n;
}

// first[a] = the smallest node of aggregate a (a minimum: the same whatever the order).
__global__ void first_nodes(index_t n, const index_t* aggregate_of, index_t* first) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMin(&first[aggregate_of[i]], i);
}

// flags[i] = 1 where node i is its aggregate's first node, for i < n; flags[n] = 0.
__global__ void first_node_flags(index_t n, const index_t* aggregate_of, const index_t* first,
                                 index_t* flags) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) flags[i] = i < n && first[aggregate_of[i]] == i;
}

// renumbered[i] = the rank of node i's aggregate's first node among first nodes.
__global__ void renumber_by_first_node(index_t n, const index_t* aggregate_of, const index_t* first,
                                       const index_t* rank, index_t* renumbered) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) renumbered[i] = rank[first[aggregate_of[i]]];
}

std::size_t root_scan_bytes(index_t n, cudaStream_t stream) {
  std::size_t bytes = 0;
  BINAMG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<index_t*>(nullptr),
                                                  static_cast<index_t*>(nullptr), n + 1, stream));
  return bytes;
}

// The device work of one CPU helper each; members so the passes read like the
// CPU's. Every buffer is allocated once here, none inside the loops.
struct Mis2Aggregator {
  const index_t* row_ptr;
  const index_t* col_idx;
  index_t n, nnz;
  unsigned blocks;
  cudaStream_t stream;
  DeviceBuffer<index_t>& aggregate_of;
  index_t& count;
  DeviceBuffer<index_t> other{std::size_t(n), stream, "aggregate ids (next)"};
  DeviceBuffer<std::uint8_t> state{std::size_t(n), stream, "mis2 states"};
  DeviceBuffer<std::uint64_t> max1{std::size_t(n), stream, "mis2 neighbourhood maxima"};
  DeviceBuffer<std::uint8_t> needs_max{std::size_t(n), stream, "mis2 nodes needing M1"};
  // Forming-root flags and their exclusive scan, n + 1 entries: the last offset
  // is the number formed. Flags are 0/1, so the sum fits index_t.
  DeviceBuffer<index_t> forms{std::size_t(n) + 1, stream, "mis2 forming roots"};
  DeviceBuffer<index_t> root_offsets{std::size_t(n) + 1, stream, "mis2 root ids"};
  std::size_t scan_bytes = root_scan_bytes(n, stream);
  DeviceBuffer<unsigned char> scan_storage{scan_bytes, stream, "mis2 root scan scratch"};
  DeviceBuffer<index_t> size{std::size_t(n), stream, "aggregate sizes"};  // count <= n
  DeviceBuffer<int> round_counts{rounds_per_check, stream, "join round counts"};
  DeviceBuffer<int> undecided_left{3, stream, "mis2 undecided flags"};
  DeviceBuffer<int> counter{1, stream, "mis2 counter"};
  unsigned resident_blocks = 0;  // of mis2_rounds, the same for every pass

  // Runs round(count, previous count) in batches of rounds_per_check until a
  // round counts zero; the host reads the batch's last count, which is zero
  // exactly when some round of the batch reached zero (later ones count nothing).
  template <typename Round>
  void rounds_until_zero(Round round) {
    for (;;) {
      BINAMG_CUDA_CHECK(
          cudaMemsetAsync(round_counts.data(), 0, sizeof(int) * rounds_per_check, stream));
      for (int r = 0; r < rounds_per_check; ++r)
        round(round_counts.data() + r, r == 0 ? nullptr : round_counts.data() + r - 1);
      if (read_back(round_counts.data() + rounds_per_check - 1, stream) == 0) return;
    }
  }

  // Launches kernel(arguments...) cooperatively on `grid` blocks of `threads`.
  template <typename... Parameters, typename... Arguments>
  void launch_cooperative(void (*kernel)(Parameters...), unsigned grid, int threads,
                          Arguments... arguments) {
    std::tuple<Parameters...> values{arguments...};
    std::apply(
        [&](auto&... value) {
          void* pointers[] = {&value...};
          BINAMG_CUDA_CHECK(
              cudaLaunchCooperativeKernel(kernel, dim3(grid), dim3(threads), pointers, 0, stream));
        },
        values);
  }

  // MIS-2 of the free subgraph into `state` (mis2_of_active on the CPU) in one
  // cooperative launch: as many blocks as the nodes' lane groups fill, at most as
  // many as the device holds at once (a grid barrier needs every block resident).
  template <int L>
  void mis2_of_free() {
    if (resident_blocks == 0) {
      int device = 0, sm_count = 0, blocks_per_sm = 0;
      BINAMG_CUDA_CHECK(cudaGetDevice(&device));
      BINAMG_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
      BINAMG_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &blocks_per_sm, mis2_rounds<L>, mis2_round_threads, 0));
      resident_blocks = static_cast<unsigned>(blocks_per_sm) * sm_count;
    }
    const unsigned grid =
        std::min(blocks_for(std::int64_t(n) * L, mis2_round_threads), resident_blocks);
    BINAMG_CUDA_CHECK(cudaMemsetAsync(undecided_left.data(), 0, sizeof(int) * 3, stream));
    launch_cooperative(mis2_rounds<L>, grid, mis2_round_threads, n, row_ptr, col_idx, state.data(),
                       max1.data(), needs_max.data(), undecided_left.data());
  }

  // aggregate_unaggregated on the CPU: returns the number of new aggregates.
  // form_aggregates is queued before that number is read: with none formed it
  // copies the ids unchanged, and the read then waits on work already queued.
  index_t aggregate_free(index_t min_neighbours, int free_percent) {
    initial_states<<<blocks, aggregation_threads, 0, stream>>>(n, aggregate_of.data(), state.data(),
                                                               max1.data());
    BINAMG_CHECK_LAUNCH();
    with_node_lanes(n, nnz, [&](auto lanes) {
      constexpr int L = decltype(lanes)::value;
      mis2_of_free<L>();
      forming_roots<L><<<blocks_for((std::int64_t(n) + 1) * L, row_split::threads),
                         row_split::threads, 0, stream>>>(n, row_ptr, col_idx, aggregate_of.data(),
                                                          state.data(), min_neighbours,
                                                          free_percent, forms.data());
      BINAMG_CHECK_LAUNCH();
      BINAMG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_storage.data(), scan_bytes, forms.data(),
                                                      root_offsets.data(), n + 1, stream));
      form_aggregates<L><<<row_split::blocks(n, L), row_split::threads, 0, stream>>>(
          n, row_ptr, col_idx, aggregate_of.data(), forms.data(), root_offsets.data(), count,
          other.data());
      BINAMG_CHECK_LAUNCH();
    });
    aggregate_of.swap(other);
    const index_t formed = read_back(root_offsets.data() + n, stream);
    count += formed;
    return formed;
  }

  // join_smallest_neighbour on the CPU, in rounds until one places nobody.
  // Joining creates no aggregate, so `count` holds for every round.
  void join_smallest() {
    if (count == 0) return;
    rounds_until_zero([&](int* joined, const int* previous_joined) {
      BINAMG_CUDA_CHECK(cudaMemsetAsync(size.data(), 0, sizeof(index_t) * count, stream));
      aggregate_sizes<<<blocks, aggregation_threads, 0, stream>>>(n, aggregate_of.data(),
                                                                  previous_joined, size.data());
      BINAMG_CHECK_LAUNCH();
      join_smallest_neighbour<<<blocks, aggregation_threads, 0, stream>>>(
          n, row_ptr, col_idx, aggregate_of.data(), size.data(), previous_joined, other.data(),
          joined);
      BINAMG_CHECK_LAUNCH();
      aggregate_of.swap(other);
    });
  }

  // The nodes no aggregate holds yet, read back.
  int unassigned() {
    BINAMG_CUDA_CHECK(cudaMemsetAsync(counter.data(), 0, sizeof(int), stream));
    count_unassigned<<<blocks, aggregation_threads, 0, stream>>>(n, aggregate_of.data(),
                                                                 counter.data());
    BINAMG_CHECK_LAUNCH();
    return read_back(counter.data(), stream);
  }

  // Ids in the order of the aggregates' first nodes, as the CPU numbers them.
  void number_by_first_node() {
    index_t* first = size.data();  // count <= n entries
    reset_first_nodes<<<blocks_for(count, aggregation_threads), aggregation_threads, 0, stream>>>(
        count, n, first);
    BINAMG_CHECK_LAUNCH();
    first_nodes<<<blocks, aggregation_threads, 0, stream>>>(n, aggregate_of.data(), first);
    BINAMG_CHECK_LAUNCH();
    first_node_flags<<<blocks_for(std::int64_t(n) + 1, aggregation_threads), aggregation_threads, 0,
                       stream>>>(n, aggregate_of.data(), first, forms.data());
    BINAMG_CHECK_LAUNCH();
    BINAMG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_storage.data(), scan_bytes, forms.data(),
                                                    root_offsets.data(), n + 1, stream));
    renumber_by_first_node<<<blocks, aggregation_threads, 0, stream>>>(
        n, aggregate_of.data(), first, root_offsets.data(), other.data());
    BINAMG_CHECK_LAUNCH();
    aggregate_of.swap(other);
  }
};

}  // namespace

template <typename T>
DeviceAggregates mis2_aggregation(const DeviceCsr<T>& S, cudaStream_t stream, int free_percent) {
  require(S.rows == S.cols, "mis2_aggregation: the strength graph is not square");
  const index_t n = S.rows;
  DeviceAggregates result;
  result.aggregate_of = DeviceBuffer<index_t>(n, stream, "aggregate ids");
  if (n == 0) return result;
  BINAMG_CUDA_CHECK(cudaMemsetAsync(result.aggregate_of.data(), 0xff, sizeof(index_t) * n, stream));
  Mis2Aggregator work{
      S.row_ptr.data(),    S.col_idx.data(), n, S.nnz(), blocks_for(n, aggregation_threads), stream,
      result.aggregate_of, result.count};
  // The same three stages as the CPU's mis2_aggregation.
  for (;;) {
    const index_t before = result.count;
    if (!mis2_passes_continue(work.aggregate_free(mis2_min_neighbours, free_percent), before))
      break;
  }
  work.join_smallest();
  // The last stage takes the nodes no join reached (a free component with no
  // aggregate beside it). There are usually none, and a pass over none would
  // still cost an MIS-2 launch, its forming kernels and a read: it is skipped,
  // which changes nothing (such a pass forms no aggregate).
  int left_out = work.unassigned();
  if (left_out > 0) {
    while (work.aggregate_free(0, 0) > 0) {
    }
    left_out = work.unassigned();
  }
  require(left_out == 0, "mis2_aggregation: " + std::to_string(left_out) +
                             " nodes were left unassigned (the strength graph is not symmetric?)");
  work.number_by_first_node();
  return result;
}

template DeviceAggregates mis2_aggregation<float>(const DeviceCsr<float>&, cudaStream_t, int);
template DeviceAggregates mis2_aggregation<double>(const DeviceCsr<double>&, cudaStream_t, int);

}  // namespace binamg
