#pragma once
// Device side of the CSR × block kernels (blocks of k vectors stored row-major,
// entry (i, j) at [i·k + j]) in the row-split layout of Yang, Buluç & Owens: each
// row of A belongs to a group of L lanes that load up to L of its nonzeros at once
// (coalesced) and broadcast each (column, value) by shuffles, while every lane
// updates its own columns of the row, reading the matching row of the block
// contiguously across the group. The SpMM, the block smoother and the block
// V-cycle's fused steps share the kernel, each with its own gather (column c of
// input row `col`) and epilogue (what becomes of the sum for (row, c)). Where a
// group would walk its row in many dependent rounds (few lanes, long rows),
// the block stages its rows' nonzeros through shared memory first
// (staged_row_sums).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "binamg/core/chained_launch.cuh"
#include "binamg/core/cuda_check.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/sparse/device_csr.hpp"
#include "binamg/spmv/column_partials.cuh"
#include "binamg/spmv/row_split.cuh"
#include "binamg/spmv/spmm_kernels.hpp"

namespace binamg::block_row_split {

using spmm_detail::SpmmPolicy;

using row_split::group_mask;
using row_split::long_rows_of;
using row_split::no_long_rows;

// visit(column, value) for the nonzeros of `row` in increasing position, on
// every lane of the row's group of L: the lanes load L of them at once
// (coalesced) and broadcast each by shuffles. With parts > 1 only chunks part,
// part + parts, … of L nonzeros.
template <int L, typename T, typename Visit>
__device__ void for_each_entry(std::int64_t row, const index_t* __restrict__ row_ptr,
                               const index_t* __restrict__ col_idx,
                               const T* __restrict__ values, int part, int parts,
                               const Visit& visit) {
  const int lane = threadIdx.x % L;
  const unsigned mask = group_mask<L>();
  const index_t begin = row_ptr[row], end = row_ptr[row + 1];
  for (index_t base = begin + part * L; base < end; base += parts * L) {
    index_t my_column = 0;
    T my_value = T(0);
    if (base + lane < end) {
      my_column = col_idx[base + lane];
      my_value = values[base + lane];
    }
    const int count = min(L, end - base);
    for (int t = 0; t < count; ++t)
      visit(__shfl_sync(mask, my_column, t, L), __shfl_sync(mask, my_value, t, L));
  }
}

// Threads: a group of L lanes per row (row = global thread / L); blockIdx.y is
// the pass over columns [64·y, 64·y + 64), lane l owning columns
// pass_base + l + r·L for r < R. Invariant: each (row, column) sum runs over the
// row's nonzeros in increasing position, one fma() each, so its bits never
// vary. Exact: k is a multiple of L·R, so no column needs a bounds check. With
// parts > 1 the sum covers only chunks part, part + parts, … of L nonzeros
// (split_rows_kernel).
template <typename T, int L, int R, bool Exact, typename Gather>
__device__ void sum_row(std::int64_t row, index_t k, index_t first_column,
                        const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
                        const T* __restrict__ values, const Gather& gather, T (&sum)[R],
                        int part = 0, int parts = 1) {
#pragma unroll
  for (int r = 0; r < R; ++r) sum[r] = T(0);
  for_each_entry<L>(row, row_ptr, col_idx, values, part, parts, [&](index_t column, T a) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const index_t c = first_column + r * L;
      if (Exact || c < k) sum[r] = fma(a, gather(column, c), sum[r]);
    }
  });
}

__device__ inline index_t first_column_of_lane(int lanes) {
  return blockIdx.y * SpmmPolicy::columns_per_pass + threadIdx.x % lanes;
}

// The block's groups add up their partial sums for the columns their lanes own:
// within each warp by a fixed butterfly over its groups, then the warps' totals
// in warp order (through `shared`, warps × L·R entries). Returns the total in
// the block's first group; every thread must call it.
template <typename T, int L, int R>
__device__ void add_over_block(T (&sum)[R], T* shared) {
  constexpr int slots = L * R, warps = SpmmPolicy::threads / SpmmPolicy::warp;
  const int lane = threadIdx.x % L, warp = threadIdx.x / SpmmPolicy::warp;
#pragma unroll
  for (int offset = L; offset < SpmmPolicy::warp; offset *= 2)
#pragma unroll
    for (int r = 0; r < R; ++r) sum[r] += __shfl_down_sync(0xffffffffu, sum[r], offset);
  if (threadIdx.x % SpmmPolicy::warp < L) {
#pragma unroll
    for (int r = 0; r < R; ++r) shared[warp * slots + r * L + lane] = sum[r];
  }
  __syncthreads();
  if (threadIdx.x < L) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      T total = shared[r * L + lane];
      for (int w = 1; w < warps; ++w) total += shared[w * slots + r * L + lane];
      sum[r] = total;
    }
  }
  __syncthreads();  // shared is free again
}

// The rows of [first_row, first_row + groups) (groups = the block's groups of L
// lanes) longer than `long_row`, in order, each summed by all the block's
// groups: group g takes chunks g, g + G, … of L nonzeros, and add_over_block
// adds them in a fixed order. Then finish(row, sum) runs on the first group
// (threads < L) with its columns' sums. Every thread must call it; `shared`
// holds warps × L·R entries.
template <typename T, int L, int R, bool Exact, typename Gather, typename Finish>
__device__ void sum_long_rows(std::int64_t first_row, index_t rows, index_t k, index_t long_row,
                              const index_t* __restrict__ row_ptr,
                              const index_t* __restrict__ col_idx, const T* __restrict__ values,
                              const Gather& gather, const Finish& finish, T* shared) {
  constexpr int groups = SpmmPolicy::threads / L;
  const int group = threadIdx.x / L;
  const index_t first_column = first_column_of_lane(L);
  for (std::int64_t row = first_row; row < first_row + groups && row < rows; ++row) {
    if (row_ptr[row + 1] - row_ptr[row] <= long_row) continue;  // the same for all threads
    T sum[R];
    sum_row<T, L, R, Exact>(row, k, first_column, row_ptr, col_idx, values, gather, sum, group,
                            groups);
    add_over_block<T, L, R>(sum, shared);
    if (threadIdx.x < L) finish(row, sum);
  }
}

