#pragma once
// Rows of C merged from their B rows (RMerge-style sub-warps): a group of
// Width lanes owns a row of C, each lane E of the row's A entries (entry
// i·Width + lane) and a cursor into each entry's B row, which is sorted. A
// step takes the group's smallest head column, the row's next column of C in
// order; the lanes whose heads hold it advance. No hash table, no sort: a
// Galerkin row of ~250 products onto ~30 columns takes ~30 steps, where the
// shared-table kernels claim a slot per product (3D 7-pt's and 2D 5-pt's
// level-0 R·(AP) ran faster merged than binned; docs/experiments.md).
//
// The numeric pass writes each step's products into the group's shared
// buffer, in the order of their A entries (the lanes of a step in lane order,
// E rounds of them), so that the products of one column lie together in A's
// order; every Width steps, lane j sums the run of the chunk's column j from
// its first product, exactly as the CPU reference does, and writes it. A
// column takes at most one product per A entry, so a buffer of Width times
// the row's entries always holds a chunk.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "binamg/core/types.hpp"
#include "binamg/spgemm/kernels/hash.cuh"
#include "binamg/spgemm/kernels/table_rows.cuh"

namespace binamg::spgemm_detail {

constexpr unsigned kMergeEnd = 0xffffffffu;  // head of an exhausted B row (no column is)

/// What the count pass reports in one read-back: nnz(C), its longest row,
/// and whether some row did not fit the launch (more A entries than the
/// group holds or more products than its buffer: a stale max_row_length).
struct MergeTally {
  unsigned long long nnz;
  index_t longest;
  int misfit;
};

/// Smallest of the Width lanes' values (groups of a warp side by side).
template <int Width>
__device__ __forceinline__ unsigned group_min(unsigned value) {
  if constexpr (Width == 32) {
    return __reduce_min_sync(0xffffffffu, value);
  } else {
#pragma unroll
    for (int step = Width / 2; step > 0; step >>= 1)
      value = min(value, __shfl_xor_sync(0xffffffffu, value, step));
    return value;
  }
}

/// Sum of the Width lanes' values (groups of a warp side by side).
template <int Width>
__device__ __forceinline__ index_t group_sum(index_t value) {
#pragma unroll
  for (int step = Width / 2; step > 0; step >>= 1)
    value += __shfl_xor_sync(0xffffffffu, value, step);
  return value;
}

/// A lane's walk over one B row: the head column and the next one, loaded a
/// step ahead so that the step after a hit need not wait for memory.
struct MergeCursor {
  index_t p = 0, end = 0;
  unsigned head = kMergeEnd, next = kMergeEnd;

