#pragma once
// Rows of C whose columns lie in a narrow window: a warp per row marks the
// row's columns in a shared bit set over [lo, lo + 32·words), lo and the
// words from the first and last columns of the row's B rows (which are
// sorted). The count pass is the bit set's population. The numeric pass ranks
// the set bits (a column's place in the row is the bits below it), writes the
// columns in order, and sums each column's terms in a shared accumulator in
// A's order: sub-groups of G lanes take an A entry's B row each, and add one
// sub-group after another (the columns of one B row are distinct). Each sum
// starts from −0, which leaves its first term exact, so the bits are the
// CPU's. A row's cost is its products and its words, not a merge step per
// column of C nor a hash probe per product: long rows into a coarse space
// gain (3D 7-pt's level-1 R·(AP), ~200 entries a row, ran faster than binned;
// docs/experiments.md).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "binamg/core/types.hpp"
#include "binamg/spgemm/kernels/hash.cuh"
#include "binamg/spgemm/kernels/table_rows.cuh"
#include "binamg/spgemm/tuning.hpp"

namespace binamg::spgemm_detail {


/// What a pass over the rows reports in one read-back: nnz(C), its longest
/// row, its widest window (words), whether some row's window was wider than
/// kWindowMaxWords and whether some row had more columns than its room.
struct WindowTally {
  unsigned long long nnz;
  index_t longest;
  int widest;
  int misfit;
  int crowded;
};

/// A block's share of a WindowTally, in shared memory: cleared by thread 0
/// before a barrier, added to by each row's lane 0, added to the launch's
/// tally by thread 0 after a barrier.
struct BlockTally {
  unsigned long long nnz;
  index_t longest;
  int widest;
};

__device__ __forceinline__ void clear_block_tally(BlockTally& block) {
  if (threadIdx.x == 0) {
    block.nnz = 0;
    block.longest = 0;
    block.widest = 0;
  }
  __syncthreads();
}

__device__ __forceinline__ void tally_row(BlockTally& block, index_t nnz, int words) {
  atomicAdd(&block.nnz, (unsigned long long)nnz);
  atomicMax(&block.longest, nnz);
  atomicMax(&block.widest, words);
}

__device__ __forceinline__ void flush_block_tally(BlockTally& block, WindowTally* tally) {
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(&tally->nnz, block.nnz);
    atomicMax(&tally->longest, block.longest);
    atomicMax(&tally->widest, block.widest);
  }
}

/// A row's window: its first column and the words that reach its last
/// (0 for an empty row).
struct Window {
  unsigned lo = 0;
  int words = 0;
};

/// A·B where B's rows still lie in the rooms a fused product wrote them to
/// (not packed): row i starts at b_room[i] and has as many entries as
/// b_row_ptr[i + 1] - b_row_ptr[i] (C's row offsets of that product).
template <typename T>
struct RoomProductOperands : ProductOperands<T> {
  const index_t* b_room;
};

/// Where B's row `inner` starts and how many entries it has.
template <typename Operands>
__device__ __forceinline__ void b_row_span(const Operands& in, index_t inner, index_t& begin,
                                           index_t& length) {
  begin = in.b_row_ptr[inner];
  length = in.b_row_ptr[inner + 1] - begin;
}
template <typename T>
__device__ __forceinline__ void b_row_span(const RoomProductOperands<T>& in, index_t inner,
                                           index_t& begin, index_t& length) {
  begin = in.b_room[inner];
  length = in.b_row_ptr[inner + 1] - in.b_row_ptr[inner];
}

/// The window of the row A(a_begin:a_end,:)·B, from the first and last
/// column of each B row. All lanes of the warp take part.
template <typename Operands>
__device__ __forceinline__ Window window_of_row(const Operands& in, index_t a_begin,
                                                index_t a_end) {
  unsigned lo = 0xffffffffu, hi = 0;
  for (index_t k = a_begin + threadIdx.x % 32; k < a_end; k += 32) {
    index_t begin, length;
    b_row_span(in, in.a_col[k], begin, length);
    if (length > 0) {
      lo = min(lo, unsigned(in.b_col[begin]));
      hi = max(hi, unsigned(in.b_col[begin + length - 1]));
    }
  }
  lo = __reduce_min_sync(0xffffffffu, lo);
  hi = __reduce_max_sync(0xffffffffu, hi);
  Window window;
  if (lo <= hi) {
    window.lo = lo;
    window.words = int((hi - lo) / 32 + 1);
  }
  return window;
}

