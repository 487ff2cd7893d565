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
  // The classical test for couplings of the sign opposite to a_ii alone:
  // −sgn(a_ii)·a_ij > 0 and |a_ij| ≥ θ·min(m_i, m_j), m_i as above (Ruge and
  // Stüben's test, which reads only negative couplings of an M-matrix). A
  // coupling of the diagonal's sign (the positive off-diagonals of finite
  // elements on obtuse or stretched cells, of P2 elements) is never strong:
  // counted as strong, a grid-aligned Q1 anisotropy's positive cross-wind
  // couplings join its lines into blocks. Scalar problems only: a system's
  // node graph holds nonnegative norms.
  signed_classical,
};

}  // namespace binamg
