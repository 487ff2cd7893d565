#pragma once
// A product's new values on the pattern spgemm formed it with (a refresh's
// products): no symbolic pass, table, allocation or read-back.
#include <cuda_runtime.h>

#include <cstdint>

#include "binamg/sparse/device_csr.hpp"
#include "binamg/spgemm/spgemm.hpp"

namespace binamg {

/// Whether every entry of a product computed on `path` is the sum of its
/// products in A's row order (every path but sorted_whole and binned, whose
/// long rows may be summed in a fixed regrouping, and window_split_rows,
/// whose warps' partial sums are): spgemm_refill's sums.
bool sums_in_row_order(SpgemmPath path);

/// Whether spgemm_refill of C = A·B (A with a_rows rows, B with b_rows rows
/// and b_nnz entries, C with c_nnz) is expected to beat spgemm: it reads A's
/// row once per entry of C, c_nnz·(a_nnz/a_rows) reads, against spgemm's
/// a_nnz·(b_nnz/b_rows) products; on the H200 it wins while their ratio
/// c_nnz·b_rows/(a_rows·b_nnz) is at most 3 (the fine levels' products) and
/// C has at least 100,000 entries, and loses on the coarse levels' long rows.
bool spgemm_refill_pays(index_t a_rows, index_t b_rows, std::int64_t b_nnz, std::int64_t c_nnz);

/// New values of C = A·B on C's pattern, which spgemm formed from A's and B's
/// patterns on a path that sums_in_row_order: a thread per entry of C
/// (`rows` = entry_rows(C)) sums its products in A's row order, so C gets
/// spgemm's bits. The patterns are not checked: if they no longer give C's,
/// C's values are wrong. Throws InvalidInput if the shapes disagree.
template <typename T>
void spgemm_refill(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                   const DeviceBuffer<index_t>& rows, cudaStream_t stream = nullptr);

}  // namespace binamg