/// Two adjacent columns of a block row, moved by one vector load or store.
template <typename T>
struct TwoOf;
template <>
struct TwoOf<double> {
  using type = double2;
};
template <>
struct TwoOf<float> {
  using type = float2;
};

/// Whether `block` may be read or written two columns at a time.
template <typename T>
bool aligned_for_pairs(const T* block) {
  return reinterpret_cast<std::uintptr_t>(block) % sizeof(typename TwoOf<T>::type) == 0;
}

/// A gather and an epilogue that also move two adjacent columns at once:
/// gather.pair(col, c) -> TwoOf<T>::type, epilogue.pair(row, c, sum_c, sum_c+1),
/// and, on the host, aligned_for_pairs() (their pointers fit the vector type).
template <typename T, typename Gather, typename Epilogue, typename = void>
struct TakesPairs : std::false_type {};
template <typename T, typename Gather, typename Epilogue>
struct TakesPairs<T, Gather, Epilogue,
                  std::void_t<decltype(std::declval<const Gather&>().pair(0, 0)),
                              decltype(std::declval<const Epilogue&>().pair(0, 0, T(), T()))>>
    : std::true_type {};

// Pair q of a lane whose first pair is column `first_pair`: columns
// first_pair + q·2L and the one after.
template <int L>
__device__ index_t pair_column(index_t first_pair, int q) {
  return first_pair + q * 2 * L;
}

// sum[2q], sum[2q + 1] += a · (the lane's pair q of input row `column`), for
// the R/2 pairs gathered in x. Every kernel here adds a product with fma(), as
// sum_row does: left to the compiler, a product staged_kernel computed under a
// condition stayed unfused, and its sums lost the bits of kernel()'s.
template <typename T, int R>
__device__ void add_pairs(T a, const typename TwoOf<T>::type (&x)[R / 2], T (&sum)[R]) {
#pragma unroll
  for (int q = 0; q < R / 2; ++q) {
    sum[2 * q] = fma(a, x[q].x, sum[2 * q]);
    sum[2 * q + 1] = fma(a, x[q].y, sum[2 * q + 1]);
  }
}

template <typename T, int L, int R, typename Gather>
__device__ void gather_pairs(const Gather& gather, index_t column, index_t first_pair,
                             typename TwoOf<T>::type (&x)[R / 2]) {
#pragma unroll
  for (int q = 0; q < R / 2; ++q) x[q] = gather.pair(column, pair_column<L>(first_pair, q));
}

template <typename T, int L, int R, typename Epilogue>
__device__ void store_pairs(const Epilogue& epilogue, std::int64_t row, index_t first_pair,
                            const T (&sum)[R]) {
#pragma unroll
  for (int q = 0; q < R / 2; ++q)
    epilogue.pair(row, pair_column<L>(first_pair, q), sum[2 * q], sum[2 * q + 1]);
}

__device__ inline index_t first_pair_of_lane(int lanes) {
  return blockIdx.y * SpmmPolicy::columns_per_pass + 2 * (threadIdx.x % lanes);
}

// kernel() for an exact shape with R even, its lanes owning column pairs: lane
// l of a pass takes columns pass_base + q·2L + 2l and the one after (q < R/2),
// one vector gather and one vector store per pair instead of two scalars. The
// sums run over the row's nonzeros in the same order, so the bits are those of
// kernel(). Half the gathers and stores made 27-pt faster at every k measured
// (docs/experiments.md). Its parameters are kernel()'s (k unused), so that one
// launch takes either.
template <typename T, int L, int R, bool Exact, typename Gather, typename Epilogue>
__global__ void __launch_bounds__(SpmmPolicy::threads)
    paired_kernel(index_t rows, index_t k, index_t long_row, const index_t* __restrict__ row_ptr,
                  const index_t* __restrict__ col_idx, const T* __restrict__ values,
                  Gather gather, Epilogue epilogue) {
  wait_for_prior_kernel();
  static_assert(Exact && R % 2 == 0, "pairs need every column of a pass, two per slot");
  const std::int64_t row = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / L;
  if (row >= rows) return;  // whole groups leave together: rows are per group
  if (long_row != no_long_rows && row_ptr[row + 1] - row_ptr[row] > long_row) return;
  const index_t first_pair = first_pair_of_lane(L);
  T sum[R] = {};
  for_each_entry<L>(row, row_ptr, col_idx, values, 0, 1, [&](index_t column, T a) {
    typename TwoOf<T>::type x[R / 2];
    gather_pairs<T, L, R>(gather, column, first_pair, x);
    add_pairs<T, R>(a, x, sum);
  });
  store_pairs<T, L, R>(epilogue, row, first_pair, sum);
}

// Nonzeros staged_row_sums stages per pass for a stage of `threads` threads
// in groups of L lanes: room for 32 per row of the stage, at most 8 loads per
// thread. The smaller tile leaves the SM more L1 for the gathers: at L = 8,
// 1024 rather than 2048 per block of 256 made 27-pt faster at k = 32 and 64
// (docs/experiments.md).
// From L = 8 on, rows of more than 32 entries on average take the paired kernel.
constexpr int staged_tile_of(int threads, int L) {
  return 32 * (threads / L) < 8 * threads ? 32 * (threads / L) : 8 * threads;
}

