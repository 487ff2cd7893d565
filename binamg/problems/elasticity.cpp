#include "binamg/problems/elasticity.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include "binamg/core/error.hpp"

namespace binamg {
namespace {

constexpr double youngs_modulus = 1.0, poisson_ratio = 0.3;

// The grid: N nodes per direction, spacing h = 1/(N−1); with a clamp the
// nodes of x = 0 carry no dofs.
struct Grid {
  int dimension;
  std::int64_t n, first_x;  // first_x = 1 with a clamp
  std::int64_t nx() const { return n - first_x; }
  std::int64_t nz() const { return dimension == 3 ? n : 1; }
  std::int64_t nodes() const { return nx() * n * nz(); }
  // The dof-carrying node (i, j, k), or −1.
  std::int64_t node(std::int64_t i, std::int64_t j, std::int64_t k) const {
    if (i < first_x || i >= n || j < 0 || j >= n || k < 0 || k >= nz()) return -1;
    return (i - first_x) + nx() * (j + n * k);
  }
};

Grid grid_of(int dimension, index_t n, bool clamped, const char* who) {
  require(dimension == 2 || dimension == 3,
          std::string(who) + ": the dimension must be 2 or 3, got " + std::to_string(dimension));
  require(n >= 2, std::string(who) + ": the grid needs at least 2 nodes per direction, got " +
                      std::to_string(n));
  return Grid{dimension, n, clamped ? 1 : 0};
}

// The element stiffness of the cube [0, h]^d, with local node a at corner
// bits (a & 1, a >> 1 & 1, a >> 2 & 1): K[(a·d + c)·(2^d·d) + b·d + c'] =
// ∫ λ ∂_c N_a ∂_c' N_b + μ (∂_c' N_a ∂_c N_b + δ_cc' ∇N_a·∇N_b).
std::vector<double> element_stiffness(int d, double h) {
  const int corners = 1 << d, size = corners * d;
  const double nu = poisson_ratio, E = youngs_modulus;
  const double lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
  std::vector<double> K(std::size_t(size) * size, 0.0);
  const double g[2] = {0.5 - 0.5 / std::sqrt(3.0), 0.5 + 0.5 / std::sqrt(3.0)};
  const double weight = std::pow(0.5, d) * std::pow(h, d);  // Gauss weight × element volume
  for (int point = 0; point < corners; ++point) {
    double xi[3] = {g[point & 1], g[point >> 1 & 1], g[point >> 2 & 1]};
    // grad[a][k] = ∂N_a/∂x_k at the point.
    std::array<std::array<double, 3>, 8> grad{};
    for (int a = 0; a < corners; ++a)
      for (int k = 0; k < d; ++k) {
        double value = ((a >> k) & 1 ? 1.0 : -1.0) / h;
        for (int m = 0; m < d; ++m)
          if (m != k) value *= (a >> m) & 1 ? xi[m] : 1 - xi[m];
        grad[a][k] = value;
      }
    for (int a = 0; a < corners; ++a)
      for (int b = 0; b < corners; ++b) {
        double dot = 0;
        for (int k = 0; k < d; ++k) dot += grad[a][k] * grad[b][k];
        for (int c = 0; c < d; ++c)
          for (int c2 = 0; c2 < d; ++c2)
            K[std::size_t(a * d + c) * size + b * d + c2] +=
                weight * (lambda * grad[a][c] * grad[b][c2] +
                          mu * (grad[a][c2] * grad[b][c] + (c == c2 ? dot : 0.0)));
      }
  }
  return K;
}

// Calls visit(dx, dy, dz, q) for each dof-carrying node q at offset (dx, dy,
// dz) from node (i, j, k), itself included, in increasing order of q.
template <typename Visit>
void for_each_coupling(const Grid& grid, std::int64_t i, std::int64_t j, std::int64_t k,
                       Visit&& visit) {
  const int reach_z = grid.dimension == 3 ? 1 : 0;
  for (int dz = -reach_z; dz <= reach_z; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const std::int64_t q = grid.node(i + dx, j + dy, k + dz);
        if (q >= 0) visit(dx, dy, dz, q);
      }
}

}  // namespace

ElasticitySize elasticity_size(int dimension, index_t n, bool clamped) {
  const Grid grid = grid_of(dimension, n, clamped, "elasticity");
  require(grid.nodes() * dimension <= max_index, "elasticity: " + std::to_string(dimension) +
                                                     "D with n=" + std::to_string(n) +
                                                     " has more than 2^31-1 rows");
  std::int64_t couplings = 0;
  // Couplings at offset (dx, dy, dz): nodes whose neighbour there exists.
  const int reach_z = dimension == 3 ? 1 : 0;
  for (int dz = -reach_z; dz <= reach_z; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        couplings += (grid.nx() - (dx != 0)) * (grid.n - (dy != 0)) * (grid.nz() - (dz != 0));
  ElasticitySize size;
  size.rows = index_t(grid.nodes() * dimension);
  size.nnz = checked_index(
      couplings * dimension * dimension,
      "elasticity: nnz of " + std::to_string(dimension) + "D with n=" + std::to_string(n));
  return size;
}

template <typename T>
CsrMatrix<T> elasticity(int dimension, index_t n, bool clamped) {
  const ElasticitySize size = elasticity_size(dimension, n, clamped);
  const Grid grid = grid_of(dimension, n, clamped, "elasticity");
  const int d = dimension, corners = 1 << d, element_size = corners * d;
  const std::vector<double> K = element_stiffness(d, 1.0 / double(n - 1));
  CsrMatrix<T> A = zero_matrix<T>(size.rows, size.rows);
  A.col_idx.resize(size.nnz);
  A.values.resize(size.nnz);
  // Row pointers first: each node's rows hold d entries per coupled node.
  std::vector<index_t> couplings(grid.nodes());
  for (std::int64_t k = 0; k < grid.nz(); ++k)
    for (std::int64_t j = 0; j < grid.n; ++j)
      for (std::int64_t i = grid.first_x; i < grid.n; ++i) {
        index_t count = 0;
        for_each_coupling(grid, i, j, k, [&](int, int, int, std::int64_t) { ++count; });
        couplings[grid.node(i, j, k)] = count;
      }
  for (std::int64_t p = 0; p < grid.nodes(); ++p)
    for (int c = 0; c < d; ++c) A.row_ptr[p * d + c + 1] = A.row_ptr[p * d + c] + couplings[p] * d;
#pragma omp parallel for schedule(static)
  for (std::int64_t p = 0; p < grid.nodes(); ++p) {
    const std::int64_t i = grid.first_x + p % grid.nx(), j = (p / grid.nx()) % grid.n,
                       k = p / (grid.nx() * grid.n);
    index_t slot = 0;  // the coupled node's place in the row
    for_each_coupling(grid, i, j, k, [&](int dx, int dy, int dz, std::int64_t q) {
      // Sum the block K_pq over the elements holding both nodes: element with
      // lowest corner (i + ex, j + ey, k + ez), ex etc. in {−1, 0}.
      double block[3][3] = {};
      for (int e = 0; e < corners; ++e) {
        const int ex = -(e & 1), ey = -(e >> 1 & 1), ez = -(e >> 2 & 1);
        // Local corners of p and q in that element; both must be in {0, 1}.
        const int px = -ex, py = -ey, pz = -ez;
        const int qx = px + dx, qy = py + dy, qz = pz + dz;
        if (qx < 0 || qx > 1 || qy < 0 || qy > 1 || qz < 0 || qz > 1) continue;
        // The element must lie inside the grid (clamped nodes count: they bound elements).
        if (i + ex < 0 || i + ex + 1 >= grid.n || j + ey < 0 || j + ey + 1 >= grid.n) continue;
        if (d == 3 && (k + ez < 0 || k + ez + 1 >= grid.n)) continue;
        const int a = px | py << 1 | pz << 2, b = qx | qy << 1 | qz << 2;
        for (int c = 0; c < d; ++c)
          for (int c2 = 0; c2 < d; ++c2)
            block[c][c2] += K[std::size_t(a * d + c) * element_size + b * d + c2];
      }
      for (int c = 0; c < d; ++c)
        for (int c2 = 0; c2 < d; ++c2) {
          const index_t at = A.row_ptr[p * d + c] + slot * d + c2;
          A.col_idx[at] = index_t(q * d + c2);
          A.values[at] = static_cast<T>(block[c][c2]);
        }
      ++slot;
    });
  }
  return A;
}

std::vector<double> rigid_body_modes(int dimension, const std::vector<double>& coordinates) {
  require(dimension == 2 || dimension == 3,
          "rigid_body_modes: the dimension must be 2 or 3, got " + std::to_string(dimension));
  const int d = dimension, modes = d == 2 ? 3 : 6;
  require(coordinates.size() % d == 0, "rigid_body_modes: " + std::to_string(coordinates.size()) +
                                           " coordinates are not a whole number of " +
                                           std::to_string(d) + "D points");
  const std::size_t nodes = coordinates.size() / d;
  std::vector<double> B(nodes * d * modes, 0.0);
  for (std::size_t p = 0; p < nodes; ++p) {
    const double* x = &coordinates[p * d];
    for (int c = 0; c < d; ++c)
      if (!std::isfinite(x[c]))  // message built only on failure: a hot loop
        throw InvalidInput("rigid_body_modes: coordinate " + std::to_string(c) + " of node " +
                           std::to_string(p) + " is not finite");
    auto at = [&](int c, int mode) -> double& { return B[(p * d + c) * modes + mode]; };
    for (int c = 0; c < d; ++c) at(c, c) = 1;  // translations
    if (d == 2) {
      at(0, 2) = -x[1];  // rotation in the plane
      at(1, 2) = x[0];
    } else {
      at(1, 3) = -x[2];  // about x
      at(2, 3) = x[1];
      at(0, 4) = x[2];  // about y
      at(2, 4) = -x[0];
      at(0, 5) = -x[1];  // about z
      at(1, 5) = x[0];
    }
  }
  return B;
}

std::vector<double> rigid_body_modes(int dimension, index_t n, bool clamped) {
  const Grid grid = grid_of(dimension, n, clamped, "rigid_body_modes");
  elasticity_size(dimension, n, clamped);  // the same size checks
  const int d = dimension;
  const double h = 1.0 / double(n - 1);
  std::vector<double> coordinates(std::size_t(grid.nodes()) * d);
  for (std::int64_t p = 0; p < grid.nodes(); ++p) {
    const double x[3] = {double(grid.first_x + p % grid.nx()) * h,
                         double((p / grid.nx()) % grid.n) * h,
                         double(p / (grid.nx() * grid.n)) * h};
    for (int c = 0; c < d; ++c) coordinates[std::size_t(p) * d + c] = x[c];
  }
  return rigid_body_modes(dimension, coordinates);
}

template CsrMatrix<float> elasticity<float>(int, index_t, bool);
template CsrMatrix<double> elasticity<double>(int, index_t, bool);

}  // namespace binamg
