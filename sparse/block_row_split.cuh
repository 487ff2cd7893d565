#pragma once
// Device side of the CSR × block kernels (blocks of k vectors stored row-major,
// entry (i, j) at [i·k + j]) in the row-split layout of Yang, Buluç & Owens: each
// row of A belongs to a group of L lanes that load up to L of its nonzeros at once
// (coalesced) and broadcast each (column, value) by shuffles, while every lane
// updates its own columns of the row, reading the matching row of the block
// contiguously across the group. The SpMM, the block smoother and the block
// V-cycle's fused steps share the kernel, each with its own gather (column c of
// input row `col`) and epilogue (what becomes of the sum for (row, c)).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda_check.hpp"
#include "core/launch.hpp"
#include "sparse/device_csr.hpp"
#include "sparse/row_split.cuh"
#include "sparse/spmm_kernels.hpp"

namespace binamg::block_row_split {

using spmm_detail::SpmmPolicy;

using row_split::group_mask;

// Threads: a group of L lanes per row (row = global thread / L); blockIdx.y is
// the pass over columns [64·y, 64·y + 64), lane l owning columns
// pass_base + l + r·L for r < R. Invariant: each (row, column) sum runs over the
// row's nonzeros in increasing position, so its bits never vary, and reaches the
// epilogue once. Exact: k is a multiple of L·R, so no column needs a bounds check.
template <typename T, int L, int R, bool Exact, typename Gather, typename Epilogue>
__global__ void __launch_bounds__(SpmmPolicy::threads)
    kernel(index_t rows, index_t k, const index_t* __restrict__ row_ptr,
           const index_t* __restrict__ col_idx, const T* __restrict__ values, Gather gather,
           Epilogue epilogue) {
  const std::int64_t row = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / L;
  if (row >= rows) return;  // whole groups leave together: rows are per group
  const int lane = threadIdx.x % L;
  const unsigned mask = group_mask<L>();
  const index_t first_column = blockIdx.y * SpmmPolicy::columns_per_pass + lane;

  T sum[R];
#pragma unroll
  for (int r = 0; r < R; ++r) sum[r] = T(0);
  const index_t begin = row_ptr[row], end = row_ptr[row + 1];
  for (index_t base = begin; base < end; base += L) {
    index_t my_column = 0;
    T my_value = T(0);
    if (base + lane < end) {
      my_column = col_idx[base + lane];
      my_value = values[base + lane];
    }
    const int count = min(L, end - base);
    for (int t = 0; t < count; ++t) {
      const index_t column = __shfl_sync(mask, my_column, t, L);
      const T a = __shfl_sync(mask, my_value, t, L);
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const index_t c = first_column + r * L;
        if (Exact || c < k) sum[r] += a * gather(column, c);
      }
    }
  }
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const index_t c = first_column + r * L;
    if (Exact || c < k) epilogue(row, c, sum[r]);
  }
}

template <typename T, int L, int R, typename Gather, typename Epilogue>
void launch_shape(const DeviceCsr<T>& A, index_t k, const Gather& gather,
                  const Epilogue& epilogue, cudaStream_t stream) {
  const dim3 grid(blocks_for(std::int64_t(A.rows) * L, SpmmPolicy::threads),
                  static_cast<unsigned>((k + SpmmPolicy::columns_per_pass - 1) /
                                        SpmmPolicy::columns_per_pass));
  // Exact needs every pass full: k = L·R (one pass) or a multiple of 64.
  if (k % (L * R) == 0 && (k <= L * R || k % SpmmPolicy::columns_per_pass == 0))
    kernel<T, L, R, true><<<grid, SpmmPolicy::threads, 0, stream>>>(
        A.rows, k, A.row_ptr.data(), A.col_idx.data(), A.values.data(), gather, epilogue);
  else
    kernel<T, L, R, false><<<grid, SpmmPolicy::threads, 0, stream>>>(
        A.rows, k, A.row_ptr.data(), A.col_idx.data(), A.values.data(), gather, epilogue);
  BINAMG_CHECK_LAUNCH();
}

/// Runs the kernel over every row of A and k columns. A lane owns several
/// columns (2 up to k = 8, 4 up to 32, 8 beyond, in passes of 64), so each
/// nonzero issues that many independent gathers per lane and a warp covers
/// several rows: on the H100 (bench/results/2026-11-23-h100-spmm-block-shapes.md)
/// that took the stencils from 29-73% of the roofline with one column per lane
/// (two past 32) to 45-88%. Gather and Epilogue are trivially copyable functors
/// with __device__ operator()s: gather(col, c) -> T, epilogue(row, c, sum).
template <typename T, typename Gather, typename Epilogue>
void launch(const DeviceCsr<T>& A, index_t k, const Gather& gather, const Epilogue& epilogue,
            cudaStream_t stream) {
  if (A.rows == 0) return;
  switch (spmm_detail::lanes_for_columns(k)) {
    case 1: return launch_shape<T, 1, 1>(A, k, gather, epilogue, stream);
    case 2: return launch_shape<T, 1, 2>(A, k, gather, epilogue, stream);
    case 4: return launch_shape<T, 2, 2>(A, k, gather, epilogue, stream);
    case 8: return launch_shape<T, 4, 2>(A, k, gather, epilogue, stream);
    case 16: return launch_shape<T, 4, 4>(A, k, gather, epilogue, stream);
    default:
      if (k <= 32) return launch_shape<T, 8, 4>(A, k, gather, epilogue, stream);
      return launch_shape<T, 8, 8>(A, k, gather, epilogue, stream);
  }
}

/// Column c of row `col` of a row-major block with k columns.
template <typename T>
struct BlockEntry {
  const T* __restrict__ block;
  index_t k;
  __device__ T operator()(index_t col, index_t c) const { return block[std::int64_t(col) * k + c]; }
};

}  // namespace binamg::block_row_split
