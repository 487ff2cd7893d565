#pragma once
#include "binamg/sparse/csr.hpp"
#include "binamg/sparse/device_csr.hpp"

namespace binamg {

/// Aᵀ with sorted rows (a counting sort by column: O(nnz + rows + cols)).
template <typename T>
CsrMatrix<T> transpose(const CsrMatrix<T>& A);

/// The GPU twin: bitwise the same matrix as the CPU version (a stable radix
/// sort of A's entries by column keeps each row of Aᵀ in increasing row order).
template <typename T>
DeviceCsr<T> transpose(const DeviceCsr<T>& A, cudaStream_t stream = nullptr);

}  // namespace binamg
