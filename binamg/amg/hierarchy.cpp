#include "binamg/amg/hierarchy.hpp"

#include <chrono>
#include <cmath>
#include <string>

#include "binamg/amg/aggregation.hpp"
#include "binamg/amg/galerkin.hpp"
#include "binamg/amg/prolongation.hpp"
#include "binamg/amg/spectral_radius.hpp"
#include "binamg/amg/strength.hpp"
#include "binamg/amg/tentative.hpp"
#include "binamg/smoothers/jacobi.hpp"
#include "binamg/sparse/transpose.hpp"

namespace binamg {
namespace {

// Aggregation that keeps more than this fraction of the rows has stalled.
constexpr double stalled_coarsening_ratio = 0.9;

class Stopwatch {
 public:
  // Adds the milliseconds since the last call (or construction) to `total`.
  void lap(double& total) {
    const auto now = std::chrono::steady_clock::now();
    total += std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace

double SetupTimings::total_ms() const {
  return strength_ms + aggregation_ms + tentative_ms + prolongator_ms + restriction_ms +
         galerkin_ms + coarse_factor_ms;
}

template <typename T>
const CsrMatrix<T>& Hierarchy<T>::matrix(index_t level) const {
  require(level >= 0 && level < num_levels(),
          "Hierarchy::matrix: level " + std::to_string(level) + " does not exist");
  return level < static_cast<index_t>(levels.size()) ? levels[level].A : coarse_matrix;
}

template <typename T>
std::vector<LevelSize> Hierarchy<T>::level_sizes() const {
  std::vector<LevelSize> sizes;
  for (index_t l = 0; l < num_levels(); ++l) sizes.push_back({matrix(l).rows, matrix(l).nnz()});
  return sizes;
}

template <typename T>
Hierarchy<T> build_hierarchy(const CsrMatrix<T>& A, const AmgParameters& parameters) {
  validate(parameters);
  validate(A, "build_hierarchy: A");
  require_square_with_diagonal(A, "build_hierarchy: A");
  Hierarchy<T> h;
  h.parameters = parameters;
  CsrMatrix<T> current = A;
  while (current.rows > parameters.max_coarse_rows &&
         static_cast<int>(h.levels.size()) + 1 < parameters.max_levels) {
    Stopwatch clock;
    const CsrMatrix<T> S = strength(current, parameters.strength_threshold);
    clock.lap(h.timings.strength_ms);
    const Aggregates aggregates = aggregate(S, parameters.aggregation);
    clock.lap(h.timings.aggregation_ms);
    if (aggregates.count > stalled_coarsening_ratio * current.rows) break;
    const CsrMatrix<T> tentative = tentative_prolongator<T>(aggregates);
    clock.lap(h.timings.tentative_ms);

    Level<T> level;
    level.spectral_radius =
        spectral_radius_dinv_a(current, parameters.spectral_radius_iterations);
    require(level.spectral_radius > 0 && std::isfinite(level.spectral_radius),
            "build_hierarchy: level " + std::to_string(h.levels.size()) +
                " has no usable estimate of rho(D^-1 A)");
    level.jacobi_weight = static_cast<T>(parameters.jacobi_weight / level.spectral_radius);
    level.inverse_diagonal = inverse_diagonal(current);
    level.P = smoothed_prolongator(
        current, tentative, parameters.prolongator_weight / level.spectral_radius);
    clock.lap(h.timings.prolongator_ms);
    level.R = transpose(level.P);
    clock.lap(h.timings.restriction_ms);
    CsrMatrix<T> coarser = galerkin_product(current, level.P, level.R, parameters.ordering);
    clock.lap(h.timings.galerkin_ms);
    // A Galerkin matrix of an SPD matrix keeps a positive diagonal; a
    // nonsymmetric input may lose it, and the next smoother would divide by zero.
    require_square_with_diagonal(
        coarser, "build_hierarchy: Galerkin matrix of level " + std::to_string(h.levels.size() + 1));
    level.A = std::move(current);
    h.levels.push_back(std::move(level));
    current = std::move(coarser);
  }
  Stopwatch clock;
  h.coarse.factor(current);
  h.coarse_matrix = std::move(current);
  clock.lap(h.timings.coarse_factor_ms);

  h.workspace = cycle_workspace(h, 1);
  return h;
}

template <typename T>
CycleWorkspace<T> cycle_workspace(const Hierarchy<T>& h, index_t k) {
  require(k > 0, "cycle_workspace: the number of right-hand sides must be positive");
  const std::size_t count = h.num_levels();
  CycleWorkspace<T> work;
  work.residual.resize(count);
  work.rhs.resize(count);
  work.solution.resize(count);
  for (std::size_t l = 0; l < count; ++l) {
    const std::size_t entries = std::size_t(h.matrix(static_cast<index_t>(l)).rows) * k;
    if (l < h.levels.size()) work.residual[l].resize(entries);
    if (l > 0) {
      work.rhs[l].resize(entries);
      work.solution[l].resize(entries);
    }
  }
  return work;
}

template <typename T>
std::string describe(const Hierarchy<T>& h) {
  return describe_levels(h.level_sizes(), h.coarse.method());
}

#define BINAMG_INSTANTIATE(T)                                                    \
  template class Hierarchy<T>;                                                   \
  template CycleWorkspace<T> cycle_workspace<T>(const Hierarchy<T>&, index_t);   \
  template Hierarchy<T> build_hierarchy<T>(const CsrMatrix<T>&, const AmgParameters&); \
  template std::string describe<T>(const Hierarchy<T>&);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
