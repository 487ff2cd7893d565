// Planned SpMM on the GPU (spmv/spmm_plan.hpp). A warp owns a block of 8
// rows and a panel of K columns of Y. Per chunk of the block's union it scatters
// the nonzeros into a dense 8 × union tile in shared memory, then walks the
// union 4 columns at a time: the tile's 8 × 4 slice is the MMA's A operand and
// the 4 union rows of X its B operand, over K / 8 column tiles.
//
// X is read so that each quarter-warp loads 128 contiguous bytes of one union
// row (one L1 wavefront); the B fragment wants each quarter-warp to span the 4
// rows, which would cost 4 wavefronts per quarter, so the lanes exchange the
// loaded pairs by shuffles instead, which measured faster (docs/experiments.md).
#include <cstdint>
#include <string>

#include "binamg/core/cuda_check.hpp"
#include "binamg/core/error.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/spmv/spmm_plan.hpp"

namespace binamg {
namespace {

using spmm_plan_detail::kContinuation;
using spmm_plan_detail::kMaxChunkColumns;
using spmm_plan_detail::kPlaceBits;
using spmm_plan_detail::kPlaceMask;
using spmm_plan_detail::kRowsPerBlock;
constexpr int kWarpsPerBlock = 4;
// 7 thread blocks of 4 warps per SM fit the registers (72) and shared memory
// (27 KB each); 6 or 8 were slower at k = 64 (docs/experiments.md).
constexpr int kMinBlocksPerSm = 7;
// Tile rows 4 doubles apart modulo 16: the 8 × 4 slice of a step reads 32
// distinct banks (two 16-lane halves of 64-bit loads).
constexpr int kTileStride = kMaxChunkColumns + 4;

__device__ __forceinline__ void mma_m8n8k4(double a, double b, double& d0, double& d1) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
               : "+d"(d0), "+d"(d1)
               : "d"(a), "d"(b));
}

struct PlanArrays {
  const index_t* __restrict__ chunk_rows;
  const index_t* __restrict__ union_offset;
  const index_t* __restrict__ union_columns;
  const index_t* __restrict__ entry_offset;
  const std::uint16_t* __restrict__ codes;
  const double* __restrict__ values;
  index_t chunks;
  __device__ bool continues_block(index_t chunk) const {
    return chunk < chunks &&
           chunk_rows[std::int64_t(chunk) * kRowsPerBlock] == kContinuation;
  }
};

// Y(row, c) by the row's own chain of fma's: the entries of `slot` in the
// chunks from `head` on, in column order.
__device__ double own_chain(const PlanArrays& plan, index_t head, int slot, const double* X,
                            index_t ld, int c) {
  double sum = 0;
  index_t chunk = head;
  do {
    for (index_t e = plan.entry_offset[chunk]; e < plan.entry_offset[chunk + 1]; ++e) {
      const unsigned code = plan.codes[e];
      if (int(code >> kPlaceBits) != slot) continue;
      const index_t column = plan.union_columns[plan.union_offset[chunk] + (code & kPlaceMask)];
      sum = fma(plan.values[e], X[std::int64_t(column) * ld + c], sum);
    }
  } while (plan.continues_block(++chunk));
  return sum;
}

