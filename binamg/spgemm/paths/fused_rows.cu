// The fused-rows path (SpgemmPath::fused_rows).
#include "binamg/spgemm/paths/paths.cuh"

namespace binamg::spgemm_detail {

template <typename T>
void fused_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, std::int64_t products,
                   DeviceCsr<T>& C, const SpgemmTuning& tuning, Workspace& bins,
                   std::size_t scan_bytes, cudaStream_t stream, Rooms<T>* keep) {
  const index_t rows = A.rows;
  // Each row's products (row_ptr[rows] is 0 since the count pass), kept
  // for the second pass: the first overwrites row_ptr with the rows' counts.
  DeviceBuffer<index_t> row_products(std::size_t(rows) + 1, stream, "spgemm: row products");
  BINAMG_CUDA_CHECK(cudaMemcpyAsync(row_products.data(), C.row_ptr.data(),
                                    (std::size_t(rows) + 1) * sizeof(index_t),
                                    cudaMemcpyDeviceToDevice, stream));
  Rooms<T> rooms;
  rooms.offsets = DeviceBuffer<index_t>(std::size_t(rows) + 1, stream, "spgemm: room offsets");
  constexpr int Block = 256;
  stride_offsets_kernel<<<grid_for(std::int64_t(rows) + 1, Block), Block, 0, stream>>>(
      rooms.offsets.data(), rows + 1, kFusedRoom);
  BINAMG_CHECK_LAUNCH();
  rooms.col = DeviceBuffer<index_t>(std::size_t(rows) * kFusedRoom, stream, "spgemm: rooms");
  rooms.val = DeviceBuffer<T>(std::size_t(rows) * kFusedRoom, stream, "spgemm: room values");
  bins.distribute_fused(rows, stream);
  const int shared_bins = tuning.numeric_shared_bins();
  for (int bin = shared_bins + 1; bin <= tuning.numeric_last_bin(); ++bin) {
    const bool short_rows =
        bin >= tuning.numeric_short_bin(0) && bin < tuning.numeric_short_bin(kShortWidths);
    require(short_rows || bins.count(bin) == 0,
            "spgemm: internal error: a fused product has rows past the shared tables");
  }
  const ProductOperands<T> in{A.row_ptr.data(), A.col_idx.data(), A.values.data(),
                              B.row_ptr.data(), B.col_idx.data(), B.values.data()};
  // Fills the rooms, counts into row_ptr, scans them; returns the tally.
  const auto fill = [&](int* overflow) {
    fill_shared_rows(in, rooms.offsets.data(), rooms.col.data(), rooms.val.data(), C.row_ptr.data(),
                     tuning, bins, overflow, stream);
    fill_short_rows(in, B.cols, rooms.offsets.data(), rooms.col.data(), rooms.val.data(),
                    C.row_ptr.data(), tuning, bins, overflow, stream);
    BINAMG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(bins.scan_storage, scan_bytes, C.row_ptr.data(),
                                                    C.row_ptr.data(), rows + 1, stream));
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(&bins.counters->fused.nnz, C.row_ptr.data() + rows,
                                      sizeof(index_t), cudaMemcpyDeviceToDevice, stream));
    FusedTally tally{};
    read_back(&tally, &bins.counters->fused, sizeof(tally), stream);
    return tally;
  };
  FusedTally tally = fill(&bins.counters->fused.overflow);
  if (tally.overflow != 0) {
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(C.row_ptr.data(), row_products.data(),
                                      (std::size_t(rows) + 1) * sizeof(index_t),
                                      cudaMemcpyDeviceToDevice, stream));
    BINAMG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(bins.scan_storage, scan_bytes,
                                                    row_products.data(), rooms.offsets.data(),
                                                    rows + 1, stream));
    rooms.col = DeviceBuffer<index_t>(std::size_t(products), stream, "spgemm: rooms");
    rooms.val = DeviceBuffer<T>(std::size_t(products), stream, "spgemm: room values");
    tally = fill(&bins.counters->error);
  }
  rooms.nnz = tally.nnz;
  if (keep != nullptr)
    *keep = std::move(rooms);
  else
    pack_rooms(C, rooms, stream);
}

#define BINAMG_INSTANTIATE(T)                                                                 \
  template void fused_product<T>(const DeviceCsr<T>&, const DeviceCsr<T>&, std::int64_t,      \
                                 DeviceCsr<T>&, const SpgemmTuning&, Workspace&, std::size_t, \
                                 cudaStream_t, Rooms<T>*);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg::spgemm_detail
