#pragma once
// What a connection's strength is measured against (amg/strength.hpp).

namespace binamg {

enum class StrengthMeasure {
  // |a_ij| ≥ θ·√|a_ii·a_jj|: Vaněk, Mandel and Brezina's test, PyAMG's and
  // AMGCL's default for smoothed aggregation.
  symmetric,
  // |a_ij| ≥ θ·min(m_i, m_j), m_i = max_{k≠i} |a_ik|: strong relative to the
  // strongest connection of row i or of row j (classical AMG's row test with
  // PyAMG's 'abs' norm, made symmetric). Every entry of an isotropic stencil
  // stays strong at any θ ≤ 1, while an anisotropy's weak direction does not.
  classical,
};

}  // namespace binamg
