// GPU twin of tentative_qr(): a warp per aggregate runs the host's QR
// (amg/aggregate_qr.hpp) in the same order of sums, so P and the coarse
// vectors are the same bits.
#include <string>

#include "binamg/amg/aggregate_qr.hpp"
#include "binamg/amg/incidence.hpp"
#include "binamg/amg/tentative_qr.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"
#include "binamg/core/scan.hpp"
#include "binamg/sparse/transpose.hpp"

namespace binamg {
namespace {

constexpr int qr_threads = 128;

__global__ void positions_of(index_t n, const index_t* rows, index_t* position) {
  const index_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < n) position[rows[p]] = p;
}

// Σ over the warp's lanes of `part`, in qr_detail::lane_sum's tree; every lane gets it.
__device__ double warp_sum(double part) {
  for (int offset = qr_detail::kQrLanes / 2; offset > 0; offset /= 2)
    part = part + __shfl_down_sync(0xffffffffu, part, offset);
  return __shfl_sync(0xffffffffu, part, 0);
}

// One warp per aggregate: qr_detail::aggregate_qr with lane l on rows l, l+32,
// … (the same sums in the same order), lane 0 writing R, the kept columns, the
// rank, and the first empty aggregate and the first without a kept column in
// problems[0] and [1] (atomicMin).
__global__ void aggregate_qrs(index_t count, const index_t* start, const index_t* rows,
                              const double* B, int k, double* q_all, double* r_all,
                              unsigned* kept_all, index_t* rank, index_t* problems) {
  const std::int64_t a = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (a >= count) return;  // whole warps: blockDim is a multiple of 32
  const index_t m = start[a + 1] - start[a];
  const index_t* members = rows + start[a];
  double* q = q_all + static_cast<std::int64_t>(start[a]) * k;
  double* r = r_all + a * k * k;
  unsigned kept = 0;
  for (int j = 0; j < k; ++j) {
    double part = 0;
    for (index_t s = lane; s < m; s += 32) {
      const double v = B[static_cast<std::int64_t>(members[s]) * k + j];
      q[s * k + j] = v;
      part = fma(v, v, part);
    }
    const double norm0 = warp_sum(part);
    if (lane == 0)
      for (int l = 0; l < k; ++l) r[j * k + l] = 0;
    for (int l = 0; l < j; ++l) {
      if (!(kept >> l & 1u)) continue;
      part = 0;
      for (index_t s = lane; s < m; s += 32) part = fma(q[s * k + l], q[s * k + j], part);
      const double dot = warp_sum(part);
      if (lane == 0) r[l * k + j] = dot;
      for (index_t s = lane; s < m; s += 32) q[s * k + j] = fma(-dot, q[s * k + l], q[s * k + j]);
    }
    part = 0;
    for (index_t s = lane; s < m; s += 32) part = fma(q[s * k + j], q[s * k + j], part);
    const double norm = sqrt(warp_sum(part));
    if (norm0 > 0 && norm > qr_detail::kRankTolerance * sqrt(norm0)) {
      kept |= 1u << j;
      if (lane == 0) r[j * k + j] = norm;
      for (index_t s = lane; s < m; s += 32) q[s * k + j] = q[s * k + j] / norm;
    } else {
      for (index_t s = lane; s < m; s += 32) q[s * k + j] = 0;
    }
  }
  if (lane == 0) {
    kept_all[a] = kept;
    rank[a] = qr_detail::kept_count(kept);
    if (m == 0) atomicMin(problems, index_t(a));
    if (m > 0 && rank[a] == 0) atomicMin(problems + 1, index_t(a));
  }
}

__global__ void row_lengths(index_t n, const index_t* aggregate_of, const index_t* rank,
                            index_t* length) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) length[i] = rank[aggregate_of[i]];
}

// One thread per row of P: Q's kept columns at the row's place in its aggregate.
template <typename T>
__global__ void fill_prolongator(index_t n, int k, const index_t* aggregate_of,
                                 const index_t* position, const unsigned* kept,
                                 const index_t* coarse_ptr, const double* q, const index_t* row_ptr,
                                 index_t* col_idx, T* values) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const index_t a = aggregate_of[i];
  index_t e = row_ptr[i], column = coarse_ptr[a];
  for (int j = 0; j < k; ++j)
    if (kept[a] >> j & 1u) {
      col_idx[e] = column++;
      values[e++] = static_cast<T>(q[static_cast<std::int64_t>(position[i]) * k + j]);
    }
}

// One thread per aggregate: R's kept rows become its coarse rows.
__global__ void fill_coarse_vectors(index_t count, int k, const unsigned* kept,
                                    const index_t* coarse_ptr, const double* r, double* vectors) {
  const index_t a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= count) return;
  index_t t = coarse_ptr[a];
  for (int j = 0; j < k; ++j)
    if (kept[a] >> j & 1u) {
      for (int l = 0; l < k; ++l)
        vectors[static_cast<std::int64_t>(t) * k + l] =
            l < j ? 0.0 : r[(static_cast<std::int64_t>(a) * k + j) * k + l];
      ++t;
    }
}

}  // namespace

