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

__device__ std::uint32_t device_mis2_hash(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

__device__ std::uint64_t mis2_key(const std::uint8_t* state, index_t node) {
  return (std::uint64_t(state[node]) << 32) | device_mis2_hash(static_cast<std::uint32_t>(node));
}

// One thread per node: the largest key over {i} ∪ N(i).
__global__ void max_key_of_neighbourhood(index_t n, const index_t* row_ptr, const index_t* col_idx,
                                         const std::uint8_t* state, std::uint64_t* max1) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint64_t best = mis2_key(state, i);
  for (index_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) best = max(best, mis2_key(state, col_idx[k]));
  max1[i] = best;
}

// One thread per node: M2 = largest M1 over {i} ∪ N(i), then the state update
// from the old states only (Jacobi-style, as on the CPU). Counts undecided nodes.
__global__ void update_states(index_t n, const index_t* row_ptr, const index_t* col_idx,
                              const std::uint8_t* state, const std::uint64_t* max1,
                              std::uint8_t* next, int* undecided) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint8_t s = state[i];
  if (s == state_undecided) {
    std::uint64_t best = max1[i];
    for (index_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) best = max(best, max1[col_idx[k]]);
    if (best == mis2_key(state, i)) s = state_in;
    else if ((best >> 32) == state_in) s = state_out;
  }
  next[i] = s;
  if (s == state_undecided) atomicAdd(undecided, 1);  // an integer count: order-free
}

__global__ void root_flags(index_t n, const std::uint8_t* state, index_t* is_root) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) is_root[i] = state[i] == state_in;
}

// One thread per node. Roots take their id; other nodes join the neighbour with
// the largest hash among those `eligible` (roots in phase 1, placed nodes in phase 2).
// Reads `placed` (the previous phase) and writes `out`, so a phase sees only the one before.
__global__ void join_best_neighbour(index_t n, const index_t* row_ptr, const index_t* col_idx,
                                    const index_t* placed, index_t* out, bool roots_only,
                                    const std::uint8_t* state) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (placed[i] >= 0) {
    out[i] = placed[i];
    return;
  }
  index_t best = -1;
  std::uint32_t best_hash = 0;
  for (index_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
    const index_t j = col_idx[k];
    const bool eligible = roots_only ? state[j] == state_in : placed[j] >= 0;
    if (!eligible) continue;
    const std::uint32_t h = device_mis2_hash(static_cast<std::uint32_t>(j));
    if (best < 0 || h > best_hash) {
      best = j;
      best_hash = h;
    }
  }
  out[i] = best >= 0 ? placed[best] : -1;
}

// Roots get their aggregate id (the exclusive prefix count of roots); others -1.
__global__ void root_ids(index_t n, const std::uint8_t* state, const index_t* root_offsets,
                         index_t* aggregate_of) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) aggregate_of[i] = state[i] == state_in ? root_offsets[i] : -1;
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

}  // namespace

template <typename T>
DeviceAggregates mis2_aggregation(const DeviceCsr<T>& S, cudaStream_t stream) {
  require(S.rows == S.cols, "mis2_aggregation: the strength graph is not square");
  const index_t n = S.rows;
  DeviceAggregates result;
  result.aggregate_of = DeviceBuffer<index_t>(n, stream, "aggregate ids");
  if (n == 0) return result;
  const unsigned blocks = blocks_for(n, aggregation_threads);

  DeviceBuffer<std::uint8_t> state(n, stream, "mis2 states");
  DeviceBuffer<std::uint8_t> next(n, stream, "mis2 next states");
  DeviceBuffer<std::uint64_t> max1(n, stream, "mis2 neighbourhood maxima");
  DeviceBuffer<int> undecided(1, stream, "mis2 undecided count");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(state.data(), state_undecided, n, stream));
  for (int left = n; left > 0;) {
    BINAMG_CUDA_CHECK(cudaMemsetAsync(undecided.data(), 0, sizeof(int), stream));
    max_key_of_neighbourhood<<<blocks, aggregation_threads, 0, stream>>>(
        n, S.row_ptr.data(), S.col_idx.data(), state.data(), max1.data());
    BINAMG_CHECK_LAUNCH();
    update_states<<<blocks, aggregation_threads, 0, stream>>>(
        n, S.row_ptr.data(), S.col_idx.data(), state.data(), max1.data(), next.data(),
        undecided.data());
    BINAMG_CHECK_LAUNCH();
    state.swap(next);
    left = read_counter(undecided, stream);
  }

  DeviceBuffer<index_t> is_root(n, stream, "mis2 root flags");
  DeviceBuffer<index_t> root_offsets(std::size_t(n) + 1, stream, "mis2 root ids");
  root_flags<<<blocks, aggregation_threads, 0, stream>>>(n, state.data(), is_root.data());
  BINAMG_CHECK_LAUNCH();
  result.count = offsets_from_counts(is_root.data(), n, root_offsets.data(),
                                     "mis2_aggregation: roots", stream);

  DeviceBuffer<index_t> roots_placed(n, stream, "aggregates after roots");
  DeviceBuffer<index_t> phase1(n, stream, "aggregates after phase 1");
  root_ids<<<blocks, aggregation_threads, 0, stream>>>(n, state.data(), root_offsets.data(),
                                                       roots_placed.data());
  BINAMG_CHECK_LAUNCH();
  join_best_neighbour<<<blocks, aggregation_threads, 0, stream>>>(
      n, S.row_ptr.data(), S.col_idx.data(), roots_placed.data(), phase1.data(), true,
      state.data());
  BINAMG_CHECK_LAUNCH();
  join_best_neighbour<<<blocks, aggregation_threads, 0, stream>>>(
      n, S.row_ptr.data(), S.col_idx.data(), phase1.data(), result.aggregate_of.data(), false,
      state.data());
  BINAMG_CHECK_LAUNCH();

  DeviceBuffer<int> unassigned(1, stream, "mis2 unassigned count");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(unassigned.data(), 0, sizeof(int), stream));
  count_unassigned<<<blocks, aggregation_threads, 0, stream>>>(n, result.aggregate_of.data(),
                                                               unassigned.data());
  BINAMG_CHECK_LAUNCH();
  const int left_out = read_counter(unassigned, stream);
  require(left_out == 0, "mis2_aggregation: " + std::to_string(left_out) +
                             " nodes were left unassigned (the strength graph is not symmetric?)");
  return result;
}

template DeviceAggregates mis2_aggregation<float>(const DeviceCsr<float>&, cudaStream_t);
template DeviceAggregates mis2_aggregation<double>(const DeviceCsr<double>&, cudaStream_t);

}  // namespace binamg
