// GPU twin of strength(): the same graph, entry for entry.
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "binamg/amg/row_groups.cuh"
#include "binamg/amg/strength.hpp"
#include "binamg/amg/strength_test.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/lower_bound.cuh"
#include "binamg/core/read_back.hpp"
#include "binamg/core/scan.hpp"
#include "binamg/sparse/transpose.hpp"
#include "binamg/spmv/row_split.cuh"

namespace binamg {
namespace {

constexpr int strength_threads = 256;

// The CPU's test (strength_test.hpp), entry for entry.
template <typename T>
__device__ bool is_strong(index_t row, index_t col, T value, const T* scale, double theta,
                          StrengthMeasure measure) {
  return col != row &&
         amg_detail::strong_connection(value, scale[row], scale[col], theta, measure);
}

// A group of L lanes per row: the largest |a_ik|, k ≠ i (a maximum: any order
// gives it).
template <typename T, int L>
__global__ void __launch_bounds__(row_split::threads)
    largest_off_diagonals(index_t rows, const index_t* row_ptr, const index_t* col_idx,
                          const T* values, T* scale) {
  const std::int64_t row = row_split::group_row<L>();
  if (row >= rows) return;  // whole groups leave together
  T largest = 0;
  for (index_t k = row_ptr[row] + threadIdx.x % L; k < row_ptr[row + 1]; k += L)
    if (col_idx[k] != row) largest = fmax(largest, fabs(values[k]));
  largest = row_split::group_max<L>(largest);
  if (threadIdx.x % L == 0) scale[row] = largest;
}

// A group of L lanes per row of A: counts (count pass) or writes (fill pass) the
// row's strong entries in A's column order, so rows of S stay sorted. The count
// pass also adds the row's weak entries (off-diagonal, not strong) to *weak; it
// has no early return, since whole warps sum them.
template <typename T, bool fill, int L>
__global__ void __launch_bounds__(row_split::threads)
    strong_entries(index_t rows, const index_t* row_ptr, const index_t* col_idx, const T* values,
                   const T* scale, double theta, StrengthMeasure measure, index_t* count,
                   unsigned long long* weak, const index_t* s_row_ptr, index_t* s_col_idx) {
  const std::int64_t row = row_split::group_row<L>();
  const bool live = row < rows;
  const index_t begin = live ? row_ptr[row] : 0, end = live ? row_ptr[row + 1] : 0;
  bool diagonal = false;
  const index_t strong = row_groups::compact_row<L>(
      begin, end,
      [&](index_t k) {
        const index_t col = col_idx[k];
        diagonal |= col == row;
        return is_strong(index_t(row), col, values[k], scale, theta, measure);
      },
      [&](index_t k, index_t slot) {
        if constexpr (fill) s_col_idx[s_row_ptr[row] + slot] = col_idx[k];
      });
  if constexpr (!fill) {
    // Rows hold no duplicate column, so at most one diagonal entry.
    const bool has_diagonal = __any_sync(row_split::group_mask<L>(), diagonal);
    const bool first_lane = live && threadIdx.x % L == 0;
    if (first_lane) count[row] = strong;
    if (weak != nullptr)  // the same for the whole grid
      row_groups::add_warp_total(first_lane ? end - begin - has_diagonal - strong : 0, weak);
  }
}

// Whether row `col` of the pattern (sorted rows) holds column `row`.
__device__ bool holds(const index_t* row_ptr, const index_t* col_idx, index_t col, index_t row) {
  const index_t at = lower_bound_in(col_idx, row_ptr[col], row_ptr[col + 1], row);
  return at < row_ptr[col + 1] && col_idx[at] == row;
}

// A group of L lanes per row of S: counts (count pass) or writes (fill pass)
// the columns of the row's entries (row, col) that have no (col, row) partner,
// in S's order.
template <bool fill, int L>
__global__ void __launch_bounds__(row_split::threads)
    unpaired_entries(index_t rows, const index_t* row_ptr, const index_t* col_idx, index_t* count,
                     const index_t* u_ptr, index_t* u_col) {
  const std::int64_t row = row_split::group_row<L>();
  if (row >= rows) return;  // whole groups leave together
  const index_t unpaired = row_groups::compact_row<L>(
      row_ptr[row], row_ptr[row + 1],
      [&](index_t k) { return !holds(row_ptr, col_idx, col_idx[k], index_t(row)); },
      [&](index_t k, index_t slot) {
        if constexpr (fill) u_col[u_ptr[row] + slot] = col_idx[k];
      });
  if (!fill && threadIdx.x % L == 0) count[row] = unpaired;
}

// One thread per row: the row's length in S ∪ Uᵀ (disjoint patterns).
__global__ void union_lengths(index_t rows, const index_t* s_ptr, const index_t* ut_ptr,
                              index_t* count) {
  const index_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) count[row] = s_ptr[row + 1] - s_ptr[row] + ut_ptr[row + 1] - ut_ptr[row];
}

// A group of L lanes per row of S: each entry of S to its place in the merged
// row, after the entries of Uᵀ's row with smaller columns (usually none).
template <int L>
__global__ void __launch_bounds__(row_split::threads)
    place_strong(index_t rows, const index_t* s_ptr, const index_t* s_col, const index_t* ut_ptr,
                 const index_t* ut_col, const index_t* out_ptr, index_t* out_col) {
  const std::int64_t row = row_split::group_row<L>();
  if (row >= rows) return;
  const index_t ut_begin = ut_ptr[row], ut_end = ut_ptr[row + 1];
  const index_t first = out_ptr[row] - s_ptr[row];
  for (index_t k = s_ptr[row] + threadIdx.x % L; k < s_ptr[row + 1]; k += L) {
    const index_t col = s_col[k];
    const index_t before =
        ut_begin == ut_end ? 0 : lower_bound_in(ut_col, ut_begin, ut_end, col) - ut_begin;
    out_col[first + k + before] = col;
  }
}

// One thread per row: each entry of Uᵀ's row to its place in the merged row,
// after the entries of S's row with smaller columns.
__global__ void place_partners(index_t rows, const index_t* s_ptr, const index_t* s_col,
                               const index_t* ut_ptr, const index_t* ut_col, const index_t* out_ptr,
                               index_t* out_col) {
  const index_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  for (index_t e = ut_ptr[row]; e < ut_ptr[row + 1]; ++e) {
    const index_t col = ut_col[e];
    const index_t before = lower_bound_in(s_col, s_ptr[row], s_ptr[row + 1], col) - s_ptr[row];
    out_col[out_ptr[row] + (e - ut_ptr[row]) + before] = col;
  }
}

// A group of L lanes per row of S: raises *unpaired when an entry (row, col) has
// no (col, row) partner. S is usually symmetric (A is), and then S ∪ Sᵀ = S.
template <int L>
__global__ void __launch_bounds__(row_split::threads)
    find_unpaired(index_t rows, const index_t* row_ptr, const index_t* col_idx,
                  unsigned long long* unpaired) {
  const std::int64_t row = row_split::group_row<L>();
  if (row >= rows) return;
  for (index_t k = row_ptr[row] + threadIdx.x % L; k < row_ptr[row + 1]; k += L) {
    if (!holds(row_ptr, col_idx, col_idx[k], index_t(row))) {
      atomicOr(unpaired, 1ull);
      return;
    }
  }
}

// The signed measure's scales: each row's largest off-diagonal magnitude
// with the sign of its diagonal.
template <typename T>
__global__ void sign_by_diagonal(index_t n, const T* diagonal, T* scale) {
  const index_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n && diagonal[k] < 0) scale[k] = -scale[k];
}

