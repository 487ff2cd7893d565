#include "binamg/amg/node_matrix.hpp"

#include <cmath>
#include <string>

#include "binamg/amg/galerkin.hpp"
#include "binamg/amg/incidence.hpp"
#include "binamg/sparse/transpose.hpp"

namespace binamg {

template <typename T>
CsrMatrix<T> node_matrix(const CsrMatrix<T>& A, const std::vector<index_t>& node_ptr) {
  const CsrMatrix<T> C =
      incidence_matrix<T>(groups_of_ranges(node_ptr, A.rows, "node_matrix"),
                          static_cast<index_t>(node_ptr.size()) - 1, "node_matrix");
  CsrMatrix<T> squares = A;
  for (T& value : squares.values) value *= value;
  CsrMatrix<T> N = galerkin_product(squares, C, transpose(C), GalerkinOrdering::ptap_right);
  for (T& value : N.values) value = std::sqrt(value);
  return N;
}

Aggregates unknown_aggregates(const Aggregates& nodes, const std::vector<index_t>& node_ptr) {
  require(node_ptr.size() == nodes.aggregate_of.size() + 1,
          "unknown_aggregates: " + std::to_string(nodes.aggregate_of.size()) +
              " node aggregates for " + std::to_string(node_ptr.size() - 1) + " nodes");
  Aggregates unknowns;
  unknowns.count = nodes.count;
  unknowns.aggregate_of = groups_of_ranges(node_ptr, node_ptr.back(), "unknown_aggregates");
  for (index_t& a : unknowns.aggregate_of) a = nodes.aggregate_of[a];
  return unknowns;
}

#define BINAMG_INSTANTIATE(T) \
  template CsrMatrix<T> node_matrix<T>(const CsrMatrix<T>&, const std::vector<index_t>&);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
