#include <cooperative_groups.h>

#include <algorithm>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <string>

#include "binamg/amg/mis2_steps.cuh"
#include "binamg/core/cuda_check.hpp"
#include "binamg/core/device_buffer.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"

namespace binamg::mis2_steps {
namespace {

// A coarse level's graph (hundreds to tens of thousands of nodes) costs its
// passes' launches and read-backs more than their work: 3D 7-pt 128³'s
// levels of 15,915 and 756 nodes took 0.78 and 0.47 ms (docs/experiments.md).
// One cooperative launch runs the same stages, in the same order, behind grid
// barriers, and the host reads the count once.

// Graphs of at most this many edges run in one block (grid_barrier).
constexpr std::int64_t one_block_max_edges = 32768;
constexpr int one_launch_threads = 1024;

// The exclusive scan of values[0, n) into offsets[0, n) by the whole grid
// (integers, so the order of the sums does not matter); returns the total.
// Block b scans the contiguous segment b of n; block_sums holds gridDim.x
// entries. Every thread returns the total.
__device__ index_t grid_exclusive_scan(const cooperative_groups::grid_group& grid, index_t n,
                                       const index_t* values, index_t* offsets, index_t* block_sums,
                                       int* total) {
  using Scan = cub::BlockScan<index_t, one_launch_threads>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ index_t carry;
  const index_t segment = (n + gridDim.x - 1) / gridDim.x;
  const index_t begin = min(n, index_t(blockIdx.x) * segment), end = min(n, begin + segment);
  index_t own = 0;
  for (index_t i = begin + threadIdx.x; i < end; i += blockDim.x) own += values[i];
  using Reduce = cub::BlockReduce<index_t, one_launch_threads>;
  __shared__ typename Reduce::TempStorage reduce;
  const index_t sum = Reduce(reduce).Sum(own);
  if (threadIdx.x == 0) block_sums[blockIdx.x] = sum;
  grid_barrier(grid);
  if (threadIdx.x == 0) {
    index_t before = 0;
    for (unsigned b = 0; b < blockIdx.x; ++b) before += block_sums[b];
    carry = before;
    if (blockIdx.x == gridDim.x - 1) *total = before + block_sums[blockIdx.x];
  }
  __syncthreads();
  for (index_t first = begin; first < end; first += blockDim.x) {
    const index_t i = first + threadIdx.x;
    const index_t value = i < end ? values[i] : 0;
    index_t offset, chunk;
    Scan(scan).ExclusiveSum(value, offset, chunk);
    if (i < end) offsets[i] = carry + offset;
    __syncthreads();
    if (threadIdx.x == 0) carry += chunk;
    __syncthreads();
  }
  grid_barrier(grid);
  return read_volatile(total);
}

// The buffers of the one-launch aggregation. `ids` and `next` swap roles as
// the CPU's stages replace the ids; the kernel leaves the result in `ids`.
struct OneLaunch {
  const index_t* row_ptr;
  const index_t* col_idx;
  index_t n;
  index_t* ids;
  index_t* next;
  std::uint8_t* state;
  std::uint64_t* max1;
  std::uint8_t* needs_max;
  index_t* flags;    // n: forming roots, then first-node flags
  index_t* offsets;  // n: their exclusive scan
  index_t* size;     // n: aggregate sizes, then first nodes
  index_t* block_sums;
  int* counters;    // [0, 3) MIS-2 round flags, [3, 6) join counts, 6 scan total, 7 unassigned
  index_t* result;  // [0] the aggregate count, [1] the nodes left unassigned
};

__device__ void swap_ids(OneLaunch& a) {
  index_t* const ids = a.ids;
  a.ids = a.next;
  a.next = ids;
}

// aggregate_free on the CPU: an MIS-2 of the free nodes and its roots'
// aggregates, numbered from `count`; swaps `ids` and `next`. Returns the
// number formed.
template <int L>
__device__ index_t one_launch_pass(const cooperative_groups::grid_group& grid, OneLaunch& a,
                                   index_t count, index_t min_neighbours, int free_percent) {
  const std::int64_t threads = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t thread = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t group_stride = threads / L;
  for (std::int64_t i = thread; i < a.n; i += threads) {
    const bool free = is_free(a.ids, index_t(i));
    a.state[i] = free ? state_undecided : state_out;
    if (!free) a.max1[i] = 0;
  }
  if (thread < 3) a.counters[thread] = 0;
  grid_barrier(grid);
  mis2_of_states<L>(grid, a.n, a.row_ptr, a.col_idx, a.state, a.max1, a.needs_max, a.counters);
  for (std::int64_t i = row_split::group_row<L>(); i < a.n; i += group_stride) {
    const bool forming = forms_aggregate<L>(i, a.n, a.row_ptr, a.col_idx, a.ids, a.state,
                                            min_neighbours, free_percent);
    if (threadIdx.x % L == 0) a.flags[i] = forming;
  }
  grid_barrier(grid);
  const index_t formed =
      grid_exclusive_scan(grid, a.n, a.flags, a.offsets, a.block_sums, a.counters + 6);
  for (std::int64_t i = row_split::group_row<L>(); i < a.n; i += group_stride) {
    const index_t id =
        aggregate_after_pass<L>(i, a.row_ptr, a.col_idx, a.ids, a.flags, a.offsets, count);
    if (threadIdx.x % L == 0) a.next[i] = id;
  }
  grid_barrier(grid);
  swap_ids(a);
  return formed;
}

// The nodes without an aggregate (every thread gets the count).
__device__ index_t one_launch_unassigned(const cooperative_groups::grid_group& grid, OneLaunch& a) {
  const std::int64_t threads = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t thread = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (thread == 0) a.counters[7] = 0;
  grid_barrier(grid);
  int own = 0;
  for (std::int64_t i = thread; i < a.n; i += threads) own += a.ids[i] < 0;
  if (own > 0) atomicAdd(a.counters + 7, own);
  grid_barrier(grid);
  return read_volatile(a.counters + 7);
}

// mis2_aggregation's stages, as the CPU runs them (amg/aggregation.cpp).
template <int L>
__global__ void __launch_bounds__(one_launch_threads)
    one_launch_aggregation(OneLaunch a, int free_percent) {
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const std::int64_t threads = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t thread = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  index_t* const home = a.ids;
  index_t count = 0;
  for (;;) {
    const index_t before = count;
    const index_t formed = one_launch_pass<L>(grid, a, count, mis2_min_neighbours, free_percent);
    count += formed;
    if (!mis2_passes_continue(formed, before)) break;
  }
  // Joining, in rounds until one places nobody; round r counts into
  // counters[3 + r % 3], cleared two rounds ahead of its use.
  if (thread < 3) a.counters[3 + thread] = 0;
  grid_barrier(grid);
  for (int round = 0; count > 0; ++round) {
    for (std::int64_t c = thread; c < count; c += threads) a.size[c] = 0;
    grid_barrier(grid);
    for (std::int64_t i = thread; i < a.n; i += threads)
      if (a.ids[i] >= 0) atomicAdd(&a.size[a.ids[i]], 1);
    grid_barrier(grid);
    int joined = 0;
    for (std::int64_t i = thread; i < a.n; i += threads) {
      index_t id = a.ids[i];
      if (id < 0) {
        id = smallest_neighbour_aggregate(index_t(i), a.row_ptr, a.col_idx, a.ids, a.size);
        joined += id >= 0;
      }
      a.next[i] = id;
    }
    if (thread == 0) a.counters[3 + (round + 1) % 3] = 0;
    if (__syncthreads_or(joined > 0) && threadIdx.x == 0) atomicAdd(a.counters + 3 + round % 3, 1);
    grid_barrier(grid);
    swap_ids(a);
    if (read_volatile(a.counters + 3 + round % 3) == 0) break;
  }
  // The nodes no join reached: passes that take them all, as on the CPU.
  index_t left_out = one_launch_unassigned(grid, a);
  if (left_out > 0) {
    for (;;) {
      const index_t formed = one_launch_pass<L>(grid, a, count, 0, 0);
      count += formed;
      if (formed == 0) break;
    }
    left_out = one_launch_unassigned(grid, a);
  }
  if (left_out == 0) {
    // Ids in the order of the aggregates' first nodes.
    for (std::int64_t c = thread; c < count; c += threads) a.size[c] = a.n;
    grid_barrier(grid);
    for (std::int64_t i = thread; i < a.n; i += threads) atomicMin(&a.size[a.ids[i]], index_t(i));
    grid_barrier(grid);
    for (std::int64_t i = thread; i < a.n; i += threads) a.flags[i] = a.size[a.ids[i]] == i;
    grid_barrier(grid);
    grid_exclusive_scan(grid, a.n, a.flags, a.offsets, a.block_sums, a.counters + 6);
    for (std::int64_t i = thread; i < a.n; i += threads) a.next[i] = a.offsets[a.size[a.ids[i]]];
    grid_barrier(grid);
    swap_ids(a);
  }
  // The caller's buffer is the one `ids` started as: copied back if it is the other.
  if (a.ids != home)
    for (std::int64_t i = thread; i < a.n; i += threads) home[i] = a.ids[i];
  if (thread == 0) {
    a.result[0] = count;
    a.result[1] = left_out;
  }
}

}  // namespace

// The message of nodes the aggregation left without an aggregate.
std::string unassigned_message(index_t left_out) {
  return "mis2_aggregation: " + std::to_string(left_out) +
         " nodes were left unassigned (the strength graph is not symmetric?)";
}

template <typename T>
index_t one_launch_mis2(const DeviceCsr<T>& S, cudaStream_t stream, int free_percent,
                        DeviceBuffer<index_t>& ids) {
  const index_t n = S.rows;
  DeviceBuffer<index_t> next(n, stream, "aggregate ids (next)"), flags(n, stream, "mis2 flags"),
      offsets(n, stream, "mis2 offsets"), size(n, stream, "aggregate sizes");
  DeviceBuffer<std::uint8_t> state(n, stream, "mis2 states"), needs_max(n, stream, "mis2 needs");
  DeviceBuffer<std::uint64_t> max1(n, stream, "mis2 neighbourhood maxima");
  DeviceBuffer<int> counters(8, stream, "mis2 counters");
  DeviceBuffer<index_t> result(2, stream, "mis2 count");
  index_t count = 0, left_out = 0;
  with_node_lanes(n, S.nnz(), edges_per_lane_in_one_launch, [&](auto lanes) {
    constexpr int L = decltype(lanes)::value;
    // One block where its sweeps cost less than the barriers they save.
    const unsigned grid =
        S.nnz() <= one_block_max_edges
            ? 1u
            : std::min(blocks_for(std::int64_t(n) * L, one_launch_threads),
                       resident_blocks(one_launch_aggregation<L>, one_launch_threads));
    DeviceBuffer<index_t> block_sums(grid, stream, "mis2 block sums");
    OneLaunch work{S.row_ptr.data(), S.col_idx.data(), n,           ids.data(),
                   next.data(),      state.data(),     max1.data(), needs_max.data(),
                   flags.data(),     offsets.data(),   size.data(), block_sums.data(),
                   counters.data(),  result.data()};
    void* arguments[] = {&work, &free_percent};
    BINAMG_CUDA_CHECK(cudaLaunchCooperativeKernel(one_launch_aggregation<L>, dim3(grid),
                                                  dim3(one_launch_threads), arguments, 0, stream));
    index_t both[2];
    read_back(both, result.data(), sizeof(both), stream);
    count = both[0];
    left_out = both[1];
  });
  require(left_out == 0, unassigned_message(left_out));
  return count;
}

template index_t one_launch_mis2<float>(const DeviceCsr<float>&, cudaStream_t, int,
                                        DeviceBuffer<index_t>&);
template index_t one_launch_mis2<double>(const DeviceCsr<double>&, cudaStream_t, int,
                                         DeviceBuffer<index_t>&);

}  // namespace binamg::mis2_steps
