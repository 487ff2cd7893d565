#pragma once
// The model problems by name, as the command-line tools take them: the
// Poisson stencils (poisson.hpp) and linear elasticity (elasticity.hpp).
#include <string>

#include "binamg/amg/near_nullspace.hpp"
#include "binamg/sparse/csr.hpp"

namespace binamg {

/// Throws InvalidInput naming the known problems unless `name` is one:
/// poisson2d-5, poisson2d-9, poisson3d-7, poisson3d-27, elasticity2d, elasticity3d.
void validate_problem_name(const std::string& name);

/// Rows and nonzeros of model_problem(name, n), without building it.
struct ProblemSize {
  index_t rows = 0, nnz = 0;
};
ProblemSize model_problem_size(const std::string& name, index_t n);

/// The matrix for n unknowns (Poisson) or nodes (elasticity, clamped at x = 0)
/// per direction.
template <typename T>
CsrMatrix<T> model_problem(const std::string& name, index_t n);

/// What the hierarchy of model_problem(name, n) coarsens with: for
/// elasticity, nodes of 2 or 3 dofs and the rigid-body modes; for Poisson,
/// the scalar default.
NearNullspace model_near_nullspace(const std::string& name, index_t n);

}  // namespace binamg
