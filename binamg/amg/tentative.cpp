#include "binamg/amg/tentative.hpp"

#include <cmath>
#include <string>

namespace binamg {

template <typename T>
Tentative<T> tentative_prolongator(const Aggregates& aggregates,
                                   const std::vector<index_t>& weights) {
  const index_t n = checked_index(static_cast<std::int64_t>(aggregates.aggregate_of.size()),
                                  "tentative_prolongator: rows");
  require(weights.empty() || weights.size() == aggregates.aggregate_of.size(),
          "tentative_prolongator: " + std::to_string(weights.size()) + " node weights for " +
              std::to_string(n) + " nodes");
  auto weight = [&](index_t i) { return weights.empty() ? index_t{1} : weights[i]; };
  Tentative<T> result;
  std::vector<index_t>& total = result.coarse_weights;
  total.assign(aggregates.count, 0);
  for (index_t i = 0; i < n; ++i) {
    const index_t a = aggregates.aggregate_of[i];
    if (a < 0 || a >= aggregates.count)  // message built only on failure: this is a hot loop
      throw InvalidInput("tentative_prolongator: node " + std::to_string(i) + " has aggregate id " +
                         std::to_string(a) + " outside [0, " + std::to_string(aggregates.count) +
                         ")");
    if (weight(i) < 1)
      throw InvalidInput("tentative_prolongator: node " + std::to_string(i) + " has weight " +
                         std::to_string(weight(i)) + ", below 1");
    total[a] += weight(i);
  }
  for (index_t a = 0; a < aggregates.count; ++a)
    if (total[a] == 0)
      throw InvalidInput("tentative_prolongator: aggregate " + std::to_string(a) + " is empty");

  CsrMatrix<T>& P = result.P;
  P = zero_matrix<T>(n, aggregates.count);
  P.col_idx = aggregates.aggregate_of;
  P.values.resize(n);
  for (index_t i = 0; i < n; ++i) {
    P.row_ptr[i + 1] = i + 1;
    P.values[i] = static_cast<T>(std::sqrt(static_cast<double>(weight(i))) /
                                 std::sqrt(static_cast<double>(total[P.col_idx[i]])));
  }
  return result;
}

template <typename T>
CsrMatrix<T> tentative_prolongator(const Aggregates& aggregates) {
  return tentative_prolongator<T>(aggregates, {}).P;
}

#define BINAMG_INSTANTIATE(T)                                                                     \
  template Tentative<T> tentative_prolongator<T>(const Aggregates&, const std::vector<index_t>&); \
  template CsrMatrix<T> tentative_prolongator<T>(const Aggregates&);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
