#pragma once
// The planned SpMM's tiling of rows into blocks of 8 (spmv/spmm_plan.hpp),
// shared by the host build and the GPU build so that both give the same plan.
#include <cstdint>
#include <vector>

#include "binamg/core/host_device.hpp"
#include "binamg/core/types.hpp"

namespace binamg {

/// A plan's shape: blocks take 8 / lines consecutive rows of `lines` lines
/// `line_length` rows apart (lines = 1: 8 consecutive rows).
struct SpmmBlockShape {
  int lines = 1;
  index_t line_length = 0;
};

namespace spmm_plan_detail {

constexpr int kRowsPerBlock = 8;
constexpr int kMaxChunkColumns = 96;     // union columns per chunk (a multiple of 4)
constexpr index_t kContinuation = -2;    // chunk rows of a block's later chunks
constexpr int kPlaceBits = 8;            // codes: row in block << kPlaceBits | place
constexpr unsigned kPlaceMask = (1u << kPlaceBits) - 1;
static_assert(kMaxChunkColumns % 4 == 0 && kMaxChunkColumns <= (1 << kPlaceBits),
              "chunks are whole MMA steps and a place fits its bits");

/// Bands of `lines` lines, each band cut across into blocks of 8 / lines
/// consecutive rows per line; lines = 1: blocks of 8 consecutive rows.
struct BlockTiling {
  index_t rows;
  SpmmBlockShape shape;
  BINAMG_HOST_DEVICE index_t rows_per_line() const { return kRowsPerBlock / shape.lines; }
  BINAMG_HOST_DEVICE index_t line() const {
    return shape.lines == 1 ? kRowsPerBlock : shape.line_length;
  }
  BINAMG_HOST_DEVICE std::int64_t blocks_per_band() const {
    return (line() + rows_per_line() - 1) / rows_per_line();
  }
  BINAMG_HOST_DEVICE std::int64_t band_rows() const { return std::int64_t(shape.lines) * line(); }
  BINAMG_HOST_DEVICE std::int64_t blocks() const {
    return (rows + band_rows() - 1) / band_rows() * blocks_per_band();
  }
  /// Row `slot` (line by line) of block b, -1 past the matrix or the line.
  BINAMG_HOST_DEVICE index_t row_of(std::int64_t b, int slot) const {
    const std::int64_t band = b / blocks_per_band(), across = b % blocks_per_band();
    const std::int64_t x = across * rows_per_line() + slot % rows_per_line();
    const std::int64_t row = band * band_rows() + std::int64_t(slot / rows_per_line()) * line() + x;
    return x < line() && row < rows ? index_t(row) : -1;
  }
};

/// Union columns of a block with `distinct` columns: full chunks, then the
/// last chunk padded to a multiple of 4.
BINAMG_HOST_DEVICE inline std::int64_t padded_union_size(std::int64_t distinct) {
  return distinct / kMaxChunkColumns * kMaxChunkColumns + (distinct % kMaxChunkColumns + 3) / 4 * 4;
}

/// Chunks of a block with `distinct` columns (an empty block keeps one, for its rows).
BINAMG_HOST_DEVICE inline std::int64_t chunk_count(std::int64_t distinct) {
  return distinct == 0 ? 1 : (distinct + kMaxChunkColumns - 1) / kMaxChunkColumns;
}

// ---- The choice of shape (host; spmv/spmm_plan.cpp) ----------------------

/// Throws InvalidInput naming `what` unless the shape has 1, 2 or 4 lines and,
/// with more than one, a positive line length.
void check_block_shape(SpmmBlockShape shape, const char* what);

/// Blocks sampled per candidate shape, spread evenly over the matrix.
constexpr int kShapeSamples = 512;

/// The sampled block of candidate shape's `sample`.
BINAMG_HOST_DEVICE inline std::int64_t sampled_block(const BlockTiling& tiling, int sample) {
  return tiling.blocks() * sample / kShapeSamples;
}

/// The candidates, in order of preference: 4 lines, then 2, at each stride taken
/// from the column offsets of the middle row (`columns`, `count` of them) past
/// its own row's neighbours (on a grid: the line and plane lengths, and their
/// ± 1); then 8 consecutive rows.
std::vector<SpmmBlockShape> candidate_shapes(const index_t* columns, index_t count, index_t rows);

/// The candidate with the fewest union columns per row; a later one must be
/// smaller by more than rounding, so ties go to more lines, which share more of
/// X in the SM's cache (docs/experiments.md).
SpmmBlockShape pick_shape(const std::vector<SpmmBlockShape>& candidates,
                          const std::vector<double>& union_per_row);

}  // namespace spmm_plan_detail
}  // namespace binamg
