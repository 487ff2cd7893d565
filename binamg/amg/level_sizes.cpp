#include "binamg/amg/level_sizes.hpp"

#include <cstdio>

namespace binamg {

double operator_complexity(const std::vector<LevelSize>& levels) {
  double total = 0;
  for (const LevelSize& level : levels) total += level.nnz;
  return levels.empty() || levels[0].nnz == 0 ? 0.0 : total / levels[0].nnz;
}

double grid_complexity(const std::vector<LevelSize>& levels) {
  double total = 0;
  for (const LevelSize& level : levels) total += level.rows;
  return levels.empty() || levels[0].rows == 0 ? 0.0 : total / levels[0].rows;
}

std::string describe_levels(const std::vector<LevelSize>& levels,
                            const std::string& coarse_method) {
  std::string text = "level       rows          nnz   nnz/row\n";
  char line[128];
  for (std::size_t l = 0; l < levels.size(); ++l) {
    const LevelSize& level = levels[l];
    std::snprintf(line, sizeof line, "%5d %10d %12d %9.2f%s\n", static_cast<int>(l),
                  static_cast<int>(level.rows), static_cast<int>(level.nnz),
                  level.rows > 0 ? double(level.nnz) / level.rows : 0.0,
                  l + 1 == levels.size() ? "  (coarsest)" : "");
    text += line;
  }
  std::snprintf(line, sizeof line,
                "operator complexity %.3f, grid complexity %.3f, coarse solver %s\n",
                operator_complexity(levels), grid_complexity(levels), coarse_method.c_str());
  text += line;
  return text;
}

}  // namespace binamg
