// Which path the GPU SpGEMM takes for each shape class (spgemm/choose_path.hpp),
// stated on the CPU with the H100's tuning: each rule at its thresholds, the
// order of the rules, the facts a choice asks for, and the paths of the
// Galerkin products of the four model problems. A threshold change that
// reroutes a product fails here; the GPU tests check that the GPU takes the
// path chosen here (SpgemmReport).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/spgemm/choose_path.hpp"

namespace binamg {
namespace {

using spgemm_detail::choose_path;
using spgemm_detail::LongestRows;
using spgemm_detail::PathChoice;
using spgemm_detail::PathFacts;
using spgemm_detail::ProductShape;
using spgemm_detail::ProductTally;
using spgemm_detail::SpgemmTuning;

// The H100's tuning (132 SMs, 227 KiB of opt-in shared memory per block), in double.
const SpgemmTuning& h100() {
  static const SpgemmTuning tuning =
      spgemm_detail::tuning_for_device(0, 132, 227 * 1024, sizeof(double));
  return tuning;
}

PathFacts facts_of(ProductShape shape) {
  PathFacts facts;
  shape.value_bytes = sizeof(double);
  facts.shape = shape;
  return facts;
}

// The path, answering the facts the choice asks for with `longest` and `tally`.
SpgemmPath path_of(PathFacts facts, LongestRows longest = {}, ProductTally tally = {}) {
  for (int asked = 0; asked < 3; ++asked) {
    const PathChoice choice = choose_path(facts, h100());
    if (choice.needs == PathChoice::Needs::nothing) return choice.path;
    if (choice.needs == PathChoice::Needs::longest_rows) facts.longest = longest;
    if (choice.needs == PathChoice::Needs::product_tally) facts.tally = tally;
  }
  ADD_FAILURE() << "choose_path asked for a fact it was given";
  return SpgemmPath::empty;
}

// A coarse level's R·(AP): `rows` rows of `entries` entries onto B rows of
// `b_entries` entries, B's columns a quarter of its rows (a prolongator's space).
ProductShape narrowing(index_t rows, index_t entries, index_t b_rows, index_t b_entries) {
  return {rows, b_rows, b_rows / 4, std::int64_t(rows) * entries, std::int64_t(b_rows) * b_entries};
}

TEST(ChoosePath, ProductOfNoRowsIsEmpty) {
  EXPECT_EQ(path_of(facts_of({0, 10, 10, 0, 30})), SpgemmPath::empty);
}

TEST(ChoosePath, FewRowsIntoFewColumnsTakeDenseColumns) {
  // The coarsest R·(AP): 44 rows of ~350 entries onto 44 columns.
  EXPECT_EQ(path_of(facts_of({44, 3000, 44, 44 * 350, 3000 * 12})), SpgemmPath::dense_columns);
  const index_t rows = spgemm_detail::kDenseMaxRows, cols = spgemm_detail::kDenseMaxColumns;
  EXPECT_EQ(path_of(facts_of({rows, 3000, cols, rows * 8, 3000 * 4})), SpgemmPath::dense_columns);
  // One row or one column more: a warp per row (narrow) instead.
  EXPECT_EQ(path_of(facts_of({rows + 1, 3000, cols, (rows + 1) * 8, 3000 * 4})),
            SpgemmPath::narrow);
  EXPECT_EQ(path_of(facts_of({rows, 3000, cols + 1, rows * 8, 3000 * 4})), SpgemmPath::narrow);
}

TEST(ChoosePath, LightRowsIntoAFewHundredColumnsAreNarrow) {
  const index_t cols = spgemm_detail::kNarrowMaxColumns;
  EXPECT_EQ(path_of(facts_of({3000, 12000, cols, 3000 * 30, 12000 * 12})), SpgemmPath::narrow);
  // Mean products 30 × 34.2 > kNarrowMaxMeanProducts: heavy rows leave it.
  EXPECT_NE(path_of(facts_of({3000, 12000, cols, 3000 * 30, 12000 * 35}), {30, 35}, {}),
            SpgemmPath::narrow);
  // More columns than one table of B's columns holds, or too many rows.
  EXPECT_NE(path_of(facts_of({3000, 12000, cols + 1, 3000 * 30, 12000 * 12}), {30, 12}, {}),
            SpgemmPath::narrow);
  EXPECT_NE(
      path_of(facts_of({spgemm_detail::kNarrowMaxRows + 1, 300000, cols, 70000 * 7, 300000 * 2}),
              {7, 2}, {}),
      SpgemmPath::narrow);
}

TEST(ChoosePath, LongRowsIntoACoarseSpaceTakeWindowRows) {
  const int mean = h100().window_min_mean_entries;
  EXPECT_EQ(path_of(facts_of(narrowing(20000, mean, 200000, 12))), SpgemmPath::window_rows);
  // One entry a row fewer on average: merged rows are asked about first.
  PathFacts below = facts_of(narrowing(20000, mean - 1, 200000, 12));
  EXPECT_EQ(choose_path(below, h100()).needs, PathChoice::Needs::longest_rows);
  // B not narrowing (columns more than a quarter of its rows): binned.
  ProductShape wide = narrowing(20000, mean, 200000, 12);
  wide.b_cols = 200000 / 4 + 1;
  EXPECT_EQ(path_of(facts_of(wide)), SpgemmPath::binned);
}

TEST(ChoosePath, FewLongRowsIntoACoarseSpaceSplitTheirWindowRows) {
  // 3D 7-pt 128³'s level-2 R·(AP): 756 rows of ~377 entries onto AP rows of
  // ~70 entries, 15,915 of them into 756 columns: ~26,000 products a row.
  const SpgemmTuning& tuning = h100();
  const ProductShape shape{756, 15915, 756, 756 * 377, 15915 * 70};
  EXPECT_EQ(path_of(facts_of(shape)), SpgemmPath::window_split_rows);
  // More rows than window_split_max_rows, or fewer products a row than
  // window_split_min_products: a warp a row.
  const index_t rows = tuning.window_split_max_rows;
  EXPECT_EQ(path_of(facts_of({rows, 160000, 756, std::int64_t(rows) * 377, 160000 * 70})),
            SpgemmPath::window_split_rows);
  EXPECT_EQ(path_of(facts_of({rows + 1, 160000, 756, std::int64_t(rows + 1) * 377, 160000 * 70})),
            SpgemmPath::window_rows);
  const double products = tuning.window_split_min_products;
  const std::int64_t b_nnz = static_cast<std::int64_t>(products / 64 * 16000);
  EXPECT_EQ(path_of(facts_of({756, 16000, 756, 756 * 64, b_nnz})), SpgemmPath::window_split_rows);
  EXPECT_EQ(path_of(facts_of({756, 16000, 756, 756 * 64, b_nnz - 16000})), SpgemmPath::window_rows);
  // Ruled out (or declined): window rows.
  PathFacts facts = facts_of(shape);
  facts.excluded.insert(SpgemmPath::window_split_rows);
  EXPECT_EQ(path_of(facts), SpgemmPath::window_rows);
}

TEST(ChoosePath, ShortRowsIntoACoarseSpaceMergeWhenTheirRowsFit) {
  const ProductShape shape = narrowing(100000, 20, 400000, 8);
  EXPECT_EQ(path_of(facts_of(shape), {30, 10}), SpgemmPath::merged_rows);
  EXPECT_EQ(path_of(facts_of(shape), {spgemm_detail::kMergeMaxEntries, 10}),
            SpgemmPath::merged_rows);
  // A longer row than the merge shapes hold: the counted paths decide.
  EXPECT_EQ(path_of(facts_of(shape), {spgemm_detail::kMergeMaxEntries + 1, -1}),
            SpgemmPath::binned);
}

TEST(ChoosePath, HeavyProductsDoNotMerge) {
  // ~25 entries onto B rows of ~125: 3125 products a row, 1e5 rows: heavy.
  const ProductShape heavy = narrowing(100000, 25, 800000, 125);
  ASSERT_TRUE(spgemm_detail::is_heavy(heavy, h100()));
  EXPECT_EQ(choose_path(facts_of(heavy), h100()).needs, PathChoice::Needs::product_tally);
}

TEST(ChoosePath, FewRowsOfManyProductsAreSortedWhole) {
  // 1000 rows of ~4100 products onto 2000 columns (a coarse Galerkin level).
  const SpgemmTuning& tuning = h100();
  const ProductShape shape{1000, 3000, 2000, 1000 * 40, 3000 * 100};
  const std::int64_t enough = std::int64_t(tuning.sorted_small_min_products) * shape.a_rows;
  EXPECT_EQ(path_of(facts_of(shape), {}, {enough, 4096, 0}), SpgemmPath::sorted_whole);
  EXPECT_EQ(path_of(facts_of(shape), {}, {enough - 1, 4096, 0}), SpgemmPath::binned);
  // Products past the sort's memory budget, or more rows than sorted_small_rows.
  const std::int64_t past_budget =
      std::int64_t(tuning.sorted_long_rows_budget) /
          spgemm_detail::sorted_bytes_per_product(sizeof(double), true) +
      1;
  EXPECT_EQ(path_of(facts_of(shape), {}, {past_budget, 4096, 0}), SpgemmPath::binned);
  ProductShape more_rows = shape;
  more_rows.a_rows = tuning.sorted_small_rows + 1;
  EXPECT_EQ(path_of(facts_of(more_rows), {}, {enough, 4096, 0}), SpgemmPath::binned);
}

TEST(ChoosePath, ManyShortRowsIntoACoarseSpaceFuse) {
  // 3D 27-pt's level-0 A·P: 1.03 M rows of 27 entries onto P rows of ~5
  // (~125 products a row) into a space 27 times smaller.
  const SpgemmTuning& tuning = h100();
  const ProductShape shape{1030301, 1030301, 39304, 1030301 * 27, 1030301 * 5};
  const ProductTally tally{1030301LL * 125, 128, 0};
  EXPECT_EQ(path_of(facts_of(shape), {27, 8}, tally), SpgemmPath::fused_rows);
  // Rows past fused_max_row_products, rows of the entry-wise class, too few
  // products in all or per row: binned.
  EXPECT_EQ(path_of(facts_of(shape), {27, 8}, {tally.products, 512, 0}), SpgemmPath::binned);
  EXPECT_EQ(path_of(facts_of(shape), {27, 8}, {tally.products, 128, 1}), SpgemmPath::binned);
  EXPECT_EQ(path_of(facts_of(shape), {27, 8}, {tuning.fused_min_products - 1, 128, 0}),
            SpgemmPath::binned);
  EXPECT_EQ(path_of(facts_of(shape), {27, 8},
                    {std::int64_t(tuning.fused_min_mean) * shape.a_rows - 1, 128, 0}),
            SpgemmPath::binned);
}

TEST(ChoosePath, AsksForFactsOnlyWhereARuleNeedsThem) {
  // A square product of many rows meets no rule that needs a fact: binned,
  // whose count pass then bins its rows.
  EXPECT_EQ(choose_path(facts_of({100000, 100000, 100000, 700000, 700000}), h100()).needs,
            PathChoice::Needs::nothing);
  EXPECT_EQ(choose_path(facts_of(narrowing(100000, 20, 400000, 8)), h100()).needs,
            PathChoice::Needs::longest_rows);
  EXPECT_EQ(choose_path(facts_of({1000, 3000, 2000, 1000 * 40, 3000 * 100}), h100()).needs,
            PathChoice::Needs::product_tally);
}

TEST(ChoosePath, ExcludedAndDeclinedPathsAreSkippedInOrder) {
  const SpgemmPathSet no_dense{SpgemmPath::dense_columns};
  PathFacts facts = facts_of({44, 3000, 44, 44 * 30, 3000 * 12});
  facts.excluded = no_dense;
  EXPECT_EQ(path_of(facts), SpgemmPath::narrow);
  // Rows of 64 entries meet both the window and the merge rules. Window rows
  // declined (a row too wide): merged rows next, then the counted paths.
  facts = facts_of(narrowing(20000, 64, 200000, 12));
  EXPECT_EQ(path_of(facts, {64, 12}), SpgemmPath::window_rows);
  facts.excluded.insert(SpgemmPath::window_rows);
  EXPECT_EQ(path_of(facts, {64, 12}), SpgemmPath::merged_rows);
  facts.excluded.insert(SpgemmPath::merged_rows);
  EXPECT_EQ(path_of(facts, {64, 12}, {20000LL * 768, 1024, 0}), SpgemmPath::binned);
  // Neither empty nor binned can be ruled out.
  facts = facts_of({0, 10, 10, 0, 30});
  facts.excluded = {SpgemmPath::empty};
  EXPECT_EQ(path_of(facts), SpgemmPath::empty);
}

TEST(ChoosePath, MergeShapesHoldTheirRowsInWholeWarps) {
  const ProductShape shape = facts_of(narrowing(100000, 20, 400000, 8)).shape;
  for (const index_t longest : {1, 4, 8, 16, 17, 32, 33, 64}) {
    const spgemm_detail::MergeShape merge = spgemm_detail::merge_shape(shape, {longest, 16});
    ASSERT_GT(merge.width, 0) << longest;
    EXPECT_GE(merge.width * merge.entries, longest);
    EXPECT_EQ(merge.block % 32, 0) << "whole warps";
    EXPECT_LE(std::size_t(merge.block / merge.width) * merge.capacity * sizeof(double),
              spgemm_detail::kMergeBlockShared);
  }
  EXPECT_EQ(spgemm_detail::merge_shape(shape, {65, 16}).width, 0);
}

// The path of each Galerkin product of a model problem's hierarchy (default
// parameters), A·P then R·(AP) for every level, from the CPU's facts.
std::vector<SpgemmPath> galerkin_paths(Stencil stencil, index_t n) {
  const Hierarchy<double> hierarchy = build_hierarchy(poisson<double>(stencil, n));
  std::vector<SpgemmPath> paths;
  for (const Level<double>& level : hierarchy.levels) {
    const CsrMatrix<double> AP = spgemm(level.A, level.P);
    paths.push_back(path_of(spgemm_detail::product_facts(level.A, level.P, h100())));
    paths.push_back(path_of(spgemm_detail::product_facts(level.R, AP, h100())));
  }
  return paths;
}

std::string names(const std::vector<SpgemmPath>& paths) {
  std::string text;
  for (SpgemmPath path : paths) text += std::string(text.empty() ? "" : " ") + path_name(path);
  return text;
}

TEST(ChoosePath, GalerkinProductsOfTheModelProblemsTakeTheirPaths) {
  // The products of the hierarchies the GPU tests check, in the order
  // level 0 A·P, level 0 R·(AP), level 1 A·P, ...: stencil rows merged into
  // the coarse space, 27-pt's long R rows windowed, the coarse levels narrow
  // and the coarsest dense. (Fused rows need heavier products: 3D 27-pt's
  // A·P from about 80³ on.)
  EXPECT_EQ(names(galerkin_paths(Stencil::poisson2d_5, 120)),
            "merged_rows merged_rows narrow dense_columns");
  EXPECT_EQ(names(galerkin_paths(Stencil::poisson2d_9, 120)),
            "merged_rows merged_rows narrow dense_columns");
  EXPECT_EQ(names(galerkin_paths(Stencil::poisson3d_7, 24)),
            "merged_rows merged_rows narrow dense_columns");
  EXPECT_EQ(names(galerkin_paths(Stencil::poisson3d_27, 33)),
            "merged_rows window_rows narrow dense_columns");
}

TEST(ChoosePath, LightFusedRowsChainInto27PointWindowRows) {
  // What the GPU test of the chained product relies on: with fused rows for
  // any number of products (merged rows off), 3D 27-pt 33³'s level-0 A·P
  // fuses, and its R·(AP) takes window rows.
  SpgemmTuning tuning = h100();
  tuning.fused_min_products = 0;
  const Hierarchy<double> hierarchy = build_hierarchy(poisson<double>(Stencil::poisson3d_27, 33));
  const Level<double>& level = hierarchy.levels[0];
  PathFacts facts = spgemm_detail::product_facts(level.A, level.P, tuning);
  facts.excluded = {SpgemmPath::merged_rows};
  EXPECT_EQ(choose_path(facts, tuning).path, SpgemmPath::fused_rows);
  facts = spgemm_detail::product_facts(level.R, spgemm(level.A, level.P), tuning);
  facts.excluded = {SpgemmPath::merged_rows};
  EXPECT_EQ(choose_path(facts, tuning).path, SpgemmPath::window_rows);
}

}  // namespace
}  // namespace binamg