/// Entry k of A's row (none at or past a_end): its B row's start and length.
template <typename Operands>
__device__ __forceinline__ void load_entry(const Operands& in, index_t k, index_t a_end,
                                           index_t& begin, index_t& length) {
  begin = 0;
  length = 0;
  if (k < a_end) b_row_span(in, in.a_col[k], begin, length);
}

/// Marks in `bits` the columns of the products of A entries [a_begin, a_end)
/// (atomically: other warps may mark the same set): lane e loads entry e of
/// each chunk of 32 A entries, then sub-groups of G lanes walk one B row each,
/// coalesced, two columns a lane per B row at once and the rest of a longer
/// row after.
template <int G, typename Operands>
__device__ __forceinline__ void mark_entries(const Operands& in, index_t a_begin, index_t a_end,
                                             const Window& window, unsigned* bits) {
  constexpr int S = 32 / G, Items = 2;
  static_assert(32 % (S * kMarkSteps) == 0, "a chunk of entries is whole groups of steps");
  const int lane = threadIdx.x % 32;
  const auto mark = [&](index_t col) {
    const unsigned bit = unsigned(col) - window.lo;
    atomicOr(&bits[bit / 32], 1u << (bit % 32));
  };
  for (index_t k0 = a_begin; k0 < a_end; k0 += 32) {
    index_t begin, length;
    load_entry(in, k0 + lane, a_end, begin, length);
    const int entries = a_end - k0 < 32 ? int(a_end - k0) : 32;
    for (int first = 0; first < entries; first += S * kMarkSteps) {
      index_t own_begin[kMarkSteps], own_length[kMarkSteps], col[kMarkSteps][Items];
#pragma unroll
      for (int step = 0; step < kMarkSteps; ++step) {
        // Entries past the chunk's have length 0 (load_entry).
        const int entry = first + step * S + lane / G;
        own_begin[step] = __shfl_sync(0xffffffffu, begin, entry);
        own_length[step] = __shfl_sync(0xffffffffu, length, entry);
#pragma unroll
        for (int i = 0; i < Items; ++i) {
          const index_t off = lane % G + i * G;
          col[step][i] = off < own_length[step] ? in.b_col[own_begin[step] + off] : -1;
        }
      }
#pragma unroll
      for (int step = 0; step < kMarkSteps; ++step) {
#pragma unroll
        for (int i = 0; i < Items; ++i)
          if (col[step][i] >= 0) mark(col[step][i]);
        for (index_t off = lane % G + Items * G; off < own_length[step]; off += G)
          mark(in.b_col[own_begin[step] + off]);
      }
    }
  }
}

/// Clears the warp's bit set over the window and marks the row's columns.
template <int G, typename Operands>
__device__ __forceinline__ void mark_columns(const Operands& in, index_t a_begin, index_t a_end,
                                             const Window& window, unsigned* bits) {
  for (int w = threadIdx.x % 32; w < window.words; w += 32) bits[w] = 0;
  __syncwarp();
  mark_entries<G>(in, a_begin, a_end, window, bits);
  __syncwarp();
}

/// The columns the warp's bit set marks. All lanes of the warp take part.
__device__ __forceinline__ index_t count_columns(const Window& window, const unsigned* bits) {
  unsigned count = 0;
  for (int w = threadIdx.x % 32; w < window.words; w += 32) count += __popc(bits[w]);
  return index_t(__reduce_add_sync(0xffffffffu, count));
}

/// Symbolic pass: nnz of each row of C into row_nnz, and the launch's
/// WindowTally. A row whose window is wider than kWindowMaxWords sets misfit
/// (and gets no count); the caller then takes another path.
template <int G>
__global__ void __launch_bounds__(kWindowWarps * 32)
    window_count_kernel(PatternOperands in, index_t rows, index_t* row_nnz,
                        WindowTally* tally) {
  __shared__ unsigned bits[kWindowWarps][kWindowMaxWords];
  __shared__ BlockTally block;
  clear_block_tally(block);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t row = std::int64_t(blockIdx.x) * kWindowWarps + warp;
  if (row < rows) {  // warp-uniform
    const index_t a_begin = in.a_row_ptr[row], a_end = in.a_row_ptr[row + 1];
    const Window window = window_of_row(in, a_begin, a_end);
    if (window.words > kWindowMaxWords) {
      if (lane == 0) atomicExch(&tally->misfit, 1);
    } else {
      mark_columns<G>(in, a_begin, a_end, window, bits[warp]);
      const index_t count = count_columns(window, bits[warp]);
      if (lane == 0) {
        row_nnz[row] = count;
        tally_row(block, count, window.words);
      }
    }
  }
  flush_block_tally(block, tally);
}

