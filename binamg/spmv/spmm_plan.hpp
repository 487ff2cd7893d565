#pragma once
// Planned SpMM: Y = A X (double, row-major, k a multiple of 16) for an operator
// applied many times. The plan regroups A's rows into blocks of 8 whose columns
// overlap (4 consecutive rows of 2 neighbouring lines of a grid, for example),
// stores each block's sorted union of columns and its nonzeros as 16-bit places
// in that union. The GPU gathers each union row of X once per block instead of
// once per nonzero and multiplies on the FP64 tensor cores (mma m8n8k4): on a
// 27-point stencil a block of 8 rows needs 72 rows of X where row-by-row
// gathers read 216.
//
// It pays where a block's rows share their columns: about 3 or more nonzeros
// per union column (27-pt: 27 / 8.9; banded and 3-dof block matrices too). On
// 7-pt and 5-pt rows, and on hub or power-law rows, the CSR kernels are faster
// (docs/experiments.md).
//
// Summation order: each entry of Y is the fused multiply-add chain over its
// block's union in column order, starting from +0, with exact zeros where the
// row has no entry. That is the row's own chain of fma's in column order, with
// zeros between (which change no bits but the sign of a zero sum), so Y has the
// bits of spmm_reference() below on the host and the same bits run after run.
// A non-finite entry of X would turn a padding zero into NaN: an entry of Y
// that comes out non-finite is recomputed by its row's own chain.

#include <cstdint>
#include <vector>

#include "binamg/core/config.hpp"
#include "binamg/sparse/csr.hpp"
#include "binamg/spmv/spmm_block_tiling.hpp"
#if BINAMG_WITH_CUDA
#include <cuda_runtime.h>

#include "binamg/core/device_buffer.hpp"
#include "binamg/sparse/device_csr.hpp"
#endif

namespace binamg {

/// The host side of a plan: what the CPU reference reads and to_device uploads;
/// the GPU build makes the same arrays on the device. A block's union is cut into chunks of at most
/// kMaxChunkColumns columns (multiples of 4, padded by repeating the last column
/// with zeros in the tile), so that rows of any length fit. A chunk is a GPU
/// warp's unit: the first chunk of a block names the block's rows, the chunks
/// after it (long rows only) are marked kContinuation and summed on by the same
/// warp, so that a block's bounds cost no extra dependent load.
struct SpmmPlanLayout {
  static constexpr int kRowsPerBlock = spmm_plan_detail::kRowsPerBlock;
  static constexpr int kMaxChunkColumns = spmm_plan_detail::kMaxChunkColumns;
  static constexpr index_t kContinuation = spmm_plan_detail::kContinuation;
  index_t rows = 0, cols = 0, nnz = 0, blocks = 0;
  SpmmBlockShape shape;
  std::vector<index_t> chunk_rows;    // kRowsPerBlock per chunk: rows (-1: none) or kContinuation
  std::vector<index_t> union_offset;  // chunks + 1
  std::vector<index_t> union_columns;
  std::vector<index_t> entry_offset;  // chunks + 1
  std::vector<std::uint16_t> codes;   // row in block << kPlaceBits | place in the chunk's
                                      // union, by column, then row in block
  std::vector<double> values;         // A's values in code order
  index_t chunks() const { return index_t(union_offset.size()) - 1; }
  bool continues_block(index_t chunk) const {
    return chunk_rows[std::size_t(chunk) * kRowsPerBlock] == kContinuation;
  }
  /// Union columns (padding included) per row of A: rows of X gathered per row.
  double union_per_row() const { return rows ? double(union_columns.size()) / rows : 0; }
  /// Bytes the GPU reads of the plan per product (spmm_plan_bytes).
  double bytes() const;
};

/// Bytes the GPU reads of a plan per product: codes and values per nonzero,
/// the union columns, the chunks' rows and offsets.
double spmm_plan_bytes(std::int64_t nnz, std::int64_t union_columns, std::int64_t chunks);

/// The plan of A for `shape`, built on the host (the GPU build's oracle).
SpmmPlanLayout plan_spmm_blocks(const CsrMatrix<double>& A, SpmmBlockShape shape);

/// The shape with the fewest union columns per row over kShapeSamples blocks:
/// 4 or 2 lines at a stride from the middle row's column offsets, or 8
/// consecutive rows (spmm_plan_detail::candidate_shapes, pick_shape).
SpmmBlockShape choose_spmm_block_shape(const CsrMatrix<double>& A);

/// Y = A X by the plan's algorithm on the host (the GPU's oracle, bit for bit).
void spmm_reference(const SpmmPlanLayout& plan, const std::vector<double>& X, index_t k,
                    std::vector<double>& Y);

#if BINAMG_WITH_CUDA
/// The device side: the layout's arrays in GPU memory.
struct SpmmPlan {
  index_t rows = 0, cols = 0, nnz = 0, blocks = 0, chunks = 0;
  SpmmBlockShape shape;
  double union_per_row = 0, plan_bytes = 0;
  DeviceBuffer<index_t> chunk_rows, union_offset, union_columns, entry_offset;
  DeviceBuffer<std::uint16_t> codes;
  DeviceBuffer<double> values;
};

SpmmPlan to_device(const SpmmPlanLayout& layout, cudaStream_t stream = nullptr);

// ---- The GPU build (spmv/spmm_plan_build.cu): the same plan, array for
// array, from a matrix on the device; a warp merges each block's sorted rows.
// A is taken as valid (sorted, duplicate-free rows), as by every GPU kernel.

/// choose_spmm_block_shape on the device (synchronizes `stream`).
SpmmBlockShape choose_spmm_block_shape(const DeviceCsr<double>& A, cudaStream_t stream = nullptr);

/// plan_spmm_blocks on the device (synchronizes `stream` for the sizes).
SpmmPlan plan_spmm_blocks(const DeviceCsr<double>& A, SpmmBlockShape shape,
                          cudaStream_t stream = nullptr);

/// The plan of A in its chosen shape, built on the device.
SpmmPlan make_spmm_plan(const DeviceCsr<double>& A, cudaStream_t stream = nullptr);

/// Y = A X on the GPU by the plan; X is plan.cols × k, Y plan.rows × k, both
/// row-major device arrays; k must be a positive multiple of 16 (any other k:
/// spmm on the DeviceCsr). Ordered on `stream`, nothing synchronizes.
void spmm(const SpmmPlan& plan, const double* X, index_t k, double* Y,
          cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
