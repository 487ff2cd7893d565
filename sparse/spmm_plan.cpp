// Planned SpMM on the host: the blocks of rows, the choice of their shape, and
// the CPU reference of the GPU's algorithm (sparse/spmm_plan.cu).
#include "sparse/spmm_plan.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"

namespace binamg {
namespace {

constexpr int kRowsPerBlock = SpmmPlanLayout::kRowsPerBlock;
constexpr int kMaxChunkColumns = SpmmPlanLayout::kMaxChunkColumns;
constexpr int kPlaceBits = 8;  // codes: row in block << kPlaceBits | place
static_assert(kMaxChunkColumns <= (1 << kPlaceBits), "a place must fit its bits");

// The tiling of rows into blocks of a shape: bands of `lines` lines, each
// band cut across into blocks of rows_per_line consecutive rows per line.
struct BlockTiling {
  index_t rows;
  SpmmBlockShape shape;
  index_t rows_per_line() const { return kRowsPerBlock / shape.lines; }
  index_t blocks_per_band() const {
    return shape.lines == 1 ? 1 : (shape.line_length + rows_per_line() - 1) / rows_per_line();
  }
  std::int64_t band_rows() const {
    return shape.lines == 1 ? kRowsPerBlock : std::int64_t(shape.lines) * shape.line_length;
  }
  std::int64_t blocks() const {
    return (rows + band_rows() - 1) / band_rows() * blocks_per_band();
  }
  // The rows of block b in block order (line by line), -1 past the matrix or the line.
  void rows_of(std::int64_t b, index_t (&out)[kRowsPerBlock]) const {
    const std::int64_t band = b / blocks_per_band(), across = b % blocks_per_band();
    const index_t per_line = rows_per_line();
    const index_t length = shape.lines == 1 ? kRowsPerBlock : shape.line_length;
    for (int h = 0; h < shape.lines; ++h)
      for (index_t i = 0; i < per_line; ++i) {
        const std::int64_t x = across * per_line + i;
        const std::int64_t row = band * band_rows() + std::int64_t(h) * length + x;
        out[h * per_line + i] = x < length && row < rows ? index_t(row) : -1;
      }
  }
};

// One nonzero of a block: its column, its row's place in the block, its value.
struct BlockEntry {
  index_t column;
  int row_in_block;
  double value;
};

// The block's nonzeros sorted by column, then by row in the block.
void gather_block(const CsrMatrix<double>& A, const index_t (&rows)[kRowsPerBlock],
                  std::vector<BlockEntry>& entries) {
  entries.clear();
  for (int r = 0; r < kRowsPerBlock; ++r)
    if (rows[r] >= 0)
      for (index_t e = A.row_ptr[rows[r]]; e < A.row_ptr[rows[r] + 1]; ++e)
        entries.push_back({A.col_idx[e], r, A.values[e]});
  std::sort(entries.begin(), entries.end(), [](const BlockEntry& a, const BlockEntry& b) {
    return a.column != b.column ? a.column < b.column : a.row_in_block < b.row_in_block;
  });
}

// Distinct columns of sorted entries, each chunk padded to a multiple of 4.
std::int64_t padded_union_size(const std::vector<BlockEntry>& entries) {
  std::int64_t distinct = 0;
  for (std::size_t i = 0; i < entries.size(); ++i)
    distinct += i == 0 || entries[i].column != entries[i - 1].column;
  const std::int64_t full = distinct / kMaxChunkColumns, rest = distinct % kMaxChunkColumns;
  return full * kMaxChunkColumns + (rest + 3) / 4 * 4;
}

// Union columns per row over `samples` blocks spread evenly over the matrix.
double sampled_union_per_row(const CsrMatrix<double>& A, SpmmBlockShape shape, int samples) {
  const BlockTiling tiling{A.rows, shape};
  const std::int64_t blocks = tiling.blocks();
  std::vector<BlockEntry> entries;
  std::int64_t columns = 0, rows = 0;
  for (int s = 0; s < samples; ++s) {
    index_t block_rows[kRowsPerBlock];
    tiling.rows_of(blocks * s / samples, block_rows);
    gather_block(A, block_rows, entries);
    columns += padded_union_size(entries);
    rows += std::count_if(std::begin(block_rows), std::end(block_rows), [](index_t r) { return r >= 0; });
  }
  return rows ? double(columns) / rows : 0;
}

}  // namespace

double SpmmPlanLayout::bytes() const {
  return double(codes.size()) * sizeof(std::uint16_t) + double(values.size()) * sizeof(double) +
         double(union_columns.size() + chunk_rows.size() + union_offset.size() +
                entry_offset.size()) *
             sizeof(index_t);
}

SpmmBlockShape choose_spmm_block_shape(const CsrMatrix<double>& A) {
  validate(A, "choose_spmm_block_shape");
  SpmmBlockShape best;
  if (A.rows < 2 * kRowsPerBlock || A.nnz() == 0) return best;
  constexpr int kSamples = 512;
  // Strides: the column offsets of a row in the middle past its own row's
  // neighbours (on a grid: the line and plane lengths, and their ± 1).
  const index_t middle = A.rows / 2;
  std::vector<index_t> strides;
  for (index_t e = A.row_ptr[middle]; e < A.row_ptr[middle + 1]; ++e) {
    const std::int64_t offset = std::int64_t(A.col_idx[e]) - middle;
    if (offset >= kRowsPerBlock / 2 && offset <= A.rows / 2) strides.push_back(index_t(offset));
  }
  // More lines first: a later shape must be smaller by more than rounding.
  double best_union = 1e300;
  for (int lines : {4, 2})
    for (index_t stride : strides) {
      const SpmmBlockShape shape{lines, stride};
      const double size = sampled_union_per_row(A, shape, kSamples);
      if (size < best_union * (1 - 1e-3)) best_union = size, best = shape;
    }
  if (sampled_union_per_row(A, SpmmBlockShape{}, kSamples) < best_union * (1 - 1e-3))
    best = SpmmBlockShape{};
  return best;
}

SpmmPlanLayout plan_spmm_blocks(const CsrMatrix<double>& A, SpmmBlockShape shape) {
  validate(A, "plan_spmm_blocks");
  require(shape.lines == 1 || shape.lines == 2 || shape.lines == 4,
          "plan_spmm_blocks: a block takes 1, 2 or 4 lines, not " + std::to_string(shape.lines));
  require(shape.lines == 1 || shape.line_length > 0,
          "plan_spmm_blocks: the line length must be positive, got " +
              std::to_string(shape.line_length));
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
    index_t rows[kRowsPerBlock];
    tiling.rows_of(b, rows);
    gather_block(A, rows, entries);
    std::size_t next = 0;
    do {  // one chunk of at most kMaxChunkColumns columns; an empty block gets one empty chunk
      if (next == 0)
        plan.chunk_rows.insert(plan.chunk_rows.end(), std::begin(rows), std::end(rows));
      else
        plan.chunk_rows.insert(plan.chunk_rows.end(), kRowsPerBlock, SpmmPlanLayout::kContinuation);
      const std::size_t first = next;
      const std::size_t union_first = plan.union_columns.size();
      while (next < entries.size()) {
        const bool new_column = next == first || entries[next].column != entries[next - 1].column;
        if (new_column && plan.union_columns.size() - union_first == kMaxChunkColumns) break;
        if (new_column) plan.union_columns.push_back(entries[next].column);
        ++next;
      }
      // Codes row by row, columns ascending within a row (its own chain's order).
      std::stable_sort(entries.begin() + first, entries.begin() + next,
                       [](const BlockEntry& x, const BlockEntry& y) { return x.row_in_block < y.row_in_block; });
      for (std::size_t i = first; i < next; ++i) {
        const auto place = std::lower_bound(plan.union_columns.begin() + union_first,
                                            plan.union_columns.end(), entries[i].column) -
                           (plan.union_columns.begin() + union_first);
        plan.codes.push_back(std::uint16_t(entries[i].row_in_block << kPlaceBits | place));
        plan.values.push_back(entries[i].value);
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
            if (plan.codes[e] >> kPlaceBits == r) tile[plan.codes[e] & 0xff] = plan.values[e];
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
                                                                (plan.codes[e] & 0xff)]) * k + j],
                               sum);
        }
        Y[std::size_t(row) * k + j] = sum;
      }
    }
  }
}

}  // namespace binamg
