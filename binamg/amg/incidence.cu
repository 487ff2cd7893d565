// GPU twins of amg/incidence.cpp: the same matrices and maps.
#include <climits>
#include <string>

#include "binamg/amg/incidence.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"

namespace binamg {
namespace {

constexpr int incidence_threads = 256;

// One thread per row; the first row with a group outside [0, groups) is kept
// in *first_bad (atomicMin: the same row on every run).
template <typename T>
__global__ void fill_incidence(index_t n, index_t groups, const index_t* group_of, index_t* row_ptr,
                               index_t* col_idx, T* values, index_t* first_bad) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) row_ptr[0] = 0;
  if (i >= n) return;
  const index_t g = group_of[i];
  if (g < 0 || g >= groups) atomicMin(first_bad, i);
  row_ptr[i + 1] = i + 1;
  col_idx[i] = g;
  values[i] = T(1);
}

// One thread per group: writes its rows' group, and keeps the first group
// whose range is empty or out of order in *first_bad.
__global__ void fill_groups(index_t groups, index_t rows, const index_t* group_ptr,
                            index_t* group_of, index_t* first_bad) {
  const index_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= groups) return;
  const index_t begin = group_ptr[p], end = group_ptr[p + 1];
  if (begin >= end || begin < 0 || end > rows || (p == 0 && begin != 0) ||
      (p == groups - 1 && end != rows)) {
    atomicMin(first_bad, p);
    return;
  }
  for (index_t i = begin; i < end; ++i) group_of[i] = p;
}

}  // namespace

template <typename T>
DeviceCsr<T> incidence_matrix(const DeviceBuffer<index_t>& group_of, index_t groups,
                              const std::string& what, cudaStream_t stream) {
  const index_t n = checked_index(static_cast<std::int64_t>(group_of.size()), what + ": rows");
  DeviceCsr<T> C;
  C.rows = n;
  C.cols = groups;
  C.row_ptr = DeviceBuffer<index_t>(std::size_t(n) + 1, stream, "incidence row_ptr");
  C.allocate_entries(n, stream, "incidence entries");
  C.max_row_length = n > 0 ? 1 : 0;
  DeviceBuffer<index_t> first_bad(1, stream, "incidence check");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(first_bad.data(), 0x7f, sizeof(index_t), stream));
  fill_incidence<<<blocks_for(std::int64_t(n) + 1, incidence_threads), incidence_threads, 0,
                   stream>>>(n, groups, group_of.data(), C.row_ptr.data(), C.col_idx.data(),
                             C.values.data(), first_bad.data());
  BINAMG_CHECK_LAUNCH();
  const index_t bad = read_back(first_bad.data(), stream);
  if (bad < n) {
    index_t group = 0;
    read_back(&group, group_of.data() + bad, sizeof(index_t), stream);
    throw InvalidInput(what + ": row " + std::to_string(bad) + " has group " +
                       std::to_string(group) + " outside [0, " + std::to_string(groups) + ")");
  }
  return C;
}

DeviceBuffer<index_t> groups_of_ranges(const DeviceBuffer<index_t>& group_ptr, index_t rows,
                                       const std::string& what, cudaStream_t stream) {
  require(group_ptr.size() >= 1,
          what + ": the groups must cover rows 0 to " + std::to_string(rows));
  const index_t groups = static_cast<index_t>(group_ptr.size()) - 1;
  DeviceBuffer<index_t> group_of(rows, stream, "groups of rows");
  DeviceBuffer<index_t> first_bad(1, stream, "group check");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(first_bad.data(), 0x7f, sizeof(index_t), stream));
  if (groups > 0) {
    fill_groups<<<blocks_for(groups, incidence_threads), incidence_threads, 0, stream>>>(
        groups, rows, group_ptr.data(), group_of.data(), first_bad.data());
    BINAMG_CHECK_LAUNCH();
  }
  const index_t bad = read_back(first_bad.data(), stream);
  require(groups > 0 || rows == 0,
          what + ": the groups must cover rows 0 to " + std::to_string(rows));
  require(bad >= groups, what + ": group " + std::to_string(bad) +
                             " holds no rows or lies outside rows 0 to " + std::to_string(rows));
  return group_of;
}

#define BINAMG_INSTANTIATE(T)                                                      \
  template DeviceCsr<T> incidence_matrix<T>(const DeviceBuffer<index_t>&, index_t, \
                                            const std::string&, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
