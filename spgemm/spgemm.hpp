#pragma once
// Sparse matrix-matrix product C = A·B.
//
// Contract (CPU and GPU alike): C's rows are sorted and duplicate-free; each
// entry is the sum of its products taken in the order of A's row (so results
// are deterministic); entries whose products cancel to zero are kept.
#include <cstdint>
#include <vector>

#include "sparse/csr.hpp"
#include "sparse/device_csr.hpp"

namespace binamg {

/// Number of scalar products A·B performs (flops = 2 × this).
template <typename T>
std::int64_t spgemm_product_count(const CsrMatrix<T>& A, const CsrMatrix<T>& B);

/// CPU reference: Gustavson's row-by-row algorithm with a dense accumulator,
/// rows in parallel with OpenMP, two passes (count, then fill).
/// Throws InvalidInput if the inner dimensions differ or nnz(C) passes 2^31-1.
template <typename T>
CsrMatrix<T> spgemm(const CsrMatrix<T>& A, const CsrMatrix<T>& B);

/// GPU: the binned framework of Liu & Vinter (2014). (1) each row's product
/// count bounds its nnz; (2) rows are binned by that bound on the GPU;
/// (3) each bin runs the kernel that suits it: a sub-warp register sort of the
/// products for short rows, shared-memory hash tables per row for sub-warp,
/// warp and block rows; rows past the largest shared table (and every row of a
/// product of few rows with thousands of products each) are expanded a
/// thread per product, radix-sorted by (row, column) and summed run by run
/// (or, when their products pass a memory budget, accumulated densely in
/// global memory, split over several blocks when they are few); rows of 0 or
/// 1 product no kernel; a product of at most 1024 rows into at most 256
/// columns takes no bins at all (a block per row, a thread per column: the
/// coarsest Galerkin R·(AP)), nor does a product into a space at least 4×
/// smaller whose A rows average 64 entries or more (a warp per row marks its
/// columns in a shared bit set over the row's window of columns and sums
/// each column at its rank, in one pass into rooms of 256 entries where the
/// rows fit them, else a count pass first; rows spanning more than 16384
/// columns send the product on) or have at most 64 entries (sub-warps merge
/// each row's sorted B rows; A's and B's max_row_length bound its buffers,
/// measured where unknown); a large product of short rows into such a space
/// skips the symbolic pass (each row summed into a room of 32 entries, or of
/// its products if a row has more, then packed); elsewhere symbolic (count)
/// then numeric (fill) pass, so
/// C is allocated exactly; (4) each row is sorted by column and written. Same
/// structure as the CPU version; values sum in A's row order except for
/// split dense long rows, whose slices are added in slice order, so they
/// agree with the CPU to rounding (what the tests check). Deterministic: the
/// same inputs give the same bits on every run. Synchronizes `stream` twice to
/// read bin sizes and nnz(C), and twice more per pass that sorts rows (their
/// entry and product totals); the fused path three times (once more for rooms
/// of products); window and merged rows once (nnz(C)), window rows past their
/// rooms twice, plus once per unknown max_row_length (merged rows).
/// Temporaries come from the binamg pool.
/// Throws InvalidInput on mismatched inner dimensions or nnz(C) past 2^31-1,
/// DeviceError when the GPU runs out of memory.
template <typename T>
DeviceCsr<T> spgemm(const DeviceCsr<T>& A, const DeviceCsr<T>& B, cudaStream_t stream = nullptr);

/// A·(B·C) (a Galerkin R·(A·P)): the same as spgemm(A, spgemm(B, C)), bit for
/// bit, but where B·C takes the fused path and A·(B·C) the window rows, the
/// window rows read B·C's rows where the fused path left them, unpacked
/// (3D 27-pt's level-0 A·P: ~150 MB not moved, one allocation and one
/// launch fewer). Throws as spgemm.
template <typename T>
DeviceCsr<T> spgemm(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const DeviceCsr<T>& C,
                    cudaStream_t stream = nullptr);

/// Recomputes C's values for new values of A and B with the sparsity patterns
/// C was computed from (skips the symbolic pass and the allocation). Throws
/// InvalidInput if the shapes disagree or the patterns no longer give C's.
template <typename T>
void spgemm_numeric(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                    cudaStream_t stream = nullptr);

}  // namespace binamg
