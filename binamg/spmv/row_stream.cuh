#pragma once
// Row sums of a CSR matrix against a vector, Σ_e a_e·x(c_e) for each row, with the
// nonzeros staged through shared memory (the "CSR-stream" idea of Greathouse &
// Daga's CSR-Adaptive): a block takes R consecutive rows, all its threads load the
// rows' nonzeros and gathered inputs together (coalesced, several loads in flight
// per thread), and then a group of G = threads / R lanes sums each row from shared
// memory. A lane per nonzero (row_split.cuh) leaves lanes idle on 5-27-entry rows
// and has one load in flight per lane, which held the k = 1 kernels well below
// the copy bandwidth (docs/experiments.md). Rows averaging 17-64 entries skip the
// staging: each group of G lanes reads its row straight from memory in the same
// order (group_rows_kernel), which measured faster there. Every k = 1 kernel that
// sums A's rows against a vector (SpMV, residual, Jacobi, the V-cycle's fused
// steps, the ρ estimate) runs through launch(), so they share one summation
// order: a fused step gives the bits of the calls it replaces. Coded matrices of
// short rows (the finest levels) skip the staging: a thread sums each row from
// its registers (thread_rows_kernel), in the order a lane per row adds it. They
// read a matrix's packed columns and coded values where it has them
// (sparse/packed_columns.hpp, sparse/coded_values.hpp): the same columns and
// values, so the same bits.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <type_traits>

#include "binamg/core/chained_launch.cuh"
#include "binamg/core/cuda_check.hpp"
#include "binamg/core/error.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/rounded_product.cuh"
#include "binamg/sparse/device_csr.hpp"
#include "binamg/sparse/packed_columns.hpp"
#include "binamg/spmv/column_partials.cuh"
#include "binamg/spmv/row_split.cuh"

