// GPU twin of mis2_aggregation(): the same rounds, the same keys, the same
// aggregates, node for node. mis2_hash is a bijection on 32-bit integers (each
// xor-shift and odd multiplication is invertible), so (state, hash) alone orders
// nodes exactly as the CPU's (state, hash, index) does and fits one 64-bit key.
#include <string>

#include "amg/aggregation.hpp"
#include "core/launch.hpp"
#include "core/scan.hpp"

namespace binamg {
namespace {

constexpr int aggregation_threads = 256;
enum : std::uint8_t { state_out = 0, state_undecided = 1, state_in = 2 };

__device__ std::uint64_t mis2_key(const std::uint8_t* state, index_t node) {
  return (std::uint64_t(state[node]) << 32) | mis2_hash(static_cast<std::uint32_t>(node));
}

// Nodes still without an aggregate form the subgraph the next MIS-2 runs on.
__device__ bool is_free(const index_t* aggregate_of, index_t node) { return aggregate_of[node] < 0; }

__global__ void initial_states(index_t n, const index_t* aggregate_of, std::uint8_t* state) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) state[i] = is_free(aggregate_of, i) ? state_undecided : state_out;
}

// One thread per node: the largest key over {i} ∪ N(i) among free nodes (a
// node that is not free keeps its own key, which no one reads).
__global__ void max_key_of_neighbourhood(index_t n, const index_t* row_ptr, const index_t* col_idx,
                                         const index_t* aggregate_of, const std::uint8_t* state,
                                         std::uint64_t* max1) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint64_t best = mis2_key(state, i);
  if (is_free(aggregate_of, i))
    for (index_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
      if (is_free(aggregate_of, col_idx[k])) best = max(best, mis2_key(state, col_idx[k]));
  max1[i] = best;
}

// One thread per node: M2 = largest M1 over {i} ∪ N(i) among free nodes, then
// the state update from the old states only (Jacobi-style, as on the CPU).
// Counts undecided nodes.
__global__ void update_states(index_t n, const index_t* row_ptr, const index_t* col_idx,
                              const index_t* aggregate_of, const std::uint8_t* state,
                              const std::uint64_t* max1, std::uint8_t* next, int* undecided) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint8_t s = state[i];
  if (s == state_undecided) {
    std::uint64_t best = max1[i];
    for (index_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
      if (is_free(aggregate_of, col_idx[k])) best = max(best, max1[col_idx[k]]);
    if (best == mis2_key(state, i)) s = state_in;
    else if ((best >> 32) == state_in) s = state_out;
  }
  next[i] = s;
  if (s == state_undecided) atomicAdd(undecided, 1);  // an integer count: order-free
}

// One thread per node: 1 for an MIS-2 root with at least `min_neighbours` free
// neighbours (it forms an aggregate this pass), else 0.
__global__ void forming_roots(index_t n, const index_t* row_ptr, const index_t* col_idx,
                              const index_t* aggregate_of, const std::uint8_t* state,
                              index_t min_neighbours, index_t* forms) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  index_t free_neighbours = 0;
  if (state[i] == state_in)
    for (index_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
      free_neighbours += is_free(aggregate_of, col_idx[k]);
  forms[i] = state[i] == state_in && free_neighbours >= min_neighbours;
}

// One thread per node. A forming root takes id first + its rank among forming
// roots; a free node next to a forming root (at most one: roots are 3 edges
// apart in the free subgraph) takes that root's id. Reads `placed`, writes `out`.
__global__ void form_aggregates(index_t n, const index_t* row_ptr, const index_t* col_idx,
                                const index_t* placed, const index_t* forms,
                                const index_t* root_offsets, index_t first, index_t* out) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  index_t id = placed[i];
  if (id < 0) {
    if (forms[i]) id = first + root_offsets[i];
    else
      for (index_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
        if (forms[col_idx[k]]) id = first + root_offsets[col_idx[k]];
  }
  out[i] = id;
}

// One thread per aggregated node: sizes by integer atomics (order-free).
__global__ void aggregate_sizes(index_t n, const index_t* aggregate_of, index_t* size) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && aggregate_of[i] >= 0) atomicAdd(&size[aggregate_of[i]], 1);
}

