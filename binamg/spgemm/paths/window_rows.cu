// The window-rows path (SpgemmPath::window_rows), and its one pass over
// the rooms of a fused product (the chained Galerkin product).
#include "binamg/spgemm/kernels/window_rows.cuh"
#include "binamg/spgemm/paths/paths.cuh"

namespace binamg::spgemm_detail {
namespace {

/// Calls body(std::integral_constant<int, G>, std::integral_constant<int, I>)
/// for the window fill's G lanes per B row and I products per lane, from B's
/// mean row: 8 × 2 up to 16 entries, 16 × 2 up to 32, else 32 × 1 (of the
/// shapes measured, the fastest for each length).
template <typename Body>
void with_window_shape(double mean_b_row, Body&& body) {
  using std::integral_constant;
  if (mean_b_row <= 16) return body(integral_constant<int, 8>{}, integral_constant<int, 2>{});
  if (mean_b_row <= 32) return body(integral_constant<int, 16>{}, integral_constant<int, 2>{});
  return body(integral_constant<int, 32>{}, integral_constant<int, 1>{});
}

}  // namespace

template <typename T>
WindowRooms<T> window_rooms(index_t rows, const SpgemmTuning& tuning, cudaStream_t stream) {
  const std::size_t entries = std::size_t(rows) * kWindowFusedRoom;
  if (entries * (sizeof(index_t) + sizeof(T)) > tuning.fused_budget) return {};
  return {DeviceBuffer<index_t>(entries, stream, "spgemm: window rooms"),
          DeviceBuffer<T>(entries, stream, "spgemm: window room values")};
}

template <typename T, typename Operands>
bool fused_windowed_product(const Operands& in, double mean_b_row, DeviceCsr<T>& C,
                            WindowRooms<T>& rooms, Workspace& bins, std::size_t scan_bytes,
                            cudaStream_t stream) {
  constexpr int words = kWindowFusedWords, room = kWindowFusedRoom;
  constexpr std::size_t warp_bytes = window_warp_bytes<T>(words, room);
  static_assert(kWindowWarps * warp_bytes <= kWindowBlockShared, "a block of fused window rows");
  const index_t rows = C.rows;
  if (rooms.col.size() == 0) return false;
  with_window_shape(mean_b_row, [&](auto lanes, auto items) {
    window_fused_kernel<decltype(lanes)::value, decltype(items)::value, T>
        <<<grid_for(rows, kWindowWarps), kWindowWarps * 32, kWindowWarps * warp_bytes, stream>>>(
            in, rows, words, room, C.row_ptr.data(), rooms.col.data(), rooms.val.data(),
            &bins.counters->window_fused);
    BINAMG_CHECK_LAUNCH();
  });
  WindowTally tally{};
  read_back(&tally, &bins.counters->window_fused, sizeof(tally), stream);
  if (tally.crowded != 0) return false;
  allocate_counted(C, tally.nnz, tally.longest, bins, scan_bytes, stream);
  pack_rows(RoomAtStride{room}, rooms.col.data(), rooms.val.data(), C, stream);
  return true;
}

template <typename T>
bool split_windowed_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                            Workspace& bins, std::size_t scan_bytes, cudaStream_t stream) {
  const index_t rows = A.rows;
  const double mean_b_row = double(B.nnz()) / double(B.rows);
  const ProductOperands<T> in{A.row_ptr.data(), A.col_idx.data(), A.values.data(),
                              B.row_ptr.data(), B.col_idx.data(), B.values.data()};
  WindowTally* const counted = &bins.counters->window_split;
  with_window_shape(mean_b_row, [&](auto lanes, auto) {
    constexpr int G = decltype(lanes)::value / 2 < 8 ? 8 : decltype(lanes)::value / 2;
    window_split_count_kernel<G><<<rows, kWindowSplitWarps * 32, 0, stream>>>(
        PatternOperands{in.a_row_ptr, in.a_col, in.b_row_ptr, in.b_col}, C.row_ptr.data(), counted);
    BINAMG_CHECK_LAUNCH();
  });
  WindowTally tally{};
  read_back(&tally, counted, sizeof(tally), stream);
  const int words = std::max(tally.widest, 1);
  const std::size_t bytes = window_split_bytes<T>(kWindowSplitWarps, words, tally.longest);
  if (tally.misfit != 0 || bytes > kWindowSplitShared) return false;
  allocate_counted(C, tally.nnz, tally.longest, bins, scan_bytes, stream);
  with_window_shape(mean_b_row, [&](auto lanes, auto items) {
    window_split_fill_kernel<decltype(lanes)::value, decltype(items)::value, T>
        <<<rows, kWindowSplitWarps * 32, bytes, stream>>>(in, words, tally.longest,
                                                          C.row_ptr.data(), C.col_idx.data(),
                                                          C.values.data(), &bins.counters->error);
    BINAMG_CHECK_LAUNCH();
  });
  return true;
}

