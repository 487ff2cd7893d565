#pragma once
// The setup of a smoothed-aggregation hierarchy, written once for both
// devices: amg/hierarchy.cpp runs it with the host's steps, amg/hierarchy.cu
// with the device's. A step of `Steps` is the device's twin of one phase:
//
//   using Matrix, Diagonal (a matrix's diagonal and its inverse), Clock;
//   Matrix own(const Matrix& A)                     a copy the hierarchy keeps
//   Diagonal diagonal(const Matrix&, const std::string& what)
//                                                   throws naming `what` on a zero
//   Matrix strength(const Matrix& A, double theta, StrengthMeasure, std::int64_t* weak)
//                                                   weak: null, or where to count A's weak entries
//   Matrix filtered(const Matrix& A, double theta, StrengthMeasure)  amg/filtered.hpp
//   std::int64_t weak_entries(const Matrix& A, double theta, StrengthMeasure)  (the same)
//   Aggregates aggregate(const Matrix& S, AggregationMethod, int free_percent)
//                                                   (.count aggregates; amg/aggregation.hpp)
//   Weights                                         a level's node weights (empty: all 1)
//   Tentative tentative(const Aggregates&, const Weights&)   .P and .coarse_weights
// and for systems (amg/near_nullspace.hpp):
//   Candidates                                      a level's near-nullspace vectors and nodes
//   Candidates finest_candidates(const NearNullspace&, index_t rows)
//   Matrix node_matrix(const Matrix& A, const Candidates&)      amg/node_matrix.hpp
//   Aggregates unknown_aggregates(const Aggregates& nodes, const Candidates&)
//   SystemTentative tentative_qr(const Aggregates&, const Candidates&)  .P and .coarse
//   Radius start_spectral_radius(const Matrix& A, const Diagonal&, int iterations)
//                                                   the ρ(D⁻¹A) estimate, begun (the device
//                                                   runs it beside the steps that follow)
//   double spectral_radius(Radius&)                 its value
//   Matrix smoothed_prolongator(const Matrix& A, const Diagonal&, const Matrix& T,
//                               double omega, Matrix* refill, Kept*)
//   Matrix transpose(const Matrix& P, Matrix* refill, Kept*)
//   Matrix galerkin(const Matrix& A, const Matrix& P, const Matrix& R, GalerkinOrdering,
//                   Matrix* refill, Kept*)
//                                                   with `refill` (a refresh), the matrix
//                                                   to give new values on its pattern, which
//                                                   the result keeps; `Kept` is what the
//                                                   device keeps of a level between
//                                                   refreshes (Refill, below)
//   void refill_values(Matrix& finest, const Matrix& A)   A's values into `finest`, the
//                                                   same pattern (else throws, naming a row)
//   double largest_diagonal(const Matrix& A, const Diagonal&)   max |a_ii|
//   Vector inverse_l1_diagonal(const Matrix& A)     l1-Jacobi's (smoothers/jacobi.hpp)
//   void factor(CoarseSolver&, const Matrix& coarsest, double scale)
//   Clock clock()                                   .lap(total) adds the time since the
//                                                   last lap, the device's work included
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/core/error.hpp"