// One thread per node: a free node joins the smallest aggregate among its
// neighbours' (ties to the neighbour with the largest hash), reading `placed`
// and `size` from before the round and writing `out`. Counts the joins.
__global__ void join_smallest_neighbour(index_t n, const index_t* row_ptr, const index_t* col_idx,
                                        const index_t* placed, const index_t* size, index_t* out,
                                        int* joined) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (placed[i] >= 0) {
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

int read_counter(const DeviceBuffer<int>& counter, cudaStream_t stream) {
  int value = 0;
  BINAMG_CUDA_CHECK(cudaMemcpyAsync(&value, counter.data(), sizeof value,
                                    cudaMemcpyDeviceToHost, stream));
  BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream));
  return value;
}

// Two device counters whose values reach the host without stopping the stream:
// each is copied into pinned host memory and marked by an event, so the host can
// wait for one while the next round already runs.
class PublishedCounters {
 public:
  explicit PublishedCounters(cudaStream_t stream) : stream_(stream) {
    BINAMG_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_), sizeof(int) * slots));
    for (cudaEvent_t& event : events_)
      BINAMG_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  }
  ~PublishedCounters() {  // errors here have nowhere to go; the pool and context outlive us
    for (cudaEvent_t event : events_) cudaEventDestroy(event);
    cudaFreeHost(host_);
  }
  PublishedCounters(const PublishedCounters&) = delete;
  PublishedCounters& operator=(const PublishedCounters&) = delete;

  int* device(int slot) { return device_.data() + slot; }
  void reset(int slot) {
    BINAMG_CUDA_CHECK(cudaMemsetAsync(device(slot), 0, sizeof(int), stream_));
  }
  void publish(int slot) {
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(host_ + slot, device(slot), sizeof(int),
                                      cudaMemcpyDeviceToHost, stream_));
    BINAMG_CUDA_CHECK(cudaEventRecord(events_[slot], stream_));
  }
  int wait(int slot) {
    BINAMG_CUDA_CHECK(cudaEventSynchronize(events_[slot]));
    return host_[slot];
  }

  static constexpr int slots = 2;

 private:
  cudaStream_t stream_;
  DeviceBuffer<int> device_{slots, stream_, "mis2 round counters"};
  int* host_ = nullptr;
  cudaEvent_t events_[slots] = {};
};


// The device work of one CPU helper each; members so the passes read like the CPU's.
struct Mis2Aggregator {
  const index_t* row_ptr;
  const index_t* col_idx;
  index_t n;
  unsigned blocks;
  cudaStream_t stream;
  DeviceBuffer<index_t>& aggregate_of;
  index_t& count;
  DeviceBuffer<index_t> other{std::size_t(n), stream, "aggregate ids (next)"};
  DeviceBuffer<std::uint8_t> state{std::size_t(n), stream, "mis2 states"};
  DeviceBuffer<std::uint8_t> next{std::size_t(n), stream, "mis2 next states"};
  DeviceBuffer<std::uint64_t> max1{std::size_t(n), stream, "mis2 neighbourhood maxima"};
  DeviceBuffer<index_t> forms{std::size_t(n), stream, "mis2 forming roots"};
  DeviceBuffer<index_t> root_offsets{std::size_t(n) + 1, stream, "mis2 root ids"};
  DeviceBuffer<int> counter{1, stream, "mis2 counter"};
  PublishedCounters undecided{stream};

  void reset_counter() {
    BINAMG_CUDA_CHECK(cudaMemsetAsync(counter.data(), 0, sizeof(int), stream));
  }

  // One round of the MIS-2 iteration; its count of undecided nodes goes to `slot`.
  void mis2_round(int slot) {
    undecided.reset(slot);
    max_key_of_neighbourhood<<<blocks, aggregation_threads, 0, stream>>>(
        n, row_ptr, col_idx, aggregate_of.data(), state.data(), max1.data());
    BINAMG_CHECK_LAUNCH();
    update_states<<<blocks, aggregation_threads, 0, stream>>>(
        n, row_ptr, col_idx, aggregate_of.data(), state.data(), max1.data(), next.data(),
        undecided.device(slot));
    BINAMG_CHECK_LAUNCH();
    state.swap(next);
    undecided.publish(slot);
  }