// Whether each warp of a staged kernel of L lanes per row stages its own
// rows' nonzeros (else the whole block stages together): from L = 2 on, while
// a warp's rows fit its tile on average. Then no warp waits at a barrier for
// the others' loads: with blocks of 128 (kWarpStagedThreads), warp tiles were
// a little faster than block tiles in blocks of 256 on 27-pt at k = 8, 32 and
// 64, and faster on 7-pt at k = 4 in a probe (its block solves within noise).
// At L = 1 a warp holds 32 rows: 7-pt's block solves at k = 2 did not gain
// from warp tiles, and 27-pt's rows overflow them (warp tiles slower), as
// they do at L = 2 (docs/experiments.md).
inline bool staged_by_warps(index_t rows, std::int64_t nnz, int L) {
  const double mean = rows > 0 ? double(nnz) / rows : 0;
  return L >= 2 && mean * (SpmmPolicy::warp / L) <= staged_tile_of(SpmmPolicy::warp, L);
}

// Threads of a staged_kernel block whose warps stage on their own: half the
// other kernels' blocks. On 27-pt at k = 32, 128 was faster than 256 and 256
// than 512; at k = 64 128 and 256 tied (docs/experiments.md). A block that
// stages together keeps SpmmPolicy::threads, as
// staged_sums_kernel does (its partial sums are per block).
constexpr int kWarpStagedThreads = 128;
constexpr int staged_threads(bool by_warps) {
  return by_warps ? kWarpStagedThreads : SpmmPolicy::threads;
}

// Threads per SM a staged kernel of L lanes of R columns asks the compiler to
// fit, as blocks of its size (0: its own choice), for long rows (16 or more
// on average) or short ones. A measured setting of these kernels, not a rule
// (docs/experiments.md).
// Long rows, four or eight columns per lane: 1024 threads (64 registers; R = 8
// needs 768 for no spills) instead of 1536 with 40 registers, so that fewer
// staged tiles leave more of the SM's memory to L1 (a higher L1 hit rate, and
// 27-pt faster at k = 32 and 64); 1280 threads made 27-pt slower at k = 32.
// Short rows gather less per staged nonzero and want more rows in flight: at
// R = 4 (k = 16, 32), 1280 threads made 7-pt, 2D 5-pt and 9-pt faster than the
// shuffle kernels in double. At R = 2 (k = 8) the staged kernel was no faster
// in the library, and in float the block solves of 7-pt and 5-pt ran slower
// with short rows staged, so those keep the shuffle kernels. 0 for short
// rows: not staged from L = 4 on.
template <typename T>
constexpr int staged_threads_per_sm(int L, int R, bool short_rows) {
  if (short_rows) return std::is_same_v<T, double> && L > 2 && R == 4 ? 1280 : 0;
  return R == 8 ? 768 : R == 4 ? 1024 : 0;
}

// How staged_kernel and staged_sums_kernel run for one matrix and shape:
// Depth (0: not staged), the stage (staged_by_warps) and threads per SM.
struct StagedPlan {
  int depth = 0;
  bool by_warps = false;
  int threads_per_sm = 0;
};

// The plan of the exact shape (L lanes of R columns) on a matrix of `rows`
// rows and `nnz` nonzeros, none of its rows long. The shuffle kernels load L
// nonzeros of a row per round, so a row of mean length costs mean / L
// dependent rounds of loads. With two columns per lane staging paid at
// L <= 2 on every stencil, and at L = 4 (k = 8) on rows of 16 or more (27-pt)
// while a warp's rows fit one tile on average; past that (banded rows of 96,
// 3-dof blocks of 81) it cost time. Rows of 16 or more paid for a second
// nonzero's gathers in flight. With four columns per lane (k = 16, 32) such
// rows gained (27-pt) without a second nonzero in flight; with eight (k = 64)
// too, once the staged kernels kept fewer blocks per SM. Short rows gain at
// R = 4 in double with more blocks per SM (staged_threads_per_sm); at k = 64
// they lost (2D 5- and 9-pt). The scalar columns and column sums of the block
// solves take the same rule, under which amg_solve at k = 2 and 4 solved
// faster (docs/experiments.md).
template <typename T>
StagedPlan staged_plan(index_t rows, std::int64_t nnz, int L, int R) {
  if (R != 2 && R != 4 && R != 8) return {};
  const double mean = rows > 0 ? double(nnz) / rows : 0;
  const bool long_rows = mean >= 16;
  if (R == 2 && L <= 2) {
    if (long_rows) return {2, false, 0};
    return {1, staged_by_warps(rows, nnz, L), 0};
  }
  if (!staged_by_warps(rows, nnz, L)) return {};
  if (long_rows) return {R == 2 ? 2 : 1, true, staged_threads_per_sm<T>(L, R, false)};
  const int short_rows_per_sm = staged_threads_per_sm<T>(L, R, true);
  if (short_rows_per_sm == 0) return {};
  return {1, true, short_rows_per_sm};
}