/// A fill warp's shared bytes: `capacity` accumulators, then `words` bit-set
/// words and as many 16-bit ranks (a row has at most 32·kWindowMaxWords
/// columns), padded to 16 bytes.
template <typename T>
constexpr std::size_t window_warp_bytes(int words, int capacity) {
  return (std::size_t(capacity) * sizeof(T) + std::size_t(words) * 6 + 15) / 16 * 16;
}

/// Ranks the warp's set bits (ranks[w]: the set bits below word w) and
/// writes the row's columns in order at c_col. Returns the row's nnz.
__device__ __forceinline__ index_t rank_columns(const Window& window, const unsigned* bits,
                                                unsigned short* ranks, index_t* c_col) {
  const int lane = threadIdx.x % 32;
  const int per_lane = (window.words + 31) / 32;
  const int first = lane * per_lane;
  const int last = min(window.words, first + per_lane);
  index_t own = 0;
  for (int w = first; w < last; ++w) own += __popc(bits[w]);
  index_t through = own;  // inclusive scan over the lanes
#pragma unroll
  for (int step = 1; step < 32; step *= 2) {
    const index_t below = __shfl_up_sync(0xffffffffu, through, step);
    if (lane >= step) through += below;
  }
  index_t rank = through - own;
  for (int w = first; w < last; ++w) {
    ranks[w] = static_cast<unsigned short>(rank);
    for (unsigned word = bits[w]; word != 0; word &= word - 1)
      c_col[rank++] = index_t(window.lo + 32u * unsigned(w) + unsigned(__ffs(int(word)) - 1));
  }
  return __shfl_sync(0xffffffffu, through, 31);
}

/// The place of column `col` in the row: the set bits below it.
__device__ __forceinline__ int place_of(index_t col, const Window& window, const unsigned* bits,
                                        const unsigned short* ranks) {
  const unsigned bit = unsigned(col) - window.lo;
  return ranks[bit / 32] + __popc(bits[bit / 32] & ((1u << (bit % 32)) - 1u));
}

/// One step of add_products: a sub-group's B row and A value, and the
/// first I columns and values of the row it walks.
template <typename T, int I>
struct StepTerms {
  index_t begin = 0, length = 0;
  T a = T(0);
  index_t col[I] = {};
  T b[I] = {};
};

