#pragma once
// The smoothed-aggregation multigrid hierarchy and its setup.
#include <string>
#include <vector>

#include "binamg/amg/coarse_solve.hpp"
#include "binamg/amg/level_sizes.hpp"
#include "binamg/amg/parameters.hpp"
#include "binamg/sparse/csr.hpp"
#include "binamg/sparse/device_csr.hpp"

namespace binamg {

/// One fine level (every level but the coarsest).
template <typename T>
struct Level {
  CsrMatrix<T> A, P, R;  // R = Pᵀ explicitly
  std::vector<T> inverse_diagonal;
  T jacobi_weight;         // parameters.jacobi_weight / spectral_radius
  double spectral_radius;  // estimate of ρ(D⁻¹A)
};

/// Wall-clock milliseconds per setup phase, summed over levels. prolongator_ms
/// includes the ρ(D⁻¹A) estimate and the inverse diagonal; restriction_ms is R = Pᵀ.
struct SetupTimings {
  double strength_ms = 0, aggregation_ms = 0, tentative_ms = 0, prolongator_ms = 0,
         restriction_ms = 0, galerkin_ms = 0, coarse_factor_ms = 0;
  double total_ms() const;
};

/// Scratch vectors of the V-cycle, one per level, sized at setup so that cycles
/// do not allocate. A hierarchy therefore runs one cycle at a time.
template <typename T>
struct CycleWorkspace {
  std::vector<std::vector<T>> residual;  // [l]: rows of level l (also the smoother's scratch)
  std::vector<std::vector<T>> rhs;       // [l]: right-hand side on level l (l ≥ 1)
  std::vector<std::vector<T>> solution;  // [l]: correction on level l (l ≥ 1)
};

template <typename T>
class Hierarchy {
 public:
  std::vector<Level<T>> levels;
  CsrMatrix<T> coarse_matrix;
  CoarseSolver<T> coarse;
  SetupTimings timings;
  AmgParameters parameters;
  mutable CycleWorkspace<T> workspace;

  index_t num_levels() const { return static_cast<index_t>(levels.size()) + 1; }
  /// Rows and nnz of every level, the coarsest last.
  std::vector<LevelSize> level_sizes() const;
  double operator_complexity() const { return binamg::operator_complexity(level_sizes()); }
  double grid_complexity() const { return binamg::grid_complexity(level_sizes()); }
  /// The matrix of level l (l == levels.size() is the coarsest).
  const CsrMatrix<T>& matrix(index_t level) const;
};

/// Builds the hierarchy: strength → aggregation → tentative → smoothed P → R = Pᵀ
/// → Galerkin, level after level, then factors the coarsest matrix. Coarsening
/// stops when a level has at most max_coarse_rows rows, at max_levels, or when
/// aggregation stalls (more than 90% of the rows would remain: another level
/// would cost a full smoother sweep and buy almost no coarsening).
/// Throws InvalidInput unless A is valid, square and has a nonzero diagonal.
template <typename T>
Hierarchy<T> build_hierarchy(const CsrMatrix<T>& A, const AmgParameters& parameters = {});

/// A printed table: level, rows, nnz, nnz/row, then the complexities.
template <typename T>
std::string describe(const Hierarchy<T>& hierarchy);

/// Cycle scratch for k right-hand sides at once: per level, row-major blocks of
/// rows × k (k = 1 is the hierarchy's own workspace).
template <typename T>
CycleWorkspace<T> cycle_workspace(const Hierarchy<T>& hierarchy, index_t k);

// ---- The GPU hierarchy: every level built and kept on the device. ----

/// One fine level on the device, as Level.
template <typename T>
struct DeviceLevel {
  DeviceCsr<T> A, P, R;
  DeviceBuffer<T> inverse_diagonal;
  T jacobi_weight;
  double spectral_radius;
};

/// Device scratch of the V-cycle, as CycleWorkspace (Jacobi swaps residual[l]
/// with the level's iterate, so buffers move between owners but never change size).
template <typename T>
struct DeviceCycleWorkspace {
  std::vector<DeviceBuffer<T>> residual, rhs, solution;
  // k > 1: partial sums of block reductions (block_reduction_scratch_size): the
  // cycle's fused bᵀx, and the block CG's between cycles.
  DeviceBuffer<T> column_partials;
};

template <typename T>
class DeviceHierarchy {
 public:
  std::vector<DeviceLevel<T>> levels;
  DeviceCsr<T> coarse_matrix;
  DeviceCoarseSolver<T> coarse;
  SetupTimings timings;
  AmgParameters parameters;
  cudaStream_t stream = nullptr;  // every setup and cycle operation is ordered on it
  mutable DeviceCycleWorkspace<T> workspace;

  index_t num_levels() const { return static_cast<index_t>(levels.size()) + 1; }
  std::vector<LevelSize> level_sizes() const;
  double operator_complexity() const { return binamg::operator_complexity(level_sizes()); }
  double grid_complexity() const { return binamg::grid_complexity(level_sizes()); }
  const DeviceCsr<T>& matrix(index_t level) const;
};

/// The GPU setup: the CPU build_hierarchy's algorithm and stopping rules, level
/// after level on the device (see amg/hierarchy.cu for the one host step of
/// `standard` aggregation). A must satisfy CsrMatrix's invariants (upload a
/// validate()d matrix); squareness and the diagonal are checked here.
template <typename T>
DeviceHierarchy<T> build_hierarchy(const DeviceCsr<T>& A, const AmgParameters& parameters = {},
                                   cudaStream_t stream = nullptr);

/// The same table as describe(Hierarchy).
template <typename T>
std::string describe(const DeviceHierarchy<T>& hierarchy);

/// Device cycle scratch for k right-hand sides, as cycle_workspace(Hierarchy).
template <typename T>
DeviceCycleWorkspace<T> cycle_workspace(const DeviceHierarchy<T>& hierarchy, index_t k);

}  // namespace binamg
