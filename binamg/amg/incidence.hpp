#pragma once
// The incidence matrix of a map from rows to groups (unknowns to nodes, nodes
// to aggregates): its transpose lists each group's rows in increasing order,
// and Cᵀ·M·C sums a matrix over groups.
#include <vector>

#include "binamg/core/config.hpp"
#include "binamg/sparse/csr.hpp"
#if BINAMG_WITH_CUDA
#include "binamg/sparse/device_csr.hpp"
#endif

namespace binamg {

/// C(i, group_of[i]) = 1: group_of.size() rows, `groups` columns. Throws
/// InvalidInput naming `what` and the first row whose group lies outside [0, groups).
template <typename T>
CsrMatrix<T> incidence_matrix(const std::vector<index_t>& group_of, index_t groups,
                              const std::string& what);

#if BINAMG_WITH_CUDA
/// The GPU twin (the same matrix).
template <typename T>
DeviceCsr<T> incidence_matrix(const DeviceBuffer<index_t>& group_of, index_t groups,
                              const std::string& what, cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

/// The group of each row from the groups' row ranges (group p: rows
/// group_ptr[p] … group_ptr[p+1]−1). Throws InvalidInput naming `what` unless
/// group_ptr starts at 0, ends at `rows` and increases strictly (no empty group).
std::vector<index_t> groups_of_ranges(const std::vector<index_t>& group_ptr, index_t rows,
                                      const std::string& what);
#if BINAMG_WITH_CUDA
DeviceBuffer<index_t> groups_of_ranges(const DeviceBuffer<index_t>& group_ptr, index_t rows,
                                       const std::string& what, cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
