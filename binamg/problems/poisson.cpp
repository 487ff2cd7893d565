#include "binamg/problems/poisson.hpp"

#include "binamg/core/memory.hpp"

#include <cstdint>

#include "binamg/core/hash.hpp"

namespace binamg {

Stencil parse_stencil(const std::string& name) {
  if (name == "poisson2d-5") return Stencil::poisson2d_5;
  if (name == "poisson2d-9") return Stencil::poisson2d_9;
  if (name == "poisson3d-7") return Stencil::poisson3d_7;
  if (name == "poisson3d-27") return Stencil::poisson3d_27;
  throw InvalidInput("unknown problem '" + name +
                     "' (expected poisson2d-5, poisson2d-9, poisson3d-7 or poisson3d-27)");
}

const char* stencil_name(Stencil stencil) {
  switch (stencil) {
    case Stencil::poisson2d_5: return "poisson2d-5";
    case Stencil::poisson2d_9: return "poisson2d-9";
    case Stencil::poisson3d_7: return "poisson3d-7";
    case Stencil::poisson3d_27: return "poisson3d-27";
  }
  return "unknown";
}

int stencil_dimension(Stencil stencil) {
  return stencil == Stencil::poisson2d_5 || stencil == Stencil::poisson2d_9 ? 2 : 3;
}

namespace {

/// True for the offsets (dx, dy, dz) in {-1,0,1}^3, not all zero, that the stencil couples.
bool couples(Stencil stencil, int dx, int dy, int dz) {
  const int distance = (dx != 0) + (dy != 0) + (dz != 0);
  switch (stencil) {
    case Stencil::poisson2d_5: return dz == 0 && distance == 1;
    case Stencil::poisson2d_9: return dz == 0 && distance >= 1;
    case Stencil::poisson3d_7: return distance == 1;
    case Stencil::poisson3d_27: return distance >= 1;
  }
  return false;
}

/// Exact nnz (n >= 1): the entries at offset d belong to the grid points whose
/// neighbour at d is inside the grid, (n-|dx|)(n-|dy|)(nz-|dz|) of them.
std::int64_t stored_entries(Stencil stencil, std::int64_t n, std::int64_t nz) {
  const int z_reach = stencil_dimension(stencil) == 3 ? 1 : 0;
  std::int64_t total = 0;
  for (int dz = -z_reach; dz <= z_reach; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const bool diagonal = dx == 0 && dy == 0 && dz == 0;
        if (!diagonal && !couples(stencil, dx, dy, dz)) continue;
        total += (n - (dx != 0)) * (n - (dy != 0)) * (nz - (dz != 0));
      }
  return total;
}

}  // namespace

PoissonSize poisson_size(Stencil stencil, index_t n) {
  require(n >= 1, "poisson: grid size must be at least 1, got " + std::to_string(n));
  const int dimension = stencil_dimension(stencil);
  const std::int64_t nz = dimension == 3 ? n : 1;
  const std::string problem = std::string(stencil_name(stencil)) + " with n=" + std::to_string(n);
  // n*n < 2^62 always fits in 64 bits, but n*n*n can overflow for n past ~2e6:
  // reject an oversized plane before multiplying by the third n.
  const std::int64_t plane = std::int64_t(n) * n;
  if (dimension == 3 && plane > max_index)
    throw InvalidInput("poisson: rows of " + problem +
                       " = n^3 do not fit in 32-bit indices (limit 2^31-1)");
  PoissonSize size;
  size.rows = checked_index(plane * nz, "poisson: rows of " + problem);
  size.nnz = checked_index(stored_entries(stencil, n, nz), "poisson: nnz of " + problem);
  return size;
}

template <typename T>
CsrMatrix<T> poisson(Stencil stencil, index_t n) {
  const auto [rows, nnz] = poisson_size(stencil, n);
  const int dimension = stencil_dimension(stencil);
  const std::string problem = std::string(stencil_name(stencil)) + " with n=" + std::to_string(n);
  const int points = stencil == Stencil::poisson2d_5   ? 5
                     : stencil == Stencil::poisson2d_9 ? 9
                     : stencil == Stencil::poisson3d_7 ? 7
                                                       : 27;
  const T center = static_cast<T>(points - 1);
  require_host_memory(std::uint64_t(rows + 1) * sizeof(index_t) +
                          std::uint64_t(nnz) * (sizeof(index_t) + sizeof(T)),
                      "poisson: " + problem);

  CsrMatrix<T> A = zero_matrix<T>(rows, rows);
  A.col_idx.reserve(nnz);
  A.values.reserve(nnz);
  const int z_reach = dimension == 3 ? 1 : 0;
  const std::int64_t nz = dimension == 3 ? n : 1;
  for (std::int64_t z = 0; z < nz; ++z)
    for (std::int64_t y = 0; y < n; ++y)
      for (std::int64_t x = 0; x < n; ++x) {
        const std::int64_t row = (z * n + y) * n + x;
        // Offsets visited z, y, x ascending give increasing column indices.
        for (int dz = -z_reach; dz <= z_reach; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const std::int64_t cx = x + dx, cy = y + dy, cz = z + dz;
              if (cx < 0 || cx >= n || cy < 0 || cy >= n || cz < 0 || cz >= nz) continue;
              const bool diagonal = dx == 0 && dy == 0 && dz == 0;
              if (!diagonal && !couples(stencil, dx, dy, dz)) continue;
              A.col_idx.push_back(static_cast<index_t>((cz * n + cy) * n + cx));
              A.values.push_back(diagonal ? center : T(-1));
            }
        A.row_ptr[row + 1] = A.nnz();
      }
  return A;
}

template <typename T>
std::vector<T> poisson_rhs(index_t rows) {
  return std::vector<T>(rows, T(1));
}

template <typename T>
std::vector<T> random_rhs(index_t rows, index_t k) {
  require(rows >= 0 && k > 0, "random_rhs: needs rows >= 0 and k > 0");
  checked_index(std::int64_t(rows) * k, "random_rhs: rows x k");
  // Entry (i, j) hashes its column-major position, so column j is the same vector
  // whatever k is (a block of 32 holds the single right-hand side as column 0);
  // the salt keeps it apart from the power iteration's start vector.
  constexpr std::uint32_t salt = 0x9e3779b9u;
  std::vector<T> b(std::size_t(rows) * k);
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < k; ++j)
      b[std::size_t(i) * k + j] = static_cast<T>(
          hashed_unit_value(static_cast<std::uint32_t>(std::int64_t(j) * rows + i) + salt));
  return b;
}

template CsrMatrix<float> poisson<float>(Stencil, index_t);
template CsrMatrix<double> poisson<double>(Stencil, index_t);
template std::vector<float> poisson_rhs<float>(index_t);
template std::vector<double> poisson_rhs<double>(index_t);
template std::vector<float> random_rhs<float>(index_t, index_t);
template std::vector<double> random_rhs<double>(index_t, index_t);

}  // namespace binamg