template <typename T>
bool windowed_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                      const SpgemmTuning& tuning, Workspace& bins, std::size_t scan_bytes,
                      cudaStream_t stream) {
  const double mean_b_row = double(B.nnz()) / double(B.rows);
  const ProductOperands<T> in{A.row_ptr.data(), A.col_idx.data(), A.values.data(),
                              B.row_ptr.data(), B.col_idx.data(), B.values.data()};
  {
    WindowRooms<T> rooms = window_rooms<T>(A.rows, tuning, stream);
    if (fused_windowed_product(in, mean_b_row, C, rooms, bins, scan_bytes, stream)) return true;
  }
  const index_t rows = A.rows;
  // The count keeps no order: half the fill's lanes per B row (8 at least)
  // keep more rows in flight.
  with_window_shape(mean_b_row, [&](auto lanes, auto) {
    constexpr int G = decltype(lanes)::value / 2 < 8 ? 8 : decltype(lanes)::value / 2;
    window_count_kernel<G><<<grid_for(rows, kWindowWarps), kWindowWarps * 32, 0, stream>>>(
        PatternOperands{A.row_ptr.data(), A.col_idx.data(), B.row_ptr.data(), B.col_idx.data()},
        rows, C.row_ptr.data(), &bins.counters->window);
    BINAMG_CHECK_LAUNCH();
  });
  WindowTally tally{};
  read_back(&tally, &bins.counters->window, sizeof(tally), stream);
  const int words = std::max(tally.widest, 1);  // a product of empty rows still divides
  const std::size_t warp_bytes = window_warp_bytes<T>(words, tally.longest);
  if (tally.misfit != 0 || warp_bytes > kWindowBlockShared) return false;
  const int warps = int(std::min<std::size_t>(kWindowWarps, kWindowBlockShared / warp_bytes));
  allocate_counted(C, tally.nnz, tally.longest, bins, scan_bytes, stream);
  with_window_shape(mean_b_row, [&](auto lanes, auto items) {
    window_fill_kernel<decltype(lanes)::value, decltype(items)::value, T>
        <<<grid_for(rows, warps), warps * 32, warps * warp_bytes, stream>>>(
            in, rows, words, tally.longest, C.row_ptr.data(), C.col_idx.data(), C.values.data(),
            &bins.counters->error);
    BINAMG_CHECK_LAUNCH();
  });
  return true;
}

#define BINAMG_INSTANTIATE(T)                                                                      \
  template WindowRooms<T> window_rooms<T>(index_t, const SpgemmTuning&, cudaStream_t);             \
  template bool fused_windowed_product<T>(const ProductOperands<T>&, double, DeviceCsr<T>&,        \
                                          WindowRooms<T>&, Workspace&, std::size_t, cudaStream_t); \
  template bool fused_windowed_product<T>(const RoomProductOperands<T>&, double, DeviceCsr<T>&,    \
                                          WindowRooms<T>&, Workspace&, std::size_t, cudaStream_t); \
  template bool windowed_product<T>(const DeviceCsr<T>&, const DeviceCsr<T>&, DeviceCsr<T>&,       \
                                    const SpgemmTuning&, Workspace&, std::size_t, cudaStream_t);   \
  template bool split_windowed_product<T>(const DeviceCsr<T>&, const DeviceCsr<T>&, DeviceCsr<T>&, \
                                          Workspace&, std::size_t, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg::spgemm_detail