// Calls variant(depth, by_warps, threads_per_sm) with the plan's values as
// integral constants, so that only the kernels staged_plan can choose for L
// lanes of R columns are compiled. The plan stages (depth > 0).
template <typename T, int L, int R, typename Variant>
void with_staged_variant(const StagedPlan& plan, const Variant& variant) {
  using std::integral_constant;
  using one = integral_constant<int, 1>;
  using warps = integral_constant<bool, true>;
  using block = integral_constant<bool, false>;
  using own_choice = integral_constant<int, 0>;
  if constexpr (L <= 2) {  // R = 2; warps stage from L = 2 on
    if constexpr (L == 2) {
      if (plan.by_warps) return variant(one{}, warps{}, own_choice{});
    }
    if (plan.depth == 2) return variant(integral_constant<int, 2>{}, block{}, own_choice{});
    return variant(one{}, block{}, own_choice{});
  } else {
    constexpr int short_rows = staged_threads_per_sm<T>(L, R, true);
    if constexpr (short_rows > 0) {
      if (plan.threads_per_sm == short_rows)
        return variant(one{}, warps{}, integral_constant<int, short_rows>{});
    }
    return variant(integral_constant<int, R == 2 ? 2 : 1>{}, warps{},
                   integral_constant<int, staged_threads_per_sm<T>(L, R, false)>{});
  }
}

// The columns a lane of an exact shape owns, and how it moves them: with
// Pairs, R/2 adjacent pairs (paired_kernel's), else R columns L apart
// (kernel()'s).
template <typename T, int L, int R, bool Pairs>
struct LaneColumns {
  using Gathered = std::conditional_t<Pairs, typename TwoOf<T>::type[R / 2], T[R]>;
  index_t first = Pairs ? first_pair_of_lane(L) : first_column_of_lane(L);

  template <typename Gather>
  __device__ void gather(const Gather& from, index_t column, Gathered& x) const {
    if constexpr (Pairs) {
      gather_pairs<T, L, R>(from, column, first, x);
    } else {
#pragma unroll
      for (int r = 0; r < R; ++r) x[r] = from(column, first + r * L);
    }
  }
  __device__ void add(T a, const Gathered& x, T (&sum)[R]) const {
    if constexpr (Pairs) {
      add_pairs<T, R>(a, x, sum);
    } else {
#pragma unroll
      for (int r = 0; r < R; ++r) sum[r] = fma(a, x[r], sum[r]);
    }
  }
  template <typename Epilogue>
  __device__ void store(const Epilogue& epilogue, std::int64_t row, const T (&sum)[R]) const {
    if constexpr (Pairs) {
      store_pairs<T, L, R>(epilogue, row, first, sum);
    } else {
#pragma unroll
      for (int r = 0; r < R; ++r) epilogue(row, first + r * L, sum[r]);
    }
  }
};

// The sums of this thread's columns (`columns`) of its row, the block's row
// threadIdx.x / L of first_row + [0, Threads / L), as kernel() adds them,
// with the nonzeros of the rows of its stage (Stage consecutive threads, a
// warp or the block: their rows are contiguous in A) staged through shared
// memory by all its threads (coalesced, several loads in flight per thread,
// as row_stream.cuh does for k = 1); then each group walks its row from
// there, every lane issuing the gathers of Depth nonzeros before their
// multiply-adds. Same order of sums, so the bits of kernel(). No row may be
// long. Returns whether the thread has a row; every thread must call it.
template <int Threads, int Stage, typename T, int L, int R, bool Pairs, int Depth, typename Gather>
__device__ bool staged_row_sums(std::int64_t first_row, index_t rows,
                                const index_t* __restrict__ row_ptr,
                                const index_t* __restrict__ col_idx,
                                const T* __restrict__ values, const Gather& gather,
                                const LaneColumns<T, L, R, Pairs>& columns, T (&sum)[R]) {
  static_assert(Stage == SpmmPolicy::warp || Stage == Threads, "a stage is a warp or the block");
  constexpr int stages = Threads / Stage, stage_groups = Stage / L;
  constexpr int tile = staged_tile_of(Stage, L);
  static_assert(tile % Stage == 0, "a pass stages whole rounds of loads");
  __shared__ index_t stage_bounds[stages][stage_groups + 1];
  __shared__ index_t staged_columns[stages][tile];
  __shared__ T staged_values[stages][tile];
  // A block stage is the whole block (index arithmetic known at compile time),
  // which always has rows; a warp stage past the last row has none. Lane
  // indices are unsigned in a block stage and signed in a warp stage, each the
  // faster of the two on 27-pt (block solves for block stages, SpMM for warp
  // stages; docs/experiments.md).
  constexpr bool whole_block = stages == 1;
  using Lane = std::conditional_t<whole_block, unsigned, int>;
  const Lane stage = whole_block ? 0 : Lane(threadIdx.x) / Stage;
  const Lane index = whole_block ? Lane(threadIdx.x) : Lane(threadIdx.x) % Stage;
  const std::int64_t stage_first_row = first_row + std::int64_t(stage) * stage_groups;
  const std::int64_t rows_left = std::min<std::int64_t>(stage_groups, rows - stage_first_row);
  const int stage_rows =
      static_cast<int>(whole_block ? rows_left : std::max<std::int64_t>(0, rows_left));
  const bool stage_has_rows = whole_block || stage_rows > 0;
  const auto stage_sync = [] {
    if constexpr (whole_block) __syncthreads(); else __syncwarp();
  };
  index_t* const bounds = stage_bounds[stage];
  if (stage_has_rows) {
    for (int i = index; i <= stage_rows; i += Stage) bounds[i] = row_ptr[stage_first_row + i];
  }
  stage_sync();
  const index_t stage_begin = stage_has_rows ? bounds[0] : 0;
  const index_t stage_end = stage_has_rows ? bounds[stage_rows] : 0;
  const int local_row = index / L;
  const bool has_row = local_row < stage_rows;
  const index_t begin = has_row ? bounds[local_row] : 0, end = has_row ? bounds[local_row + 1] : 0;
  index_t* const columns_tile = staged_columns[stage];
  T* const values_tile = staged_values[stage];
#pragma unroll
  for (int r = 0; r < R; ++r) sum[r] = T(0);
  for (index_t pass = stage_begin; pass < stage_end; pass += tile) {
    const int count = static_cast<int>(min(index_t(tile), stage_end - pass));
#pragma unroll
    for (int j = 0; j < tile / Stage; ++j) {
      const int i = j * Stage + index;
      if (i < count) {
        columns_tile[i] = col_idx[pass + i];
        values_tile[i] = values[pass + i];
      }
    }
    stage_sync();
    const index_t stop = min(end, pass + count);
    for (index_t e = max(begin, pass); e < stop; e += Depth) {
      typename LaneColumns<T, L, R, Pairs>::Gathered x[Depth];
      T a[Depth];
#pragma unroll
      for (int d = 0; d < Depth; ++d) {
        if (e + d < stop) {
          a[d] = values_tile[e + d - pass];
          columns.gather(gather, columns_tile[e + d - pass], x[d]);
        }
      }
#pragma unroll
      for (int d = 0; d < Depth; ++d)
        if (e + d < stop) columns.add(a[d], x[d], sum);
    }
    stage_sync();  // the tile is free again
  }
  return has_row;
}

