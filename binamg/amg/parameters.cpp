#include "binamg/amg/parameters.hpp"

#include <cmath>

namespace binamg {

AggregationMethod parse_aggregation(const std::string& name) {
  if (name == "mis2") return AggregationMethod::mis2;
  if (name == "standard") return AggregationMethod::standard;
  throw InvalidInput("unknown aggregation method '" + name + "' (expected mis2 or standard)");
}

GalerkinOrdering parse_ordering(const std::string& name) {
  if (name == "ptap-left") return GalerkinOrdering::ptap_left;
  if (name == "ptap-right") return GalerkinOrdering::ptap_right;
  throw InvalidInput("unknown Galerkin ordering '" + name + "' (expected ptap-left or ptap-right)");
}

SmootherKind parse_smoother(const std::string& name) {
  if (name == "jacobi") return SmootherKind::jacobi;
  if (name == "l1-jacobi") return SmootherKind::l1_jacobi;
  if (name == "chebyshev") return SmootherKind::chebyshev;
  throw InvalidInput("unknown smoother '" + name + "' (expected jacobi, l1-jacobi or chebyshev)");
}

StrengthMeasure parse_strength_measure(const std::string& name) {
  if (name == "symmetric") return StrengthMeasure::symmetric;
  if (name == "classical") return StrengthMeasure::classical;
  if (name == "signed") return StrengthMeasure::signed_classical;
  throw InvalidInput("unknown strength measure '" + name +
                     "' (expected symmetric, classical or signed)");
}

const char* strength_measure_name(StrengthMeasure measure) {
  switch (measure) {
    case StrengthMeasure::symmetric: return "symmetric";
    case StrengthMeasure::classical: return "classical";
    case StrengthMeasure::signed_classical: return "signed";
  }
  return "unknown";
}

const char* smoother_name(SmootherKind smoother) {
  switch (smoother) {
    case SmootherKind::jacobi: return "jacobi";
    case SmootherKind::l1_jacobi: return "l1-jacobi";
    case SmootherKind::chebyshev: return "chebyshev";
  }
  return "unknown";
}

const char* aggregation_name(AggregationMethod method) {
  switch (method) {
    case AggregationMethod::mis2: return "mis2";
    case AggregationMethod::standard: return "standard";
  }
  return "unknown";
}

const char* ordering_name(GalerkinOrdering ordering) {
  switch (ordering) {
    case GalerkinOrdering::ptap_left: return "ptap-left";
    case GalerkinOrdering::ptap_right: return "ptap-right";
  }
  return "unknown";
}

void validate(const AmgParameters& p) {
  require(std::isfinite(p.strength_threshold) && p.strength_threshold >= 0,
          "AmgParameters: strength_threshold must be finite and >= 0");
  require(std::isfinite(p.system_strength_threshold) && p.system_strength_threshold >= 0,
          "AmgParameters: system_strength_threshold must be finite and >= 0");
  require(p.strength_measure == StrengthMeasure::symmetric ||
              p.strength_measure == StrengthMeasure::classical ||
              p.strength_measure == StrengthMeasure::signed_classical,
          "AmgParameters: strength_measure is not one of symmetric, classical, signed");
  require(p.strength_measure != StrengthMeasure::signed_classical || !is_system(p.near_nullspace),
          "AmgParameters: strength_measure signed is for scalar problems (a system's node graph "
          "holds nonnegative norms, none of them strong under it); use classical or symmetric");
  require(std::isfinite(p.strength_decay) && p.strength_decay > 0 && p.strength_decay <= 1,
          "AmgParameters: strength_decay must lie in (0, 1]");
  require(std::isfinite(p.standard_strength_decay) && p.standard_strength_decay > 0 &&
              p.standard_strength_decay <= 1,
          "AmgParameters: standard_strength_decay must lie in (0, 1]");
  require(p.filtered_levels >= 0, "AmgParameters: filtered_levels must be >= 0");
  require(p.filtered_prolongator_steps >= 1 && p.filtered_prolongator_steps <= 4,
          "AmgParameters: filtered_prolongator_steps must lie in [1, 4], not " +
              std::to_string(p.filtered_prolongator_steps));
  require(p.max_coarse_rows >= 1, "AmgParameters: max_coarse_rows must be >= 1");
  require(p.max_levels >= 1, "AmgParameters: max_levels must be >= 1");
  require(p.max_direct_rows >= p.max_coarse_rows,
          "AmgParameters: max_direct_rows (" + std::to_string(p.max_direct_rows) +
              ") must be >= max_coarse_rows (" + std::to_string(p.max_coarse_rows) + ")");
  require(std::isfinite(p.prolongator_weight) && p.prolongator_weight >= 0,
          "AmgParameters: prolongator_weight must be finite and >= 0");
  require(std::isfinite(p.jacobi_weight) && p.jacobi_weight > 0,
          "AmgParameters: jacobi_weight must be finite and > 0");
  require(p.smoother == SmootherKind::jacobi || p.smoother == SmootherKind::l1_jacobi ||
              p.smoother == SmootherKind::chebyshev,
          "AmgParameters: smoother is not one of jacobi, l1-jacobi, chebyshev");
  require(p.chebyshev_degree >= 1 && p.chebyshev_degree <= max_chebyshev_degree,
          "AmgParameters: chebyshev_degree must lie in [1, " +
              std::to_string(max_chebyshev_degree) + "]");
  require(std::isfinite(p.chebyshev_lower) && p.chebyshev_lower > 0 && p.chebyshev_lower < 1,
          "AmgParameters: chebyshev_lower must lie in (0, 1)");
  require(p.presweeps >= 0 && p.postsweeps >= 0,
          "AmgParameters: presweeps and postsweeps must be >= 0");
  require(p.spectral_radius_iterations >= 1,
          "AmgParameters: spectral_radius_iterations must be >= 1");
}

}  // namespace binamg
