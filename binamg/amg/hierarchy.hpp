#pragma once
// The smoothed-aggregation multigrid hierarchy and its setup.
#include <string>
#include <vector>

#include "binamg/amg/coarse_solve.hpp"
#include "binamg/amg/level_sizes.hpp"
#include "binamg/amg/parameters.hpp"
#include "binamg/core/config.hpp"
#include "binamg/core/error.hpp"
#include "binamg/sparse/csr.hpp"
#if BINAMG_WITH_CUDA
#include "binamg/sparse/device_csr.hpp"
#endif

namespace binamg {

/// One fine level (every level but the coarsest), on either device:
/// Level<T> holds host matrices, DeviceLevel<T> device ones.
template <typename Matrix, typename Vector>
struct LevelOf {
  using value_type = typename Vector::value_type;
  Matrix A, P, R;  // R = Pᵀ explicitly
  // The tentative prolongator P was smoothed from (its aggregates), kept for refresh().
  Matrix tentative;
  bool filtered = false;  // P was smoothed with A's filtered matrix, not A
  // The smoother's D⁻¹ and weight: 1/a_ii and jacobi_weight/ρ, or l1-Jacobi's
  // inverse l1 diagonal and 1 (AmgParameters::smoother).
  Vector inverse_diagonal;
  value_type jacobi_weight;
  double spectral_radius;  // estimate of ρ(D⁻¹A), also Chebyshev's interval
};

/// Wall-clock milliseconds per setup phase, summed over levels; together they
/// are all the setup's time. prepare_ms is the work outside the levels: the
/// hierarchy's own copy of A (on the GPU, its columns packed and its values
/// coded), A's diagonal checked, and the cycle's scratch. prolongator_ms
/// includes the ρ(D⁻¹A) estimate (and l1-Jacobi's diagonal), except in a GPU
/// setup, which runs the estimate beside strength and aggregation and charges
/// it where it runs (the time the host waits for it stays in prolongator_ms);
/// restriction_ms is R = Pᵀ; galerkin_ms includes the check of the coarse
/// matrix's diagonal.
/// After refresh() they are the refresh's (strength, aggregation and tentative
/// 0; prepare_ms is taking A's new values).
struct SetupTimings {
  double prepare_ms = 0, strength_ms = 0, aggregation_ms = 0, tentative_ms = 0, prolongator_ms = 0,
         restriction_ms = 0, galerkin_ms = 0, coarse_factor_ms = 0;
  // A mixed-precision setup's rounding of the double matrix to float, done and
  // timed by the caller before build_hierarchy (0 otherwise).
  double convert_ms = 0;
  double total_ms() const;
};

/// What the host and the device hierarchy share: the levels, the coarsest
/// matrix and its solver, the setup's timings and parameters, and the cycle's
/// scratch (sized at setup so that cycles do not allocate; a hierarchy
/// therefore runs one cycle at a time).
template <typename LevelType, typename Matrix, typename Coarse, typename Workspace>
class HierarchyOf {
 public:
  std::vector<LevelType> levels;
  Matrix coarse_matrix;
  Coarse coarse;
  SetupTimings timings;
  AmgParameters parameters;
  /// What the setup noticed that may cost the solve (coarsening that stalled or
  /// stopped above max_coarse_rows, a singular coarsest matrix), one sentence each.
  std::vector<std::string> warnings;
  mutable Workspace workspace;