// kernel() (or with Pairs paired_kernel) for an exact shape, the rows summed
// by staged_row_sums in blocks of staged_threads(ByWarps), staged by warps or
// by the block, ThreadsPerSm of them resident per SM (StagedPlan). Its
// parameters are kernel()'s (k and long_row unused), so that one launch takes
// either.
template <typename T, int L, int R, bool Pairs, int Depth, bool ByWarps, int ThreadsPerSm,
          typename Gather, typename Epilogue>
__global__ void __launch_bounds__(staged_threads(ByWarps),
                                  ThreadsPerSm / staged_threads(ByWarps))
    staged_kernel(index_t rows, index_t, index_t, const index_t* __restrict__ row_ptr,
                  const index_t* __restrict__ col_idx, const T* __restrict__ values,
                  Gather gather, Epilogue epilogue) {
  wait_for_prior_kernel();
  constexpr int threads = staged_threads(ByWarps);
  constexpr int stage = ByWarps ? SpmmPolicy::warp : threads;
  const std::int64_t first_row = std::int64_t(blockIdx.x) * (threads / L);
  const LaneColumns<T, L, R, Pairs> columns;
  T sum[R];
  if (staged_row_sums<threads, stage, T, L, R, Pairs, Depth>(first_row, rows, row_ptr, col_idx,
                                                             values, gather, columns, sum))
    columns.store(epilogue, first_row + threadIdx.x / L, sum);
}

// Each (row, column) sum reaches the epilogue once. A row longer than
// `long_row` (a hub of a power-law graph: one group walking it would keep the
// whole launch waiting) is left to long_rows_kernel.
template <typename T, int L, int R, bool Exact, typename Gather, typename Epilogue>
__global__ void __launch_bounds__(SpmmPolicy::threads)
    kernel(index_t rows, index_t k, index_t long_row, const index_t* __restrict__ row_ptr,
           const index_t* __restrict__ col_idx, const T* __restrict__ values, Gather gather,
           Epilogue epilogue) {
  wait_for_prior_kernel();
  const std::int64_t row = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / L;
  if (row >= rows) return;  // whole groups leave together: rows are per group
  if (long_row != no_long_rows && row_ptr[row + 1] - row_ptr[row] > long_row) return;
  const index_t first_column = first_column_of_lane(L);
  T sum[R];
  sum_row<T, L, R, Exact>(row, k, first_column, row_ptr, col_idx, values, gather, sum);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const index_t c = first_column + r * L;
    if (Exact || c < k) epilogue(row, c, sum[r]);
  }
}

// The rows that kernel() and split_rows_kernel (unsplit) leave, those longer
// than `long_row`: block b takes the long rows among the same rows
// [b·G, b·G + G) as theirs (G groups of L lanes), in order, each summed by all
// its groups (sum_long_rows). With WithSums the epilogue values are added to
// the block's partial sums after the other rows' (partial[b·k + column]). A
// launch of its own, so that the common kernels keep their registers.
template <typename T, int L, int R, bool Exact, bool WithSums, typename Gather, typename Epilogue>
__global__ void __launch_bounds__(SpmmPolicy::threads)
    long_rows_kernel(index_t rows, index_t k, index_t long_row,
                     const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
                     const T* __restrict__ values, Gather gather, Epilogue epilogue,
                     T* __restrict__ partial) {
  wait_for_prior_kernel();
  constexpr int groups = SpmmPolicy::threads / L;
  const std::int64_t first_row = std::int64_t(blockIdx.x) * groups;
  const std::int64_t row = first_row + threadIdx.x / L;
  const bool is_long = row < rows && row_ptr[row + 1] - row_ptr[row] > long_row;
  if (!__syncthreads_or(is_long)) return;
  __shared__ T shared[SpmmPolicy::threads / SpmmPolicy::warp * L * R];
  const index_t first_column = first_column_of_lane(L);
  sum_long_rows<T, L, R, Exact>(
      first_row, rows, k, long_row, row_ptr, col_idx, values, gather,
      [&](std::int64_t long_one, const T(&sum)[R]) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const index_t c = first_column + r * L;
          if (!Exact && c >= k) continue;
          if constexpr (WithSums)
            partial[std::int64_t(blockIdx.x) * k + c] += epilogue(long_one, c, sum[r]);
          else
            epilogue(long_one, c, sum[r]);
        }
      },
      shared);
}

