// The GPU SpGEMM's facade: validates the operands, asks choose_path for a
// path (measuring the facts it asks for), runs that path's driver
// (paths/*.cu) and moves on where a driver declines.
#include <optional>
#include <string>

#include "binamg/core/read_back.hpp"
#include "binamg/spgemm/choose_path.hpp"
#include "binamg/spgemm/dispatch.hpp"
#include "binamg/spgemm/kernels/sorted_long_rows.cuh"
#include "binamg/spgemm/paths/paths.cuh"
#include "binamg/spgemm/spgemm.hpp"

namespace binamg {
namespace spgemm_detail {
namespace {

template <typename T>
ProductShape shape_of(const DeviceCsr<T>& A, const DeviceCsr<T>& B) {
  return {A.rows, B.rows, B.cols, A.nnz(), B.nnz(), sizeof(T)};
}

/// A·B: the dispatch loop. With `keep`, a product that takes fused rows
/// leaves its rows in their rooms (see Rooms).
template <typename T>
DeviceCsr<T> multiply(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const SpgemmTuning& tuning,
                      SpgemmPathSet excluded, cudaStream_t stream, SpgemmReport* report,
                      Rooms<T>* keep) {
  require_multipliable(A, B, "spgemm");
  std::size_t scan_bytes = 0;
  DeviceCsr<T> C = product_shell<T>(A.rows, B.cols, scan_bytes, stream);
  SpgemmReport said;
  PathFacts facts;
  facts.shape = shape_of(A, B);
  facts.excluded = excluded;
  std::optional<Workspace> bins;
  if (A.rows > 0) bins.emplace(A.rows, scan_bytes, stream);
  // The count pass also bins rows for fused rows where their rule may hold.
  const bool fused_binning =
      !excluded.contains(SpgemmPath::fused_rows) && may_fuse_rows(facts.shape, tuning);
  const auto count = [&] {
    facts.tally = count_products(A, B, tuning, fused_binning, *bins, C.row_ptr.data(), stream);
  };
  while (true) {
    const PathChoice choice = choose_path(facts, tuning);
    if (choice.needs == PathChoice::Needs::longest_rows) {
      LongestRows longest;
      longest.a = longest_row_of(A, stream);
      if (longest.a <= kMergeMaxEntries) longest.b = longest_row_of(B, stream);
      facts.longest = longest;
      continue;
    }
    if (choice.needs == PathChoice::Needs::product_tally) {
      count();
      continue;
    }
    bool done = true;
    switch (choice.path) {
      case SpgemmPath::empty: break;
      case SpgemmPath::dense_columns:
        dense_columns_product(A, B, C, *bins, scan_bytes, stream);
        break;
      case SpgemmPath::narrow: narrow_product(A, B, C, tuning, *bins, scan_bytes, stream); break;
      case SpgemmPath::window_split_rows:
        done = split_windowed_product(A, B, C, *bins, scan_bytes, stream);
        break;
      case SpgemmPath::window_rows:
        done = windowed_product(A, B, C, tuning, *bins, scan_bytes, stream);
        break;
      case SpgemmPath::merged_rows:
        done = merged_product(A, B, merge_shape(facts.shape, *facts.longest), C, *bins, scan_bytes,
                              stream);
        break;
      case SpgemmPath::sorted_whole:
        sort_whole_product(A, B, facts.tally->products, C, *bins, scan_bytes, stream);
        break;
      case SpgemmPath::fused_rows:
        fused_product(A, B, facts.tally->products, C, tuning, *bins, scan_bytes, stream, keep);
        break;
      case SpgemmPath::binned:
        if (!facts.tally) count();  // its stages 1-2
        binned_product(A, B, C, tuning, *bins, scan_bytes, stream);
        break;
    }
    if (done) {
      said.path = choice.path;
      if (report != nullptr) *report = said;
      return C;
    }
    said.declined.insert(choice.path);
    facts.excluded.insert(choice.path);
  }
}

}  // namespace

template <typename T>
DeviceCsr<T> spgemm_with(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const SpgemmTuning& tuning,
                         SpgemmPathSet excluded, cudaStream_t stream, SpgemmReport* report) {
  return multiply(A, B, tuning, excluded, stream, report, static_cast<Rooms<T>*>(nullptr));
}

template <typename T>
DeviceCsr<T> spgemm_with(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const DeviceCsr<T>& C,
                         const SpgemmTuning& tuning, SpgemmPathSet excluded, cudaStream_t stream,
                         SpgemmReport* outer, SpgemmReport* inner) {
  require_multipliable(A, B, "spgemm");
  // Whether A·(B·C) takes window rows is known from the shapes once B·C has
  // more columns than the narrow path takes (and so the dense columns): the
  // window rule does not read nnz(B·C). Only then are B·C's rooms kept for
  // it, and its shell, workspace and rooms set up while B·C runs.
  static_assert(kDenseMaxColumns <= kNarrowMaxColumns, "past narrow is past dense columns");
  const std::int64_t unread = 0;  // nnz(B·C)
  const ProductShape chained{A.rows, B.rows, C.cols, A.nnz(), unread, sizeof(T)};
  PathFacts facts;
  facts.shape = chained;
  facts.excluded = excluded;
  const bool windows = chained.b_cols > kNarrowMaxColumns &&
                       choose_path(facts, tuning).path == SpgemmPath::window_rows;
  std::size_t scan_bytes = 0;
  DeviceCsr<T> X;
  std::optional<Workspace> bins;
  WindowRooms<T> window;
  if (windows) {
    X = product_shell<T>(A.rows, C.cols, scan_bytes, stream);
    bins.emplace(A.rows, scan_bytes, stream);
    window = window_rooms<T>(A.rows, tuning, stream);
  }
  Rooms<T> rooms;
  DeviceCsr<T> BC = multiply(B, C, tuning, excluded, stream, inner, windows ? &rooms : nullptr);
  if (rooms.held()) {
    const RoomProductOperands<T> in{{A.row_ptr.data(), A.col_idx.data(), A.values.data(),
                                     BC.row_ptr.data(), rooms.col.data(), rooms.val.data()},
                                    rooms.offsets.data()};
    if (fused_windowed_product(in, double(rooms.nnz) / double(BC.rows), X, window, *bins, scan_bytes,
                               stream)) {
      if (outer != nullptr) *outer = SpgemmReport{SpgemmPath::window_rows, {}};
      return X;
    }
    pack_rooms(BC, rooms, stream);
  }
  return multiply(A, BC, tuning, excluded, stream, outer, static_cast<Rooms<T>*>(nullptr));
}

}  // namespace spgemm_detail

template <typename T>
DeviceCsr<T> spgemm(const DeviceCsr<T>& A, const DeviceCsr<T>& B, cudaStream_t stream,
                    SpgemmReport* report) {
  return spgemm_detail::spgemm_with(A, B, spgemm_detail::spgemm_tuning(sizeof(T)), {}, stream,
                                    report);
}

template <typename T>
DeviceCsr<T> spgemm(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const DeviceCsr<T>& C,
                    cudaStream_t stream, SpgemmReport* outer, SpgemmReport* inner) {
  return spgemm_detail::spgemm_with(A, B, C, spgemm_detail::spgemm_tuning(sizeof(T)), {}, stream,
                                    outer, inner);
}

namespace spgemm_detail {
namespace {

/// The operands of a numeric pass on C's pattern, checked; `who` begins the messages.
template <typename T>
void require_numeric_operands(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const DeviceCsr<T>& C,
                              const std::string& who) {
  require_multipliable(A, B, who.c_str());
  require_consistent(C, who + ": C");
  require(C.rows == A.rows && C.cols == B.cols,
          who + ": C is " + std::to_string(C.rows) + " x " + std::to_string(C.cols) +
              " but A·B is " + std::to_string(A.rows) + " x " + std::to_string(B.cols));
}

/// Bins C's rows for the numeric pass, each row's class counted from its
/// products (the class the binned path's symbolic pass records, so the same
/// bins), and checks that C's offsets add up to its nnz.
template <typename T>
void bin_rows_of(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const DeviceCsr<T>& C,
                 const SpgemmTuning& tuning, Workspace& bins, const std::string& who,
                 cudaStream_t stream) {
  const unsigned long long total =
      bin_for_numeric(A, B, C.row_ptr.data(), true, false, C.rows, tuning, bins, stream);
  require(total == static_cast<unsigned long long>(C.nnz()),
          who + ": C's row offsets do not add up to its nnz");
}

/// Throws unless the numeric pass found C's pattern in every row.
void require_pattern_kept(Workspace& bins, const std::string& who, cudaStream_t stream) {
  require(read_back(&bins.counters->error, stream) == 0,
          who +
              ": the sparsity pattern of A·B differs from C's (a row of the product has "
              "another number of entries); call spgemm for new patterns");
}

/// A numeric pass on C's kept pattern: checks the operands, bins C's rows,
/// runs fill(tuning, bins) and checks that every row kept its pattern; `who`
/// begins the messages.
template <typename T, typename Fill>
void numeric_pass(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                  const std::string& who, cudaStream_t stream, Fill&& fill) {
  require_numeric_operands(A, B, C, who);
  if (C.rows == 0) return;
  const SpgemmTuning& tuning = spgemm_tuning(sizeof(T));
  Workspace bins(C.rows, 0, stream);
  bin_rows_of(A, B, C, tuning, bins, who, stream);
  fill(tuning, bins);
  require_pattern_kept(bins, who, stream);
}

}  // namespace
}  // namespace spgemm_detail

template <typename T>
void spgemm_numeric(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                    cudaStream_t stream) {
  using namespace spgemm_detail;
  numeric_pass(A, B, C, "spgemm_numeric", stream, [&](const SpgemmTuning& tuning, Workspace& bins) {
    // Only the binned numeric pass and the whole sort have a numeric pass of
    // their own; the other paths sum in A's order as the binned pass does.
    PathFacts facts;
    facts.shape = shape_of(A, B);
    facts.excluded = {SpgemmPath::dense_columns,     SpgemmPath::narrow,
                      SpgemmPath::window_split_rows, SpgemmPath::window_rows,
                      SpgemmPath::merged_rows,       SpgemmPath::fused_rows};
    PathChoice choice = choose_path(facts, tuning);
    std::optional<SortedLongRows<T>> all;
    if (choice.needs == PathChoice::Needs::product_tally) {
      // The products of C's non-empty rows (an empty row has none).
      ProductTally tally;
      if (bins.listed() > 0) {
        all.emplace(A, B, bins.rows_of(1), bins.listed(), stream);
        tally.products = all->products();
      }
      facts.tally = tally;
      choice = choose_path(facts, tuning);
    }
    if (choice.path == SpgemmPath::sorted_whole)
      all->fill(C, &bins.counters->error);
    else
      fill_rows(A, B, C, tuning, bins, &bins.counters->error, stream);
  });
}

template <typename T>
void spgemm_binned_numeric(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                           cudaStream_t stream) {
  using namespace spgemm_detail;
  numeric_pass(A, B, C, "spgemm_binned_numeric", stream,
               [&](const SpgemmTuning& tuning, Workspace& bins) {
                 fill_rows(A, B, C, tuning, bins, &bins.counters->error, stream);
               });
}

#define BINAMG_INSTANTIATE(T)                                                                      \
  template DeviceCsr<T> spgemm<T>(const DeviceCsr<T>&, const DeviceCsr<T>&, cudaStream_t,          \
                                  SpgemmReport*);                                                  \
  template DeviceCsr<T> spgemm<T>(const DeviceCsr<T>&, const DeviceCsr<T>&, const DeviceCsr<T>&,   \
                                  cudaStream_t, SpgemmReport*, SpgemmReport*);                     \
  template DeviceCsr<T> spgemm_detail::spgemm_with<T>(const DeviceCsr<T>&, const DeviceCsr<T>&,    \
                                                      const spgemm_detail::SpgemmTuning&,          \
                                                      SpgemmPathSet, cudaStream_t, SpgemmReport*); \
  template DeviceCsr<T> spgemm_detail::spgemm_with<T>(                                             \
      const DeviceCsr<T>&, const DeviceCsr<T>&, const DeviceCsr<T>&,                               \
      const spgemm_detail::SpgemmTuning&, SpgemmPathSet, cudaStream_t, SpgemmReport*,              \
      SpgemmReport*);                                                                              \
  template void spgemm_numeric<T>(const DeviceCsr<T>&, const DeviceCsr<T>&, DeviceCsr<T>&,         \
                                  cudaStream_t);                                                   \
  template void spgemm_binned_numeric<T>(const DeviceCsr<T>&, const DeviceCsr<T>&, DeviceCsr<T>&,  \
                                         cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
