#include "binamg/amg/tentative_qr.hpp"

#include <string>

#include "binamg/amg/aggregate_qr.hpp"
#include "binamg/amg/incidence.hpp"
#include "binamg/sparse/transpose.hpp"

namespace binamg {

template <typename T>
SystemTentative<T> tentative_qr(const Aggregates& aggregates, const Candidates& candidates) {
  const index_t n = checked_index(static_cast<std::int64_t>(aggregates.aggregate_of.size()),
                                  "tentative_qr: rows");
  const index_t k = candidates.k, count = aggregates.count;
  qr_detail::require_candidate_values(n, k, candidates.vectors.size());
  // The rows of each aggregate in increasing order: the columns of the
  // transposed incidence matrix (which also checks the ids).
  const CsrMatrix<float> members =
      transpose(incidence_matrix<float>(aggregates.aggregate_of, count, "tentative_qr"));
  const std::vector<index_t>& start = members.row_ptr;
  const std::vector<index_t>& rows = members.col_idx;
  for (index_t a = 0; a < count; ++a)
    if (start[a + 1] == start[a])  // message built only on failure: a hot loop
      throw InvalidInput("tentative_qr: aggregate " + std::to_string(a) + " is empty");
  std::vector<index_t> position(n);
  for (index_t p = 0; p < n; ++p) position[rows[p]] = p;
  std::vector<double> q(std::size_t(n) * k), r(std::size_t(count) * k * k);
  std::vector<unsigned> kept(count);
  SystemTentative<T> result;
  Candidates& coarse = result.coarse;
  coarse.k = k;
  coarse.node_ptr.assign(std::size_t(count) + 1, 0);
  for (index_t a = 0; a < count; ++a) {
    kept[a] = qr_detail::aggregate_qr(
        rows.data() + start[a], start[a + 1] - start[a], candidates.vectors.data(), int(k),
        q.data() + std::size_t(start[a]) * k, r.data() + std::size_t(a) * k * k);
    const int rank = qr_detail::kept_count(kept[a]);
    if (rank == 0)
      throw InvalidInput("tentative_qr: the near-nullspace vectors vanish on aggregate " +
                         std::to_string(a) + " (rows " + std::to_string(rows[start[a]]) +
                         " ...): every node needs a nonzero vector");
    // A rank never exceeds its aggregate's rows, so the sum stays within n.
    coarse.node_ptr[a + 1] = coarse.node_ptr[a] + rank;
  }
  const index_t coarse_rows = coarse.node_ptr[count];
  coarse.vectors.assign(std::size_t(coarse_rows) * k, 0.0);
  for (index_t a = 0; a < count; ++a) {
    index_t t = coarse.node_ptr[a];
    for (index_t j = 0; j < k; ++j)
      if (kept[a] >> j & 1u) {
        for (index_t l = j; l < k; ++l)
          coarse.vectors[std::size_t(t) * k + l] = r[(std::size_t(a) * k + j) * k + l];
        ++t;
      }
  }
  CsrMatrix<T>& P = result.P;
  P = zero_matrix<T>(n, coarse_rows);
  std::int64_t nonzeros = 0;
  for (index_t i = 0; i < n; ++i)
    nonzeros += qr_detail::kept_count(kept[aggregates.aggregate_of[i]]);
  checked_index(nonzeros, "tentative_qr: nonzeros of P");
  for (index_t i = 0; i < n; ++i)
    P.row_ptr[i + 1] = P.row_ptr[i] + qr_detail::kept_count(kept[aggregates.aggregate_of[i]]);
  P.col_idx.resize(P.row_ptr[n]);
  P.values.resize(P.row_ptr[n]);
  for (index_t i = 0; i < n; ++i) {
    const index_t a = aggregates.aggregate_of[i];
    index_t e = P.row_ptr[i], column = coarse.node_ptr[a];
    for (index_t j = 0; j < k; ++j)
      if (kept[a] >> j & 1u) {
        P.col_idx[e] = column++;
        P.values[e++] = static_cast<T>(q[std::size_t(position[i]) * k + j]);
      }
  }
  return result;
}

#define BINAMG_INSTANTIATE(T) \
  template SystemTentative<T> tentative_qr<T>(const Aggregates&, const Candidates&);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
