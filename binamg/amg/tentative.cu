// GPU twin of tentative_prolongator(): bitwise the same matrix and weights
// (integer sums; IEEE double sqrt and division are correctly rounded on both sides).
#include <cmath>
#include <string>

#include "binamg/amg/tentative.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"

namespace binamg {
namespace {

constexpr int tentative_threads = 256;

// A node's weight: 1 on the finest level (no weights given).
__device__ index_t weight_of(const index_t* weights, index_t i) { return weights ? weights[i] : 1; }

// One thread per node: adds its weight to its aggregate's total (integer
// atomics: order-free), and flags ids outside [0, count) and weights below 1.
__global__ void aggregate_weights(index_t n, index_t count, const index_t* aggregate_of,
                                  const index_t* weights, index_t* total, int* bad) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const index_t a = aggregate_of[i];
  const index_t w = weight_of(weights, i);
  if (a < 0 || a >= count)
    atomicAdd(bad, 1);
  else if (w < 1)
    atomicAdd(bad + 1, 1);
  else
    atomicAdd(total + a, w);
}

// One thread per row of T: its single entry sqrt(w_i) / sqrt(W_a).
template <typename T>
__global__ void fill_tentative(index_t n, const index_t* aggregate_of, const index_t* weights,
                               const index_t* total, index_t* row_ptr, index_t* col_idx,
                               T* values) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) row_ptr[0] = 0;
  if (i >= n) return;
  row_ptr[i + 1] = i + 1;
  col_idx[i] = aggregate_of[i];
  values[i] = static_cast<T>(sqrt(static_cast<double>(weight_of(weights, i))) /
                             sqrt(static_cast<double>(total[aggregate_of[i]])));
}

__global__ void count_empty(index_t count, const index_t* size, int* empty) {
  const index_t a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a < count && size[a] == 0) atomicAdd(empty, 1);
}

}  // namespace

template <typename T>
DeviceTentative<T> tentative_prolongator(const DeviceAggregates& aggregates,
                                         const DeviceBuffer<index_t>& weights,
                                         cudaStream_t stream) {
  const index_t n = checked_index(static_cast<std::int64_t>(aggregates.aggregate_of.size()),
                                  "tentative_prolongator: rows");
  require(weights.size() == 0 || weights.size() == aggregates.aggregate_of.size(),
          "tentative_prolongator: " + std::to_string(weights.size()) + " node weights for " +
              std::to_string(n) + " nodes");
  const index_t* node_weights = weights.size() == 0 ? nullptr : weights.data();
  DeviceTentative<T> result;
  DeviceBuffer<index_t>& total = result.coarse_weights;
  total = DeviceBuffer<index_t>(aggregates.count, stream, "aggregate weights");
  DeviceBuffer<int> problems(3, stream, "tentative checks");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(problems.data(), 0, 3 * sizeof(int), stream));
  if (aggregates.count > 0)
    BINAMG_CUDA_CHECK(cudaMemsetAsync(total.data(), 0, total.size() * sizeof(index_t), stream));
  if (n > 0) {
    aggregate_weights<<<blocks_for(n, tentative_threads), tentative_threads, 0, stream>>>(
        n, aggregates.count, aggregates.aggregate_of.data(), node_weights, total.data(),
        problems.data());
    BINAMG_CHECK_LAUNCH();
  }
  if (aggregates.count > 0) {
    count_empty<<<blocks_for(aggregates.count, tentative_threads), tentative_threads, 0, stream>>>(
        aggregates.count, total.data(), problems.data() + 2);
    BINAMG_CHECK_LAUNCH();
  }
  int found[3] = {0, 0, 0};
  read_back(found, problems.data(), sizeof found, stream);
  require(found[0] == 0, "tentative_prolongator: " + std::to_string(found[0]) +
                             " nodes have aggregate ids outside [0, " +
                             std::to_string(aggregates.count) + ")");
  require(found[1] == 0,
          "tentative_prolongator: " + std::to_string(found[1]) + " nodes have a weight below 1");
  require(found[2] == 0,
          "tentative_prolongator: " + std::to_string(found[2]) + " aggregates are empty");

  DeviceCsr<T>& P = result.P;
  P.rows = n;
  P.cols = aggregates.count;
  P.row_ptr = DeviceBuffer<index_t>(std::size_t(n) + 1, stream, "tentative row_ptr");
  P.allocate_entries(n, stream, "tentative entries");
  fill_tentative<<<blocks_for(std::int64_t(n) + 1, tentative_threads), tentative_threads, 0,
                   stream>>>(n, aggregates.aggregate_of.data(), node_weights, total.data(),
                             P.row_ptr.data(), P.col_idx.data(), P.values.data());
  BINAMG_CHECK_LAUNCH();
  return result;
}

template <typename T>
DeviceCsr<T> tentative_prolongator(const DeviceAggregates& aggregates, cudaStream_t stream) {
  return tentative_prolongator<T>(aggregates, DeviceBuffer<index_t>(), stream).P;
}

#define BINAMG_INSTANTIATE(T)                                               \
  template DeviceTentative<T> tentative_prolongator<T>(                     \
      const DeviceAggregates&, const DeviceBuffer<index_t>&, cudaStream_t); \
  template DeviceCsr<T> tentative_prolongator<T>(const DeviceAggregates&, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