  index_t num_levels() const { return static_cast<index_t>(levels.size()) + 1; }
  /// The matrix of level l (l == levels.size() is the coarsest).
  const Matrix& matrix(index_t level) const {
    require(level >= 0 && level < num_levels(),
            "hierarchy: level " + std::to_string(level) + " does not exist");
    return level < static_cast<index_t>(levels.size()) ? levels[level].A : coarse_matrix;
  }
  /// Rows and nnz of every level, the coarsest last.
  std::vector<LevelSize> level_sizes() const {
    std::vector<LevelSize> sizes;
    for (index_t l = 0; l < num_levels(); ++l) sizes.push_back({matrix(l).rows, matrix(l).nnz()});
    return sizes;
  }
  double operator_complexity() const { return binamg::operator_complexity(level_sizes()); }
  double grid_complexity() const { return binamg::grid_complexity(level_sizes()); }
  /// A printed table: level, rows, nnz, nnz/row, then the complexities.
  std::string describe() const { return describe_levels(level_sizes(), coarse.method()); }
};

/// Scratch vectors of the V-cycle, one per level.
template <typename T>
struct CycleWorkspace {
  std::vector<std::vector<T>> residual;  // [l]: rows of level l (also the smoother's scratch)
  std::vector<std::vector<T>> rhs;       // [l]: right-hand side on level l (l ≥ 1)
  std::vector<std::vector<T>> solution;  // [l]: correction on level l (l ≥ 1)
  std::vector<std::vector<T>> direction;  // [l]: Chebyshev's search direction (else empty)
};

template <typename T>
using Level = LevelOf<CsrMatrix<T>, std::vector<T>>;

template <typename T>
class Hierarchy : public HierarchyOf<Level<T>, CsrMatrix<T>, CoarseSolver<T>, CycleWorkspace<T>> {};

/// Builds the hierarchy: strength → aggregation → tentative → smoothed P → R = Pᵀ
/// → Galerkin, level after level, then factors the coarsest matrix. Coarsening
/// stops when a level has at most max_coarse_rows rows, at max_levels, or when
/// aggregation stalls (more than 90% of the rows would remain: another level
/// would cost a full smoother sweep and buy almost no coarsening); the last two
/// leave a warning. Throws InvalidInput unless A is valid, square and has a
/// diagonal entry in every row that can be divided by, or if the coarsest
/// matrix has more than max_direct_rows rows (naming the parameter to change).
template <typename T>
Hierarchy<T> build_hierarchy(const CsrMatrix<T>& A, const AmgParameters& parameters = {});

/// Cycle scratch for k right-hand sides at once: per level, row-major blocks of
/// rows × k (k = 1 is the hierarchy's own workspace).
template <typename T>
CycleWorkspace<T> cycle_workspace(const Hierarchy<T>& hierarchy, index_t k);

/// Gives the hierarchy the values of A, a matrix with the sparsity pattern it
/// was built for (time steps, Newton steps): strength, aggregates and the
/// tentative prolongators are kept; ρ, the smoothed prolongators, R and every
/// Galerkin product are recomputed and the coarsest matrix refactored, with
/// the setup's own steps, so the result is build_hierarchy's with the
/// aggregates held fixed, bit for bit. The levels, their sizes and the cycle's
/// scratch stay; warnings about a singular coarsest matrix are renewed.
/// Throws InvalidInput if A's shape or pattern differs (naming the first
/// row that differs; build a new hierarchy for a new pattern) and as
/// build_hierarchy does on what the new values break (a zero diagonal, no
/// usable ρ). After a throw the hierarchy must not be used.
template <typename T>
void refresh(Hierarchy<T>& hierarchy, const CsrMatrix<T>& A);

#if BINAMG_WITH_CUDA
// ---- The GPU hierarchy: every level built and kept on the device. ----

template <typename T>
using DeviceLevel = LevelOf<DeviceCsr<T>, DeviceBuffer<T>>;

/// Device scratch of the V-cycle, as CycleWorkspace (Jacobi swaps residual[l]
/// with the level's iterate, so buffers move between owners but never change size).
template <typename T>
struct DeviceCycleWorkspace {
  std::vector<DeviceBuffer<T>> residual, rhs, solution, direction;
  // Partial sums of reductions (column_dots_scratch_size of the finest matrix):
  // the cycle's fused bᵀx, and the block CG's between cycles.
  DeviceBuffer<T> column_partials;
};

/// How a GPU refresh recomputes one of a level's products, learnt from the
/// path the first refresh's whole product took: `in_place` by spgemm_refill
/// on the kept pattern (`entry_rows`) where that path sums in A's row order
/// (so the bits stay the setup's) and the refill pays (spgemm_refill_pays);
/// `numeric` by spgemm_binned_numeric on the kept pattern where the path was
/// the binned one (its numeric pass alone, the setup's bits); else `whole` by
/// spgemm.
struct ProductRefill {
  enum class Mode { unknown, in_place, numeric, whole };
  Mode mode = Mode::unknown;
  DeviceBuffer<index_t> entry_rows;
};

/// What a GPU refresh keeps of a level for the next one (the first refresh
/// fills it): the middle product of the Galerkin triple (A·P; R·A for
/// ptap_left), per entry of R the entry of P it is, and how each product is
/// recomputed, so that a later refresh reruns no symbolic pass.
template <typename T>
struct DeviceRefreshProducts {
  DeviceCsr<T> middle;
  DeviceBuffer<index_t> transpose_order;
  ProductRefill prolongator, middle_product, coarse;
};

template <typename T>
class DeviceHierarchy : public HierarchyOf<DeviceLevel<T>, DeviceCsr<T>, DeviceCoarseSolver<T>,
                                           DeviceCycleWorkspace<T>> {
 public:
  cudaStream_t stream = nullptr;  // every setup and cycle operation is ordered on it
  std::vector<DeviceRefreshProducts<T>> refresh_products;  // empty until the first refresh
};

/// The GPU setup: the CPU build_hierarchy's algorithm and stopping rules, level
/// after level on the device (see amg/hierarchy.cu for the one host step of
/// `standard` aggregation). A must satisfy CsrMatrix's invariants (upload a
/// validate()d matrix); squareness and the diagonal are checked here.
template <typename T>
DeviceHierarchy<T> build_hierarchy(const DeviceCsr<T>& A, const AmgParameters& parameters = {},
                                   cudaStream_t stream = nullptr);

/// Device cycle scratch for k right-hand sides, as cycle_workspace(Hierarchy).
template <typename T>
DeviceCycleWorkspace<T> cycle_workspace(const DeviceHierarchy<T>& hierarchy, index_t k);

/// The GPU refresh, as refresh(Hierarchy): the same values as the CPU's to
/// rounding, and a setup's with the aggregates held fixed, bit for bit. The
/// first refresh forms the products whole, as the setup does, and keeps each
/// level's middle Galerkin product, R's gather order and the rows of the
/// products' entries (memory about the hierarchy's matrices again;
/// DeviceHierarchy::refresh_products). Later refreshes refill P, R and the
/// coarser matrices in place (spgemm_refill, a gather for R), except
/// products whose path does not sum in A's row order (ProductRefill), formed
/// whole. A level whose prolongator is smoothed with a filtered matrix (whose
/// pattern follows the values) is formed whole every time. A must satisfy
/// CsrMatrix's invariants (upload a validate()d matrix).
template <typename T>
void refresh(DeviceHierarchy<T>& hierarchy, const DeviceCsr<T>& A);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
