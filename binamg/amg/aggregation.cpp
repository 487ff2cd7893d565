#include "binamg/amg/aggregation.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace binamg {
namespace {

enum : std::uint8_t { state_out = 0, state_undecided = 1, state_in = 2 };

// (state, hash) packed so that one integer comparison orders them; ties on
// equal hashes fall back to the node index.
std::uint64_t state_and_hash(std::uint8_t state, std::uint32_t hash) {
  return (std::uint64_t{state} << 32) | hash;
}

// True when node a is ahead of node b in (hash, index) order.
bool hash_greater(const std::vector<std::uint32_t>& hash, index_t a, index_t b) {
  return hash[a] != hash[b] ? hash[a] > hash[b] : a > b;
}

std::vector<std::uint32_t> node_hashes(index_t n) {
  std::vector<std::uint32_t> hash(n);
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < n; ++i) hash[i] = mis2_hash(static_cast<std::uint32_t>(i));
  return hash;
}

template <typename T>
void require_graph(const CsrMatrix<T>& S, const char* who) {
  require(S.rows == S.cols, std::string(who) + ": the strength graph is not square");
}

}  // namespace

namespace {

// Distance-2 MIS of the subgraph induced by the `active` nodes (edges to
// inactive nodes are ignored): 1 for IN nodes, 0 otherwise.
template <typename T>
std::vector<std::uint8_t> mis2_of_active(const CsrMatrix<T>& S,
                                         const std::vector<std::uint8_t>& active) {
  const index_t n = S.rows;
  std::vector<std::uint8_t> state(n), next(n);
  for (index_t i = 0; i < n; ++i) state[i] = active[i] ? state_undecided : state_out;
  std::vector<index_t> max1(n), max2(n);  // node holding the largest key
  std::vector<std::uint32_t> hash(n);     // this round's
  // key(a) > key(b) in the order (state, hash); the round's hash has no ties.
  auto key_greater = [&](index_t a, index_t b) {
    return state_and_hash(state[a], hash[a]) > state_and_hash(state[b], hash[b]);
  };
  bool undecided_left = true;
  for (std::uint32_t round = 0; undecided_left; ++round) {
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < n; ++i) {
      hash[i] = mis2_round_hash(static_cast<std::uint32_t>(i), round);
    }
    // M1(i): largest key over {i} ∪ N(i) among active nodes, from this round's states.
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < n; ++i) {
      index_t best = i;
      if (active[i])
        for (index_t k = S.row_ptr[i]; k < S.row_ptr[i + 1]; ++k)
          if (active[S.col_idx[k]] && key_greater(S.col_idx[k], best)) best = S.col_idx[k];
      max1[i] = best;
    }
    // M2(i): largest M1 over {i} ∪ N(i) among active nodes.
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < n; ++i) {
      index_t best = max1[i];
      if (active[i])
        for (index_t k = S.row_ptr[i]; k < S.row_ptr[i + 1]; ++k)
          if (active[S.col_idx[k]] && key_greater(max1[S.col_idx[k]], best))
            best = max1[S.col_idx[k]];
      max2[i] = best;
    }
    // Every update reads the old states only (Jacobi-style), so the rounds do
    // not depend on how rows are split among threads.
    int left = 0;
#pragma omp parallel for schedule(static) reduction(| : left)
    for (index_t i = 0; i < n; ++i) {
      std::uint8_t s = state[i];
      if (s == state_undecided) {
        if (max2[i] == i)
          s = state_in;
        else if (state[max2[i]] == state_in)
          s = state_out;
      }
      next[i] = s;
      left |= (s == state_undecided);
    }
    state.swap(next);
    undecided_left = left != 0;
  }
  std::vector<std::uint8_t> root(n);
  for (index_t i = 0; i < n; ++i) root[i] = state[i] == state_in;
  return root;
}

// One pass: MIS-2 of the unaggregated nodes; each root with at least
// `min_neighbours` unaggregated neighbours, and at least free_percent of its
// neighbours unaggregated, forms a new aggregate with them (the
// roots are 3 edges apart in that subgraph, so no node has two). Returns the
// number of new aggregates.
template <typename T>
index_t aggregate_unaggregated(const CsrMatrix<T>& S, index_t min_neighbours, int free_percent,
                               Aggregates& result) {
  const index_t n = S.rows;
  std::vector<std::uint8_t> active(n);
  for (index_t i = 0; i < n; ++i) active[i] = result.aggregate_of[i] < 0;
  const std::vector<std::uint8_t> root = mis2_of_active(S, active);
  const index_t first = result.count;
  for (index_t i = 0; i < n; ++i) {
    if (!root[i]) continue;
    index_t free_neighbours = 0;
    for (index_t k = S.row_ptr[i]; k < S.row_ptr[i + 1]; ++k)
      free_neighbours += active[S.col_idx[k]];
    const std::int64_t degree = S.row_ptr[i + 1] - S.row_ptr[i];
    if (free_neighbours < min_neighbours ||
        100 * std::int64_t(free_neighbours) < free_percent * degree)
      continue;
    result.aggregate_of[i] = result.count;
    for (index_t k = S.row_ptr[i]; k < S.row_ptr[i + 1]; ++k)
      if (active[S.col_idx[k]]) result.aggregate_of[S.col_idx[k]] = result.count;
    ++result.count;
  }
  return result.count - first;
}

