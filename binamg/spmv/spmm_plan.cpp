// Planned SpMM on the host: the blocks of rows, the choice of their shape, and
// the CPU reference of the GPU's algorithm (spmv/spmm_plan.cu).
#include "binamg/spmv/spmm_plan.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "binamg/core/error.hpp"

namespace binamg {
namespace {

using spmm_plan_detail::BlockTiling;
using spmm_plan_detail::kMaxChunkColumns;
using spmm_plan_detail::kPlaceBits;
using spmm_plan_detail::kPlaceMask;
using spmm_plan_detail::kRowsPerBlock;
using spmm_plan_detail::padded_union_size;

// One nonzero of a block: its column, its row's place in the block, its value.
struct BlockEntry {
  index_t column;
  int row_in_block;
  double value;
};

// The block's nonzeros sorted by column, then by row in the block.
void gather_block(const CsrMatrix<double>& A, const BlockTiling& tiling, std::int64_t block,
                  std::vector<BlockEntry>& entries) {
  entries.clear();
  for (int r = 0; r < kRowsPerBlock; ++r) {
    const index_t row = tiling.row_of(block, r);
    if (row >= 0)
      for (index_t e = A.row_ptr[row]; e < A.row_ptr[row + 1]; ++e)
        entries.push_back({A.col_idx[e], r, A.values[e]});
  }
  std::sort(entries.begin(), entries.end(), [](const BlockEntry& a, const BlockEntry& b) {
    return a.column != b.column ? a.column < b.column : a.row_in_block < b.row_in_block;
  });
}

std::int64_t distinct_columns(const std::vector<BlockEntry>& entries) {
  std::int64_t distinct = 0;
  for (std::size_t i = 0; i < entries.size(); ++i)
    distinct += i == 0 || entries[i].column != entries[i - 1].column;
  return distinct;
}

// Union columns per row over the sampled blocks.
double sampled_union_per_row(const CsrMatrix<double>& A, SpmmBlockShape shape) {
  const BlockTiling tiling{A.rows, shape};
  std::vector<BlockEntry> entries;
  std::int64_t columns = 0, rows = 0;
  for (int s = 0; s < spmm_plan_detail::kShapeSamples; ++s) {
    const std::int64_t block = spmm_plan_detail::sampled_block(tiling, s);
    gather_block(A, tiling, block, entries);
    columns += padded_union_size(distinct_columns(entries));
    for (int r = 0; r < kRowsPerBlock; ++r) rows += tiling.row_of(block, r) >= 0;
  }
  return rows ? double(columns) / rows : 0;
}

}  // namespace

double spmm_plan_bytes(std::int64_t nnz, std::int64_t union_columns, std::int64_t chunks) {
  return double(nnz) * (sizeof(std::uint16_t) + sizeof(double)) +
         double(union_columns + chunks * kRowsPerBlock + 2 * (chunks + 1)) * sizeof(index_t);
}

double SpmmPlanLayout::bytes() const {
  return spmm_plan_bytes(std::int64_t(codes.size()), std::int64_t(union_columns.size()), chunks());
}

namespace spmm_plan_detail {

void check_block_shape(SpmmBlockShape shape, const char* what) {
  const std::string name(what);
  require(shape.lines == 1 || shape.lines == 2 || shape.lines == 4,
          name + ": a block takes 1, 2 or 4 lines, not " + std::to_string(shape.lines));
  require(shape.lines == 1 || shape.line_length > 0,
          name + ": the line length must be positive, got " + std::to_string(shape.line_length));
}

std::vector<SpmmBlockShape> candidate_shapes(const index_t* columns, index_t count, index_t rows) {
  std::vector<SpmmBlockShape> candidates;
  const index_t middle = rows / 2;
  for (int lines : {4, 2})
    for (index_t i = 0; i < count; ++i) {
      const std::int64_t offset = std::int64_t(columns[i]) - middle;
      if (offset >= kRowsPerBlock / 2 && offset <= rows / 2)
        candidates.push_back(SpmmBlockShape{lines, index_t(offset)});
    }
  candidates.push_back(SpmmBlockShape{});
  return candidates;
}

SpmmBlockShape pick_shape(const std::vector<SpmmBlockShape>& candidates,
                          const std::vector<double>& union_per_row) {
  SpmmBlockShape best;
  double best_size = 1e300;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (union_per_row[i] < best_size * (1 - 1e-3)) best_size = union_per_row[i], best = candidates[i];
  return best;
}

}  // namespace spmm_plan_detail

SpmmBlockShape choose_spmm_block_shape(const CsrMatrix<double>& A) {
  validate(A, "choose_spmm_block_shape");
  if (A.rows < 2 * kRowsPerBlock || A.nnz() == 0) return SpmmBlockShape{};
  const index_t middle = A.rows / 2;
  const auto candidates = spmm_plan_detail::candidate_shapes(
      A.col_idx.data() + A.row_ptr[middle], A.row_length(middle), A.rows);
  std::vector<double> sizes;
  for (const SpmmBlockShape& shape : candidates) sizes.push_back(sampled_union_per_row(A, shape));
  return spmm_plan_detail::pick_shape(candidates, sizes);
}

SpmmPlanLayout plan_spmm_blocks(const CsrMatrix<double>& A, SpmmBlockShape shape) {
  validate(A, "plan_spmm_blocks");
  spmm_plan_detail::check_block_shape(shape, "plan_spmm_blocks");
  SpmmPlanLayout plan;
  plan.rows = A.rows, plan.cols = A.cols, plan.nnz = A.nnz(), plan.shape = shape;
  const BlockTiling tiling{A.rows, shape};
  const std::int64_t blocks = tiling.blocks();
  plan.blocks = checked_index(blocks, "plan_spmm_blocks: blocks");
  checked_index(blocks * kRowsPerBlock, "plan_spmm_blocks: rows of the blocks");
  plan.chunk_rows.reserve(std::size_t(blocks) * kRowsPerBlock);
  plan.codes.reserve(std::size_t(A.nnz()));
  plan.values.reserve(std::size_t(A.nnz()));
  plan.union_offset.push_back(0);
  plan.entry_offset.push_back(0);
  std::vector<BlockEntry> entries;
  for (std::int64_t b = 0; b < blocks; ++b) {
    gather_block(A, tiling, b, entries);
    std::size_t next = 0;
    do {  // one chunk of at most kMaxChunkColumns columns; an empty block gets one empty chunk
      for (int r = 0; r < kRowsPerBlock; ++r)
        plan.chunk_rows.push_back(next == 0 ? tiling.row_of(b, r) : SpmmPlanLayout::kContinuation);
      const std::size_t first = next;
      const std::size_t union_first = plan.union_columns.size();
      // Codes by column, then row: the order in which the GPU build merges the rows.
      for (; next < entries.size(); ++next) {
        const bool new_column = next == first || entries[next].column != entries[next - 1].column;
        if (new_column && plan.union_columns.size() - union_first == kMaxChunkColumns) break;
        if (new_column) plan.union_columns.push_back(entries[next].column);
        const std::size_t place = plan.union_columns.size() - union_first - 1;
        plan.codes.push_back(std::uint16_t(entries[next].row_in_block << kPlaceBits | place));
        plan.values.push_back(entries[next].value);
      }
      while ((plan.union_columns.size() - union_first) % 4)
        plan.union_columns.push_back(plan.union_columns.back());
      plan.union_offset.push_back(
          checked_index(std::int64_t(plan.union_columns.size()), "plan_spmm_blocks: union columns"));
      plan.entry_offset.push_back(index_t(plan.codes.size()));
    } while (next < entries.size());
  }
  return plan;
}

void spmm_reference(const SpmmPlanLayout& plan, const std::vector<double>& X, index_t k,
                    std::vector<double>& Y) {
  require(k > 0, "spmm_reference: k = " + std::to_string(k) + " must be positive");
  require(X.size() == std::size_t(plan.cols) * k,
          "spmm_reference: X has " + std::to_string(X.size()) + " entries, expected cols x k = " +
              std::to_string(std::int64_t(plan.cols) * k));
  Y.assign(std::size_t(plan.rows) * k, 0.0);
  std::vector<double> tile;
  for (index_t head = 0; head < plan.chunks(); ++head) {
    if (plan.continues_block(head)) continue;
    index_t end = head + 1;  // the block's chunks: head .. end - 1
    while (end < plan.chunks() && plan.continues_block(end)) ++end;
    for (int r = 0; r < kRowsPerBlock; ++r) {
      const index_t row = plan.chunk_rows[std::size_t(head) * kRowsPerBlock + r];
      if (row < 0) continue;
      for (index_t j = 0; j < k; ++j) {
        // The tensor cores' chain: every union column of every chunk, zeros included.
        double sum = 0;
        for (index_t c = head; c < end; ++c) {
          const index_t u0 = plan.union_offset[c], width = plan.union_offset[c + 1] - u0;
          tile.assign(std::size_t(width), 0.0);
          for (index_t e = plan.entry_offset[c]; e < plan.entry_offset[c + 1]; ++e)
            if (plan.codes[e] >> kPlaceBits == r) tile[plan.codes[e] & kPlaceMask] = plan.values[e];
          for (index_t u = 0; u < width; ++u)
            sum = std::fma(tile[u], X[std::size_t(plan.union_columns[u0 + u]) * k + j], sum);
        }
        if (!std::isfinite(sum)) {  // the row's own chain, as the GPU's fix-up
          sum = 0;
          for (index_t c = head; c < end; ++c)
            for (index_t e = plan.entry_offset[c]; e < plan.entry_offset[c + 1]; ++e)
              if (plan.codes[e] >> kPlaceBits == r)
                sum = std::fma(plan.values[e],
                               X[std::size_t(plan.union_columns[plan.union_offset[c] +
                                                                (plan.codes[e] & kPlaceMask)]) * k + j],
                               sum);
        }
        Y[std::size_t(row) * k + j] = sum;
      }
    }
  }
}

}  // namespace binamg