// Groups per row for A and L lanes per group: 1, or for a matrix whose row
// groups would fill fewer blocks than the H100 keeps resident (132 SMs × 8),
// the least power of two that fills them, while each group still gets four or
// more chunks of L nonzeros of a mean row. Blocks stay below 2048 when parts > 1.
inline int parts_per_row(index_t rows, index_t nnz, int L) {
  constexpr std::int64_t resident_blocks = 1024;
  const double mean = rows > 0 ? double(nnz) / rows : 0;
  int parts = 1;
  while (parts < SpmmPolicy::threads / L &&
         blocks_for(std::int64_t(rows) * parts * L, SpmmPolicy::threads) < resident_blocks &&
         mean >= 4.0 * parts * L)
    parts *= 2;
  return parts;
}

// Blocks of split_rows_kernel for A's rows and L lanes per group. A block with
// column sums reduces once per row tile: taking 2 or 4 tiles per block (fewer
// partials) measured slower in the block PCG iteration, the more so the more
// tiles (docs/experiments.md).
inline unsigned split_blocks(index_t rows, index_t nnz, int L) {
  return blocks_for(std::int64_t(rows) * parts_per_row(rows, nnz, L) * L, SpmmPolicy::threads);
}

// partial[blockIdx.x · k + column] = the block's contributions for each column
// of its pass that its lanes own (slot r·L + lane: kernel()'s columns), added
// within each warp by a fixed butterfly over its groups (lanes l, l + L, …
// hold the same columns), then over the warps in order through `shared`
// (warps × L·R entries, free on entry). Every thread must call it.
template <typename T, int L, int R>
__device__ void store_block_column_sums(T (&contribution)[R], index_t k, T* shared,
                                        T* __restrict__ partial) {
  constexpr int slots = L * R, warps = SpmmPolicy::threads / SpmmPolicy::warp;
#pragma unroll
  for (int offset = L; offset < SpmmPolicy::warp; offset *= 2)
#pragma unroll
    for (int r = 0; r < R; ++r)
      contribution[r] += __shfl_down_sync(0xffffffffu, contribution[r], offset);
  const int warp = threadIdx.x / SpmmPolicy::warp, lane = threadIdx.x % L;
  if (threadIdx.x % SpmmPolicy::warp < L) {
#pragma unroll
    for (int r = 0; r < R; ++r) shared[warp * slots + r * L + lane] = contribution[r];
  }
  __syncthreads();
  const index_t column = blockIdx.y * SpmmPolicy::columns_per_pass + threadIdx.x;
  if (threadIdx.x < slots && column < k) {
    T total = T(0);
    for (int w = 0; w < warps; ++w) total += shared[w * slots + threadIdx.x];
    partial[std::int64_t(blockIdx.x) * k + column] = total;
  }
}

// For matrices with too few rows to fill the GPU and long rows (the coarse
// levels, the last restriction), and for every sum over columns: `parts`
// groups share a row (parts divides the block's groups), each summing every
// parts-th chunk of L nonzeros; the partial sums meet in shared memory, are
// added in a fixed tree, and the row's first group runs the epilogue. With
// WithSums the epilogue returns a T, which the block adds per column (across the
// warp's groups by shuffles, then across warps in order) into
// partial[blockIdx.x · k + column], to be summed over blocks by
// column_partials::sum. The bits depend only on the shape.
template <typename T, int L, int R, bool Exact, bool WithSums, typename Gather, typename Epilogue>
__global__ void __launch_bounds__(SpmmPolicy::threads)
    split_rows_kernel(index_t rows, index_t k, int parts, index_t long_row,
                      const index_t* __restrict__ row_ptr,
                      const index_t* __restrict__ col_idx, const T* __restrict__ values,
                      Gather gather, Epilogue epilogue, T* __restrict__ partial) {
  wait_for_prior_kernel();
  constexpr int groups = SpmmPolicy::threads / L, slots = L * R;
  __shared__ T shared[groups * slots];  // [group][slot], slot = r·L + lane
  const int group = threadIdx.x / L, lane = threadIdx.x % L, part = group % parts;
  const index_t first_column = first_column_of_lane(L);
  const std::int64_t row = std::int64_t(blockIdx.x) * (groups / parts) + group / parts;
  // Unsplit (parts = 1), long rows are left to long_rows_kernel, as by kernel().
  const bool is_long = parts == 1 && long_row != no_long_rows && row < rows &&
                       row_ptr[row + 1] - row_ptr[row] > long_row;
  T sum[R];
  if (row < rows && !is_long)  // whole groups skip together
    sum_row<T, L, R, Exact>(row, k, first_column, row_ptr, col_idx, values, gather, sum, part,
                            parts);
  else
    for (int r = 0; r < R; ++r) sum[r] = T(0);
  if (parts > 1) {
#pragma unroll
    for (int r = 0; r < R; ++r) shared[group * slots + r * L + lane] = sum[r];
    __syncthreads();
    for (int stride = parts / 2; stride > 0; stride /= 2) {
      if (part < stride) {
#pragma unroll
        for (int r = 0; r < R; ++r)
          shared[group * slots + r * L + lane] += shared[(group + stride) * slots + r * L + lane];
      }
      __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < R; ++r) sum[r] = shared[group * slots + r * L + lane];
  }
  T contribution[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const index_t c = first_column + r * L;
    contribution[r] = T(0);
    if (part != 0 || row >= rows || is_long || (!Exact && c >= k)) continue;
    if constexpr (WithSums) contribution[r] = epilogue(row, c, sum[r]);
    else epilogue(row, c, sum[r]);
  }
  if constexpr (WithSums) {
    __syncthreads();  // shared is free again
    store_block_column_sums<T, L, R>(contribution, k, shared, partial);
  }
}

