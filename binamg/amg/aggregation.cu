// GPU twin of mis2_aggregation(): the same rounds, the same keys, the same
// aggregates, node for node (the steps: amg/mis2_steps.cuh). Small graphs
// (mis2_steps::runs_in_one_launch) run in one cooperative launch
// (amg/aggregation_one_launch.cu); larger ones pass by pass, here.
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
#include "binamg/amg/mis2_steps.cuh"
#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"
#include "binamg/spmv/row_split.cuh"

namespace binamg {
namespace {

using namespace mis2_steps;

constexpr int aggregation_threads = 256;
// Joining takes a handful of rounds: 4 per check keeps the extra rounds after
// convergence (a launch each, a few µs) below the cost of the host round trips
// they save, each of which costs several launches (docs/experiments.md).
constexpr int rounds_per_check = 4;
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

template <int L>
__global__ void __launch_bounds__(mis2_round_threads)
    mis2_rounds(index_t n, const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
                std::uint8_t* state, std::uint64_t* max1, std::uint8_t* needs_max,
                int* undecided_left) {
  mis2_of_states<L>(cooperative_groups::this_grid(), n, row_ptr, col_idx, state, max1, needs_max,
                    undecided_left);
}

template <int L>
__global__ void __launch_bounds__(row_split::threads)
    forming_roots(index_t n, const index_t* __restrict__ row_ptr,
                  const index_t* __restrict__ col_idx, const index_t* aggregate_of,
                  const std::uint8_t* state, index_t min_neighbours, int free_percent,
                  index_t* forms) {
  const std::int64_t i = row_split::group_row<L>();
  if (i > n) return;
  const bool forming =
      forms_aggregate<L>(i, n, row_ptr, col_idx, aggregate_of, state, min_neighbours, free_percent);
  if (threadIdx.x % L == 0) forms[i] = forming;
}

template <int L>
__global__ void __launch_bounds__(row_split::threads)
    form_aggregates(index_t n, const index_t* __restrict__ row_ptr,
                    const index_t* __restrict__ col_idx, const index_t* placed,
                    const index_t* forms, const index_t* root_offsets, index_t first,
                    index_t* out) {
  const std::int64_t i = row_split::group_row<L>();
  if (i >= n) return;
  const index_t id =
      aggregate_after_pass<L>(i, row_ptr, col_idx, placed, forms, root_offsets, first);
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
  out[i] = smallest_neighbour_aggregate(i, row_ptr, col_idx, placed, size);
  if (out[i] >= 0) atomicAdd(joined, 1);
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
  unsigned resident = 0;  // blocks of mis2_rounds, the same for every pass

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
    if (resident == 0) resident = resident_blocks(mis2_rounds<L>, mis2_round_threads);
    const unsigned grid = std::min(blocks_for(std::int64_t(n) * L, mis2_round_threads), resident);
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
    with_node_lanes(n, nnz, edges_per_lane_by_pass, [&](auto lanes) {
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
  if (mis2_steps::runs_in_one_launch(n, S.nnz())) {
    result.count = mis2_steps::one_launch_mis2(S, stream, free_percent, result.aggregate_of);
    return result;
  }
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
  require(left_out == 0, mis2_steps::unassigned_message(left_out));
  work.number_by_first_node();
  return result;
}

template DeviceAggregates mis2_aggregation<float>(const DeviceCsr<float>&, cudaStream_t, int);
template DeviceAggregates mis2_aggregation<double>(const DeviceCsr<double>&, cudaStream_t, int);

}  // namespace binamg
