// The host's steps of the setup loop (amg/setup_loop.hpp): the CPU reference
// of every phase.
#include "binamg/amg/hierarchy.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "binamg/amg/aggregation.hpp"
#include "binamg/amg/filtered.hpp"
#include "binamg/amg/galerkin.hpp"
#include "binamg/amg/node_matrix.hpp"
#include "binamg/amg/prolongation.hpp"
#include "binamg/amg/setup_loop.hpp"
#include "binamg/amg/spectral_radius.hpp"
#include "binamg/amg/strength.hpp"
#include "binamg/amg/tentative.hpp"
#include "binamg/amg/tentative_qr.hpp"
#include "binamg/smoothers/jacobi.hpp"
#include "binamg/sparse/transpose.hpp"

namespace binamg {
namespace {

template <typename T>
struct HostSteps {
  using Matrix = CsrMatrix<T>;
  struct Diagonal {
    std::vector<T> inverse;
  };
  class Clock {
   public:
    void lap(double& total) {
      const auto now = std::chrono::steady_clock::now();
      total += std::chrono::duration<double, std::milli>(now - last_).count();
      last_ = now;
    }

   private:
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  };

  Matrix own(const Matrix& A) { return A; }
  Diagonal diagonal(const Matrix& A, const std::string& what) {
    require_square_with_diagonal(A, what);
    return {inverse_diagonal(A)};
  }
  Matrix strength(const Matrix& A, double theta, StrengthMeasure measure, std::int64_t* weak) {
    return binamg::strength(A, theta, measure, weak);
  }
  Matrix filtered(const Matrix& A, double theta, StrengthMeasure measure) {
    return filtered_matrix(A, theta, measure);
  }
  std::int64_t weak_entries(const Matrix& A, double theta, StrengthMeasure measure) {
    return binamg::weak_entries(A, theta, measure);
  }
  Aggregates aggregate(const Matrix& S, AggregationMethod method, int free_percent) {
    return binamg::aggregate(S, method, free_percent);
  }
  using Weights = std::vector<index_t>;
  Tentative<T> tentative(const Aggregates& aggregates, const Weights& weights) {
    return tentative_prolongator<T>(aggregates, weights);
  }
  using Candidates = binamg::Candidates;
  Candidates finest_candidates(const NearNullspace& nullspace, index_t rows) {
    return binamg::finest_candidates(nullspace, rows);
  }
  Matrix node_matrix(const Matrix& A, const Candidates& c) {
    return binamg::node_matrix(A, c.node_ptr);
  }
  Aggregates unknown_aggregates(const Aggregates& nodes, const Candidates& c) {
    return binamg::unknown_aggregates(nodes, c.node_ptr);
  }
  SystemTentative<T> tentative_qr(const Aggregates& aggregates, const Candidates& c) {
    return binamg::tentative_qr<T>(aggregates, c);
  }
  // The CPU references form D⁻¹ themselves, and estimate at once.
  using Radius = double;
  Radius start_spectral_radius(const Matrix& A, const Diagonal&, int iterations) {
    return spectral_radius_dinv_a(A, iterations);
  }
  double spectral_radius(Radius& estimate) { return estimate; }
  // The CPU reference forms every matrix whole, in a refresh too.
  struct Kept {};
  Matrix smoothed_prolongator(const Matrix& A, const Diagonal&, const Matrix& tentative,
                              double omega, Matrix*, Kept*) {
    return binamg::smoothed_prolongator(A, tentative, omega);
  }
  Matrix transpose(const Matrix& P, Matrix*, Kept*) { return binamg::transpose(P); }
  Matrix galerkin(const Matrix& A, const Matrix& P, const Matrix& R, GalerkinOrdering ordering,
                  Matrix*, Kept*) {
    return galerkin_product(A, P, R, ordering);
  }
  void refill_values(Matrix& finest, const Matrix& A) {
    setup_detail::require_same_shape(finest, A);
    const index_t row = first_pattern_difference(finest, A);
    if (row >= 0) throw InvalidInput(setup_detail::different_pattern(row));
    finest.values = A.values;
  }
  double largest_diagonal(const Matrix& A, const Diagonal&) {
    double largest = 0;
    for (index_t i = 0; i < A.rows; ++i)
      for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
        if (A.col_idx[k] == i) largest = std::max(largest, std::abs(double(A.values[k])));
    return largest;
  }
  std::vector<T> inverse_l1_diagonal(const Matrix& A) { return binamg::inverse_l1_diagonal(A); }
  void factor(CoarseSolver<T>& coarse, const Matrix& A, double scale) { coarse.factor(A, scale); }
  Clock clock() { return Clock(); }
};

}  // namespace

double SetupTimings::total_ms() const {
  return convert_ms + prepare_ms + strength_ms + aggregation_ms + tentative_ms + prolongator_ms +
         restriction_ms + galerkin_ms + coarse_factor_ms;
}

template <typename T>
Hierarchy<T> build_hierarchy(const CsrMatrix<T>& A, const AmgParameters& parameters) {
  validate(parameters);
  Hierarchy<T> h;
  h.parameters = parameters;
  HostSteps<T> steps;
  auto clock = steps.clock();
  validate(A, "build_hierarchy: A");
  clock.lap(h.timings.prepare_ms);
  setup_detail::build_levels(steps, A, h);
  clock = steps.clock();
  h.workspace = cycle_workspace(h, 1);
  clock.lap(h.timings.prepare_ms);
  return h;
}

template <typename T>
void refresh(Hierarchy<T>& h, const CsrMatrix<T>& A) {
  validate(A, "refresh: A");
  HostSteps<T> steps;
  setup_detail::refresh_levels(steps, A, h, static_cast<std::vector<typename HostSteps<T>::Kept>*>(nullptr));
}

template <typename T>
CycleWorkspace<T> cycle_workspace(const Hierarchy<T>& h, index_t k) {
  return setup_detail::cycle_workspace_of<CycleWorkspace<T>>(
      h, k, [](std::size_t entries) { return std::vector<T>(entries); });
}

#define BINAMG_INSTANTIATE(T)                                                  \
  template CycleWorkspace<T> cycle_workspace<T>(const Hierarchy<T>&, index_t); \
  template void refresh<T>(Hierarchy<T>&, const CsrMatrix<T>&);                \
  template Hierarchy<T> build_hierarchy<T>(const CsrMatrix<T>&, const AmgParameters&);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
