#pragma once
// Linear elasticity on a structured grid: the system problems smoothed
// aggregation was made for. Trilinear (3D) or bilinear (2D) elements on the
// unit cube or square with N nodes per direction, an isotropic material
// (E = 1, ν = 0.3), two-point Gauss quadrature. With `clamped`, the nodes of
// the face x = 0 are fixed (a cantilever; those dofs are left out) and the
// matrix is SPD; without, it floats free and its null space is the rigid-body
// modes. Dofs are node-major: node p's d displacements are rows d·p … d·p+d−1,
// nodes ordered lexicographically, x fastest.
#include <vector>

#include "binamg/sparse/csr.hpp"

namespace binamg {

/// Rows and nonzeros of elasticity(dimension, n, clamped), without building
/// it. Throws InvalidInput unless dimension is 2 or 3 and n ≥ 2, or if they
/// pass 2^31-1.
struct ElasticitySize {
  index_t rows = 0, nnz = 0;
};
ElasticitySize elasticity_size(int dimension, index_t n, bool clamped = true);

/// The stiffness matrix (rows sorted, every diagonal entry present and positive).
template <typename T>
CsrMatrix<T> elasticity(int dimension, index_t n, bool clamped = true);

/// The rigid-body modes at the matrix's dofs: translations, then rotations
/// (2D: 3 modes; 3D: 6), row-major rows × modes, from the nodes' coordinates.
/// elasticity(…, false) maps each of them to zero up to rounding.
std::vector<double> rigid_body_modes(int dimension, index_t n, bool clamped = true);

/// The same from any nodes' coordinates (row-major nodes × dimension): the
/// modes at their dofs, row-major (nodes·dimension) × (3 or 6). Throws
/// InvalidInput unless dimension is 2 or 3, the coordinates are a whole
/// number of points and all finite.
std::vector<double> rigid_body_modes(int dimension, const std::vector<double>& coordinates);

}  // namespace binamg