/// Adds the row's products into sums (at their columns' places) in A's
/// order. A step takes 32 / G entries, G lanes on each entry's B row and up
/// to I products per lane, and the sub-groups add one after another (one B
/// row's columns are distinct). A step with a B row longer than G·I takes
/// its entries one at a time, the whole warp on each B row, so that no
/// entry's products pass an earlier entry's. A step's first I products a
/// lane are loaded while the step before adds (StepTerms).
template <int G, int I, typename T, typename Operands>
__device__ __forceinline__ void add_products(const Operands& in, index_t a_begin,
                                             index_t a_end, const Window& window,
                                             const unsigned* bits, const unsigned short* ranks,
                                             T* sums) {
  constexpr int S = 32 / G;
  const int lane = threadIdx.x % 32, sub = lane / G;
  for (index_t k0 = a_begin; k0 < a_end; k0 += 32) {
    // Lane e holds entry k0 + e: its B row and A value (none past the row).
    index_t begin, length;
    load_entry(in, k0 + lane, a_end, begin, length);
    const T a = k0 + lane < a_end ? in.a_val[k0 + lane] : T(0);
    const int entries = a_end - k0 < 32 ? int(a_end - k0) : 32;
    // Each step's terms are loaded while the step before adds its own.
    const auto load_step = [&](int first, StepTerms<T, I>& step) {
      const int entry = first + sub;
      step.begin = __shfl_sync(0xffffffffu, begin, entry);
      step.length = __shfl_sync(0xffffffffu, length, entry);
      step.a = __shfl_sync(0xffffffffu, a, entry);
#pragma unroll
      for (int i = 0; i < I; ++i) {
        const index_t off = lane % G + i * G;
        step.col[i] = -1;
        if (off < step.length) {
          step.col[i] = in.b_col[step.begin + off];
          step.b[i] = in.b_val[step.begin + off];
        }
      }
    };
    StepTerms<T, I> current;
    load_step(0, current);
    for (int first = 0; first < entries; first += S) {
      StepTerms<T, I> next;
      if (first + S < entries) load_step(first + S, next);
      if (!__any_sync(0xffffffffu, current.length > G * I)) {
        int place[I];
        T term[I];
#pragma unroll
        for (int i = 0; i < I; ++i) {
          place[i] = -1;
          term[i] = T(0);
          if (current.col[i] >= 0) {
            place[i] = place_of(current.col[i], window, bits, ranks);
            term[i] = rounded_product(current.a, current.b[i]);
          }
        }
#pragma unroll
        for (int turn = 0; turn < S; ++turn) {
          if (sub == turn) {
#pragma unroll
            for (int i = 0; i < I; ++i)
              if (place[i] >= 0) sums[place[i]] += term[i];
          }
          __syncwarp();
        }
      } else {
        const int last = min(first + S, entries);
        for (int e = first; e < last; ++e) {
          const index_t row_begin = __shfl_sync(0xffffffffu, begin, e);
          const index_t row_length = __shfl_sync(0xffffffffu, length, e);
          const T row_a = __shfl_sync(0xffffffffu, a, e);
          for (index_t off = lane; off < row_length; off += 32)
            sums[place_of(in.b_col[row_begin + off], window, bits, ranks)] +=
                rounded_product(row_a, in.b_val[row_begin + off]);
          __syncwarp();
        }
      }
      current = next;
    }
  }
}

/// A warp's accumulators, bit set and ranks in its window_warp_bytes(words,
/// capacity) of the block's dynamic shared memory.
template <typename T>
struct WarpWindow {
  T* sums;
  unsigned* bits;
  unsigned short* ranks;
};

template <typename T>
__device__ __forceinline__ WarpWindow<T> warp_window(unsigned char* shared, int words,
                                                     int capacity) {
  T* const sums = reinterpret_cast<T*>(shared + (threadIdx.x / 32) *
                                                    window_warp_bytes<T>(words, capacity));
  unsigned* const bits = reinterpret_cast<unsigned*>(sums + capacity);
  return {sums, bits, reinterpret_cast<unsigned short*>(bits + words)};
}

/// One row through the window: its columns in order to out_col and their
/// sums to out_val, if it has at most `most` columns (at most the warp's
/// capacity). Returns its columns, or -1 (nothing written) past `most`.
template <int G, int I, typename T, typename Operands>
__device__ __forceinline__ index_t window_row(const Operands& in, index_t a_begin,
                                              index_t a_end, const Window& window,
                                              const WarpWindow<T>& at, index_t most,
                                              index_t* out_col, T* out_val) {
  mark_columns<G>(in, a_begin, a_end, window, at.bits);
  const index_t nnz = count_columns(window, at.bits);
  if (nnz > most) return -1;
  rank_columns(window, at.bits, at.ranks, out_col);
  const int lane = threadIdx.x % 32;
  for (index_t i = lane; i < nnz; i += 32) at.sums[i] = -T(0);
  __syncwarp();
  add_products<G, I>(in, a_begin, a_end, window, at.bits, at.ranks, at.sums);
  __syncwarp();
  for (index_t i = lane; i < nnz; i += 32) out_val[i] = at.sums[i];
  return nnz;
}