namespace binamg::row_stream {

constexpr int threads = 256;
constexpr int tile = 2048;  // nonzeros staged per pass: 8 loads per thread
constexpr int loads_per_thread = tile / threads;
// Blocks of `threads` that fill an SM: 2048 threads of 32 registers.
constexpr int full_occupancy_blocks = 2048 / threads;
constexpr int warps = threads / 32;
// Rows longer than this on average are summed a warp per row straight from
// global memory: staging them left few rows per block and measured slower than a
// warp per row (docs/experiments.md).
constexpr double max_staged_mean = 64;
// A staged block whose rows hold more than this many tiles (a few very long rows
// among short ones) sums them a warp per row too, so one lane never walks a long
// row alone.
constexpr int max_tiles_per_block = 8;
// Rows past row_split::long_row_length for groups of this many lanes are summed
// by a whole block.
constexpr int long_row_lanes = 8;

// Staged rows of at least this many lanes (rows averaging more than 16
// entries) are summed by their lane groups straight from memory
// (group_rows_kernel), in the staged order: whole solves 1-4% faster on the
// stencils and the fem matrices. Two-lane rows keep the staging, whose tile
// has more gathers in flight: unstaged, the unstructured P1 ball's solve took
// 4% longer (docs/experiments.md).
constexpr int min_group_lanes = 4;

// A thread per row (thread_rows_kernel) loads this many of its row's entries
// before it gathers their inputs; it takes rows of at most thread_row_max
// (sparse/coded_values.hpp). The count follows the matrix's longest row:
// rows of 9-12 entries (the 9-point stencil, Q1 quads) load 12 at once rather
// than 8 and then the rest, rows of 13-32 (the 27-point stencil) 16 at a time
// in blocks held to 6 an SM for the registers, while rows of at most 8 keep 8,
// which the longer loads cost 2-10%. The SpMV of the finest level, µs, 8 → 12
// or 16: 2D 9-pt 1024² 22.0 → 20.4, aniso2d 27.8 → 25.0, 27-pt 101³ 54.4 →
// 50.0 (docs/experiments.md).
constexpr int thread_row_loads = 8;
constexpr int wide_thread_row_loads = 12;
constexpr int long_thread_row_loads = 16;
template <int Loads>
constexpr int thread_row_blocks = Loads > wide_thread_row_loads ? 6 : full_occupancy_blocks;

static_assert(threads <= packed_chunk_rows, "a block's rows lie in one chunk");

/// A's columns as a kernel reads them: for_rows(first_row) gives what its block,
/// rows from first_row on, indexes with an entry's position (c[e]): the index
/// array itself, or one chunk's base and 16-bit offsets (sparse/packed_columns.hpp).
struct IndexColumns {
  const index_t* __restrict__ col_idx;
  __device__ const index_t* for_rows(std::int64_t) const { return col_idx; }
};

struct ChunkColumns {
  const std::uint16_t* __restrict__ offset;
  index_t base;
  __device__ index_t operator[](std::int64_t e) const { return base + index_t(offset[e]); }
};

struct PackedColumnsView {
  const std::uint16_t* __restrict__ offset;
  const index_t* __restrict__ base;
  __device__ ChunkColumns for_rows(std::int64_t first_row) const {
    return {offset, base[first_row / packed_chunk_rows]};
  }
};

/// A's values as a kernel reads them from their one- or two-byte codes
/// (sparse/coded_values.hpp): table[code[e]], the value itself.
template <typename T, typename Code = std::uint8_t>
struct CodedValuesView {
  const Code* __restrict__ code;
  const T* __restrict__ table;
  __device__ T operator[](std::int64_t e) const { return table[code[e]]; }
};

/// Rows per block for A: the largest power of two (8..256) whose mean share of
/// nonzeros fits one tile. Fixed per matrix, so the summation order is too.
inline int rows_per_block(index_t rows, std::int64_t nnz) {
  const double mean = rows > 0 ? double(nnz) / rows : 0;
  int r = threads;
  while (r > warps && r * mean > tile) r /= 2;
  return r;
}

/// Whether A's rows are staged (else a warp per row, 8 rows per block).
inline bool staged(index_t rows, std::int64_t nnz) {
  return rows == 0 || double(nnz) / rows <= max_staged_mean;
}

/// Rows [first_row, first_row + block_rows) of the block a warp each (warp w
/// takes rows w, w + 8, ...), 32 lanes per row (row_split::row_sum's order),
/// except rows longer than long_row (left to block_row_sum).
template <typename Sum, typename Cols, typename Vals, typename Gather, typename Finish>
__device__ void warp_per_row(std::int64_t first_row, int block_rows, const index_t* bounds,
                             index_t long_row, Cols col_idx, Vals values, const Gather& x_of,
                             const Finish& finish) {
  for (int r = threadIdx.x / 32; r < block_rows; r += warps) {
    if (bounds[r + 1] - bounds[r] > long_row) continue;
    const Sum sum = row_split::row_sum<Sum, 32>(bounds[r], bounds[r + 1], col_idx, values, x_of);
    if (threadIdx.x % 32 == 0) finish(index_t(first_row + r), sum);
  }
}

/// Σ a_e·x_of(c_e) over [begin, end) by the whole block: thread t adds entries
/// t, t + threads, … in order, each warp adds its lanes in a fixed shuffle tree
/// and thread 0 the warps in order (through `shared`, one entry per warp). The
/// sum is thread 0's; every thread must call it.
template <typename Sum, typename Cols, typename Vals, typename Gather>
__device__ Sum block_row_sum(index_t begin, index_t end, Cols col_idx, Vals values,
                             const Gather& x_of, Sum* shared) {
  Sum sum = 0;
  for (index_t e = begin + threadIdx.x; e < end; e += threads)
    sum += Sum(values[e]) * Sum(x_of(col_idx[e]));
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = sum;
  __syncthreads();
  Sum total = 0;
  if (threadIdx.x == 0)
    for (int w = 0; w < warps; ++w) total += shared[w];
  __syncthreads();  // shared is free again
  return total;
}

/// Stages one pass's products a_e·x_of(c_e), e = pass … pass + count − 1, in
/// `products`. With a lane per row (G = 1: rows of a few entries) each thread
/// loads all its column indices and values before its first gather, so its loads
/// are in flight together: 15-25% faster SpMVs and residuals, 5-8% faster
/// Chebyshev steps on the finest levels of the stencils (H200). On longer rows
/// (G > 1) that schedule measured no faster or slower, so they load and gather
/// entry by entry (docs/experiments.md). The products are the same either way.
template <typename Sum, int G, bool EarlyLoads, typename T, typename Cols, typename Vals,
          typename Gather>
__device__ void stage_products(std::int64_t pass, int count, Cols col_idx, Vals values,
                               const Gather& x_of, Sum* products) {
  if constexpr (G == 1 && EarlyLoads) {
    index_t cols[loads_per_thread];
    T vals[loads_per_thread];
#pragma unroll
    for (int j = 0; j < loads_per_thread; ++j) {
      const int i = j * threads + threadIdx.x;
      cols[j] = i < count ? col_idx[pass + i] : 0;
      vals[j] = i < count ? values[pass + i] : T(0);
    }
#pragma unroll
    for (int j = 0; j < loads_per_thread; ++j) {
      const int i = j * threads + threadIdx.x;
      if (i < count) products[i] = Sum(vals[j]) * Sum(x_of(cols[j]));
    }
  } else {
#pragma unroll
    for (int j = 0; j < loads_per_thread; ++j) {
      const int i = j * threads + threadIdx.x;
      if (i < count) products[i] = Sum(values[pass + i]) * Sum(x_of(col_idx[pass + i]));
    }
  }
}

/// partial[blockIdx.x] = the sum of every thread's `total`, in CUB's fixed
/// tree (the same bits every run); every thread of the block calls it.
template <typename Sum>
__device__ void store_block_total(Sum total, Sum* partial) {
  using Reduce = cub::BlockReduce<Sum, threads>;
  __shared__ typename Reduce::TempStorage storage;
  const Sum block_total = Reduce(storage).Sum(total);
  if (threadIdx.x == 0) partial[blockIdx.x] = block_total;
}

/// Whether finish(row, sum) returns a value to be summed over the rows (the
/// fused reductions of launch_with_sum) rather than nothing.
template <typename Sum, typename Finish>
constexpr bool returns_sum =
    !std::is_void_v<decltype(std::declval<const Finish&>()(index_t{}, Sum{}))>;

/// Rows [first_row, first_row + R) summed from `tile`-entry passes staged in
/// `products` (see row_sums_kernel); finish on each row group's lane 0.
template <typename Sum, int G, bool EarlyLoads, typename T, typename Cols, typename Vals,
          typename Gather, typename Finish>
__device__ void staged_rows(std::int64_t first_row, int block_rows, const index_t* bounds,
                            Cols col_idx, Vals values, const Gather& x_of, const Finish& finish,
                            Sum* products) {
  const std::int64_t block_begin = bounds[0], block_end = bounds[block_rows];
  const int local_row = threadIdx.x / G, lane = threadIdx.x % G;
  const bool has_row = local_row < block_rows;
  const std::int64_t begin = has_row ? bounds[local_row] : 0;
  const std::int64_t end = has_row ? bounds[local_row + 1] : 0;
  Sum sum = 0;
  for (std::int64_t pass = block_begin; pass < block_end; pass += tile) {
    const int count = static_cast<int>(std::min<std::int64_t>(tile, block_end - pass));
    stage_products<Sum, G, EarlyLoads, T>(pass, count, col_idx, values, x_of, products);
    __syncthreads();
    // This lane's first entry at or after the pass start, then every G-th.
    std::int64_t e = begin + lane;
    if (e < pass) e += (pass - e + G - 1) / G * G;
    const std::int64_t stop = std::min(end, pass + count);
    for (; e < stop; e += G) sum += products[e - pass];
    __syncthreads();
  }
  if constexpr (G > 1) {
    const unsigned mask = row_split::group_mask<G>();
#pragma unroll
    for (int offset = G / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(mask, sum, offset, G);
  }
  if (has_row && lane == 0) finish(index_t(first_row + local_row), sum);
}

/// Threads: block b owns rows [b·R, b·R + R), G = threads / R lanes per row.
/// Lane l of a row's group adds the row's entries l, l + G, l + 2G, ... in order,
/// over as many passes of `tile` staged products as the block needs, then the group
/// adds its G partials in a fixed shuffle tree: the same bits on every run,
/// whatever the passes. finish(row, sum) runs once per row, on the group's lane 0.
/// Unstaged: G = 32, a warp per row. With LongRows, a block holding a row longer
/// than `long_row` sums its other rows a warp each and its long ones with the
/// whole block (block_row_sum); without, no row is that long and the check is
/// not compiled in (it measurably slowed the 27-point stencil's SpMV). A lane per
/// row is held to a full SM of blocks: the registers of its early loads would
/// otherwise cost the double Chebyshev step a quarter of its blocks, and the
/// step 20% (docs/experiments.md). Other shapes leave the count to the compiler
/// (0: no minimum). Where finish returns a value (returns_sum), each thread adds
/// those of its rows in the order it finishes them, and partial[b] gets the
/// block's total in CUB's fixed tree: which thread finishes which row depends
/// on A's shape alone, so the bits do too.
template <typename Sum, int G, bool Staged, bool LongRows, bool EarlyLoads, typename T,
          typename Columns, typename Values, typename Gather, typename Finish>
__global__ void __launch_bounds__(threads,
                                  G == 1 && EarlyLoads && !LongRows ? full_occupancy_blocks : 0)
    row_sums_kernel(index_t rows, index_t long_row, const index_t* __restrict__ row_ptr,
                    Columns columns, Values values, Gather x_of, Finish finish,
                    Sum* __restrict__ partial) {
  wait_for_prior_kernel();
  constexpr int R = threads / G;
  constexpr bool sums = returns_sum<Sum, Finish>;
  __shared__ index_t bounds[R + 1];
  __shared__ Sum products[Staged ? tile : 1];
  const std::int64_t first_row = std::int64_t(blockIdx.x) * R;
  const auto col_idx = columns.for_rows(first_row);
  const int block_rows = static_cast<int>(std::min<std::int64_t>(R, rows - first_row));
  for (int i = threadIdx.x; i <= block_rows; i += threads) bounds[i] = row_ptr[first_row + i];
  __syncthreads();
  Sum total = 0;  // this thread's rows' values, where finish returns them
  const auto finish_row = [&](index_t row, Sum sum) {
    if constexpr (sums)
      total += finish(row, sum);
    else
      finish(row, sum);
  };

  const auto is_long = [&](int r) { return bounds[r + 1] - bounds[r] > long_row; };
  bool holds_long = false;
  if constexpr (LongRows) {
    for (int r = threadIdx.x; r < block_rows; r += threads) holds_long |= is_long(r);
    holds_long = __syncthreads_or(holds_long);
  }
  if (holds_long || !Staged ||
      bounds[block_rows] - bounds[0] > std::int64_t(max_tiles_per_block) * tile) {
    warp_per_row<Sum>(first_row, block_rows, bounds, long_row, col_idx, values, x_of, finish_row);
    if constexpr (LongRows) {
      __shared__ Sum warp_sums[warps];
      for (int r = 0; holds_long && r < block_rows; ++r) {
        if (!is_long(r)) continue;  // the same for the whole block
        const Sum sum =
            block_row_sum<Sum>(bounds[r], bounds[r + 1], col_idx, values, x_of, warp_sums);
        if (threadIdx.x == 0) finish_row(index_t(first_row + r), sum);
      }
    }
  } else {
    staged_rows<Sum, G, EarlyLoads, T>(first_row, block_rows, bounds, col_idx, values, x_of,
                                       finish_row, products);
  }
  if constexpr (sums) store_block_total(total, partial);
}

/// Row b·threads + t summed by thread t of block b alone: it loads
/// Loads entries of its row (codes and column offsets, a few bytes
/// each) before it gathers their inputs, so all of them are in flight at once,
/// with no staging and no barrier. For coded matrices of short rows (the finest
/// levels), where a warp's rows span a few cache lines: the SpMV 1.6-2× faster
/// than staged there (docs/experiments.md), but slower on uncoded rows, whose
/// 8-byte values spread a warp's loads over many lines. The row's entries are
/// added in order from 0 (the staged lane-per-row order, so the same bits), and
/// finish's values as row_sums_kernel adds them with a lane per row.
template <typename Sum, typename T, int Loads, typename Columns, typename Values, typename Gather,
          typename Finish>
__global__ void __launch_bounds__(threads, thread_row_blocks<Loads>)
    thread_rows_kernel(index_t rows, const index_t* __restrict__ row_ptr, Columns columns,
                       Values values, Gather x_of, Finish finish, Sum* __restrict__ partial) {
  wait_for_prior_kernel();
  constexpr bool sums = returns_sum<Sum, Finish>;
  const std::int64_t first_row = std::int64_t(blockIdx.x) * threads;
  const auto col_idx = columns.for_rows(first_row);
  const std::int64_t row = first_row + threadIdx.x;
  Sum total = 0;
  if (row < rows) {
    const index_t end = row_ptr[row + 1];
    Sum sum = 0;
    for (index_t base = row_ptr[row]; base < end; base += Loads) {
      index_t cols[Loads];
      T vals[Loads];
#pragma unroll
      for (int j = 0; j < Loads; ++j) {
        const bool in_row = base + j < end;
        cols[j] = in_row ? col_idx[base + j] : 0;
        vals[j] = in_row ? values[base + j] : T(0);
      }
#pragma unroll
      for (int j = 0; j < Loads; ++j)
        if (base + j < end) sum += rounded_product(Sum(vals[j]), Sum(x_of(cols[j])));
    }
    if constexpr (sums)
      total = finish(index_t(row), sum);
    else
      finish(index_t(row), sum);
  }
  if constexpr (sums) store_block_total(total, partial);
}

/// Rows summed by groups of G lanes straight from global memory, no staging:
/// block b owns rows [b·R, b·R + R), R = threads / G, and lane l of a row's group
/// adds the row's entries l, l + G, ... in order, each product rounded on its
/// own, then the group adds its partials in the staged kernel's shuffle tree:
/// row_sums_kernel's order and bits (the rows without long ones), without its
/// barriers and shared tile.
template <typename Sum, int G, typename T, typename Columns, typename Values, typename Gather,
          typename Finish>
__global__ void __launch_bounds__(threads)
    group_rows_kernel(index_t rows, const index_t* __restrict__ row_ptr, Columns columns,
                      Values values, Gather x_of, Finish finish, Sum* __restrict__ partial) {
  wait_for_prior_kernel();
  constexpr int R = threads / G;
  constexpr bool sums = returns_sum<Sum, Finish>;
  const std::int64_t first_row = std::int64_t(blockIdx.x) * R;
  const auto col_idx = columns.for_rows(first_row);
  const std::int64_t row = first_row + threadIdx.x / G;
  const int lane = threadIdx.x % G;
  Sum total = 0;
  // Whole groups leave together, so each group's shuffles stay full.
  if (row < rows) {
    const index_t begin = row_ptr[row], end = row_ptr[row + 1];
    Sum sum = 0;
#pragma unroll 4
    for (index_t e = begin + lane; e < end; e += G)
      sum += rounded_product(Sum(values[e]), Sum(x_of(col_idx[e])));
    if constexpr (G > 1) {
      const unsigned mask = row_split::group_mask<G>();
#pragma unroll
      for (int offset = G / 2; offset > 0; offset /= 2)
        sum += __shfl_down_sync(mask, sum, offset, G);
    }
    if (lane == 0) {
      if constexpr (sums)
        total = finish(index_t(row), sum);
      else
        finish(index_t(row), sum);
    }
  }
  if constexpr (sums) store_block_total(total, partial);
}

/// Whether launch() sums A's staged rows of G >= min_group_lanes lanes (its
/// caller's test) by group_rows_kernel: no long rows, and no block of them
/// over max_tiles_per_block tiles (which row_sums_kernel would sum a warp per
/// row), so that the bits are the same.
template <typename T>
bool group_rows(const DeviceCsr<T>& A, int G, index_t long_row) {
  return long_row == row_split::no_long_rows && A.max_row_length >= 0 &&
         std::int64_t(A.max_row_length) * (threads / G) <= std::int64_t(max_tiles_per_block) * tile;
}

/// Whether launch() sums A's rows a thread each (thread_rows_kernel): coded
/// values and rows of at most thread_row_max entries, where the gather loads
/// early (EarlyLoads).
template <bool EarlyLoads, typename T>
bool thread_rows(const DeviceCsr<T>& A) {
  return EarlyLoads && A.coded.describe(A.values) && A.max_row_length >= 0 &&
         A.max_row_length <= thread_row_max;
}

template <typename Sum, int G, bool Staged, bool EarlyLoads, typename T, typename Columns,
          typename Values, typename Gather, typename Finish>
void launch_entries(const DeviceCsr<T>& A, const Columns& columns, const Values& values,
                    const Gather& x_of, const Finish& finish, Sum* partial, cudaStream_t stream) {
  const index_t long_row = row_split::long_rows_of(A, long_row_lanes);
  if constexpr (Staged && G >= min_group_lanes) {
    if (group_rows(A, G, long_row)) {
      launch_chained(group_rows_kernel<Sum, G, T, Columns, Values, Gather, Finish>,
                     blocks_for(A.rows, threads / G), threads, 0, stream, A.rows, A.row_ptr.data(),
                     columns, values, x_of, finish, partial);
      return;
    }
  }
  const auto kernel =
      long_row == row_split::no_long_rows
          ? row_sums_kernel<Sum, G, Staged, false, EarlyLoads, T, Columns, Values, Gather, Finish>
          : row_sums_kernel<Sum, G, Staged, true, EarlyLoads, T, Columns, Values, Gather, Finish>;
  launch_chained(kernel, blocks_for(A.rows, threads / G), threads, 0, stream, A.rows, long_row,
                 A.row_ptr.data(), columns, values, x_of, finish, partial);
}

template <typename Sum, int G, bool Staged, bool EarlyLoads, typename T, typename Columns,
          typename Gather, typename Finish>
void launch_columns(const DeviceCsr<T>& A, const Columns& columns, const Gather& x_of,
                    const Finish& finish, Sum* partial, cudaStream_t stream) {
  const auto by_thread_rows = [&](const auto& coded) {
    using Values = std::decay_t<decltype(coded)>;
    const auto kernel =
        A.max_row_length <= thread_row_loads
            ? thread_rows_kernel<Sum, T, thread_row_loads, Columns, Values, Gather, Finish>
        : A.max_row_length <= wide_thread_row_loads
            ? thread_rows_kernel<Sum, T, wide_thread_row_loads, Columns, Values, Gather, Finish>
            : thread_rows_kernel<Sum, T, long_thread_row_loads, Columns, Values, Gather, Finish>;
    launch_chained(kernel, blocks_for(A.rows, threads), threads, 0, stream, A.rows,
                   A.row_ptr.data(), columns, coded, x_of, finish, partial);
  };
  // Two-byte codes serve the thread rows only: staged, they would add
  // instantiations for the few matrices that have them and long rows too.
  if (A.coded.describe(A.values) && A.coded.narrow()) {
    const CodedValuesView<T> coded{A.coded.code.data(), A.coded.table.data()};
    if (thread_rows<EarlyLoads>(A)) return by_thread_rows(coded);
    return launch_entries<Sum, G, Staged, EarlyLoads, T>(A, columns, coded, x_of, finish, partial,
                                                         stream);
  }
  if (thread_rows<EarlyLoads>(A))
    return by_thread_rows(
        CodedValuesView<T, std::uint16_t>{A.coded.wide_code.data(), A.coded.table.data()});
  launch_entries<Sum, G, Staged, EarlyLoads, T>(A, columns, A.values.data(), x_of, finish, partial,
                                                stream);
}

template <typename Sum, int G, bool Staged = true, bool EarlyLoads = true, typename T,
          typename Gather, typename Finish>
void launch_shape(const DeviceCsr<T>& A, const Gather& x_of, const Finish& finish, Sum* partial,
                  cudaStream_t stream) {
  if (A.packed.describe(A.col_idx))
    return launch_columns<Sum, G, Staged, EarlyLoads>(
        A, PackedColumnsView{A.packed.offset.data(), A.packed.base.data()}, x_of, finish, partial,
        stream);
  launch_columns<Sum, G, Staged, EarlyLoads>(A, IndexColumns{A.col_idx.data()}, x_of, finish,
                                             partial, stream);
}

/// Lanes per row for A: 32 unstaged, else threads / rows_per_block.
inline int lanes_per_row(index_t rows, std::int64_t nnz) {
  return staged(rows, nnz) ? threads / rows_per_block(rows, nnz) : 32;
}

/// Blocks launch() runs over A, one partial sum each in launch_with_sum.
template <bool EarlyLoads, typename T>
std::size_t blocks_of(const DeviceCsr<T>& A) {
  const int rows_per_block =
      thread_rows<EarlyLoads>(A) ? threads : threads / lanes_per_row(A.rows, A.nnz());
  return std::size_t(blocks_for(A.rows, rows_per_block));
}

/// Entries of the partials launch_with_sum needs for A (column_partials::sum
/// adds them in place): the most blocks any launch over A's shape runs, so that
/// a scratch sized before A's values were coded (or after) still suffices.
template <typename T>
std::size_t sum_scratch_size(const DeviceCsr<T>& A) {
  return std::size_t(blocks_for(A.rows, threads / lanes_per_row(A.rows, A.nnz())));
}

template <typename Sum, bool EarlyLoads, typename T, typename Gather, typename Finish>
void launch_with_partials(const DeviceCsr<T>& A, const Gather& x_of, const Finish& finish,
                          Sum* partial, cudaStream_t stream) {
  switch (lanes_per_row(A.rows, A.nnz())) {
    case 1: return launch_shape<Sum, 1, true, EarlyLoads>(A, x_of, finish, partial, stream);
    case 2: return launch_shape<Sum, 2, true, EarlyLoads>(A, x_of, finish, partial, stream);
    case 4: return launch_shape<Sum, 4, true, EarlyLoads>(A, x_of, finish, partial, stream);
    case 8: return launch_shape<Sum, 8, true, EarlyLoads>(A, x_of, finish, partial, stream);
    case 16: return launch_shape<Sum, 16, true, EarlyLoads>(A, x_of, finish, partial, stream);
    default:
      if (staged(A.rows, A.nnz()))
        return launch_shape<Sum, 32, true, EarlyLoads>(A, x_of, finish, partial, stream);
      return launch_shape<Sum, 32, false, EarlyLoads>(A, x_of, finish, partial, stream);
  }
}

/// finish(row, Σ_e a_e·x_of(c_e)) for every row of A, the products and the sum in
/// Sum. Gather and Finish are trivially copyable functors with __device__
/// operator()s: x_of(col) -> value, finish(row, sum). EarlyLoads = false keeps
/// lane-per-row sums to a load and gather per entry (stage_products), for a
/// gather that computes more than it loads; the bits are the same either way.
template <typename Sum, bool EarlyLoads = true, typename T, typename Gather, typename Finish>
void launch(const DeviceCsr<T>& A, const Gather& x_of, const Finish& finish, cudaStream_t stream) {
  static_assert(!returns_sum<Sum, Finish>, "a finish that returns values is for launch_with_sum");
  if (A.rows == 0) return;
  launch_with_partials<Sum, EarlyLoads>(A, x_of, finish, static_cast<Sum*>(nullptr), stream);
}

/// launch() with a finish that returns a Sum for each row: *total (device
/// memory) becomes the sum of those over A's rows, in a fixed order (the same
/// bits every run), while every row's own sum keeps launch()'s bits. It fuses a
/// dot product into the pass that forms one of its vectors. `partials` holds at
/// least sum_scratch_size(A) entries.
template <typename Sum, bool EarlyLoads = true, typename T, typename Gather, typename Finish>
void launch_with_sum(const DeviceCsr<T>& A, const Gather& x_of, const Finish& finish, Sum* total,
                     DeviceBuffer<Sum>& partials, cudaStream_t stream) {
  static_assert(returns_sum<Sum, Finish>, "launch_with_sum needs a finish that returns values");
  require(partials.size() >= sum_scratch_size(A),
          "row_stream: the partial sums scratch is too small");
  if (A.rows == 0) {
    BINAMG_CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof(Sum), stream));
    return;
  }
  launch_with_partials<Sum, EarlyLoads>(A, x_of, finish, partials.data(), stream);
  column_partials::sum(static_cast<unsigned>(blocks_of<EarlyLoads>(A)), 1, partials.data(), total,
                       stream);
}

/// Entry `col` of a vector.
template <typename T>
struct VectorEntry {
  const T* __restrict__ x;
  __device__ T operator()(index_t col) const { return x[col]; }
};

}  // namespace binamg::row_stream
