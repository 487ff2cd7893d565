#pragma once
// Cases for refresh(): matrices with a pattern kept and values changed, and
// the check that two hierarchies are the same level for level.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/problems/elasticity.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/problems/scaled.hpp"
#include "support/anisotropic_poisson.hpp"
#include "support/same_matrix.hpp"

namespace binamg::testing {

/// A matrix, the parameters of its hierarchy and a name.
template <typename T>
struct RefreshCase {
  std::string name;
  CsrMatrix<T> A;
  AmgParameters parameters;
};

/// Small problems of several levels whose setup finds the same aggregates for
/// values scaled by a few percent (symmetrically_scaled(A, 0.03, phase) for
/// phases 0 and 1; at phase 2 a coarse connection of the 2D stencil crosses θ
/// and the MIS-2 then aggregates level 1 differently): scalar
/// stencils, one with weak connections (filtered prolongators) and l1-Jacobi
/// with ptap-left, one whose filtered level smooths its prolongator twice, and an elasticity system with its rigid-body modes.
template <typename T>
std::vector<RefreshCase<T>> refresh_cases() {
  AmgParameters few_rows;
  few_rows.max_coarse_rows = 40;
  std::vector<RefreshCase<T>> cases;
  cases.push_back({"poisson2d-5 60", poisson<T>(Stencil::poisson2d_5, 60), few_rows});
  // In 3D and for systems, new values move some coarse connections across θ,
  // and a setup then aggregates differently: at θ = 0 every entry is strong
  // and the aggregates follow the pattern alone.
  AmgParameters every_entry_strong = few_rows;
  every_entry_strong.strength_threshold = 0;
  cases.push_back(
      {"poisson3d-7 16, theta 0", poisson<T>(Stencil::poisson3d_7, 16), every_entry_strong});
  cases.push_back(
      {"poisson3d-27 12, theta 0", poisson<T>(Stencil::poisson3d_27, 12), every_entry_strong});
  AmgParameters other = few_rows;
  other.smoother = SmootherKind::l1_jacobi;
  other.ordering = GalerkinOrdering::ptap_left;
  other.filtered_levels = 3;
  cases.push_back({"anisotropic 50, l1, ptap-left", anisotropic_poisson<T>(50, T(0.01)), other});
  AmgParameters two_steps = few_rows;
  two_steps.filtered_levels = 3;
  two_steps.filtered_prolongator_steps = 2;
  cases.push_back({"anisotropic 40, two filtered steps", anisotropic_poisson<T>(40, T(0.01)),
                   two_steps});
  AmgParameters system = every_entry_strong;
  system.system_strength_threshold = 0;
  system.near_nullspace = {3, 6, rigid_body_modes(3, 9)};
  cases.push_back({"elasticity3d 9, theta 0", elasticity<T>(3, 9), system});
  return cases;
}

/// The same levels, bit for bit: matrices, tentative prolongators, smoother
/// diagonals and weights, ρ; and the coarsest matrix. `A` and `P` of
/// HierarchyType's levels are read through `host` (a download on the GPU).
template <typename HierarchyType, typename Host>
void expect_same_hierarchy(const HierarchyType& expected, const HierarchyType& actual, Host&& host,
                           const std::string& what) {
  ASSERT_EQ(expected.levels.size(), actual.levels.size()) << what;
  for (std::size_t l = 0; l < expected.levels.size(); ++l) {
    const auto& e = expected.levels[l];
    const auto& a = actual.levels[l];
    const std::string level = what + ", level " + std::to_string(l);
    expect_same_matrix(host(e.A), host(a.A), level + " A");
    expect_same_matrix(host(e.P), host(a.P), level + " P");
    expect_same_matrix(host(e.R), host(a.R), level + " R");
    expect_same_matrix(host(e.tentative), host(a.tentative), level + " tentative");
    EXPECT_EQ(host(e.inverse_diagonal), host(a.inverse_diagonal)) << level;
    EXPECT_EQ(e.jacobi_weight, a.jacobi_weight) << level;
    EXPECT_EQ(e.spectral_radius, a.spectral_radius) << level;
    EXPECT_EQ(e.filtered, a.filtered) << level;
  }
  expect_same_matrix(host(expected.coarse_matrix), host(actual.coarse_matrix),
                     what + ", coarsest");
}

}  // namespace binamg::testing
