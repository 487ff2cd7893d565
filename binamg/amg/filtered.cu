// GPU twin of filtered_matrix(): a group of lanes per row (amg/row_groups.cuh)
// and the CPU's test per entry (filtered_row.hpp); each lumped diagonal is
// summed in the CPU's order, so A_F is the CPU's bit for bit.
#include <cmath>
#include <string>

#include "binamg/amg/filtered.hpp"
#include "binamg/amg/filtered_row.hpp"
#include "binamg/amg/row_groups.cuh"
#include "binamg/amg/strength.hpp"
#include "binamg/core/device_value.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"
#include "binamg/core/scan.hpp"

namespace binamg {
namespace {

// Whether entry k of `row` stays in A_F.
template <typename T>
struct KeptInFiltered {
  index_t row;
  const index_t* col_idx;
  const T* values;
  const T* scale;
  double theta;
  StrengthMeasure measure;
  __device__ bool operator()(index_t k) const {
    return amg_detail::kept_in_filtered(row, col_idx[k], values[k], scale, theta, measure);
  }
};

// A_F's diagonal of the group's row: a_ii plus the weak entries left to right,
// as filtered_diagonal() adds them. Each chunk's weak entries are handed to
// the whole group in lane order, so every lane adds the same values in the
// same order and holds the result.
template <int L, typename T>
__device__ T group_filtered_diagonal(index_t row, index_t begin, index_t end, const T* values,
                                     const T* diag, const KeptInFiltered<T>& kept) {
  const unsigned mask = row_split::group_mask<L>();
  const int first_lane = (threadIdx.x % 32) / L * L;
  T lumped = diag[row];
  for (index_t base = begin; base < end; base += L) {
    const index_t k = base + threadIdx.x % L;
    const bool weak = k < end && !kept(k);
    const T value = weak ? values[k] : T(0);
    for (unsigned lanes = (__ballot_sync(mask, weak) & mask) >> first_lane; lanes != 0;
         lanes &= lanes - 1)
      lumped += __shfl_sync(mask, value, __ffs(lanes) - 1, L);
  }
  return amg_detail::lumped_or_diagonal(lumped, diag[row]);
}

// A group of L lanes per row: counts (count pass) or writes (fill pass) the
// row's entries of A_F, in A's order.
template <typename T, bool fill, int L>
__global__ void __launch_bounds__(row_split::threads)
    filtered_rows(index_t rows, const index_t* row_ptr, const index_t* col_idx, const T* values,
                  const T* diag, const T* scale, double theta, StrengthMeasure measure,
                  index_t* count, const index_t* f_row_ptr, index_t* f_col_idx, T* f_values) {
  const std::int64_t row = row_split::group_row<L>();
  if (row >= rows) return;  // whole groups leave together
  const index_t begin = row_ptr[row], end = row_ptr[row + 1];
  const KeptInFiltered<T> kept{index_t(row), col_idx, values, scale, theta, measure};
  if constexpr (fill) {
    const T diagonal = group_filtered_diagonal<L>(index_t(row), begin, end, values, diag, kept);
    row_groups::compact_row<L>(begin, end, kept, [&](index_t k, index_t slot) {
      f_col_idx[f_row_ptr[row] + slot] = col_idx[k];
      f_values[f_row_ptr[row] + slot] = col_idx[k] == row ? diagonal : values[k];
    });
  } else {
    const index_t entries = row_groups::compact_row<L>(begin, end, kept, [](index_t, index_t) {});
    if (threadIdx.x % L == 0) count[row] = entries;
  }
}

// A group of L lanes per row: adds the rows' weak entries to *weak. No early
// return: whole warps sum them.
template <typename T, int L>
__global__ void __launch_bounds__(row_split::threads)
    count_weak(index_t rows, const index_t* row_ptr, const index_t* col_idx, const T* values,
               const T* scale, double theta, StrengthMeasure measure, unsigned long long* weak) {
  const std::int64_t row = row_split::group_row<L>();
  const bool live = row < rows;
  const index_t begin = live ? row_ptr[row] : 0, end = live ? row_ptr[row + 1] : 0;
  const KeptInFiltered<T> kept{index_t(row), col_idx, values, scale, theta, measure};
  const index_t entries = row_groups::compact_row<L>(begin, end, kept, [](index_t, index_t) {});
  row_groups::add_warp_total(live && threadIdx.x % L == 0 ? end - begin - entries : 0, weak);
}

}  // namespace

template <typename T>
DeviceCsr<T> filtered_matrix(const DeviceCsr<T>& A, double theta, cudaStream_t stream,
                             StrengthMeasure measure) {
  require(A.rows == A.cols, "filtered_matrix: the matrix is not square (" + std::to_string(A.rows) +
                                " x " + std::to_string(A.cols) + ")");
  require(std::isfinite(theta) && theta >= 0, "filtered_matrix: theta must be finite and >= 0");
  const index_t n = A.rows;
  const DeviceBuffer<T> diag = diagonal(A, stream);
  const DeviceBuffer<T> scale = strength_scales(A, measure, stream);
  DeviceBuffer<index_t> count(n, stream, "filtered row counts");
  DeviceCsr<T> F;
  F.rows = F.cols = n;
  F.row_ptr = DeviceBuffer<index_t>(std::size_t(n) + 1, stream, "filtered row_ptr");
  auto pass = [&](auto fill, index_t* counts, const index_t* f_row_ptr, index_t* f_col_idx,
                  T* f_values) {
    row_groups::with_lanes(A, [&](auto lanes) {
      constexpr int L = decltype(lanes)::value;
      filtered_rows<T, decltype(fill)::value, L>
          <<<row_split::blocks(n, L), row_split::threads, 0, stream>>>(
              n, A.row_ptr.data(), A.col_idx.data(), A.values.data(), diag.data(), scale.data(),
              theta, measure, counts, f_row_ptr, f_col_idx, f_values);
      BINAMG_CHECK_LAUNCH();
    });
  };
  if (n > 0) pass(std::false_type{}, count.data(), nullptr, nullptr, nullptr);
  F.allocate_entries(
      offsets_from_counts(count.data(), n, F.row_ptr.data(), "filtered_matrix: nnz", stream),
      stream, "filtered entries");
  if (n > 0) pass(std::true_type{}, nullptr, F.row_ptr.data(), F.col_idx.data(), F.values.data());
  return F;
}

template <typename T>
std::int64_t weak_entries(const DeviceCsr<T>& A, double theta, cudaStream_t stream,
                          StrengthMeasure measure) {
  require(A.rows == A.cols, "weak_entries: the matrix is not square (" + std::to_string(A.rows) +
                                " x " + std::to_string(A.cols) + ")");
  require(std::isfinite(theta) && theta >= 0, "weak_entries: theta must be finite and >= 0");
  if (A.rows == 0) return 0;
  const DeviceBuffer<T> scale = strength_scales(A, measure, stream);
  DeviceBuffer<unsigned long long> weak = device_value(0ULL, stream, "weak entries");
  row_groups::with_lanes(A, [&](auto lanes) {
    constexpr int L = decltype(lanes)::value;
    count_weak<T, L><<<row_split::blocks(A.rows, L), row_split::threads, 0, stream>>>(
        A.rows, A.row_ptr.data(), A.col_idx.data(), A.values.data(), scale.data(), theta, measure,
        weak.data());
    BINAMG_CHECK_LAUNCH();
  });
  return static_cast<std::int64_t>(read_back(weak.data(), stream));
}

#define BINAMG_INSTANTIATE(T)                                                          \
  template DeviceCsr<T> filtered_matrix<T>(const DeviceCsr<T>&, double, cudaStream_t,  \
                                           StrengthMeasure);                           \
  template std::int64_t weak_entries<T>(const DeviceCsr<T>&, double, cudaStream_t,     \
                                        StrengthMeasure);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