DeviceCandidates to_device(const Candidates& host, cudaStream_t stream) {
  DeviceCandidates device;
  device.k = host.k;
  device.vectors = to_device(host.vectors, stream);
  device.node_ptr = to_device(host.node_ptr, stream);
  return device;
}

Candidates to_host(const DeviceCandidates& device) {
  Candidates host;
  host.k = device.k;
  host.vectors = to_host(device.vectors);
  host.node_ptr = to_host(device.node_ptr);
  return host;
}

template <typename T>
DeviceSystemTentative<T> tentative_qr(const DeviceAggregates& aggregates,
                                      const DeviceCandidates& candidates, cudaStream_t stream) {
  const index_t n = checked_index(static_cast<std::int64_t>(aggregates.aggregate_of.size()),
                                  "tentative_qr: rows");
  const index_t k = candidates.k, count = aggregates.count;
  qr_detail::require_candidate_values(n, k, candidates.vectors.size());
  const DeviceCsr<float> members = transpose(
      incidence_matrix<float>(aggregates.aggregate_of, count, "tentative_qr", stream), stream);
  DeviceBuffer<index_t> position(n, stream, "tentative_qr positions");
  DeviceBuffer<double> q(std::size_t(n) * k, stream, "tentative_qr Q");
  DeviceBuffer<double> r(std::size_t(count) * k * k, stream, "tentative_qr R");
  DeviceBuffer<unsigned> kept(count, stream, "tentative_qr kept columns");
  DeviceBuffer<index_t> rank(count, stream, "tentative_qr ranks");
  DeviceBuffer<index_t> problems(2, stream, "tentative_qr checks");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(problems.data(), 0x7f, 2 * sizeof(index_t), stream));
  if (n > 0) {
    positions_of<<<blocks_for(n, qr_threads), qr_threads, 0, stream>>>(n, members.col_idx.data(),
                                                                       position.data());
    BINAMG_CHECK_LAUNCH();
  }
  if (count > 0) {
    aggregate_qrs<<<blocks_for(std::int64_t(count) * 32, qr_threads), qr_threads, 0, stream>>>(
        count, members.row_ptr.data(), members.col_idx.data(), candidates.vectors.data(), int(k),
        q.data(), r.data(), kept.data(), rank.data(), problems.data());
    BINAMG_CHECK_LAUNCH();
  }
  DeviceSystemTentative<T> result;
  DeviceCandidates& coarse = result.coarse;
  coarse.k = k;
  coarse.node_ptr = DeviceBuffer<index_t>(std::size_t(count) + 1, stream, "coarse nodes");
  const index_t coarse_rows = offsets_from_counts(rank.data(), count, coarse.node_ptr.data(),
                                                  "tentative_qr: coarse rows", stream);
  index_t first[2];
  read_back(first, problems.data(), sizeof first, stream);
  require(first[0] >= count, "tentative_qr: aggregate " + std::to_string(first[0]) + " is empty");
  if (first[1] < count) {
    index_t row = 0, begin = 0;
    read_back(&begin, members.row_ptr.data() + first[1], sizeof(index_t), stream);
    read_back(&row, members.col_idx.data() + begin, sizeof(index_t), stream);
    throw InvalidInput("tentative_qr: the near-nullspace vectors vanish on aggregate " +
                       std::to_string(first[1]) + " (rows " + std::to_string(row) +
                       " ...): every node needs a nonzero vector");
  }
  coarse.vectors = DeviceBuffer<double>(std::size_t(coarse_rows) * k, stream, "coarse vectors");
  if (count > 0) {
    fill_coarse_vectors<<<blocks_for(count, qr_threads), qr_threads, 0, stream>>>(
        count, int(k), kept.data(), coarse.node_ptr.data(), r.data(), coarse.vectors.data());
    BINAMG_CHECK_LAUNCH();
  }
  DeviceCsr<T>& P = result.P;
  P.rows = n;
  P.cols = coarse_rows;
  P.row_ptr = DeviceBuffer<index_t>(std::size_t(n) + 1, stream, "tentative_qr row_ptr");
  {
    DeviceBuffer<index_t> length(n, stream, "tentative_qr row lengths");
    if (n > 0) {
      row_lengths<<<blocks_for(n, qr_threads), qr_threads, 0, stream>>>(
          n, aggregates.aggregate_of.data(), rank.data(), length.data());
      BINAMG_CHECK_LAUNCH();
    }
    const index_t nnz = offsets_from_counts(length.data(), n, P.row_ptr.data(),
                                            "tentative_qr: nonzeros of P", stream);
    P.allocate_entries(nnz, stream, "tentative_qr entries");
  }
  if (n > 0) {
    fill_prolongator<<<blocks_for(n, qr_threads), qr_threads, 0, stream>>>(
        n, int(k), aggregates.aggregate_of.data(), position.data(), kept.data(),
        coarse.node_ptr.data(), q.data(), P.row_ptr.data(), P.col_idx.data(), P.values.data());
    BINAMG_CHECK_LAUNCH();
  }
  return result;
}

#define BINAMG_INSTANTIATE(T)                                                \
  template DeviceSystemTentative<T> tentative_qr<T>(const DeviceAggregates&, \
                                                    const DeviceCandidates&, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