// Y[:, 0:K] = A X[:, 0:K] for X, Y already offset to the panel; ld = k. A warp
// per chunk; the warp of a block's first chunk sums on over its continuations.
template <int K>
__global__ void __launch_bounds__(kWarpsPerBlock * 32, kMinBlocksPerSm)
    planned_spmm_kernel(const index_t* __restrict__ chunk_rows,
                        const index_t* __restrict__ union_offset,
                        const index_t* __restrict__ union_columns,
                        const index_t* __restrict__ entry_offset,
                        const std::uint16_t* __restrict__ codes, const double* __restrict__ values,
                        index_t chunks, const double* __restrict__ X, index_t ld,
                        double* __restrict__ Y) {
  // Kernel parameters, not struct members, carry __restrict__ to the loads
  // (read-only path, measurably faster at k = 64); the struct serves the rare
  // paths.
  const PlanArrays plan{chunk_rows, union_offset, union_columns, entry_offset, codes, values, chunks};
  static_assert(K % 16 == 0, "a lane moves pairs of 8 column tiles");
  constexpr int kPairs = K / 16;
  __shared__ double2 tiles[kWarpsPerBlock][kRowsPerBlock * kTileStride / 2];
  __shared__ index_t unions[kWarpsPerBlock][kMaxChunkColumns];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const index_t head = index_t(blockIdx.x) * kWarpsPerBlock + warp;
  if (head >= chunks) return;
  const int group = lane >> 2, quad = lane & 3;  // the MMA fragments' row and column
  // The same for all lanes of a continuation chunk, which another warp sums.
  const index_t row = chunk_rows[std::int64_t(head) * kRowsPerBlock + group];
  if (row == kContinuation) return;
  double* tile = reinterpret_cast<double*>(tiles[warp]);
  index_t* columns = unions[warp];
  const int source = 8 * quad + group;  // the lane that loads this lane's B pairs
  // d[t][i]: row `group`, column tile t, tile column 2 quad + i. Tile 2p + h
  // holds the panel's columns 16p + 2n + h, n = 0..7.
  double d[2 * kPairs][2];
#pragma unroll
  for (int t = 0; t < 2 * kPairs; ++t) d[t][0] = d[t][1] = 0;
  index_t chunk = head;
  do {
    __syncwarp();  // the last chunk's steps are done with the tile
    for (int i = lane; i < kRowsPerBlock * kTileStride / 2; i += 32)
      tiles[warp][i] = make_double2(0, 0);
    const index_t u0 = union_offset[chunk], width = union_offset[chunk + 1] - u0;
    for (int i = lane; i < width; i += 32) columns[i] = union_columns[u0 + i];
    __syncwarp();
    for (index_t e = entry_offset[chunk] + lane; e < entry_offset[chunk + 1]; e += 32) {
      const unsigned code = codes[e];
      tile[(code >> kPlaceBits) * kTileStride + (code & kPlaceMask)] = values[e];
    }
    __syncwarp();
    for (int step = 0; step < width; step += 4) {
      const double a = tile[group * kTileStride + step + quad];
      // Quarter-warp q loads union row step + q, pairs 8p + (lane & 7).
      const double2* x =
          reinterpret_cast<const double2*>(X + std::int64_t(columns[step + (lane >> 3)]) * ld) +
          (lane & 7);
      double2 b[kPairs];
#pragma unroll
      for (int p = 0; p < kPairs; ++p) b[p] = x[8 * p];
#pragma unroll
      for (int p = 0; p < kPairs; ++p) {
        b[p].x = __shfl_sync(0xffffffffu, b[p].x, source);
        b[p].y = __shfl_sync(0xffffffffu, b[p].y, source);
      }
#pragma unroll
      for (int p = 0; p < kPairs; ++p) {
        mma_m8n8k4(a, b[p].x, d[2 * p][0], d[2 * p][1]);
        mma_m8n8k4(a, b[p].y, d[2 * p + 1][0], d[2 * p + 1][1]);
      }
    }
  } while (plan.continues_block(++chunk));
  if (row < 0) return;
  // d[2p + h][i] is column 16p + 4 quad + 2i + h: 4 consecutive columns per p.
  double* y_row = Y + std::int64_t(row) * ld;
  double2* y = reinterpret_cast<double2*>(y_row + 4 * quad);
  bool finite = true;
#pragma unroll
  for (int p = 0; p < kPairs; ++p) {
    y[8 * p] = make_double2(d[2 * p][0], d[2 * p + 1][0]);
    y[8 * p + 1] = make_double2(d[2 * p][1], d[2 * p + 1][1]);
    finite = finite && isfinite(d[2 * p][0]) && isfinite(d[2 * p][1]) &&
             isfinite(d[2 * p + 1][0]) && isfinite(d[2 * p + 1][1]);
  }
  if (finite) return;
  for (int p = 0; p < kPairs; ++p)
    for (int t = 0; t < 4; ++t) {
      const int c = 16 * p + 4 * quad + t;
      if (!isfinite(y_row[c])) y_row[c] = own_chain(plan, head, group, X, ld, c);
    }
}

template <int K>
void launch_panel(const SpmmPlan& plan, const double* X, index_t k, double* Y,
                  cudaStream_t stream) {
  planned_spmm_kernel<K><<<blocks_for(plan.chunks, kWarpsPerBlock), kWarpsPerBlock * 32, 0,
                           stream>>>(plan.chunk_rows.data(), plan.union_offset.data(),
                                     plan.union_columns.data(), plan.entry_offset.data(),
                                     plan.codes.data(), plan.values.data(), plan.chunks, X, k, Y);
  BINAMG_CHECK_LAUNCH();
}

bool aligned_16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

}  // namespace

SpmmPlan to_device(const SpmmPlanLayout& layout, cudaStream_t stream) {
  SpmmPlan plan;
  plan.rows = layout.rows, plan.cols = layout.cols, plan.nnz = layout.nnz;
  plan.blocks = layout.blocks;
  plan.chunks = layout.chunks();
  plan.shape = layout.shape;
  plan.union_per_row = layout.union_per_row();
  plan.plan_bytes = layout.bytes();
  plan.chunk_rows = to_device(layout.chunk_rows, stream);
  plan.union_offset = to_device(layout.union_offset, stream);
  plan.union_columns = to_device(layout.union_columns, stream);
  plan.entry_offset = to_device(layout.entry_offset, stream);
  plan.codes = to_device(layout.codes, stream);
  plan.values = to_device(layout.values, stream);
  return plan;
}

void spmm(const SpmmPlan& plan, const double* X, index_t k, double* Y, cudaStream_t stream) {
  require(k > 0 && k % 16 == 0, "spmm(plan): k = " + std::to_string(k) +
                                    " is not a positive multiple of 16 (use spmm on the "
                                    "DeviceCsr for it)");
  checked_index(std::int64_t(plan.rows) * k, "spmm(plan): rows x k");
  checked_index(std::int64_t(plan.cols) * k, "spmm(plan): cols x k");
  require(plan.cols == 0 || X != nullptr, "spmm(plan): the input pointer is null");
  require(plan.rows == 0 || Y != nullptr, "spmm(plan): the output pointer is null");
  require(aligned_16(X) && aligned_16(Y),
          "spmm(plan): X and Y must be 16-byte aligned (as cudaMalloc returns them)");
  if (plan.chunks == 0) return;
  index_t done = 0;
  for (; done + 64 <= k; done += 64) launch_panel<64>(plan, X + done, k, Y + done, stream);
  if (done + 32 <= k) launch_panel<32>(plan, X + done, k, Y + done, stream), done += 32;
  if (done < k) launch_panel<16>(plan, X + done, k, Y + done, stream);
}

}  // namespace binamg
