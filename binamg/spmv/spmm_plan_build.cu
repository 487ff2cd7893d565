// The planned SpMM's build on the GPU: the same arrays as plan_spmm_blocks on
// the host (spmv/spmm_plan.cpp), from a DeviceCsr. A warp takes a block:
// lanes 0-7 hold its rows' next columns, and each round takes the least of them
// (one union column) and emits the entries of the rows that hold it, in lane
// order. So entries come by column, then row, as the host orders them. A first
// pass counts each block's chunks, union columns and entries; scans give each
// block its place; a second pass writes.
#include <climits>
#include <string>

#include "binamg/core/cuda_check.hpp"
#include "binamg/core/error.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"
#include "binamg/core/scan.hpp"
#include "binamg/spmv/spmm_plan.hpp"

namespace binamg {
namespace {

using spmm_plan_detail::BlockTiling;
using spmm_plan_detail::chunk_count;
using spmm_plan_detail::kContinuation;
using spmm_plan_detail::kMaxChunkColumns;
using spmm_plan_detail::kPlaceBits;
using spmm_plan_detail::kRowsPerBlock;
using spmm_plan_detail::kShapeSamples;
using spmm_plan_detail::padded_union_size;

constexpr int kWarpsPerBlock = 8;
constexpr unsigned kFullMask = 0xffffffffu;

// Where the second pass writes, and what it reads besides the columns.
struct PlanOutput {
  const index_t* __restrict__ chunk_base;  // per block: its first chunk, union column, entry
  const index_t* __restrict__ union_base;
  const index_t* __restrict__ entry_base;
  const double* __restrict__ values_in;
  index_t* __restrict__ chunk_rows;
  index_t* __restrict__ union_offset;
  index_t* __restrict__ union_columns;
  index_t* __restrict__ entry_offset;
  std::uint16_t* __restrict__ codes;
  double* __restrict__ values;
};

struct MergeCounts {
  index_t distinct;  // union columns before padding
  index_t entries;
};

// Merges block b's rows (the calling warp). With kWrite, writes the block's
// union columns, codes and values, and closes its full chunks.
template <bool kWrite>
__device__ MergeCounts merge_block(const BlockTiling& tiling, std::int64_t b,
                                   const index_t* __restrict__ row_ptr,
                                   const index_t* __restrict__ col_idx, const PlanOutput& out) {
  const int lane = threadIdx.x % 32;
  index_t position = 0, end = 0;
  if (lane < kRowsPerBlock) {
    const index_t row = tiling.row_of(b, lane);
    if (row >= 0) position = row_ptr[row], end = row_ptr[row + 1];
  }
  index_t chunk = 0, union_first = 0, entry_first = 0;  // chunk: lane 0's current chunk
  if constexpr (kWrite) chunk = out.chunk_base[b], union_first = out.union_base[b], entry_first = out.entry_base[b];
  MergeCounts counts{0, 0};
  for (;;) {
    const unsigned head = position < end ? unsigned(col_idx[position]) : UINT_MAX;
    const unsigned column = __reduce_min_sync(kFullMask, head);
    if (column == UINT_MAX) break;
    const unsigned holders = __ballot_sync(kFullMask, head == column);
    if constexpr (kWrite) {
      const index_t place = counts.distinct % kMaxChunkColumns;
      if (lane == 0) {
        if (counts.distinct > 0 && place == 0) {  // the chunk before is full: close it
          out.union_offset[chunk + 1] = union_first + counts.distinct;
          out.entry_offset[chunk + 1] = entry_first + counts.entries;
          ++chunk;
        }
        out.union_columns[union_first + counts.distinct] = index_t(column);
      }
      if (head == column) {
        const index_t e = entry_first + counts.entries + __popc(holders & ((1u << lane) - 1));
        out.codes[e] = std::uint16_t(lane << kPlaceBits | place);
        out.values[e] = out.values_in[position];
      }
    }
    position += head == column;
    counts.entries += __popc(holders);
    ++counts.distinct;
  }
  return counts;
}

// Pass 1: chunks, padded union columns and entries of every block.
__global__ void count_blocks_kernel(BlockTiling tiling, std::int64_t blocks,
                                    const index_t* __restrict__ row_ptr,
                                    const index_t* __restrict__ col_idx,
                                    index_t* __restrict__ chunks, index_t* __restrict__ union_columns,
                                    index_t* __restrict__ entries) {
  const std::int64_t b = std::int64_t(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (b >= blocks) return;
  const MergeCounts counts = merge_block<false>(tiling, b, row_ptr, col_idx, PlanOutput{});
  if (threadIdx.x % 32 == 0) {
    chunks[b] = index_t(chunk_count(counts.distinct));
    union_columns[b] = index_t(padded_union_size(counts.distinct));
    entries[b] = counts.entries;
  }
}

// Pass 2: the arrays. Closes the block's last chunk, pads its union, and names
// its rows in the first chunk's rows (later chunks: kContinuation).
__global__ void write_blocks_kernel(BlockTiling tiling, std::int64_t blocks,
                                    const index_t* __restrict__ row_ptr,
                                    const index_t* __restrict__ col_idx, PlanOutput out) {
  const std::int64_t b = std::int64_t(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (b >= blocks) return;
  const int lane = threadIdx.x % 32;
  const MergeCounts counts = merge_block<true>(tiling, b, row_ptr, col_idx, out);
  const index_t first_chunk = out.chunk_base[b], chunks = out.chunk_base[b + 1] - first_chunk;
  for (index_t i = lane; i < chunks * kRowsPerBlock; i += 32)
    out.chunk_rows[std::int64_t(first_chunk) * kRowsPerBlock + i] =
        i < kRowsPerBlock ? tiling.row_of(b, int(i)) : kContinuation;
  if (lane != 0) return;
  const index_t union_first = out.union_base[b], union_end = out.union_base[b + 1];
  for (index_t u = union_first + counts.distinct; u < union_end; ++u)
    out.union_columns[u] = out.union_columns[u - 1];  // padding: zeros in the tile
  out.union_offset[first_chunk + chunks] = union_end;
  out.entry_offset[first_chunk + chunks] = out.entry_base[b] + counts.entries;
  if (b == 0) out.union_offset[0] = out.entry_offset[0] = 0;
}

// Padded union columns and rows of each candidate's sampled blocks.
__global__ void sample_shapes_kernel(const SpmmBlockShape* __restrict__ shapes, int candidates,
                                     index_t rows, const index_t* __restrict__ row_ptr,
                                     const index_t* __restrict__ col_idx,
                                     index_t* __restrict__ union_columns,
                                     index_t* __restrict__ block_rows) {
  const std::int64_t w = std::int64_t(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (w >= std::int64_t(candidates) * kShapeSamples) return;
  const BlockTiling tiling{rows, shapes[w / kShapeSamples]};
  const std::int64_t b = spmm_plan_detail::sampled_block(tiling, int(w % kShapeSamples));
  const MergeCounts counts = merge_block<false>(tiling, b, row_ptr, col_idx, PlanOutput{});
  if (threadIdx.x % 32 == 0) {
    union_columns[w] = index_t(padded_union_size(counts.distinct));
    index_t present = 0;
    for (int slot = 0; slot < kRowsPerBlock; ++slot) present += tiling.row_of(b, slot) >= 0;
    block_rows[w] = present;
  }
}

}  // namespace

SpmmBlockShape choose_spmm_block_shape(const DeviceCsr<double>& A, cudaStream_t stream) {
  require_consistent(A, "choose_spmm_block_shape: A");
  if (A.rows < 2 * kRowsPerBlock || A.nnz() == 0) return SpmmBlockShape{};
  const index_t middle = A.rows / 2;
  index_t bounds[2];
  read_back(bounds, A.row_ptr.data() + middle, sizeof(bounds), stream);
  std::vector<index_t> columns(std::size_t(bounds[1] - bounds[0]));
  if (!columns.empty())
    read_back(columns.data(), A.col_idx.data() + bounds[0], columns.size() * sizeof(index_t), stream);
  const std::vector<SpmmBlockShape> candidates =
      spmm_plan_detail::candidate_shapes(columns.data(), index_t(columns.size()), A.rows);
  const DeviceBuffer<SpmmBlockShape> shapes = to_device(candidates, stream);
  const std::int64_t warps = std::int64_t(candidates.size()) * kShapeSamples;
  DeviceBuffer<index_t> union_columns(std::size_t(warps), stream, "shape samples");
  DeviceBuffer<index_t> block_rows(std::size_t(warps), stream, "shape samples");
  sample_shapes_kernel<<<blocks_for(warps, kWarpsPerBlock), kWarpsPerBlock * 32, 0, stream>>>(
      shapes.data(), int(candidates.size()), A.rows, A.row_ptr.data(), A.col_idx.data(),
      union_columns.data(), block_rows.data());
  BINAMG_CHECK_LAUNCH();
  const std::vector<index_t> sampled_columns = to_host(union_columns);
  const std::vector<index_t> sampled_rows = to_host(block_rows);
  std::vector<double> sizes;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    std::int64_t columns_sum = 0, rows_sum = 0;  // in the host's order: the same double
    for (int s = 0; s < kShapeSamples; ++s) {
      columns_sum += sampled_columns[c * kShapeSamples + s];
      rows_sum += sampled_rows[c * kShapeSamples + s];
    }
    sizes.push_back(rows_sum ? double(columns_sum) / rows_sum : 0);
  }
  return spmm_plan_detail::pick_shape(candidates, sizes);
}

SpmmPlan plan_spmm_blocks(const DeviceCsr<double>& A, SpmmBlockShape shape, cudaStream_t stream) {
  require_consistent(A, "plan_spmm_blocks: A");
  spmm_plan_detail::check_block_shape(shape, "plan_spmm_blocks");
  const BlockTiling tiling{A.rows, shape};
  const std::int64_t blocks = tiling.blocks();
  checked_index(blocks * kRowsPerBlock, "plan_spmm_blocks: rows of the blocks");
  SpmmPlan plan;
  plan.rows = A.rows, plan.cols = A.cols, plan.nnz = A.nnz(), plan.shape = shape;
  plan.blocks = index_t(blocks);
  DeviceBuffer<index_t> chunk_counts(std::size_t(blocks), stream, "plan chunk counts");
  DeviceBuffer<index_t> union_counts(std::size_t(blocks), stream, "plan union counts");
  DeviceBuffer<index_t> entry_counts(std::size_t(blocks), stream, "plan entry counts");
  if (blocks > 0) {
    count_blocks_kernel<<<blocks_for(blocks, kWarpsPerBlock), kWarpsPerBlock * 32, 0, stream>>>(
        tiling, blocks, A.row_ptr.data(), A.col_idx.data(), chunk_counts.data(),
        union_counts.data(), entry_counts.data());
    BINAMG_CHECK_LAUNCH();
  }
  DeviceBuffer<index_t> chunk_base(std::size_t(blocks) + 1, stream, "plan chunk offsets");
  DeviceBuffer<index_t> union_base(std::size_t(blocks) + 1, stream, "plan union offsets");
  DeviceBuffer<index_t> entry_base(std::size_t(blocks) + 1, stream, "plan entry offsets");
  plan.chunks = offsets_from_counts(chunk_counts.data(), index_t(blocks), chunk_base.data(),
                                    "plan_spmm_blocks: chunks", stream);
  const index_t union_total = offsets_from_counts(union_counts.data(), index_t(blocks),
                                                  union_base.data(), "plan_spmm_blocks: union columns",
                                                  stream);
  const index_t entries = offsets_from_counts(entry_counts.data(), index_t(blocks), entry_base.data(),
                                              "plan_spmm_blocks: entries", stream);
  require(entries == A.nnz(), "plan_spmm_blocks: the blocks hold " + std::to_string(entries) +
                                " entries, the matrix " + std::to_string(A.nnz()));
  plan.chunk_rows = DeviceBuffer<index_t>(
      std::size_t(checked_index(std::int64_t(plan.chunks) * kRowsPerBlock, "plan_spmm_blocks: chunk rows")),
      stream, "plan chunk rows");
  plan.union_offset = DeviceBuffer<index_t>(std::size_t(plan.chunks) + 1, stream, "plan union offsets");
  plan.union_columns = DeviceBuffer<index_t>(std::size_t(union_total), stream, "plan union columns");
  plan.entry_offset = DeviceBuffer<index_t>(std::size_t(plan.chunks) + 1, stream, "plan entry offsets");
  plan.codes = DeviceBuffer<std::uint16_t>(std::size_t(entries), stream, "plan codes");
  plan.values = DeviceBuffer<double>(std::size_t(entries), stream, "plan values");
  if (blocks > 0) {
    const PlanOutput out{chunk_base.data(),        union_base.data(),        entry_base.data(),
                         A.values.data(),          plan.chunk_rows.data(),   plan.union_offset.data(),
                         plan.union_columns.data(), plan.entry_offset.data(), plan.codes.data(),
                         plan.values.data()};
    write_blocks_kernel<<<blocks_for(blocks, kWarpsPerBlock), kWarpsPerBlock * 32, 0, stream>>>(
        tiling, blocks, A.row_ptr.data(), A.col_idx.data(), out);
    BINAMG_CHECK_LAUNCH();
  } else {
    BINAMG_CUDA_CHECK(cudaMemsetAsync(plan.union_offset.data(), 0, sizeof(index_t), stream));
    BINAMG_CUDA_CHECK(cudaMemsetAsync(plan.entry_offset.data(), 0, sizeof(index_t), stream));
  }
  plan.union_per_row = A.rows ? double(union_total) / A.rows : 0;
  plan.plan_bytes = spmm_plan_bytes(entries, union_total, plan.chunks);
  return plan;
}

SpmmPlan make_spmm_plan(const DeviceCsr<double>& A, cudaStream_t stream) {
  return plan_spmm_blocks(A, choose_spmm_block_shape(A, stream), stream);
}

}  // namespace binamg