  // MIS-2 of the free subgraph into `state` (mis2_of_active on the CPU): rounds
  // until none is undecided. The host checks round k's count while round k + 1
  // runs: a round after the count reached zero changes no state (only undecided
  // nodes change), so the one extra round leaves the CPU's MIS as it was and the
  // stream never waits for the host.
  void mis2_of_free() {
    initial_states<<<blocks, aggregation_threads, 0, stream>>>(n, aggregate_of.data(), state.data());
    BINAMG_CHECK_LAUNCH();
    mis2_round(0);
    for (int round = 0;; ++round) {
      mis2_round((round + 1) % PublishedCounters::slots);
      if (undecided.wait(round % PublishedCounters::slots) == 0) break;
    }
  }

  // aggregate_unaggregated on the CPU: returns the number of new aggregates.
  index_t aggregate_free(index_t min_neighbours) {
    mis2_of_free();
    forming_roots<<<blocks, aggregation_threads, 0, stream>>>(
        n, row_ptr, col_idx, aggregate_of.data(), state.data(), min_neighbours, forms.data());
    BINAMG_CHECK_LAUNCH();
    const index_t formed = offsets_from_counts(forms.data(), n, root_offsets.data(),
                                               "mis2_aggregation: roots", stream);
    if (formed == 0) return 0;
    form_aggregates<<<blocks, aggregation_threads, 0, stream>>>(
        n, row_ptr, col_idx, aggregate_of.data(), forms.data(), root_offsets.data(), count,
        other.data());
    BINAMG_CHECK_LAUNCH();
    aggregate_of.swap(other);
    count += formed;
    return formed;
  }

  // join_smallest_neighbour on the CPU: returns the number of nodes placed.
  int join_smallest() {
    if (count == 0) return 0;
    DeviceBuffer<index_t> size(std::size_t(count), stream, "aggregate sizes");
    BINAMG_CUDA_CHECK(cudaMemsetAsync(size.data(), 0, sizeof(index_t) * count, stream));
    aggregate_sizes<<<blocks, aggregation_threads, 0, stream>>>(n, aggregate_of.data(), size.data());
    BINAMG_CHECK_LAUNCH();
    reset_counter();
    join_smallest_neighbour<<<blocks, aggregation_threads, 0, stream>>>(
        n, row_ptr, col_idx, aggregate_of.data(), size.data(), other.data(), counter.data());
    BINAMG_CHECK_LAUNCH();
    aggregate_of.swap(other);
    return read_counter(counter, stream);
  }
};

}  // namespace

template <typename T>
DeviceAggregates mis2_aggregation(const DeviceCsr<T>& S, cudaStream_t stream) {
  require(S.rows == S.cols, "mis2_aggregation: the strength graph is not square");
  const index_t n = S.rows;
  DeviceAggregates result;
  result.aggregate_of = DeviceBuffer<index_t>(n, stream, "aggregate ids");
  if (n == 0) return result;
  BINAMG_CUDA_CHECK(cudaMemsetAsync(result.aggregate_of.data(), 0xff, sizeof(index_t) * n, stream));
  Mis2Aggregator work{S.row_ptr.data(), S.col_idx.data(), n, blocks_for(n, aggregation_threads),
                      stream, result.aggregate_of, result.count};
  // The same three stages as the CPU's mis2_aggregation.
  while (work.aggregate_free(mis2_min_neighbours) > 0) {
  }
  while (work.join_smallest() > 0) {
  }
  while (work.aggregate_free(0) > 0) {
  }
  work.reset_counter();
  count_unassigned<<<work.blocks, aggregation_threads, 0, stream>>>(n, result.aggregate_of.data(),
                                                                    work.counter.data());
  BINAMG_CHECK_LAUNCH();
  const int left_out = read_counter(work.counter, stream);
  require(left_out == 0, "mis2_aggregation: " + std::to_string(left_out) +
                             " nodes were left unassigned (the strength graph is not symmetric?)");
  return result;
}

template DeviceAggregates mis2_aggregation<float>(const DeviceCsr<float>&, cudaStream_t);
template DeviceAggregates mis2_aggregation<double>(const DeviceCsr<double>&, cudaStream_t);

}  // namespace binamg