/// Numeric pass: C's columns and values (rows placed by c_row_ptr from the
/// symbolic pass). Each warp has window_warp_bytes(words, capacity) of
/// dynamic shared memory. Sets *error if a row's window or nnz does not fit
/// or its nnz differs from C's.
template <int G, int I, typename T>
__global__ void __launch_bounds__(kWindowWarps * 32, 5)
    window_fill_kernel(ProductOperands<T> in, index_t rows, int words, int capacity,
                       const index_t* c_row_ptr, index_t* c_col, T* c_val, int* error) {
  extern __shared__ __align__(16) unsigned char window_shared[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t row = std::int64_t(blockIdx.x) * (blockDim.x / 32) + warp;
  if (row >= rows) return;  // warp-uniform; no block barrier follows
  const index_t a_begin = in.a_row_ptr[row], a_end = in.a_row_ptr[row + 1];
  const index_t out = c_row_ptr[row], nnz = c_row_ptr[row + 1] - out;
  const Window window = window_of_row(in, a_begin, a_end);
  if (window.words > words || nnz > capacity ||
      window_row<G, I>(in, a_begin, a_end, window, warp_window<T>(window_shared, words, capacity),
                       nnz, c_col + out, c_val + out) != nnz) {
    if (lane == 0) atomicExch(error, 1);
  }
}

/// Both passes at once (B's rows packed, ProductOperands<T>, or in rooms,
/// RoomProductOperands<T>): each row into its room of `capacity` entries at
/// row·capacity of room_col / room_val, its nnz into row_nnz, and the
/// launch's WindowTally (crowded set for a row wider than `words` or of more
/// than `capacity` columns, which gets 0: such a row costs its window, or
/// its marks, before it gives up). Shared memory as window_fill_kernel's.
template <int G, int I, typename T, typename Operands>
__global__ void __launch_bounds__(kWindowWarps * 32, 5)
    window_fused_kernel(Operands in, index_t rows, int words, int capacity,
                        index_t* row_nnz, index_t* room_col, T* room_val, WindowTally* tally) {
  extern __shared__ __align__(16) unsigned char window_shared[];
  __shared__ BlockTally block;
  clear_block_tally(block);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t row = std::int64_t(blockIdx.x) * (blockDim.x / 32) + warp;
  // Once a row is crowded the caller counts again: the rest skip their work
  // (lane 0's look, so that the warp agrees).
  const int crowded = __shfl_sync(
      0xffffffffu, lane == 0 ? *static_cast<volatile int*>(&tally->crowded) : 0, 0);
  if (row < rows && crowded == 0) {  // warp-uniform
    const index_t a_begin = in.a_row_ptr[row], a_end = in.a_row_ptr[row + 1];
    const Window window = window_of_row(in, a_begin, a_end);
    const std::int64_t room = row * capacity;
    const index_t nnz =
        window.words > words
            ? -1
            : window_row<G, I>(in, a_begin, a_end, window,
                               warp_window<T>(window_shared, words, capacity), capacity,
                               room_col + room, room_val + room);
    if (lane == 0) {
      row_nnz[row] = nnz < 0 ? 0 : nnz;
      if (nnz < 0)
        atomicExch(&tally->crowded, 1);
      else
        tally_row(block, nnz, window.words);
    }
  }
  flush_block_tally(block, tally);
}

// ---- Split rows: a block per row ----
//
// Few rows of many products each (the coarse levels' R·(AP): 756 rows of
// about 27,000 products on 3D 7-pt 128³'s level 2) leave a warp a row with
// most of the GPU idle. A block of warps then takes each row: the warps mark
// one bit set, each over its contiguous share of the row's A entries, and
// warp 0 counts or ranks it; each warp adds its share's products in A's order
// into accumulators of its own, and the block sums them warp after warp. The
// regrouping rounds otherwise than the CPU (as the sorted paths' long runs
// do), the same way on every run.

/// The share of A entries [a_begin, a_end) of warp `warp` of `warps`.
struct EntryShare {
  index_t begin, end;
};
__device__ __forceinline__ EntryShare entry_share(index_t a_begin, index_t a_end, int warp,
                                                  int warps) {
  const index_t size = (a_end - a_begin + warps - 1) / warps;
  const index_t begin = min(a_end, a_begin + warp * size);
  return {begin, min(a_end, begin + size)};
}

/// The row's window, found by warp 0 and handed to the block through `shared`.
template <typename Operands>
__device__ __forceinline__ Window block_window(const Operands& in, index_t a_begin, index_t a_end,
                                               Window& shared) {
  if (threadIdx.x < 32) {
    const Window window = window_of_row(in, a_begin, a_end);
    if (threadIdx.x == 0) shared = window;
  }
  __syncthreads();
  return shared;
}

/// The block's bit set cleared and the row's columns marked by all its warps.
template <int G, typename Operands>
__device__ __forceinline__ void block_mark_columns(const Operands& in, index_t a_begin,
                                                   index_t a_end, const Window& window,
                                                   unsigned* bits) {
  for (int w = threadIdx.x; w < window.words; w += blockDim.x) bits[w] = 0;
  __syncthreads();
  const EntryShare share = entry_share(a_begin, a_end, threadIdx.x / 32, blockDim.x / 32);
  mark_entries<G>(in, share.begin, share.end, window, bits);
  __syncthreads();
}

/// window_count_kernel with a block per row (row_nnz and the tally as there).
template <int G>
__global__ void __launch_bounds__(kWindowSplitWarps * 32)
    window_split_count_kernel(PatternOperands in, index_t* row_nnz, WindowTally* tally) {
  __shared__ unsigned bits[kWindowMaxWords];
  __shared__ Window shared_window;
  const index_t row = blockIdx.x;
  const index_t a_begin = in.a_row_ptr[row], a_end = in.a_row_ptr[row + 1];
  const Window window = block_window(in, a_begin, a_end, shared_window);
  if (window.words > kWindowMaxWords) {  // block-uniform
    if (threadIdx.x == 0) atomicExch(&tally->misfit, 1);
    return;
  }
  block_mark_columns<G>(in, a_begin, a_end, window, bits);
  if (threadIdx.x < 32) {
    const index_t count = count_columns(window, bits);
    if (threadIdx.x == 0) {
      row_nnz[row] = count;
      atomicAdd(&tally->nnz, (unsigned long long)count);
      atomicMax(&tally->longest, count);
      atomicMax(&tally->widest, window.words);
    }
  }
}

/// A split fill block's dynamic shared bytes: an accumulator of `capacity`
/// entries per warp, then `words` bit-set words and as many 16-bit ranks.
template <typename T>
constexpr std::size_t window_split_bytes(int warps, int words, int capacity) {
  return (std::size_t(warps) * capacity * sizeof(T) + std::size_t(words) * 6 + 15) / 16 * 16;
}

/// window_fill_kernel with a block of blockDim.x / 32 warps per row (shared
/// memory: window_split_bytes). Sets *error as there.
template <int G, int I, typename T>
__global__ void __launch_bounds__(kWindowSplitWarps * 32)
    window_split_fill_kernel(ProductOperands<T> in, int words, int capacity,
                             const index_t* c_row_ptr, index_t* c_col, T* c_val, int* error) {
  extern __shared__ __align__(16) unsigned char window_shared[];
  __shared__ Window shared_window;
  __shared__ int differs;
  const int warps = blockDim.x / 32, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  T* const partials = reinterpret_cast<T*>(window_shared);
  unsigned* const bits = reinterpret_cast<unsigned*>(partials + std::size_t(warps) * capacity);
  unsigned short* const ranks = reinterpret_cast<unsigned short*>(bits + words);
  const index_t row = blockIdx.x;
  const index_t a_begin = in.a_row_ptr[row], a_end = in.a_row_ptr[row + 1];
  const index_t out = c_row_ptr[row], nnz = c_row_ptr[row + 1] - out;
  const Window window = block_window(in, a_begin, a_end, shared_window);
  if (window.words > words || nnz > capacity) {  // block-uniform
    if (threadIdx.x == 0) atomicExch(error, 1);
    return;
  }
  block_mark_columns<G>(in, a_begin, a_end, window, bits);
  if (warp == 0) {
    const index_t ranked = rank_columns(window, bits, ranks, c_col + out);
    if (lane == 0) differs = ranked != nnz;
  }
  __syncthreads();
  if (differs) {
    if (threadIdx.x == 0) atomicExch(error, 1);
    return;
  }
  T* const sums = partials + std::size_t(warp) * capacity;
  for (index_t i = lane; i < nnz; i += 32) sums[i] = -T(0);
  __syncwarp();
  const EntryShare share = entry_share(a_begin, a_end, warp, warps);
  add_products<G, I>(in, share.begin, share.end, window, bits, ranks, sums);
  __syncthreads();
  for (index_t i = threadIdx.x; i < nnz; i += blockDim.x) {
    T sum = partials[i];
    for (int w = 1; w < warps; ++w) sum += partials[std::size_t(w) * capacity + i];
    c_val[out + i] = sum;
  }
}

}  // namespace binamg::spgemm_detail
