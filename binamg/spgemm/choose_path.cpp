#include "binamg/spgemm/choose_path.hpp"

#include <algorithm>
#include <limits>

namespace binamg {

const char* path_name(SpgemmPath path) {
  switch (path) {
    case SpgemmPath::empty: return "empty";
    case SpgemmPath::dense_columns: return "dense_columns";
    case SpgemmPath::narrow: return "narrow";
    case SpgemmPath::window_split_rows: return "window_split_rows";
    case SpgemmPath::window_rows: return "window_rows";
    case SpgemmPath::merged_rows: return "merged_rows";
    case SpgemmPath::sorted_whole: return "sorted_whole";
    case SpgemmPath::fused_rows: return "fused_rows";
    case SpgemmPath::binned: return "binned";
  }
  return "unknown";
}

namespace spgemm_detail {

bool has_dense_columns(const ProductShape& shape) {
  return shape.b_cols <= kDenseMaxColumns && shape.a_rows <= kDenseMaxRows;
}

bool is_narrow(const ProductShape& shape) {
  if (shape.b_cols > kNarrowMaxColumns || shape.a_rows > kNarrowMaxRows) return false;
  if (shape.a_rows == 0 || shape.b_rows == 0) return true;  // no products
  const double mean_products =
      double(shape.a_nnz) / double(shape.a_rows) * (double(shape.b_nnz) / double(shape.b_rows));
  return mean_products <= kNarrowMaxMeanProducts;
}

bool narrows(index_t b_rows, index_t b_cols, const SpgemmTuning& tuning) {
  return b_rows > 0 && std::int64_t(b_cols) * tuning.merge_narrowing <= b_rows;
}

bool has_window_rows(const ProductShape& shape, const SpgemmTuning& tuning) {
  return narrows(shape.b_rows, shape.b_cols, tuning) &&
         shape.a_nnz >= std::int64_t(tuning.window_min_mean_entries) * shape.a_rows;
}

bool splits_window_rows(const ProductShape& shape, const SpgemmTuning& tuning) {
  if (!has_window_rows(shape, tuning) || shape.a_rows > tuning.window_split_max_rows ||
      shape.b_rows == 0)
    return false;
  const double mean_products =
      double(shape.a_nnz) / double(shape.a_rows) * (double(shape.b_nnz) / double(shape.b_rows));
  return mean_products >= tuning.window_split_min_products;
}

bool is_heavy(const ProductShape& shape, const SpgemmTuning& tuning) {
  if (shape.b_rows == 0) return false;
  const double products = double(shape.a_nnz) * (double(shape.b_nnz) / double(shape.b_rows));
  return products >= tuning.merge_heavy_products &&
         products >= tuning.merge_heavy_mean * double(shape.a_rows);
}

bool may_merge_rows(const ProductShape& shape, const SpgemmTuning& tuning) {
  return narrows(shape.b_rows, shape.b_cols, tuning) && !is_heavy(shape, tuning) &&
         shape.a_nnz <= std::int64_t(kMergeMaxEntries) * shape.a_rows;
}

MergeShape merge_shape(const ProductShape& shape, const LongestRows& longest) {
  MergeShape merge;
  if (longest.a > kMergeMaxEntries) return merge;
  int width = 1, entries = 4;
  while (width * entries < longest.a && width < 4) width *= 2;
  if (width * entries < longest.a) {
    entries = 2;
    width = longest.a <= 32 ? 16 : 32;
  }
  // A row's products, or a chunk's (Width columns): a column takes at most
  // one product per A entry.
  const std::int64_t bound = std::max<std::int64_t>(
      1, std::min(std::int64_t(longest.a) * longest.b, std::int64_t(width) * longest.a));
  std::size_t groups = std::min<std::size_t>(
      kMergeBlock / width, kMergeBlockShared / (std::size_t(bound) * shape.value_bytes));
  groups -= groups % std::size_t(32 / width);  // whole warps only: the kernels' masks are full
  if (groups == 0) return merge;
  merge.width = width;
  merge.entries = entries;
  merge.capacity = int(bound);
  merge.block = int(groups) * width;
  return merge;
}

bool may_sort_whole(const ProductShape& shape, const SpgemmTuning& tuning) {
  return shape.a_rows <= tuning.sorted_small_rows;
}

bool sorts_whole(const ProductShape& shape, const ProductTally& tally, const SpgemmTuning& tuning) {
  return may_sort_whole(shape, tuning) &&
         tally.products >= std::int64_t(tuning.sorted_small_min_products) * shape.a_rows &&
         tally.products * sorted_bytes_per_product(shape.value_bytes, true) <=
             std::int64_t(tuning.sorted_long_rows_budget);
}

bool may_fuse_rows(const ProductShape& shape, const SpgemmTuning& tuning) {
  return std::int64_t(shape.b_cols) * tuning.fused_narrowing <= shape.b_rows;
}

bool fuses_rows(const ProductShape& shape, const ProductTally& tally, const SpgemmTuning& tuning) {
  return may_fuse_rows(shape, tuning) && tally.entrywise_rows == 0 &&
         tally.largest_row_bound <= tuning.fused_max_row_products &&
         tally.products >= tuning.fused_min_products &&
         tally.products >= std::int64_t(tuning.fused_min_mean) * shape.a_rows &&
         std::uint64_t(tally.products) * (sizeof(index_t) + shape.value_bytes) <=
             tuning.fused_budget;
}

PathChoice choose_path(const PathFacts& facts, const SpgemmTuning& tuning) {
  const ProductShape& shape = facts.shape;
  const auto take = [](SpgemmPath path) { return PathChoice{PathChoice::Needs::nothing, path}; };
  const auto need = [](PathChoice::Needs fact) { return PathChoice{fact, SpgemmPath::binned}; };
  const auto open = [&](SpgemmPath path) { return !facts.excluded.contains(path); };
  if (shape.a_rows == 0) return take(SpgemmPath::empty);
  if (open(SpgemmPath::dense_columns) && has_dense_columns(shape))
    return take(SpgemmPath::dense_columns);
  if (open(SpgemmPath::narrow) && is_narrow(shape)) return take(SpgemmPath::narrow);
  if (open(SpgemmPath::window_split_rows) && splits_window_rows(shape, tuning))
    return take(SpgemmPath::window_split_rows);
  if (open(SpgemmPath::window_rows) && has_window_rows(shape, tuning))
    return take(SpgemmPath::window_rows);
  if (open(SpgemmPath::merged_rows) && may_merge_rows(shape, tuning)) {
    if (!facts.longest) return need(PathChoice::Needs::longest_rows);
    if (merge_shape(shape, *facts.longest).width > 0) return take(SpgemmPath::merged_rows);
  }
  const bool may_sort = open(SpgemmPath::sorted_whole) && may_sort_whole(shape, tuning);
  const bool may_fuse = open(SpgemmPath::fused_rows) && may_fuse_rows(shape, tuning);
  if (may_sort || may_fuse) {
    if (!facts.tally) return need(PathChoice::Needs::product_tally);
    if (may_sort && sorts_whole(shape, *facts.tally, tuning)) return take(SpgemmPath::sorted_whole);
    if (may_fuse && fuses_rows(shape, *facts.tally, tuning)) return take(SpgemmPath::fused_rows);
  }
  return take(SpgemmPath::binned);
}

template <typename T>
PathFacts product_facts(const CsrMatrix<T>& A, const CsrMatrix<T>& B, const SpgemmTuning& tuning) {
  PathFacts facts;
  facts.shape = {A.rows, B.rows, B.cols, A.nnz(), B.nnz(), sizeof(T)};
  LongestRows longest;
  longest.b = 0;
  for (index_t row = 0; row < A.rows; ++row) longest.a = std::max(longest.a, A.row_length(row));
  for (index_t row = 0; row < B.rows; ++row) longest.b = std::max(longest.b, B.row_length(row));
  facts.longest = longest;
  // The count pass's bins (kernels/binning.cuh): a row of p > 1 products
  // goes to the first shared bin whose table holds p slots, capped at
  // max_bin; past the load limit of the largest table, to max_bin.
  const int shared_bins = tuning.symbolic_shared_bins();
  const int max_bin = B.cols <= tuning.symbolic_max_table ? shared_bins : shared_bins + 1;
  const std::int64_t global_above = max_bin > shared_bins
                                        ? std::int64_t(tuning.symbolic_max_table) *
                                              tuning.symbolic_load_num / tuning.symbolic_load_den
                                        : std::numeric_limits<std::int64_t>::max();
  ProductTally tally;
  int largest_bin = 0;
  for (index_t row = 0; row < A.rows; ++row) {
    std::int64_t products = 0;
    for (index_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k)
      products += B.row_length(A.col_idx[k]);
    tally.products += products;
    const index_t entries = A.row_length(row);
    const bool short_row = entries <= kShortMaxAEntries && products <= kShortMaxProducts;
    if (!short_row && products >= std::int64_t(tuning.entrywise_min_b_length) * entries)
      ++tally.entrywise_rows;
    if (products <= 1) continue;
    int bin = 1;
    while (bin <= shared_bins && std::int64_t(tuning.table_of_bin(bin)) < products) ++bin;
    bin = products > global_above ? max_bin : std::min(bin, max_bin);
    largest_bin = std::max(largest_bin, bin);
  }
  tally.largest_row_bound =
      largest_bin == 0 ? 1 : std::int64_t(tuning.min_table) << (largest_bin - 1);
  facts.tally = tally;
  return facts;
}

template PathFacts product_facts<float>(const CsrMatrix<float>&, const CsrMatrix<float>&,
                                        const SpgemmTuning&);
template PathFacts product_facts<double>(const CsrMatrix<double>&, const CsrMatrix<double>&,
                                         const SpgemmTuning&);

}  // namespace spgemm_detail
}  // namespace binamg