namespace binamg::setup_detail {

/// Aggregation that keeps more than this fraction of the rows has stalled:
/// another level would cost a full smoother sweep and buy almost no coarsening.
constexpr double kStalledCoarseningRatio = 0.9;

/// Why aggregation of level `level` stalled, with the parameter that may help.
/// `theta` is the level's strength threshold.
/// `unit` names what was aggregated: "rows", or "nodes" for a system.
inline std::string stall_reason(std::size_t level, index_t rows, index_t aggregates,
                                index_t strong_entries, double theta, const char* unit = "rows") {
  std::string reason = "coarsening stalled at level " + std::to_string(level) + " (" +
                       std::to_string(aggregates) + " aggregates of " + std::to_string(rows) + " " +
                       unit;
  if (theta > 0) {
    char threshold[32];
    std::snprintf(threshold, sizeof threshold, "%g", theta);
    reason += "; the strength threshold " + std::string(threshold) + " keeps " +
              std::to_string(strong_entries) +
              " strong connections: lower it (or its decay per level) to coarsen further";
  }
  return reason + ")";
}

/// Throws unless a refresh's A has the shape of the hierarchy's finest matrix.
template <typename Matrix>
void require_same_shape(const Matrix& finest, const Matrix& A) {
  require(A.rows == finest.rows && A.cols == finest.cols,
          "refresh: A is " + std::to_string(A.rows) + " x " + std::to_string(A.cols) +
              ", the hierarchy was built for " + std::to_string(finest.rows) + " x " +
              std::to_string(finest.cols) + " (build a new hierarchy for another matrix)");
}

/// The message of a refresh whose A has another pattern, from `row` on.
inline std::string different_pattern(index_t row) {
  return "refresh: A's sparsity pattern differs from the one the hierarchy was built for, "
         "first in row " +
         std::to_string(row) + " (build a new hierarchy for a new pattern)";
}

/// θ of level `index`: the scalar or the system threshold, decayed per level
/// by the aggregation's decay.
inline double level_theta(const AmgParameters& parameters, bool system, std::size_t index) {
  const double decay = parameters.aggregation == AggregationMethod::standard
                           ? parameters.standard_strength_decay
                           : parameters.strength_decay;
  return (system ? parameters.system_strength_threshold : parameters.strength_threshold) *
         std::pow(decay, double(index));
}

/// A refresh's matrices to refill in place (all null in a setup): the level's
/// P and R, the next level's matrix, and what the device keeps between
/// refreshes to skip the symbolic passes (Steps::Kept).
template <typename Matrix, typename Kept>
struct Refill {
  Matrix* P = nullptr;
  Matrix* R = nullptr;
  Matrix* coarser = nullptr;
  Kept* kept = nullptr;
};

/// The next level's matrix and its diagonal; `new_pattern`: a refresh formed
/// this level's P with a filtered matrix, whose pattern follows the values,
/// so the next levels' patterns may have changed too.
template <typename Steps>
struct Coarser {
  typename Steps::Matrix A;
  typename Steps::Diagonal diagonal;
  bool new_pattern = false;
};

/// The numeric half of level `index`, shared by the setup and the refresh so
/// that a refresh is a setup with the aggregates held fixed: from the level's
/// matrix `current` (its `diagonal`) and level.tentative, the smoother's
/// weight and diagonal, P, R and the Galerkin matrix of the next level, which
/// it returns with its diagonal (checked). Charges its phases to `timings`
/// with the caller's `clock` (laps from the caller's last); `who` begins its
/// messages. `radius`: the estimate of ρ(D⁻¹A) of `current`, begun by the
/// caller. `weak`: `current`'s weak entries at the level's θ where the
/// setup's strength pass counted them, or -1 (a refresh: new values) to count
/// them here.
template <typename Steps, typename LevelType, typename Clock>
Coarser<Steps> form_level(Steps& steps, const AmgParameters& parameters, bool system,
                          std::size_t index, const typename Steps::Matrix& current,
                          const typename Steps::Diagonal& diagonal,
                          typename Steps::Radius& radius, LevelType& level,
                          SetupTimings& timings, Clock& clock,
                          Refill<typename Steps::Matrix, typename Steps::Kept> refill,
                          const std::string& who, std::int64_t weak = -1) {
  using T = typename LevelType::value_type;
  const std::string level_name = who + ": level " + std::to_string(index);
  level.spectral_radius = steps.spectral_radius(radius);
  require(level.spectral_radius > 0 && std::isfinite(level.spectral_radius),
          level_name + " has no usable estimate of rho(D^-1 A)");
  level.jacobi_weight = static_cast<T>(parameters.jacobi_weight / level.spectral_radius);
  if (parameters.smoother == SmootherKind::l1_jacobi) {
    // The prolongator still smooths with A's diagonal (`diagonal`, below).
    level.inverse_diagonal = steps.inverse_l1_diagonal(current);
    level.jacobi_weight = T(1);
  }
  // Smoothing the prolongator with the filtered matrix: its own diagonal
  // and spectral radius, while the smoother keeps A's. Without a weak entry
  // the filtered matrix is A itself, and A serves with its ρ: on the
  // Poisson stencils at the default θ that is every level. A system
  // smooths with A: its strength is judged per node, not per entry.
  const double theta = level_theta(parameters, system, index);
  const StrengthMeasure measure = parameters.strength_measure;
  const bool filter = !system && theta > 0 && int(index) < parameters.filtered_levels &&
                      (weak >= 0 ? weak : steps.weak_entries(current, theta, measure)) > 0;
  // A filtered matrix's pattern follows its values, and P's and the coarser
  // patterns with it: such a level (now or before) is formed afresh, and so
  // are the levels below it (refresh_levels).
  const bool new_pattern = refill.P != nullptr && (filter || level.filtered);
  if (filter || level.filtered) {
    if (refill.kept != nullptr) *refill.kept = {};
    refill = {};
  }
  level.filtered = filter;
  if (filter) {
    const typename Steps::Matrix filtered = steps.filtered(current, theta, measure);
    const auto filtered_diagonal = steps.diagonal(filtered, level_name + " filtered matrix");
    auto filtered_radius = steps.start_spectral_radius(filtered, filtered_diagonal,
                                                       parameters.spectral_radius_iterations);
    const double rho = steps.spectral_radius(filtered_radius);
    require(rho > 0 && std::isfinite(rho),
            level_name + " has no usable estimate of rho(D_F^-1 A_F) of its filtered matrix");
    const double omega = parameters.prolongator_weight / rho;
    level.P = steps.smoothed_prolongator(filtered, filtered_diagonal, level.tentative, omega,
                                         nullptr, nullptr);
    for (int step = 1; step < parameters.filtered_prolongator_steps; ++step)
      level.P =
          steps.smoothed_prolongator(filtered, filtered_diagonal, level.P, omega, nullptr, nullptr);
  } else {
    level.P = steps.smoothed_prolongator(current, diagonal, level.tentative,
                                         parameters.prolongator_weight / level.spectral_radius,
                                         refill.P, refill.kept);
  }
  clock.lap(timings.prolongator_ms);
  level.R = steps.transpose(level.P, refill.R, refill.kept);
  clock.lap(timings.restriction_ms);
  Coarser<Steps> coarser{steps.galerkin(current, level.P, level.R, parameters.ordering,
                                         refill.coarser, refill.kept),
                          {}, new_pattern};
  // A Galerkin matrix of an SPD matrix keeps a positive diagonal; a
  // nonsymmetric input may lose it, and the next smoother would divide by zero.
  coarser.diagonal =
      steps.diagonal(coarser.A, who + ": Galerkin matrix of level " + std::to_string(index + 1));
  clock.lap(timings.galerkin_ms);
  return coarser;
}

/// The warning of a coarsest matrix with a null space of dimension `nullity`.
inline std::string singular_coarse_warning(index_t nullity) {
  return "the coarsest matrix is singular (a null space of dimension " + std::to_string(nullity) +
         ", solved by its pseudo-inverse): A x = b has a solution only when b is orthogonal "
         "to A's null space (for a pure-Neumann Laplacian: when the entries of b sum to 0)";
}

/// Factors h's coarsest matrix `coarsest` (scale: the finest level's largest
/// |a_ii|, against which the coarse solve judges rank; CoarseSolver::factor),
/// keeps it and warns if it is singular.
template <typename Steps, typename HierarchyType>
void factor_coarsest(Steps& steps, typename Steps::Matrix coarsest, double scale,
                     HierarchyType& h) {
  auto clock = steps.clock();
  steps.factor(h.coarse, coarsest, scale);
  h.coarse_matrix = std::move(coarsest);
  clock.lap(h.timings.coarse_factor_ms);
  if (h.coarse.nullity() > 0) h.warnings.push_back(singular_coarse_warning(h.coarse.nullity()));
}

/// Builds h's levels from A with `steps` (see above): strength → aggregation
/// → tentative → smoothed P → R = Pᵀ → Galerkin, level after level, until a
/// level has at most max_coarse_rows rows, max_levels is reached or the
/// aggregation stalls; then factors the coarsest matrix. A's squareness and
/// diagonal are checked here, the rest of its validity by the caller.
template <typename Steps, typename HierarchyType>
void build_levels(Steps& steps, const typename Steps::Matrix& A, HierarchyType& h) {
  using Matrix = typename Steps::Matrix;
  using LevelType = typename decltype(h.levels)::value_type;
  const AmgParameters& parameters = h.parameters;
  require(A.rows == A.cols && A.rows > 0, "build_hierarchy: A must be square and non-empty, got " +
                                              std::to_string(A.rows) + " x " +
                                              std::to_string(A.cols));
  auto prepare = steps.clock();
  Matrix current = steps.own(A);
  // Each level's diagonal is extracted and inverted (and so checked) once:
  // the ρ estimate and the prolongator divide by it, the smoother keeps the inverse.
  auto diagonal = steps.diagonal(current, "build_hierarchy: A");
  const double scale = steps.largest_diagonal(current, diagonal);
  prepare.lap(h.timings.prepare_ms);
  // How many finest nodes each node of `current` stands for (empty on the
  // finest level: all 1): the tentative prolongator keeps the finest level's
  // constant vector in reach of every coarse level (amg/tentative.hpp).
  typename Steps::Weights weights{};
  // A system coarsens nodes and carries its near-nullspace vectors down
  // instead (the scalar path, with the constant vector, keeps its bits).
  const NearNullspace& nullspace = parameters.near_nullspace;
  const bool system = is_system(nullspace);
  typename Steps::Candidates candidates{};
  {
    // Checking and laying out (uploading) the vectors is part of the setup:
    // charged to the tentative prolongator's phase.
    auto clock = steps.clock();
    if (system)
      candidates = steps.finest_candidates(nullspace, A.rows);
    else if (nullspace.count > 0)
      validate_near_nullspace(nullspace, A.rows, "build_hierarchy: near_nullspace");
    clock.lap(h.timings.tentative_ms);
  }
  std::string stopped;  // why coarsening ended above max_coarse_rows, if it did
  while (current.rows > parameters.max_coarse_rows) {
    if (static_cast<int>(h.levels.size()) + 1 >= parameters.max_levels) {
      stopped = "coarsening stopped at max_levels = " + std::to_string(parameters.max_levels);
      break;
    }
    auto clock = steps.clock();
    // Needed only once the level is aggregated; begun first so that the
    // device can run it beside strength and aggregation.
    auto radius =
        steps.start_spectral_radius(current, diagonal, parameters.spectral_radius_iterations);
    const double theta = level_theta(parameters, system, h.levels.size());
    // S is the graph of the nodes: of the rows, or of a system's nodes.
    const StrengthMeasure measure = parameters.strength_measure;
    std::int64_t weak = -1;  // A's weak entries, which a scalar level's strength pass counts
    const Matrix S =
        system ? steps.strength(steps.node_matrix(current, candidates), theta, measure, nullptr)
               : steps.strength(current, theta, measure, &weak);
    clock.lap(h.timings.strength_ms);
    const int free_percent = system && h.levels.empty() ? mis2_system_free_percent : 0;
    const auto aggregates = steps.aggregate(S, parameters.aggregation, free_percent);
    clock.lap(h.timings.aggregation_ms);
    if (aggregates.count > kStalledCoarseningRatio * S.rows) {
      stopped = stall_reason(h.levels.size(), S.rows, aggregates.count, S.nnz(), theta,
                             system ? "nodes" : "rows");
      break;
    }
    LevelType level;
    if (system) {
      auto qr = steps.tentative_qr(steps.unknown_aggregates(aggregates, candidates), candidates);
      level.tentative = std::move(qr.P);
      candidates = std::move(qr.coarse);
    } else {
      auto constant = steps.tentative(aggregates, weights);
      level.tentative = std::move(constant.P);
      weights = std::move(constant.coarse_weights);
    }
    clock.lap(h.timings.tentative_ms);
    auto coarser = form_level(steps, parameters, system, h.levels.size(), current, diagonal,
                              radius, level, h.timings, clock, {}, "build_hierarchy", weak);
    if (parameters.smoother != SmootherKind::l1_jacobi)
      level.inverse_diagonal = std::move(diagonal.inverse);
    level.A = std::move(current);
    h.levels.push_back(std::move(level));
    current = std::move(coarser.A);
    diagonal = std::move(coarser.diagonal);
  }
  if (!stopped.empty()) {
    const std::string what = stopped + ", leaving " + std::to_string(current.rows) +
                             " rows on the coarsest level, above max_coarse_rows = " +
                             std::to_string(parameters.max_coarse_rows);
    require(current.rows <= parameters.max_direct_rows,
            "build_hierarchy: " + what +
                " and above max_direct_rows = " + std::to_string(parameters.max_direct_rows) +
                ", the largest matrix factored directly (raise max_direct_rows to factor it "
                "anyway)");
    h.warnings.push_back(what + "; it is factored directly");
  }
  factor_coarsest(steps, std::move(current), scale, h);
}

/// Gives h the values of A, a matrix of the pattern h was built for, keeping
/// every level's tentative prolongator (and so its aggregates): the numeric
/// half of build_levels (form_level) level after level, then the coarse
/// factorisation. `kept` (null on the host) holds, per level, what the device
/// keeps between refreshes. h.timings become the refresh's.
template <typename Steps, typename HierarchyType>
void refresh_levels(Steps& steps, const typename Steps::Matrix& A, HierarchyType& h,
                    std::vector<typename Steps::Kept>* kept) {
  using Matrix = typename Steps::Matrix;
  const AmgParameters& parameters = h.parameters;
  const bool system = is_system(parameters.near_nullspace);
  h.timings = {};
  if (h.coarse.nullity() > 0) {
    const std::string old = singular_coarse_warning(h.coarse.nullity());
    h.warnings.erase(std::remove(h.warnings.begin(), h.warnings.end(), old), h.warnings.end());
  }
  if (kept != nullptr) kept->resize(h.levels.size());
  Matrix& finest = h.levels.empty() ? h.coarse_matrix : h.levels[0].A;
  auto clock = steps.clock();
  steps.refill_values(finest, A);
  Matrix current = std::move(finest);
  auto diagonal = steps.diagonal(current, "refresh: A");
  const double scale = steps.largest_diagonal(current, diagonal);
  clock.lap(h.timings.prepare_ms);
  bool new_patterns = false;  // below a level whose pattern followed the values
  for (std::size_t l = 0; l < h.levels.size(); ++l) {
    auto& level = h.levels[l];
    Matrix& next = l + 1 < h.levels.size() ? h.levels[l + 1].A : h.coarse_matrix;
    auto* level_kept = kept != nullptr ? &(*kept)[l] : nullptr;
    Refill<Matrix, typename Steps::Kept> refill{&level.P, &level.R, &next, level_kept};
    if (new_patterns) {
      if (level_kept != nullptr) *level_kept = {};
      refill = {};
    }
    auto radius =
        steps.start_spectral_radius(current, diagonal, parameters.spectral_radius_iterations);
    auto coarser = form_level(steps, parameters, system, l, current, diagonal, radius, level,
                              h.timings, clock, refill, "refresh");
    new_patterns = new_patterns || coarser.new_pattern;
    if (parameters.smoother != SmootherKind::l1_jacobi)
      level.inverse_diagonal = std::move(diagonal.inverse);
    level.A = std::move(current);
    current = std::move(coarser.A);
    diagonal = std::move(coarser.diagonal);
  }
  factor_coarsest(steps, std::move(current), scale, h);
}

/// The cycle's scratch for k right-hand sides: per level, rows × k entries of
/// residual (all but the coarsest; Chebyshev's direction too), right-hand side
/// and solution (all but the finest), each made by make(entries).
template <typename Workspace, typename HierarchyType, typename Make>
Workspace cycle_workspace_of(const HierarchyType& h, index_t k, Make&& make) {
  require(k > 0, "cycle_workspace: the number of right-hand sides must be positive");
  const std::size_t count = h.num_levels();
  Workspace work;
  work.residual.resize(count);
  work.rhs.resize(count);
  work.solution.resize(count);
  work.direction.resize(count);
  const bool directions = h.parameters.smoother == SmootherKind::chebyshev;
  for (std::size_t l = 0; l < count; ++l) {
    const std::size_t entries = std::size_t(h.matrix(static_cast<index_t>(l)).rows) * k;
    if (l < h.levels.size()) work.residual[l] = make(entries);
    if (l < h.levels.size() && directions) work.direction[l] = make(entries);
    if (l > 0) {
      work.rhs[l] = make(entries);
      work.solution[l] = make(entries);
    }
  }
  return work;
}

}  // namespace binamg::setup_detail
