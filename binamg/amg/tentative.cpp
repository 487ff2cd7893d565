#include "binamg/amg/tentative.hpp"

#include <cmath>
#include <string>

namespace binamg {

template <typename T>
CsrMatrix<T> tentative_prolongator(const Aggregates& aggregates) {
  const index_t n = checked_index(static_cast<std::int64_t>(aggregates.aggregate_of.size()),
                                  "tentative_prolongator: rows");
  std::vector<index_t> size(aggregates.count, 0);
  for (index_t i = 0; i < n; ++i) {
    const index_t a = aggregates.aggregate_of[i];
    if (a < 0 || a >= aggregates.count)  // message built only on failure: this is a hot loop
      throw InvalidInput("tentative_prolongator: node " + std::to_string(i) + " has aggregate id " +
                         std::to_string(a) + " outside [0, " +
                         std::to_string(aggregates.count) + ")");
    ++size[a];
  }
  for (index_t a = 0; a < aggregates.count; ++a)
    if (size[a] == 0)
      throw InvalidInput("tentative_prolongator: aggregate " + std::to_string(a) + " is empty");

  CsrMatrix<T> P = zero_matrix<T>(n, aggregates.count);
  P.col_idx = aggregates.aggregate_of;
  P.values.resize(n);
  for (index_t i = 0; i < n; ++i) {
    P.row_ptr[i + 1] = i + 1;
    P.values[i] = static_cast<T>(1.0 / std::sqrt(static_cast<double>(size[P.col_idx[i]])));
  }
  return P;
}

template CsrMatrix<float> tentative_prolongator<float>(const Aggregates&);
template CsrMatrix<double> tentative_prolongator<double>(const Aggregates&);

}  // namespace binamg
