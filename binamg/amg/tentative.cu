// GPU twin of tentative_prolongator(): bitwise the same matrix (IEEE double
// sqrt and division are correctly rounded on both sides).
#include <cmath>
#include <string>

#include "binamg/amg/tentative.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"

namespace binamg {
namespace {

constexpr int tentative_threads = 256;

// One thread per node: counts its aggregate's size (integer atomics: order-free)
// and flags ids outside [0, count).
__global__ void aggregate_sizes(index_t n, index_t count, const index_t* aggregate_of,
                                index_t* size, int* bad) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const index_t a = aggregate_of[i];
  if (a < 0 || a >= count) atomicAdd(bad, 1);
  else atomicAdd(size + a, 1);
}

// One thread per row of T: its single entry 1/sqrt(|aggregate|).
template <typename T>
__global__ void fill_tentative(index_t n, const index_t* aggregate_of, const index_t* size,
                               index_t* row_ptr, index_t* col_idx, T* values) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) row_ptr[0] = 0;
  if (i >= n) return;
  row_ptr[i + 1] = i + 1;
  col_idx[i] = aggregate_of[i];
  values[i] = static_cast<T>(1.0 / sqrt(static_cast<double>(size[aggregate_of[i]])));
}

__global__ void count_empty(index_t count, const index_t* size, int* empty) {
  const index_t a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a < count && size[a] == 0) atomicAdd(empty, 1);
}

}  // namespace

template <typename T>
DeviceCsr<T> tentative_prolongator(const DeviceAggregates& aggregates, cudaStream_t stream) {
  const index_t n = checked_index(static_cast<std::int64_t>(aggregates.aggregate_of.size()),
                                  "tentative_prolongator: rows");
  DeviceBuffer<index_t> size(aggregates.count, stream, "aggregate sizes");
  DeviceBuffer<int> problems(2, stream, "tentative checks");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(problems.data(), 0, 2 * sizeof(int), stream));
  if (aggregates.count > 0)
    BINAMG_CUDA_CHECK(cudaMemsetAsync(size.data(), 0, size.size() * sizeof(index_t), stream));
  if (n > 0) {
    aggregate_sizes<<<blocks_for(n, tentative_threads), tentative_threads, 0, stream>>>(
        n, aggregates.count, aggregates.aggregate_of.data(), size.data(), problems.data());
    BINAMG_CHECK_LAUNCH();
  }
  if (aggregates.count > 0) {
    count_empty<<<blocks_for(aggregates.count, tentative_threads), tentative_threads, 0,
                  stream>>>(aggregates.count, size.data(), problems.data() + 1);
    BINAMG_CHECK_LAUNCH();
  }
  int found[2] = {0, 0};
  read_back(found, problems.data(), sizeof found, stream);
  require(found[0] == 0, "tentative_prolongator: " + std::to_string(found[0]) +
                             " nodes have aggregate ids outside [0, " +
                             std::to_string(aggregates.count) + ")");
  require(found[1] == 0,
          "tentative_prolongator: " + std::to_string(found[1]) + " aggregates are empty");

  DeviceCsr<T> P;
  P.rows = n;
  P.cols = aggregates.count;
  P.row_ptr = DeviceBuffer<index_t>(std::size_t(n) + 1, stream, "tentative row_ptr");
  P.allocate_entries(n, stream, "tentative entries");
  fill_tentative<<<blocks_for(std::int64_t(n) + 1, tentative_threads), tentative_threads, 0,
                   stream>>>(n, aggregates.aggregate_of.data(), size.data(), P.row_ptr.data(),
                             P.col_idx.data(), P.values.data());
  BINAMG_CHECK_LAUNCH();
  return P;
}

template DeviceCsr<float> tentative_prolongator<float>(const DeviceAggregates&, cudaStream_t);
template DeviceCsr<double> tentative_prolongator<double>(const DeviceAggregates&, cudaStream_t);

}  // namespace binamg
