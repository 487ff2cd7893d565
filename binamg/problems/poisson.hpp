#pragma once
// Poisson model problems on an n×n (2D) or n×n×n (3D) grid of unknowns with
// Dirichlet boundaries folded in (neighbours outside the grid are dropped), so
// every matrix is symmetric positive definite with a full diagonal.
#include <string>
#include <vector>

#include "binamg/sparse/csr.hpp"

namespace binamg {

enum class Stencil {
  poisson2d_5,   // diagonal 4, 4 neighbours -1
  poisson2d_9,   // diagonal 8, 8 neighbours -1
  poisson3d_7,   // diagonal 6, 6 neighbours -1
  poisson3d_27,  // diagonal 26, 26 neighbours -1
};

/// "poisson2d-5", "poisson2d-9", "poisson3d-7", "poisson3d-27".
Stencil parse_stencil(const std::string& name);
const char* stencil_name(Stencil stencil);
int stencil_dimension(Stencil stencil);

/// The rows and nonzeros of poisson(stencil, n), without building it (a
/// caller can check the memory a problem needs first). Throws InvalidInput
/// if they pass 2^31-1.
struct PoissonSize {
  index_t rows = 0, nnz = 0;
};
PoissonSize poisson_size(Stencil stencil, index_t n);

/// The matrix for `n` unknowns per grid direction (n >= 1). Rows are ordered
/// lexicographically, x fastest. Throws InvalidInput if rows or nnz pass 2^31-1.
template <typename T>
CsrMatrix<T> poisson(Stencil stencil, index_t n);

/// The right-hand side used by amg_solve for the stencil problems: all ones
/// (a uniform source term).
template <typename T>
std::vector<T> poisson_rhs(index_t rows);

/// k right-hand sides for multi-RHS solves, stored row-major (entry (i, j) at
/// [i·k + j]): reproducible pseudo-random values in (-1, 1), the same on every
/// machine; column j does not depend on k. Throws InvalidInput if rows·k passes 2^31-1.
template <typename T>
std::vector<T> random_rhs(index_t rows, index_t k);

}  // namespace binamg
