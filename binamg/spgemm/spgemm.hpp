#pragma once
// Sparse matrix-matrix product C = A·B.
//
// Contract (CPU and GPU alike): C's rows are sorted and duplicate-free; each
// entry is the sum of its products taken in the order of A's row (so results
// are deterministic); entries whose products cancel to zero are kept.

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "binamg/core/config.hpp"
#include "binamg/sparse/csr.hpp"
#if BINAMG_WITH_CUDA
#include <cuda_runtime.h>

#include "binamg/sparse/device_csr.hpp"
#endif

namespace binamg {

/// Number of scalar products A·B performs (flops = 2 × this).
template <typename T>
std::int64_t spgemm_product_count(const CsrMatrix<T>& A, const CsrMatrix<T>& B);

/// CPU reference: Gustavson's row-by-row algorithm with a dense accumulator,
/// rows in parallel with OpenMP, two passes (count, then fill).
/// Throws InvalidInput if the inner dimensions differ or nnz(C) passes 2^31-1.
template <typename T>
CsrMatrix<T> spgemm(const CsrMatrix<T>& A, const CsrMatrix<T>& B);

/// The ways the GPU SpGEMM computes a product. Each product takes the first
/// path, in this order, whose rule its shape meets (spgemm/choose_path.hpp
/// states the rules; docs/design.md describes each path). Window and merged
/// rows may decline a product once their count pass finds a row they cannot
/// hold; the product then takes the next path.
enum class SpgemmPath : std::uint8_t {
  empty,              // A has no rows: nothing to compute
  dense_columns,      // few rows into few columns: a block per row, a thread per column of B
  narrow,             // B has few columns (a coarse level): a warp and one table per row, unbinned
  window_split_rows,  // few long rows into a coarse space: window rows, a block per row
  window_rows,        // long rows into a coarse space: a bit set over each row's window of columns
  merged_rows,        // short rows into a coarse space: sub-warps merge the sorted B rows
  sorted_whole,       // few rows of many products: every product sorted by (row, column)
  fused_rows,  // many short rows into a coarse space: no symbolic pass, rows summed into rooms
  binned,      // Liu & Vinter's binned symbolic and numeric passes
};

/// "empty", "dense_columns", ... (the enumerator's name).
const char* path_name(SpgemmPath path);

/// A set of paths.
class SpgemmPathSet {
 public:
  SpgemmPathSet() = default;
  SpgemmPathSet(std::initializer_list<SpgemmPath> paths) {
    for (SpgemmPath path : paths) insert(path);
  }
  void insert(SpgemmPath path) { bits_ |= bit(path); }
  bool contains(SpgemmPath path) const { return (bits_ & bit(path)) != 0; }

 private:
  static unsigned bit(SpgemmPath path) { return 1u << static_cast<unsigned>(path); }
  unsigned bits_ = 0;
};

/// How a GPU product was computed: the path that produced C and the paths
/// that declined it before.
struct SpgemmReport {
  SpgemmPath path = SpgemmPath::empty;
  SpgemmPathSet declined;
};

#if BINAMG_WITH_CUDA
/// GPU: Liu & Vinter's binned framework and the paths that skip parts of it
/// for the shapes of an AMG setup (SpgemmPath). Same structure as the CPU
/// version; values sum in A's row order except for runs of more than 32
/// products in the sorted paths, split dense long rows and split window rows,
/// which are summed in a fixed regrouping, so they agree with the CPU to
/// rounding (what the tests check). Deterministic: the same inputs give the same bits on every
/// run. Synchronizes `stream` for its read-backs: nnz(C) on every path, and
/// one to three more on the binned, fused and window paths (bin sizes,
/// totals, rows past their rooms). Temporaries come from the binamg pool.
/// With `report`, says which path it took.
/// Throws InvalidInput on mismatched inner dimensions or nnz(C) past 2^31-1,
/// DeviceError when the GPU runs out of memory.
template <typename T>
DeviceCsr<T> spgemm(const DeviceCsr<T>& A, const DeviceCsr<T>& B, cudaStream_t stream = nullptr,
                    SpgemmReport* report = nullptr);

/// A·(B·C) (a Galerkin R·(A·P)): the same as spgemm(A, spgemm(B, C)), bit for
/// bit, but where B·C takes fused rows and A·(B·C) window rows, the window
/// rows read B·C's rows where the fused path left them, unpacked (one
/// allocation, one launch and B·C's packing fewer). `outer` reports A·(B·C),
/// `inner` B·C. Throws as spgemm.
template <typename T>
DeviceCsr<T> spgemm(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const DeviceCsr<T>& C,
                    cudaStream_t stream = nullptr, SpgemmReport* outer = nullptr,
                    SpgemmReport* inner = nullptr);

/// Recomputes C's values for new values of A and B with the sparsity patterns
/// C was computed from (skips the symbolic pass and the allocation): the
/// binned numeric pass, or the whole sort where choose_path takes it, so the
/// values are spgemm's to rounding (bit for bit but where a sort regroups a
/// run of more than 32 products). Throws InvalidInput if the shapes disagree
/// or the patterns no longer give C's.
template <typename T>
void spgemm_numeric(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                    cudaStream_t stream = nullptr);

/// New values of C = A·B where spgemm formed C on the binned path
/// (SpgemmReport::path): that path's own numeric pass on C's pattern, with the
/// bins it would give C's rows, so C gets the bits spgemm gives the new values;
/// its symbolic pass, allocation and scan are skipped. Throws as spgemm_numeric.
template <typename T>
void spgemm_binned_numeric(const DeviceCsr<T>& A, const DeviceCsr<T>& B, DeviceCsr<T>& C,
                           cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
