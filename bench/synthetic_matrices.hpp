#pragma once
// The irregular synthetic suite of BENCH.md, generated with fixed seeds so runs
// compare over time: R-MAT power-law graph, random with dense hub rows and
// columns, banded with 64-128 entries per row, 3-dof 27-point block matrix.
// Values are uniform in [0.1, 1] (positive: products never cancel, so the
// entry-by-entry check against the peer is a pure rounding comparison).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "binamg/sparse/csr.hpp"

namespace binamg::bench {

/// CSR from (row, col) pairs: sorted, duplicates merged, seeded values.
template <typename T>
CsrMatrix<T> csr_from_pattern(index_t rows, index_t cols,
                              std::vector<std::pair<index_t, index_t>> entries,
                              std::uint64_t seed) {
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> value(0.1, 1.0);
  CsrMatrix<T> M = zero_matrix<T>(rows, cols);
  M.col_idx.reserve(entries.size());
  M.values.reserve(entries.size());
  for (const auto& [row, col] : entries) {
    ++M.row_ptr[row + 1];
    M.col_idx.push_back(col);
    M.values.push_back(static_cast<T>(value(engine)));
  }
  for (index_t row = 0; row < rows; ++row) M.row_ptr[row + 1] += M.row_ptr[row];
  return M;
}

/// R-MAT (Chakrabarti et al.) with quadrant probabilities a, b, c (d = rest),
/// 2^scale vertices, edge_factor·2^scale edges, symmetrised (E ∪ Eᵀ).
template <typename T>
CsrMatrix<T> rmat(int scale, int edge_factor, double a, double b, double c,
                  std::uint64_t seed) {
  const index_t n = index_t(1) << scale;
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<std::pair<index_t, index_t>> entries;
  const std::int64_t edges = std::int64_t(edge_factor) * n;
  entries.reserve(2 * edges);
  for (std::int64_t e = 0; e < edges; ++e) {
    index_t row = 0, col = 0;
    for (int level = 0; level < scale; ++level) {
      const double u = unit(engine);
      const index_t bit = index_t(1) << level;
      if (u < a) {
      } else if (u < a + b) {
        col |= bit;
      } else if (u < a + b + c) {
        row |= bit;
      } else {
        row |= bit;
        col |= bit;
      }
    }
    entries.emplace_back(row, col);
    entries.emplace_back(col, row);
  }
  return csr_from_pattern<T>(n, n, std::move(entries), seed + 1);
}

/// n×n, `per_row` random columns per row, `hubs` dense rows of n/8 entries
/// and `hubs` columns present in every second row.
template <typename T>
CsrMatrix<T> random_with_hubs(index_t n, int per_row, int hubs, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_int_distribution<index_t> column(0, n - 1);
  std::vector<std::pair<index_t, index_t>> entries;
  for (index_t row = 0; row < n; ++row)
    for (int k = 0; k < per_row; ++k) entries.emplace_back(row, column(engine));
  for (int h = 0; h < hubs; ++h) {
    const index_t hub_row = column(engine), hub_col = column(engine);
    for (index_t k = 0; k < n / 8; ++k) entries.emplace_back(hub_row, column(engine));
    for (index_t row = 0; row < n; row += 2) entries.emplace_back(row, hub_col);
  }
  return csr_from_pattern<T>(n, n, std::move(entries), seed + 1);
}

/// n×n band: row i holds a contiguous run of 64-128 columns centred on i.
template <typename T>
CsrMatrix<T> banded(index_t n, index_t min_width, index_t max_width, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_int_distribution<index_t> width(min_width, max_width);
  std::vector<std::pair<index_t, index_t>> entries;
  for (index_t row = 0; row < n; ++row) {
    const index_t w = width(engine);
    const index_t first = std::max<index_t>(0, std::min<index_t>(row - w / 2, n - w));
    for (index_t col = first; col < first + w; ++col) entries.emplace_back(row, col);
  }
  return csr_from_pattern<T>(n, n, std::move(entries), seed + 1);
}

/// 3D 27-point stencil on g³ nodes with `dof` unknowns per node, each node
/// pair coupled by a dense dof×dof block (81 entries per interior row for 3 dof).
template <typename T>
CsrMatrix<T> block_stencil_27(index_t g, int dof, std::uint64_t seed) {
  std::vector<std::pair<index_t, index_t>> entries;
  auto node = [g](index_t x, index_t y, index_t z) { return (z * g + y) * g + x; };
  for (index_t z = 0; z < g; ++z)
    for (index_t y = 0; y < g; ++y)
      for (index_t x = 0; x < g; ++x)
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const index_t nx = x + dx, ny = y + dy, nz = z + dz;
              if (nx < 0 || ny < 0 || nz < 0 || nx >= g || ny >= g || nz >= g) continue;
              for (int i = 0; i < dof; ++i)
                for (int j = 0; j < dof; ++j)
                  entries.emplace_back(node(x, y, z) * dof + i, node(nx, ny, nz) * dof + j);
            }
  const index_t n = g * g * g * dof;
  return csr_from_pattern<T>(n, n, std::move(entries), seed);
}

/// One matrix of the suite: its name and its generator (run when needed).
template <typename T>
struct SuiteMatrix {
  std::string name;
  std::function<CsrMatrix<T>()> generate;
};

/// BENCH.md's irregular suite with its fixed parameters and seeds, the same in
/// every benchmark; `quick` gives smaller instances of the same shapes.
template <typename T>
std::vector<SuiteMatrix<T>> irregular_suite(bool quick = false) {
  const int scale = quick ? 12 : 18;
  return {
      {"rmat-s" + std::to_string(scale), [=] { return rmat<T>(scale, 8, 0.57, 0.19, 0.19, 42); }},
      {"random-hubs", [=] { return random_with_hubs<T>(quick ? 1 << 12 : 1 << 18, 8, 4, 43); }},
      {"banded-64-128", [=] { return banded<T>(quick ? 1 << 12 : 1 << 16, 64, 128, 44); }},
      {"block27-3dof", [=] { return block_stencil_27<T>(quick ? 8 : 32, 3, 45); }},
  };
}

}  // namespace binamg::bench
