#pragma once
// The one place that decides how the GPU computes a product: each path's rule
// as a pure function of what is known of the product, and choose_path, which
// applies them in a fixed order. Nothing here touches the GPU, so the choice
// of every shape class is tested on the CPU (tests/spgemm/test_choose_path.cpp)
// and a GPU product reports the path it took (SpgemmReport).
#include <cstddef>
#include <cstdint>
#include <optional>

#include "binamg/core/types.hpp"
#include "binamg/sparse/csr.hpp"
#include "binamg/spgemm/spgemm.hpp"
#include "binamg/spgemm/tuning.hpp"

namespace binamg::spgemm_detail {

/// What is known of A·B before any kernel runs.
struct ProductShape {
  index_t a_rows = 0, b_rows = 0, b_cols = 0;
  std::int64_t a_nnz = 0, b_nnz = 0;
  std::size_t value_bytes = 0;  // sizeof(T)
};

/// The longest rows of A and B (merged rows size their buffers by them); b
/// is left unmeasured (-1) where a already passes kMergeMaxEntries.
struct LongestRows {
  index_t a = 0, b = -1;
};

/// What the product-count pass (stages 1-2 of the binned framework) tells.
struct ProductTally {
  std::int64_t products = 0;           // scalar products of A·B
  std::int64_t largest_row_bound = 0;  // products bound of the largest non-empty symbolic bin
  std::int64_t entrywise_rows = 0;     // rows of the entry-wise numeric class
};

/// Everything choose_path reads: the shape, the facts that cost a read-back
/// (asked for only when a rule needs them), and the paths not to take (those
/// that declined the product, or that a caller rules out).
struct PathFacts {
  ProductShape shape;
  std::optional<LongestRows> longest;
  std::optional<ProductTally> tally;
  SpgemmPathSet excluded;
};

/// choose_path's answer: a path, or the fact it needs first.
struct PathChoice {
  enum class Needs { nothing, longest_rows, product_tally };
  Needs needs = Needs::nothing;
  SpgemmPath path = SpgemmPath::binned;  // when needs == nothing
};

/// The path for A·B: the first of these whose rule holds and which is not
/// excluded (the rules below):
///   1. empty          A has no rows.
///   2. dense_columns  has_dense_columns.
///   3. narrow             is_narrow.
///   4. window_split_rows  splits_window_rows.
///   5. window_rows        has_window_rows.
///   6. merged_rows        may_merge_rows and merge_shape fits (needs the longest rows).
///   7. sorted_whole       sorts_whole (needs the product tally).
///   8. fused_rows         fuses_rows (needs the product tally).
///   9. binned             always.
/// A rule that needs a fact not yet in `facts` makes the choice ask for it:
/// the caller measures it, adds it and asks again. Pure and cheap.
PathChoice choose_path(const PathFacts& facts, const SpgemmTuning& tuning);

/// The facts of A·B computed on the CPU, all of them (the longest rows and
/// the tally of the GPU's count pass): the CPU twin of what the GPU measures,
/// so that tests state which path a product takes without a GPU.
template <typename T>
PathFacts product_facts(const CsrMatrix<T>& A, const CsrMatrix<T>& B, const SpgemmTuning& tuning);

// ---- The rules ----

/// At most kDenseMaxRows rows into at most kDenseMaxColumns columns.
bool has_dense_columns(const ProductShape& shape);

/// B of at most kNarrowMaxColumns columns, A of at most kNarrowMaxRows rows
/// of at most kNarrowMaxMeanProducts products on average (mean A row × mean B row).
bool is_narrow(const ProductShape& shape);

/// B maps into a space merge_narrowing times smaller than its rows (a
/// prolongator's coarse space): the products window and merged rows take.
bool narrows(index_t b_rows, index_t b_cols, const SpgemmTuning& tuning);

/// B narrows and A's rows average at least window_min_mean_entries entries.
bool has_window_rows(const ProductShape& shape, const SpgemmTuning& tuning);

/// has_window_rows, at most window_split_max_rows rows of A, and at least
/// window_split_min_products products a row on average (mean A row × mean B row).
bool splits_window_rows(const ProductShape& shape, const SpgemmTuning& tuning);

/// About merge_heavy_mean products a row or more and merge_heavy_products in
/// all (mean B row × A's entries): merged rows leave it to the counted paths.
bool is_heavy(const ProductShape& shape, const SpgemmTuning& tuning);

/// What merged rows can tell from the shape: B narrows, the product is not
/// heavy, and A's rows average at most kMergeMaxEntries entries.
bool may_merge_rows(const ProductShape& shape, const SpgemmTuning& tuning);

/// How a product's rows are merged (kernels/merge_rows.cuh): `width` lanes
/// per row holding `entries` A entries each, buffers of `capacity` values,
/// `block` threads per block; width 0 when the rows do not fit.
struct MergeShape {
  int width = 0, entries = 0, capacity = 0, block = 0;
};

/// The merge shape for rows as long as `longest` (see kMergeMaxEntries):
/// width 0 if A's longest row passes kMergeMaxEntries or a block's buffers
/// would pass kMergeBlockShared.
MergeShape merge_shape(const ProductShape& shape, const LongestRows& longest);

/// Device bytes per product of the sorted long rows, counting runs only or
/// with values: two 64-bit sort keys (the sort's double buffer), a run rank,
/// and with values two value buffers and a run start.
constexpr std::int64_t sorted_bytes_per_product(std::size_t value_bytes, bool values) {
  return 2 * 8 + 4 + (values ? 2 * std::int64_t(value_bytes) + 4 : 0);
}

/// What the whole sort can tell from the shape: at most sorted_small_rows rows.
bool may_sort_whole(const ProductShape& shape, const SpgemmTuning& tuning);

/// At most sorted_small_rows rows of at least sorted_small_min_products
/// products on average, whose sort fits sorted_long_rows_budget.
bool sorts_whole(const ProductShape& shape, const ProductTally& tally, const SpgemmTuning& tuning);

/// What fused rows can tell from the shape: B maps into a space
/// fused_narrowing times smaller (the count pass then bins for fused rows too).
bool may_fuse_rows(const ProductShape& shape, const SpgemmTuning& tuning);

/// B narrows by fused_narrowing; no row of the entry-wise class; no row past
/// fused_max_row_products products; at least fused_min_products products and
/// fused_min_mean a row; their rooms fit fused_budget.
bool fuses_rows(const ProductShape& shape, const ProductTally& tally, const SpgemmTuning& tuning);

}  // namespace binamg::spgemm_detail
