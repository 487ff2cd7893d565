#include <climits>
#include <cub/block/block_reduce.cuh>
#include <cuda/functional>

#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"
#include "binamg/sparse/device_csr.hpp"

namespace binamg {
namespace {

constexpr int pack_threads = 256;
constexpr index_t max_packed_span = 65535;  // largest offset a std::uint16_t holds
static_assert(pack_threads == packed_chunk_rows, "a thread per row of the chunk");
constexpr index_t max_mean_row = 256;  // worth_packing's bound

// What one read-back brings home: the longest row, and whether a chunk spans
// more columns than an offset can hold.
struct PackFacts {
  index_t longest_row;
  index_t too_wide;
};

// One block per chunk: its longest row and column span (block reductions, one
// atomic each), then, where the span fits, the chunk's base and offsets.
__global__ void pack_chunks(index_t rows, const index_t* row_ptr, const index_t* col_idx,
                            std::uint16_t* offset, index_t* base, PackFacts* facts) {
  using Reduce = cub::BlockReduce<index_t, pack_threads>;
  __shared__ typename Reduce::TempStorage storage;
  __shared__ index_t lowest;
  const index_t first = blockIdx.x * packed_chunk_rows;
  const index_t last = min(rows, first + packed_chunk_rows);
  const index_t row = first + threadIdx.x;
  const index_t length = row < last ? row_ptr[row + 1] - row_ptr[row] : 0;
  const index_t longest = Reduce(storage).Reduce(length, cuda::maximum<index_t>());
  if (threadIdx.x == 0) atomicMax(&facts->longest_row, longest);
  const index_t begin = row_ptr[first], end = row_ptr[last];
  index_t low = INT_MAX, high = INT_MIN;
  for (index_t e = begin + threadIdx.x; e < end; e += pack_threads) {
    low = min(low, col_idx[e]);
    high = max(high, col_idx[e]);
  }
  __syncthreads();  // storage is reused
  low = Reduce(storage).Reduce(low, cuda::minimum<index_t>());
  __syncthreads();
  high = Reduce(storage).Reduce(high, cuda::maximum<index_t>());
  if (threadIdx.x == 0) {
    lowest = end > begin ? low : 0;
    base[blockIdx.x] = lowest;
    if (end > begin && high - low > max_packed_span) atomicMax(&facts->too_wide, 1);
  }
  __syncthreads();
  if (end > begin && high - lowest > max_packed_span) return;  // left unpacked
  for (index_t e = begin + threadIdx.x; e < end; e += pack_threads)
    offset[e] = static_cast<std::uint16_t>(col_idx[e] - lowest);
}

}  // namespace

bool worth_packing(std::int64_t nnz, index_t rows, std::int64_t min_entries) {
  return nnz > 0 && nnz >= min_entries && nnz <= std::int64_t(max_mean_row) * rows;
}

template <typename T>
void prepare_for_row_kernels(DeviceCsr<T>& M, cudaStream_t stream, std::int64_t min_entries) {
  M.packed = {};
  if (!worth_packing(M.nnz(), M.rows, min_entries)) {
    if (M.max_row_length < 0) M.max_row_length = max_row_length(M, stream);
    M.packed.judged = M.col_idx.data();
    return;
  }
  const index_t chunks = (M.rows + packed_chunk_rows - 1) / packed_chunk_rows;
  PackedColumns packed;
  packed.offset = DeviceBuffer<std::uint16_t>(M.nnz(), stream, "packed column offsets");
  packed.base = DeviceBuffer<index_t>(chunks, stream, "packed column bases");
  DeviceBuffer<PackFacts> facts(1, stream, "packing facts");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(facts.data(), 0, sizeof(PackFacts), stream));
  pack_chunks<<<chunks, pack_threads, 0, stream>>>(M.rows, M.row_ptr.data(), M.col_idx.data(),
                                                   packed.offset.data(), packed.base.data(),
                                                   facts.data());
  BINAMG_CHECK_LAUNCH();
  const PackFacts found = read_back(facts.data(), stream);
  M.max_row_length = found.longest_row;
  if (!found.too_wide) M.packed = std::move(packed);
  M.packed.judged = M.col_idx.data();
}

template void prepare_for_row_kernels<float>(DeviceCsr<float>&, cudaStream_t, std::int64_t);
template void prepare_for_row_kernels<double>(DeviceCsr<double>&, cudaStream_t, std::int64_t);

}  // namespace binamg
