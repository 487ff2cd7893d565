#pragma once
#include "binamg/core/config.hpp"
#include "binamg/sparse/csr.hpp"
#if BINAMG_WITH_CUDA
#include "binamg/sparse/device_csr.hpp"
#endif

namespace binamg {

/// Aᵀ with sorted rows (a counting sort by column: O(nnz + rows + cols)).
template <typename T>
CsrMatrix<T> transpose(const CsrMatrix<T>& A);

#if BINAMG_WITH_CUDA
/// The GPU twin: bitwise the same matrix as the CPU version (a stable radix
/// sort of A's entries by column keeps each row of Aᵀ in increasing row order).
template <typename T>
DeviceCsr<T> transpose(const DeviceCsr<T>& A, cudaStream_t stream = nullptr);

/// The same, and with `source_entries`, for each entry of Aᵀ the index of the
/// entry of A it is (the order transpose_values gathers in).
template <typename T>
DeviceCsr<T> transpose(const DeviceCsr<T>& A, cudaStream_t stream,
                       DeviceBuffer<index_t>* source_entries);

/// New values of A into At, a transpose formed before from A's pattern with
/// its `source_entries`: At.values[k] = A.values[source_entries[k]]. Throws
/// InvalidInput if the sizes disagree.
template <typename T>
void transpose_values(const DeviceCsr<T>& A, const DeviceBuffer<index_t>& source_entries,
                      DeviceCsr<T>& At, cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
