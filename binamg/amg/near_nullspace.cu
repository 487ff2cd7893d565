// The finest level's near-nullspace vectors on the GPU: uploaded once and
// checked there. On the host, the check and a copy of B cost more than the
// rest of a beam's tentative phase (docs/experiments.md).
#include <cstdint>
#include <string>
#include <vector>

#include "binamg/amg/near_nullspace_check.hpp"
#include "binamg/amg/tentative_qr.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"

namespace binamg {
namespace {

// The Gram matrix is summed in kGramChunks partial sums per entry, each over
// a fixed range of rows: a fixed order on every GPU, so the same bits.
constexpr int kGramChunks = 128;
constexpr int kGramThreads = 256;

// Block (c, p) sums B(i, j)·B(i, l) over chunk c's rows for the p-th pair
// l ≤ j (row-major lower triangle), in a fixed tree; blocks with j = l also
// record the first non-finite entry of column j (atomicMin: the smallest).
__global__ void gram_partials(std::int64_t rows, int k, const double* B, double* partial,
                              unsigned long long* first_bad) {
  __shared__ double sums[kGramThreads];
  int p = blockIdx.y, j = 0;
  while (p > j) p -= ++j;
  const int l = p;
  const std::int64_t chunk_rows = (rows + kGramChunks - 1) / kGramChunks;
  const std::int64_t begin = blockIdx.x * chunk_rows;
  const std::int64_t end = begin + chunk_rows < rows ? begin + chunk_rows : rows;
  double sum = 0;
  for (std::int64_t i = begin + threadIdx.x; i < end; i += kGramThreads) {
    const double bj = B[i * k + j];
    if (j == l && !isfinite(bj)) atomicMin(first_bad, static_cast<unsigned long long>(i * k + j));
    sum = fma(bj, B[i * k + l], sum);
  }
  sums[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kGramThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) sums[threadIdx.x] += sums[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.y * kGramChunks + blockIdx.x] = sums[0];
}

__global__ void strided_offsets(index_t count, index_t stride, index_t* offsets) {
  const index_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < count) offsets[p] = p * stride;
}

// One vector per component: B(i, i mod b) = 1, the rest 0.
__global__ void component_vectors(std::int64_t entries, int b, double* B) {
  const std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < entries) B[e] = (e / b) % b == e % b ? 1.0 : 0.0;
}

// Throws as validate_near_nullspace() does unless the rows × k vectors in
// device memory are finite and independent.
void check_vectors(const DeviceBuffer<double>& B, index_t rows, index_t k, const std::string& what,
                   cudaStream_t stream) {
  const int pairs = int(k * (k + 1) / 2);
  DeviceBuffer<double> partial(std::size_t(pairs) * kGramChunks, stream, "Gram partial sums");
  DeviceBuffer<unsigned long long> first_bad(1, stream, "first non-finite entry");
  BINAMG_CUDA_CHECK(
      cudaMemsetAsync(first_bad.data(), 0xff, sizeof(unsigned long long), stream));
  gram_partials<<<dim3(kGramChunks, pairs), kGramThreads, 0, stream>>>(
      rows, int(k), B.data(), partial.data(), first_bad.data());
  BINAMG_CHECK_LAUNCH();
  const unsigned long long bad = read_back(first_bad.data(), stream);
  if (bad != ~0ull) near_nullspace_detail::throw_non_finite(std::int64_t(bad), k, what);
  std::vector<double> sums(partial.size());
  read_back(sums.data(), partial.data(), sums.size() * sizeof(double), stream);
  std::vector<double> G(std::size_t(k) * k, 0.0);
  for (int j = 0, p = 0; j < k; ++j)
    for (int l = 0; l <= j; ++l, ++p)
      for (int c = 0; c < kGramChunks; ++c) G[j * k + l] += sums[p * kGramChunks + c];
  near_nullspace_detail::require_independent(G, k, what);
}

}  // namespace

DeviceCandidates finest_candidates(const NearNullspace& nullspace, index_t rows,
                                   cudaStream_t stream) {
  const std::string what = "build_hierarchy: near_nullspace";
  near_nullspace_detail::require_shape(nullspace, rows, what);
  const index_t b = nullspace.block_size, nodes = rows / b;
  DeviceCandidates c;
  c.node_ptr = DeviceBuffer<index_t>(std::size_t(nodes) + 1, stream, "finest nodes");
  strided_offsets<<<blocks_for(nodes + 1, 256), 256, 0, stream>>>(nodes + 1, b,
                                                                   c.node_ptr.data());
  BINAMG_CHECK_LAUNCH();
  if (nullspace.count > 0) {
    c.k = nullspace.count;
    c.vectors = to_device(nullspace.vectors, stream);
    check_vectors(c.vectors, rows, c.k, what, stream);
    return c;
  }
  c.k = b;
  const std::int64_t entries = std::int64_t(rows) * b;
  c.vectors = DeviceBuffer<double>(std::size_t(entries), stream, "finest near-nullspace vectors");
  component_vectors<<<blocks_for(entries, 256), 256, 0, stream>>>(entries, int(b),
                                                                  c.vectors.data());
  BINAMG_CHECK_LAUNCH();
  return c;
}

}  // namespace binamg