// The kernel of split_rows_kernel<..., WithSums = true> for an exact shape and
// parts = 1, the rows summed by staged_row_sums with scalar columns: the same
// sums, contributions and partial sums, so the same bits.
template <typename T, int L, int R, int Depth, bool ByWarps, int ThreadsPerSm, typename Gather,
          typename Epilogue>
__global__ void __launch_bounds__(SpmmPolicy::threads, ThreadsPerSm / SpmmPolicy::threads)
    staged_sums_kernel(index_t rows, index_t k, const index_t* __restrict__ row_ptr,
                       const index_t* __restrict__ col_idx, const T* __restrict__ values,
                       Gather gather, Epilogue epilogue, T* __restrict__ partial) {
  wait_for_prior_kernel();
  constexpr int warps = SpmmPolicy::threads / SpmmPolicy::warp;
  __shared__ T shared[warps * L * R];
  const std::int64_t first_row = std::int64_t(blockIdx.x) * (SpmmPolicy::threads / L);
  const LaneColumns<T, L, R, false> columns;
  T sum[R], contribution[R] = {};
  constexpr int stage = ByWarps ? SpmmPolicy::warp : SpmmPolicy::threads;
  if (staged_row_sums<SpmmPolicy::threads, stage, T, L, R, false, Depth>(
          first_row, rows, row_ptr, col_idx, values, gather, columns, sum)) {
#pragma unroll
    for (int r = 0; r < R; ++r)
      contribution[r] = epilogue(first_row + threadIdx.x / L, columns.first + r * L, sum[r]);
  }
  store_block_column_sums<T, L, R>(contribution, k, shared, partial);
}

// The column passes of blockIdx.y, and the kernel for shape (L, R): with
// WithSums, the epilogue returns a T and partial receives the blocks' sums.
template <typename T, int L, int R, bool WithSums, typename Gather, typename Epilogue>
void launch_shape(const DeviceCsr<T>& A, index_t k, const Gather& gather,
                  const Epilogue& epilogue, T* partial, cudaStream_t stream) {
  const unsigned passes = static_cast<unsigned>((k + SpmmPolicy::columns_per_pass - 1) /
                                                SpmmPolicy::columns_per_pass);
  // Exact needs every pass full: k = L·R (one pass) or a multiple of 64.
  const bool exact =
      k % (L * R) == 0 && (k <= L * R || k % SpmmPolicy::columns_per_pass == 0);
  const int parts = parts_per_row(A.rows, A.nnz(), L);
  const index_t long_row = long_rows_of(A, L);
  const StagedPlan plan = exact && parts == 1 && long_row == no_long_rows
                              ? staged_plan<T>(A.rows, A.nnz(), L, R)
                              : StagedPlan{};
  if constexpr (WithSums && (R == 2 || R == 4 || R == 8)) {  // the shapes staged_plan stages
    if (plan.depth > 0) {  // then no row is long and parts = 1: nothing more to launch
      const dim3 grid(split_blocks(A.rows, A.nnz(), L), passes);
      with_staged_variant<T, L, R>(plan, [&](auto depth, auto by_warps, auto threads_per_sm) {
        launch_chained(
            staged_sums_kernel<T, L, R, decltype(depth)::value, decltype(by_warps)::value,
                               decltype(threads_per_sm)::value, Gather, Epilogue>,
            grid, SpmmPolicy::threads, 0, stream, A.rows, k, A.row_ptr.data(), A.col_idx.data(),
            A.values.data(), gather, epilogue, partial);
      });
      return;
    }
  }
  if (WithSums || parts > 1) {
    const dim3 grid(split_blocks(A.rows, A.nnz(), L), passes);
    const auto chosen = exact ? split_rows_kernel<T, L, R, true, WithSums, Gather, Epilogue>
                              : split_rows_kernel<T, L, R, false, WithSums, Gather, Epilogue>;
    launch_chained(chosen, grid, SpmmPolicy::threads, 0, stream, A.rows, k, parts, long_row,
                   A.row_ptr.data(), A.col_idx.data(), A.values.data(), gather, epilogue, partial);
  } else {
    auto chosen = exact ? kernel<T, L, R, true, Gather, Epilogue>
                        : kernel<T, L, R, false, Gather, Epilogue>;
    bool pairs = false;
    if constexpr (TakesPairs<T, Gather, Epilogue>::value && R % 2 == 0) {
      pairs = exact && gather.aligned_for_pairs() && epilogue.aligned_for_pairs();
      // At R = 8 paired_kernel takes 70 registers (kernel() 48), so 3 blocks
      // per SM: too few rows in flight where a row is under two chunks of L
      // nonzeros (at k = 64 pairs slowed 3D 7-pt while they sped up 27-pt;
      // docs/experiments.md).
      const bool rows_carry_pairs = R < 8 || A.nnz() >= 2 * std::int64_t(L) * A.rows;
      if (pairs && plan.depth == 0 && rows_carry_pairs)
        chosen = paired_kernel<T, L, R, true, Gather, Epilogue>;
    }
    int threads = SpmmPolicy::threads;
    if constexpr (R == 2 || R == 4 || R == 8) {  // the shapes staged_plan stages
      if (plan.depth > 0) {
        with_staged_variant<T, L, R>(plan, [&](auto depth, auto by_warps, auto threads_per_sm) {
          constexpr int Depth = decltype(depth)::value, PerSm = decltype(threads_per_sm)::value;
          constexpr bool ByWarps = decltype(by_warps)::value;
          chosen = staged_kernel<T, L, R, false, Depth, ByWarps, PerSm, Gather, Epilogue>;
          if constexpr (TakesPairs<T, Gather, Epilogue>::value) {
            if (pairs)
              chosen = staged_kernel<T, L, R, true, Depth, ByWarps, PerSm, Gather, Epilogue>;
          }
        });
        threads = staged_threads(plan.by_warps);
      }
    }
    const dim3 grid(blocks_for(std::int64_t(A.rows) * L, threads), passes);
    launch_chained(chosen, grid, threads, 0, stream, A.rows, k, long_row, A.row_ptr.data(),
                   A.col_idx.data(), A.values.data(), gather, epilogue);
  }
  if (parts > 1 || long_row == no_long_rows) return;
  const dim3 grid(blocks_for(std::int64_t(A.rows) * L, SpmmPolicy::threads), passes);
  const auto long_rows = exact ? long_rows_kernel<T, L, R, true, WithSums, Gather, Epilogue>
                               : long_rows_kernel<T, L, R, false, WithSums, Gather, Epilogue>;
  launch_chained(long_rows, grid, SpmmPolicy::threads, 0, stream, A.rows, k, long_row,
                 A.row_ptr.data(), A.col_idx.data(), A.values.data(), gather, epilogue, partial);
}

