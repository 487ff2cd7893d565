// The merged-rows path (SpgemmPath::merged_rows).
#include "binamg/spgemm/kernels/merge_rows.cuh"
#include "binamg/spgemm/paths/paths.cuh"

namespace binamg::spgemm_detail {
namespace {

/// Calls body(std::integral_constant<int, W>, std::integral_constant<int, E>)
/// for the shape's (width, entries), one of merge_shape's.
template <typename Body>
void with_merge_shape(const MergeShape& shape, Body&& body) {
  using std::integral_constant;
  switch (shape.width * 8 + shape.entries) {
    case 1 * 8 + 4: return body(integral_constant<int, 1>{}, integral_constant<int, 4>{});
    case 2 * 8 + 4: return body(integral_constant<int, 2>{}, integral_constant<int, 4>{});
    case 4 * 8 + 4: return body(integral_constant<int, 4>{}, integral_constant<int, 4>{});
    case 16 * 8 + 2: return body(integral_constant<int, 16>{}, integral_constant<int, 2>{});
    case 32 * 8 + 2: return body(integral_constant<int, 32>{}, integral_constant<int, 2>{});
    default:
      throw InvalidInput("spgemm: unsupported merge shape " + std::to_string(shape.width) + " x " +
                         std::to_string(shape.entries));
  }
}

}  // namespace

template <typename T>
bool merged_product(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const MergeShape& shape,
                    DeviceCsr<T>& C, Workspace& bins, std::size_t scan_bytes, cudaStream_t stream) {
  const index_t rows = A.rows;
  const unsigned grid = grid_for(std::int64_t(rows) * shape.width, shape.block);
  const std::size_t shared = std::size_t(shape.block / shape.width) * shape.capacity * sizeof(T);
  bool merged = true;
  with_merge_shape(shape, [&](auto w, auto e) {
    constexpr int Width = decltype(w)::value, Entries = decltype(e)::value;
    merge_count_kernel<Width, Entries><<<grid, shape.block, 0, stream>>>(
        PatternOperands{A.row_ptr.data(), A.col_idx.data(), B.row_ptr.data(), B.col_idx.data()},
        rows, shape.capacity, C.row_ptr.data(), &bins.counters->merge);
    BINAMG_CHECK_LAUNCH();
    MergeTally tally{};
    read_back(&tally, &bins.counters->merge, sizeof(tally), stream);
    if (tally.misfit != 0) {
      merged = false;
      return;
    }
    allocate_counted(C, tally.nnz, tally.longest, bins, scan_bytes, stream);
    merge_fill_kernel<Width, Entries, T><<<grid, shape.block, shared, stream>>>(
        ProductOperands<T>{A.row_ptr.data(), A.col_idx.data(), A.values.data(), B.row_ptr.data(),
                           B.col_idx.data(), B.values.data()},
        rows, shape.capacity, C.row_ptr.data(), C.col_idx.data(), C.values.data(),
        &bins.counters->error);
    BINAMG_CHECK_LAUNCH();
  });
  return merged;
}

#define BINAMG_INSTANTIATE(T)                                                                  \
  template bool merged_product<T>(const DeviceCsr<T>&, const DeviceCsr<T>&, const MergeShape&, \
                                  DeviceCsr<T>&, Workspace&, std::size_t, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg::spgemm_detail
