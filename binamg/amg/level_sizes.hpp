#pragma once
// What the CPU and GPU hierarchies report alike: rows and nonzeros per level,
// the complexities derived from them and the printed table.
#include <string>
#include <vector>

#include "binamg/core/types.hpp"

namespace binamg {

struct LevelSize {
  index_t rows = 0;
  index_t nnz = 0;
};

/// Σ nnz(A_l) / nnz(A_0) over all levels, the coarsest included.
double operator_complexity(const std::vector<LevelSize>& levels);
/// Σ rows(A_l) / rows(A_0).
double grid_complexity(const std::vector<LevelSize>& levels);

/// The table amg_solve prints: level, rows, nnz, nnz/row, then the complexities
/// and the coarse solver's method.
std::string describe_levels(const std::vector<LevelSize>& levels, const std::string& coarse_method);

}  // namespace binamg