// Calls shape(lanes, columns_per_lane) with the shape for k as integral constants.
// A lane owns several columns (2 up to k = 8, 4 up to 32, 8 beyond, in passes of
// 64), so each nonzero issues that many independent gathers per lane and a warp
// covers several rows, which brought every stencil measured closer to the
// roofline than one column per lane (two past 32) (docs/experiments.md).
template <typename Shape>
void with_shape(index_t k, const Shape& shape) {
  using std::integral_constant;
  switch (spmm_detail::lanes_for_columns(k)) {
    case 1: return shape(integral_constant<int, 1>{}, integral_constant<int, 1>{});
    case 2: return shape(integral_constant<int, 1>{}, integral_constant<int, 2>{});
    case 4: return shape(integral_constant<int, 2>{}, integral_constant<int, 2>{});
    case 8: return shape(integral_constant<int, 4>{}, integral_constant<int, 2>{});
    case 16: return shape(integral_constant<int, 4>{}, integral_constant<int, 4>{});
    default:
      if (k <= 32) return shape(integral_constant<int, 8>{}, integral_constant<int, 4>{});
      return shape(integral_constant<int, 8>{}, integral_constant<int, 8>{});
  }
}

/// Runs the kernel over every row of A and k columns. Gather and Epilogue are
/// trivially copyable functors with __device__ operator()s: gather(col, c) -> T,
/// epilogue(row, c, sum).
template <typename T, typename Gather, typename Epilogue>
void launch(const DeviceCsr<T>& A, index_t k, const Gather& gather, const Epilogue& epilogue,
            cudaStream_t stream) {
  if (A.rows == 0) return;
  with_shape(k, [&](auto lanes, auto columns_per_lane) {
    launch_shape<T, decltype(lanes)::value, decltype(columns_per_lane)::value, false>(
        A, k, gather, epilogue, nullptr, stream);
  });
}

// Lanes per row group for k columns, as with_shape picks them.
inline int lanes_of_shape(index_t k) {
  int lanes = 0;
  with_shape(k, [&](auto shape_lanes, auto) { lanes = decltype(shape_lanes)::value; });
  return lanes;
}

/// Entries of the partial sums launch_with_column_sums needs for `rows` rows and
/// k columns, whatever the matrix's nonzeros (split rows keep below 2048 blocks).
inline std::size_t column_sums_scratch_size(index_t rows, index_t k) {
  const std::int64_t unsplit =
      blocks_for(std::int64_t(rows) * lanes_of_shape(k), SpmmPolicy::threads);
  return std::size_t(std::max<std::int64_t>(unsplit, 2048)) * k;
}

/// launch() with an epilogue that returns a T for each (row, c) it handles:
/// sums[c] (device memory) becomes the sum of those over the rows, in a fixed
/// order, so the same bits every run. `partials` holds at least
/// column_sums_scratch_size(A.rows, k) entries. Each (row, c) sum has the bits
/// launch() gives it.
template <typename T, typename Gather, typename Epilogue>
void launch_with_column_sums(const DeviceCsr<T>& A, index_t k, const Gather& gather,
                             const Epilogue& epilogue, T* sums, DeviceBuffer<T>& partials,
                             cudaStream_t stream) {
  require(partials.size() >= column_sums_scratch_size(A.rows, k),
          "block_row_split: the column sums scratch is too small");
  if (A.rows == 0) {
    BINAMG_CUDA_CHECK(cudaMemsetAsync(sums, 0, sizeof(T) * k, stream));
    return;
  }
  with_shape(k, [&](auto lanes, auto columns_per_lane) {
    launch_shape<T, decltype(lanes)::value, decltype(columns_per_lane)::value, true>(
        A, k, gather, epilogue, partials.data(), stream);
  });
  column_partials::sum(split_blocks(A.rows, A.nnz(), lanes_of_shape(k)), k, partials.data(), sums,
                       stream);
}

/// Column c of row `col` of a row-major block with k columns.
template <typename T>
struct BlockEntry {
  const T* __restrict__ block;
  index_t k;
  __device__ T operator()(index_t col, index_t c) const { return block[std::int64_t(col) * k + c]; }
  __device__ typename TwoOf<T>::type pair(index_t col, index_t c) const {
    return *reinterpret_cast<const typename TwoOf<T>::type*>(block + std::int64_t(col) * k + c);
  }
  bool aligned_for_pairs() const { return block_row_split::aligned_for_pairs(block); }
};

}  // namespace binamg::block_row_split