template <typename T>
__global__ void fill_value(index_t n, T value, T* out) {
  const index_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) out[k] = value;
}

}  // namespace

template <typename T>
DeviceBuffer<T> strength_scales(const DeviceCsr<T>& A, StrengthMeasure measure,
                                cudaStream_t stream) {
  if (measure == StrengthMeasure::symmetric) return diagonal(A, stream);
  DeviceBuffer<T> scale(A.rows, stream, "strength scales");
  if (A.rows > 0) {
    row_groups::with_lanes(A, [&](auto lanes) {
      constexpr int L = decltype(lanes)::value;
      largest_off_diagonals<T, L><<<row_split::blocks(A.rows, L), row_split::threads, 0, stream>>>(
          A.rows, A.row_ptr.data(), A.col_idx.data(), A.values.data(), scale.data());
      BINAMG_CHECK_LAUNCH();
    });
    if (measure == StrengthMeasure::signed_classical) {
      const DeviceBuffer<T> d = diagonal(A, stream);
      sign_by_diagonal<<<blocks_for(A.rows, strength_threads), strength_threads, 0, stream>>>(
          A.rows, d.data(), scale.data());
      BINAMG_CHECK_LAUNCH();
    }
  }
  return scale;
}

template <typename T>
DeviceCsr<T> strength(const DeviceCsr<T>& A, double theta, cudaStream_t stream,
                      StrengthMeasure measure, std::int64_t* weak) {
  require(A.rows == A.cols, "strength: the matrix is not square (" + std::to_string(A.rows) +
                                " x " + std::to_string(A.cols) + ")");
  require(std::isfinite(theta) && theta >= 0, "strength: theta must be finite and >= 0");
  const index_t n = A.rows;
  const unsigned blocks = blocks_for(n, strength_threads);
  const DeviceBuffer<T> scale = strength_scales(A, measure, stream);
  DeviceBuffer<index_t> count(n, stream, "strength row counts");

  DeviceCsr<T> S;
  S.rows = S.cols = n;
  S.row_ptr = DeviceBuffer<index_t>(std::size_t(n) + 1, stream, "strength row_ptr");
  // Counters read back together, once: [0] the weak entries (counted when
  // asked for), [1] nonzero when an entry of S has no partner.
  DeviceBuffer<unsigned long long> counters(2, stream, "strength counters");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(counters.data(), 0, 2 * sizeof(unsigned long long), stream));
  unsigned long long* weak_total = weak != nullptr ? counters.data() : nullptr;
  // Both passes and the symmetry check give each row row_groups::with_lanes' lanes.
  auto strong_pass = [&](auto fill, index_t* counts, const index_t* s_row_ptr, index_t* s_col_idx) {
    row_groups::with_lanes(A, [&](auto lanes) {
      constexpr int L = decltype(lanes)::value;
      strong_entries<T, decltype(fill)::value, L>
          <<<row_split::blocks(n, L), row_split::threads, 0, stream>>>(
              n, A.row_ptr.data(), A.col_idx.data(), A.values.data(), scale.data(), theta, measure,
              counts, weak_total, s_row_ptr, s_col_idx);
      BINAMG_CHECK_LAUNCH();
    });
  };
  if (n > 0) strong_pass(std::false_type{}, count.data(), nullptr, nullptr);
  S.allocate_entries(
      offsets_from_counts(count.data(), n, S.row_ptr.data(), "strength: nnz(S)", stream), stream,
      "strength entries");
  if (n > 0) strong_pass(std::true_type{}, nullptr, S.row_ptr.data(), S.col_idx.data());
  if (S.nnz() > 0) {
    fill_value<<<blocks_for(S.nnz(), strength_threads), strength_threads, 0, stream>>>(
        S.nnz(), T(1), S.values.data());
    BINAMG_CHECK_LAUNCH();
  }
  if (n == 0) {
    if (weak != nullptr) *weak = 0;
    return S;
  }
  row_groups::with_lanes(A, [&](auto lanes) {
    constexpr int L = decltype(lanes)::value;
    find_unpaired<L><<<row_split::blocks(n, L), row_split::threads, 0, stream>>>(
        n, S.row_ptr.data(), S.col_idx.data(), counters.data() + 1);
    BINAMG_CHECK_LAUNCH();
  });
  unsigned long long counted[2];
  read_back(counted, counters.data(), sizeof counted, stream);
  if (weak != nullptr) *weak = static_cast<std::int64_t>(counted[0]);
  if (counted[1] == 0) return S;  // symmetric: the union below would copy S

  // S ∪ Sᵀ = S ∪ Uᵀ, U the entries of S without a partner: usually a few that
  // rounding put on either side of θ (a Galerkin product's a_ij and a_ji may
  // differ in their last bits). Uᵀ's rows are sorted (transpose keeps row order
  // within a column) and disjoint from S's, so each entry's place in the merged
  // row is its place in its own row plus the other row's smaller columns.
  DeviceCsr<T> U;
  U.rows = U.cols = n;
  U.row_ptr = DeviceBuffer<index_t>(std::size_t(n) + 1, stream, "strength unpaired row_ptr");
  auto unpaired_pass = [&](auto fill) {
    row_groups::with_lanes(A, [&](auto lanes) {
      constexpr int L = decltype(lanes)::value;
      unpaired_entries<decltype(fill)::value, L>
          <<<row_split::blocks(n, L), row_split::threads, 0, stream>>>(
              n, S.row_ptr.data(), S.col_idx.data(), count.data(), U.row_ptr.data(),
              U.col_idx.data());
      BINAMG_CHECK_LAUNCH();
    });
  };
  unpaired_pass(std::false_type{});
  U.allocate_entries(
      offsets_from_counts(count.data(), n, U.row_ptr.data(), "strength: unpaired entries", stream),
      stream, "strength unpaired entries");
  unpaired_pass(std::true_type{});
  if (U.nnz() > 0) {
    fill_value<<<blocks_for(U.nnz(), strength_threads), strength_threads, 0, stream>>>(
        U.nnz(), T(1), U.values.data());
    BINAMG_CHECK_LAUNCH();
  }
  const DeviceCsr<T> Ut = transpose(U, stream);

  DeviceCsr<T> graph;
  graph.rows = graph.cols = n;
  graph.row_ptr = DeviceBuffer<index_t>(std::size_t(n) + 1, stream, "strength graph row_ptr");
  union_lengths<<<blocks, strength_threads, 0, stream>>>(n, S.row_ptr.data(), Ut.row_ptr.data(),
                                                         count.data());
  BINAMG_CHECK_LAUNCH();
  graph.allocate_entries(offsets_from_counts(count.data(), n, graph.row_ptr.data(),
                                             "strength: nnz(S + Sᵀ)", stream),
                         stream, "strength graph entries");
  row_groups::with_lanes(A, [&](auto lanes) {
    constexpr int L = decltype(lanes)::value;
    place_strong<L><<<row_split::blocks(n, L), row_split::threads, 0, stream>>>(
        n, S.row_ptr.data(), S.col_idx.data(), Ut.row_ptr.data(), Ut.col_idx.data(),
        graph.row_ptr.data(), graph.col_idx.data());
    BINAMG_CHECK_LAUNCH();
  });
  place_partners<<<blocks, strength_threads, 0, stream>>>(
      n, S.row_ptr.data(), S.col_idx.data(), Ut.row_ptr.data(), Ut.col_idx.data(),
      graph.row_ptr.data(), graph.col_idx.data());
  BINAMG_CHECK_LAUNCH();
  if (graph.nnz() > 0) {
    fill_value<<<blocks_for(graph.nnz(), strength_threads), strength_threads, 0, stream>>>(
        graph.nnz(), T(1), graph.values.data());
    BINAMG_CHECK_LAUNCH();
  }
  return graph;
}

#define BINAMG_INSTANTIATE(T)                                                                   \
  template DeviceCsr<T> strength<T>(const DeviceCsr<T>&, double, cudaStream_t, StrengthMeasure, \
                                    std::int64_t*);                                             \
  template DeviceBuffer<T> strength_scales<T>(const DeviceCsr<T>&, StrengthMeasure, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
