#pragma once
// Parameters of smoothed-aggregation AMG, with the defaults of the literature
// (Vaněk, Mandel, Brezina 1996; PyAMG's smoothed_aggregation_solver).
#include <string>

#include "binamg/amg/near_nullspace.hpp"
#include "binamg/amg/strength_measure.hpp"
#include "binamg/core/types.hpp"

namespace binamg {

/// How the strength graph is split into aggregates.
enum class AggregationMethod {
  mis2,      // repeated parallel distance-2 MIS passes (the GPU reproduces it bitwise)
  standard,  // Vaněk's serial greedy aggregation, PyAMG's default
};

/// Association order of the Galerkin triple product A_c = Pᵀ A P.
enum class GalerkinOrdering {
  ptap_left,   // (PᵀA)P
  ptap_right,  // Pᵀ(AP)
};

/// The V-cycle's smoother on every level but the coarsest.
enum class SmootherKind {
  jacobi,     // x += (w/ρ)·D⁻¹(b − A x), w = jacobi_weight, ρ ≈ ρ(D⁻¹A)
  l1_jacobi,  // x += D_l1⁻¹(b − A x), D_l1 = the rows' l1 norms: convergent without ρ
  chebyshev,  // Chebyshev polynomial in D⁻¹A of chebyshev_degree (parameters below)
};

/// The highest Chebyshev degree AmgParameters accepts.
inline constexpr int max_chebyshev_degree = 16;

/// "mis2" | "standard"; anything else throws InvalidInput.
AggregationMethod parse_aggregation(const std::string& name);
/// "ptap-left" | "ptap-right"; anything else throws InvalidInput.
GalerkinOrdering parse_ordering(const std::string& name);
/// "jacobi" | "l1-jacobi" | "chebyshev"; anything else throws InvalidInput.
SmootherKind parse_smoother(const std::string& name);
/// "symmetric" | "classical"; anything else throws InvalidInput.
StrengthMeasure parse_strength_measure(const std::string& name);
const char* strength_measure_name(StrengthMeasure measure);
const char* aggregation_name(AggregationMethod method);
const char* smoother_name(SmootherKind smoother);
const char* ordering_name(GalerkinOrdering ordering);

struct AmgParameters {
  // What θ is relative to (amg/strength_measure.hpp), in the strength graph
  // and in the filtered matrix alike. The classical measure at θ = 0.25 keeps
  // every coupling of an isotropic stencil (the 27-point one too) and cuts an
  // anisotropy's weak direction: the rotated anisotropy of the fem suite took
  // 66 PCG iterations against 124 with the symmetric measure at its best θ
  // (0.03), and no problem of the suite took more (docs/experiments.md).
  StrengthMeasure strength_measure = StrengthMeasure::classical;
  double strength_threshold = 0.25;  // θ
  // θ on a system's node graph (block size > 1 or near-nullspace vectors;
  // amg/node_matrix.hpp): at 0.25 the P1 beam's operator complexity rose from
  // 1.66 to 1.92, and its setup with it.
  double system_strength_threshold = 0.1;
  // Level l tests strength with θ·d^l, d = strength_decay under mis2 and
  // standard_strength_decay under standard aggregation. Galerkin matrices fill
  // in level after level, so a threshold that suits the finest level cuts
  // coarse levels into small aggregates (AMGCL halves its threshold each
  // level). Measured over the suite (docs/experiments.md), mis2 at 0.75 took
  // as long as at 0.5 (fewer iterations in 2D, more operator complexity in 3D),
  // while standard's greedy aggregates at 0.75 took no more iterations on any
  // problem and the rotated anisotropy 60 against 90.
  double strength_decay = 0.5;
  double standard_strength_decay = 0.75;
  // Where θ > 0, the first `filtered_levels` levels smooth their tentative
  // prolongator with the filtered matrix (weak entries lumped into the
  // diagonal, amg/filtered.hpp) instead of A, as Vaněk, Mandel and Brezina,
  // PyAMG's filter option and AMGCL (every level) do; 0: none. Filtering the
  // finest level keeps P2 and jump problems' iterations at the unfiltered
  // counts for less operator complexity; filtering the coarse levels too cost
  // a coefficient-jump problem 44 iterations against 18 (docs/experiments.md).
  int filtered_levels = 1;
  // Damped-Jacobi steps with the filtered matrix that smooth a filtered
  // level's tentative prolongator, P = (I − ωD_F⁻¹A_F)^k·T: a second step
  // widens the aggregates' basis functions along the strong direction, which
  // a rotated anisotropy needs (CPU twins: 67 iterations against 47, operator
  // complexity 1.29 against 1.47; docs/experiments.md). Levels smoothed with
  // A itself take one step.
  int filtered_prolongator_steps = 1;
  // mis2 on both devices, so that a hierarchy is the same wherever it is
  // built: the GPU reproduces it node for node, while `standard` is serial
  // (on the GPU its host step costs more than the rest of the setup). On
  // fine 2D grids mis2's aggregates cost iterations that standard's do not
  // (README, "Results").
  AggregationMethod aggregation = AggregationMethod::mis2;
  GalerkinOrdering ordering = GalerkinOrdering::ptap_right;
  // Stop coarsening at or below this many rows. On the GPU a coarse level's
  // V-cycle steps are latency-bound (about 40 µs an iteration whatever its
  // size), while the coarse solve is one product with A⁻¹: stopping at a level
  // of 400-1100 rows instead of coarsening it once more saves 4-15% of the
  // solve for 0.4-1.2 ms of inversion; at 1600-2500 rows the inversion costs
  // more than the saving (docs/experiments.md).
  index_t max_coarse_rows = 1200;
  int max_levels = 25;  // levels including the coarsest
  // The largest coarsest matrix factored directly. Coarsening that stalls far
  // above max_coarse_rows would otherwise factor a fine matrix (a 3D grid of
  // 64,000 rows: 52 s) without a word; the setup is refused instead. The GPU's
  // dense coarse solve stops at 4000 rows (CoarseSolver::dense_limit) anyway.
  index_t max_direct_rows = 10000;
  double prolongator_weight = 4.0 / 3.0;  // ω = this / ρ(D⁻¹A)
  // Chebyshev of degree 2 takes a third fewer iterations than one Jacobi sweep
  // for the same time on the stencils and the P1 meshes, and 124 against 173
  // on the rotated anisotropy (docs/experiments.md).
  SmootherKind smoother = SmootherKind::chebyshev;
  double jacobi_weight = 4.0 / 3.0;  // Jacobi's weight = this / ρ(D⁻¹A)
  // Products with A per Chebyshev application (from a nonzero guess; one
  // less from zero). A sweep of the V-cycle is one application.
  int chebyshev_degree = 2;
  // Chebyshev's interval is [chebyshev_lower·ρ', ρ'], ρ' = 1.1·ρ(D⁻¹A): the
  // part of the spectrum the smoother damps, the rest left to the coarse
  // levels. PyAMG and AMGCL take 1/30, hypre 0.3; measured on binamg's
  // hierarchies (docs/experiments.md), 0.2 takes fewest iterations.
  double chebyshev_lower = 0.2;
  int presweeps = 1, postsweeps = 1;  // V(ν1, ν2)
  // Power iterations for ρ(D⁻¹A) from a deterministic start: enough for the
  // smoother's weight (the PCG counts of 20 iterations on the Poisson suite).
  int spectral_radius_iterations = 10;
  // A system's unknowns per node and near-nullspace vectors (for elasticity,
  // the rigid-body modes): with either, strength and aggregation work on
  // nodes and the tentative prolongator is a QR of the vectors on each
  // aggregate (amg/tentative_qr.hpp). Default: a scalar problem and the
  // constant vector.
  NearNullspace near_nullspace;
};

/// Throws InvalidInput naming the offending field unless the parameters make sense.
void validate(const AmgParameters& parameters);

}  // namespace binamg