  __device__ __forceinline__ void open(const index_t* b_col, index_t begin, index_t stop) {
    p = begin;
    end = stop;
    head = p < end ? unsigned(b_col[p]) : kMergeEnd;
    next = p + 1 < end ? unsigned(b_col[p + 1]) : kMergeEnd;
  }
  __device__ __forceinline__ void advance(const index_t* b_col) {
    ++p;
    head = next;
    next = p + 1 < end ? unsigned(b_col[p + 1]) : kMergeEnd;
  }
};

/// The row of this thread's group (Width lanes of a launch of one group per
/// row), or -1 past the last row. Groups past the end stay to take part in
/// the warp's collectives.
template <int Width>
__device__ __forceinline__ index_t merge_row(index_t rows) {
  const std::int64_t group = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / Width;
  return group < rows ? index_t(group) : -1;
}

/// Opens the lane's cursors on its entries of A's `row` (none if the row has
/// more than Width·E entries, or if row < 0). Returns whether the row fits a
/// buffer of `capacity` (its products, the group's total, or Width values
/// per entry: a chunk's bound) and, in `batches`, how many of the E rounds of
/// entries some row of the warp uses (warp-uniform). A row that does not fit
/// gets no cursors.
template <int Width, int E, typename Operands, typename OnEntry>
__device__ __forceinline__ bool open_row(const Operands& in, index_t row, int capacity,
                                         MergeCursor (&cursors)[E], int& batches,
                                         OnEntry&& on_entry) {
  const int lane = threadIdx.x % Width;
  index_t a_begin = 0, a_end = 0;
  if (row >= 0) {
    a_begin = in.a_row_ptr[row];
    a_end = in.a_row_ptr[row + 1];
  }
  const bool fits = a_end - a_begin <= Width * E;
  index_t products = 0;
#pragma unroll
  for (int i = 0; i < E; ++i) {
    const index_t k = a_begin + i * Width + lane;
    if (fits && k < a_end) {
      const index_t inner = in.a_col[k];
      cursors[i].open(in.b_col, in.b_row_ptr[inner], in.b_row_ptr[inner + 1]);
      products += cursors[i].end - cursors[i].p;
      on_entry(i, k);
    }
  }
  products = group_sum<Width>(products);
  const index_t entries = a_end - a_begin;
  const bool room = fits && (products <= capacity || index_t(Width) * entries <= capacity);
  if (!room) {
#pragma unroll
    for (int i = 0; i < E; ++i) cursors[i] = MergeCursor{};
  }
  batches = 0;
#pragma unroll
  for (int i = 0; i < E; ++i)
    if (__any_sync(0xffffffffu, room && entries > i * Width)) batches = i + 1;
  return room;
}

/// What the lanes of a group whose row is done compare their heads with: no
/// head equals it (heads are columns, below 2^31, or kMergeEnd).
constexpr unsigned kMergeDone = kMergeEnd - 1;

/// Calls body(std::integral_constant<int, B>) for the warp's B = `batches`
/// rounds of entries in use (1..E; none: nothing to merge).
template <int E, int B = 1, typename Body>
__device__ __forceinline__ void with_batches(int batches, Body&& body) {
  if (batches == B) {
    body(std::integral_constant<int, B>{});
  } else if constexpr (B < E) {
    with_batches<E, B + 1>(batches, body);
  }
}

/// The group's next column of C: the smallest head of its lanes' first
/// Batches cursors. Returns false when every group of the warp is done; a
/// group that is done gets kMergeDone.
template <int Width, int Batches, int E>
__device__ __forceinline__ bool next_column(const MergeCursor (&cursors)[E], unsigned& column) {
  unsigned head = cursors[0].head;
#pragma unroll
  for (int i = 1; i < Batches; ++i) head = min(head, cursors[i].head);
  column = group_min<Width>(head);
  if constexpr (Width == 32) {
    return column != kMergeEnd;  // the group is the warp
  } else {
    if (!__any_sync(0xffffffffu, column != kMergeEnd)) return false;
    if (column == kMergeEnd) column = kMergeDone;
    return true;
  }
}

/// The count pass's steps: the number of distinct columns of the row.
template <int Width, int Batches, int E>
__device__ __forceinline__ index_t count_steps(MergeCursor (&cursors)[E], const index_t* b_col) {
  index_t steps = 0;
  unsigned column;
  while (next_column<Width, Batches>(cursors, column)) {
    steps += column != kMergeDone;
#pragma unroll
    for (int i = 0; i < Batches; ++i)
      if (cursors[i].head == column) cursors[i].advance(b_col);
  }
  return steps;
}

/// Symbolic pass: nnz of each row of C into row_nnz, and the launch's
/// MergeTally (nnz(C), longest row, misfit). Rows that do not fit (more than
/// Width·E entries, or more products than `capacity` where Width per entry
/// would not fit either) set misfit; the caller then takes the binned path.
template <int Width, int E>
__global__ void __launch_bounds__(kMergeBlock)
    merge_count_kernel(PatternOperands in, index_t rows, int capacity, index_t* row_nnz,
                       MergeTally* tally) {
  __shared__ unsigned long long block_nnz;
  __shared__ index_t block_longest;
  if (threadIdx.x == 0) {
    block_nnz = 0;
    block_longest = 0;
  }
  __syncthreads();
  const index_t row = merge_row<Width>(rows);
  MergeCursor cursors[E];
  int batches = 0;
  const bool fits =
      open_row<Width, E>(in, row, capacity, cursors, batches, [](int, index_t) {});
  index_t steps = 0;
  with_batches<E>(batches, [&](auto b) {
    steps = count_steps<Width, decltype(b)::value>(cursors, in.b_col);
  });
  if (row >= 0 && threadIdx.x % Width == 0) {
    if (fits) {
      row_nnz[row] = steps;
      atomicAdd(&block_nnz, (unsigned long long)steps);
      atomicMax(&block_longest, steps);
    } else {
      atomicExch(&tally->misfit, 1);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(&tally->nnz, block_nnz);
    atomicMax(&tally->longest, block_longest);
  }
}

/// A group's numeric state: its lanes' entries (cursor and A value) and the
/// row's place in C.
template <int E, typename T>
struct MergeRow {
  MergeCursor cursors[E];
  T a[E];
  index_t out = 0, nnz = 0;
};

/// The numeric pass's steps over a row (see the file comment); returns them.
/// Lane j of the group records the chunk's step j (its run's start in the
/// buffer and its column); a run ends where the next lane's starts, or at
/// the chunk's fill.
template <int Width, int Batches, int E, typename T>
__device__ __forceinline__ index_t fill_steps(MergeRow<E, T>& row, const ProductOperands<T>& in,
                                              T* buffer, index_t* c_col, T* c_val) {
  const int warp_lane = threadIdx.x % 32;
  const int lane = threadIdx.x % Width;
  const unsigned group_lanes =
      Width == 32 ? 0xffffffffu : ((1u << Width) - 1u) << (warp_lane & ~(Width - 1));
  const unsigned lanes_below = (1u << warp_lane) - 1u;
  index_t filled = 0, chunk_base = 0, run_start = -1, steps = 0;
  unsigned run_column = 0;
  int chunk_step = 0;
  const auto write_chunk = [&] {
    __syncwarp();
    const index_t next_start = __shfl_down_sync(0xffffffffu, run_start, 1, Width);
    if (run_start >= 0) {
      const index_t end = lane + 1 < Width && next_start >= 0 ? next_start : filled;
      T sum = buffer[run_start];
      for (index_t t = run_start + 1; t < end; ++t) sum += buffer[t];
      const index_t rank = chunk_base + lane;
      if (rank < row.nnz) {
        c_col[row.out + rank] = index_t(run_column);
        c_val[row.out + rank] = sum;
      }
    }
    run_start = -1;
    filled = 0;
    chunk_base += Width;
    chunk_step = 0;
    __syncwarp();
  };
  unsigned column;
  while (next_column<Width, Batches>(row.cursors, column)) {
    index_t at = filled;
#pragma unroll
    for (int i = 0; i < Batches; ++i) {
      MergeCursor& cursor = row.cursors[i];
      const bool hit = cursor.head == column;
      const unsigned hits = __ballot_sync(0xffffffffu, hit) & group_lanes;
      if (hit) {
        buffer[at + __popc(hits & lanes_below)] = rounded_product(row.a[i], in.b_val[cursor.p]);
        cursor.advance(in.b_col);
      }
      at += __popc(hits);
    }
    if (lane == chunk_step && column != kMergeDone) {
      run_start = filled;
      run_column = column;
    }
    filled = at;
    steps += column != kMergeDone;
    if (++chunk_step == Width) write_chunk();
  }
  write_chunk();
  return steps;
}

/// Numeric pass: C's columns and values (rows placed by c_row_ptr from the
/// symbolic pass). Each group has a buffer of `capacity` values in dynamic
/// shared memory. Sets *error if a row does not fit or has another nnz.
template <int Width, int E, typename T>
__global__ void __launch_bounds__(kMergeBlock)
    merge_fill_kernel(ProductOperands<T> in, index_t rows, int capacity,
                      const index_t* c_row_ptr, index_t* c_col, T* c_val, int* error) {
  extern __shared__ __align__(16) unsigned char merge_buffers[];
  T* const buffer =
      reinterpret_cast<T*>(merge_buffers) + std::size_t(threadIdx.x / Width) * capacity;
  const index_t row_index = merge_row<Width>(rows);
  MergeRow<E, T> row;
  if (row_index >= 0) {
    row.out = c_row_ptr[row_index];
    row.nnz = c_row_ptr[row_index + 1] - row.out;
  }
#pragma unroll
  for (int i = 0; i < E; ++i) row.a[i] = T(0);
  int batches = 0;
  const bool fits = open_row<Width, E>(in, row_index, capacity, row.cursors, batches,
                                       [&](int i, index_t k) {
    row.a[i] = in.a_val[k];
  });
  index_t steps = 0;
  with_batches<E>(batches, [&](auto b) {
    steps = fill_steps<Width, decltype(b)::value>(row, in, buffer, c_col, c_val);
  });
  if (row_index >= 0 && threadIdx.x % Width == 0 && (!fits || steps != row.nnz))
    atomicExch(error, 1);
}

}  // namespace binamg::spgemm_detail