// One Jacobi round: every unaggregated node with an aggregated neighbour joins
// the smallest such aggregate (sizes and placements from before the round; ties
// go to the neighbour with the largest (hash, index)). Returns the nodes placed.
template <typename T>
index_t join_smallest_neighbour(const CsrMatrix<T>& S, const std::vector<std::uint32_t>& hash,
                                Aggregates& result) {
  const index_t n = S.rows;
  std::vector<index_t> size(result.count, 0);
  for (index_t i = 0; i < n; ++i)
    if (result.aggregate_of[i] >= 0) ++size[result.aggregate_of[i]];
  const std::vector<index_t> placed = result.aggregate_of;
  index_t joined = 0;
#pragma omp parallel for schedule(static) reduction(+ : joined)
  for (index_t i = 0; i < n; ++i) {
    if (placed[i] >= 0) continue;
    index_t best = -1;
    for (index_t k = S.row_ptr[i]; k < S.row_ptr[i + 1]; ++k) {
      const index_t j = S.col_idx[k];
      if (placed[j] < 0) continue;
      if (best < 0 || size[placed[j]] < size[placed[best]] ||
          (size[placed[j]] == size[placed[best]] && hash_greater(hash, j, best)))
        best = j;
    }
    if (best >= 0) {
      result.aggregate_of[i] = placed[best];
      ++joined;
    }
  }
  return joined;
}

}  // namespace

template <typename T>
std::vector<std::uint8_t> mis2_roots(const CsrMatrix<T>& S) {
  require_graph(S, "mis2_roots");
  return mis2_of_active(S, std::vector<std::uint8_t>(S.rows, 1));
}

template <typename T>
Aggregates mis2_aggregation(const CsrMatrix<T>& S, int free_percent) {
  require_graph(S, "mis2_aggregation");
  const index_t n = S.rows;
  const std::vector<std::uint32_t> hash = node_hashes(n);
  Aggregates result;
  result.aggregate_of.assign(n, -1);
  // Passes of MIS-2 over the still unaggregated nodes, each root taking its
  // unaggregated neighbours, while they form a share of the aggregates.
  for (;;) {
    const index_t before = result.count;
    if (!mis2_passes_continue(aggregate_unaggregated(S, mis2_min_neighbours, free_percent, result),
                              before))
      break;
  }
  // Stragglers join neighbouring aggregates, smallest first.
  while (join_smallest_neighbour(S, hash, result) > 0) {
  }
  // Whatever is left has no aggregated node in reach (e.g. isolated nodes).
  while (aggregate_unaggregated(S, 0, 0, result) > 0) {
  }
  for (index_t i = 0; i < n; ++i)
    if (result.aggregate_of[i] < 0)
      throw std::logic_error("mis2_aggregation: node " + std::to_string(i) +
                             " was left unassigned (the strength graph is not symmetric?)");
  // Ids in the order of the aggregates' first nodes.
  std::vector<index_t> renumbered(result.count, -1);
  index_t next = 0;
  for (index_t& a : result.aggregate_of) {
    if (renumbered[a] < 0) renumbered[a] = next++;
    a = renumbered[a];
  }
  return result;
}

template <typename T>
Aggregates standard_aggregation(const CsrMatrix<T>& S) {
  require_graph(S, "standard_aggregation");
  const index_t n = S.rows;
  Aggregates result;
  std::vector<index_t>& agg = result.aggregate_of;
  agg.assign(n, -1);
  auto neighbours = [&](index_t i) {
    return std::make_pair(S.col_idx.begin() + S.row_ptr[i], S.col_idx.begin() + S.row_ptr[i + 1]);
  };

  // Pass 1: a node whose neighbourhood is untouched seeds {i} ∪ N(i).
  std::vector<std::uint8_t> from_pass1(n, 0);
  for (index_t i = 0; i < n; ++i) {
    if (agg[i] >= 0) continue;
    auto [begin, end] = neighbours(i);
    bool free = true;
    for (auto it = begin; it != end && free; ++it) free = agg[*it] < 0;
    if (!free) continue;
    agg[i] = result.count;
    for (auto it = begin; it != end; ++it) agg[*it] = result.count;
    ++result.count;
  }
  for (index_t i = 0; i < n; ++i) from_pass1[i] = agg[i] >= 0;

  // Pass 2: join the aggregate of the first neighbour aggregated in pass 1.
  for (index_t i = 0; i < n; ++i) {
    if (agg[i] >= 0) continue;
    auto [begin, end] = neighbours(i);
    for (auto it = begin; it != end; ++it)
      if (from_pass1[*it]) {
        agg[i] = agg[*it];
        break;
      }
  }

  // Pass 3: leftovers form aggregates with their still unaggregated neighbours.
  for (index_t i = 0; i < n; ++i) {
    if (agg[i] >= 0) continue;
    agg[i] = result.count;
    auto [begin, end] = neighbours(i);
    for (auto it = begin; it != end; ++it)
      if (agg[*it] < 0) agg[*it] = result.count;
    ++result.count;
  }
  return result;
}

template <typename T>
Aggregates aggregate(const CsrMatrix<T>& S, AggregationMethod method, int free_percent) {
  switch (method) {
    case AggregationMethod::mis2: return mis2_aggregation(S, free_percent);
    case AggregationMethod::standard: return standard_aggregation(S);
  }
  throw InvalidInput("aggregate: unknown aggregation method");
}

#define BINAMG_INSTANTIATE(T)                                            \
  template std::vector<std::uint8_t> mis2_roots<T>(const CsrMatrix<T>&); \
  template Aggregates mis2_aggregation<T>(const CsrMatrix<T>&, int);     \
  template Aggregates standard_aggregation<T>(const CsrMatrix<T>&);      \
  template Aggregates aggregate<T>(const CsrMatrix<T>&, AggregationMethod, int);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
