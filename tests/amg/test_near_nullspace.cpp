// Systems of PDEs: the near-nullspace checks, the node graph, the QR-built
// tentative prolongator (against Eigen's QR), and elasticity hierarchies that
// converge with the rigid-body modes where the scalar path does not.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "binamg/amg/aggregation.hpp"
#include "binamg/amg/hierarchy.hpp"
#include "binamg/amg/near_nullspace.hpp"
#include "binamg/amg/node_matrix.hpp"
#include "binamg/amg/strength.hpp"
#include "binamg/amg/tentative.hpp"
#include "binamg/amg/tentative_qr.hpp"
#include "binamg/problems/elasticity.hpp"
#include "binamg/problems/model_problem.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/solvers/pcg.hpp"
#include "binamg/sparse/transpose.hpp"
#include "binamg/spgemm/spgemm.hpp"
#include "binamg/spmv/spmm.hpp"
#include "support/message_of.hpp"
#include "support/same_matrix.hpp"

namespace binamg {
namespace {

// Reproducible values in [-1, 1).
std::vector<double> pseudo_random(std::size_t count, unsigned seed) {
  std::vector<double> values(count);
  std::uint64_t state = 0x9E3779B97F4A7C15ull * (seed + 1);
  for (double& v : values) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = double(state >> 11) / double(1ull << 53) * 2 - 1;
  }
  return values;
}

using testing::message_of;

TEST(NearNullspace, ConstantVectorIsTheScalarPath) {
  EXPECT_FALSE(is_system({}));
  EXPECT_FALSE(is_system({1, 1, std::vector<double>(10, 2.5)}));
  std::vector<double> ramp{1, 2, 3};
  EXPECT_TRUE(is_system({1, 1, ramp}));
  EXPECT_TRUE(is_system({2, 0, {}}));
}

TEST(NearNullspace, BadVectorsAreNamed) {
  const index_t rows = 12;
  NearNullspace ok{3, 2, pseudo_random(24, 1)};
  EXPECT_NO_THROW(validate_near_nullspace(ok, rows, "B"));
  NearNullspace short_rows{1, 2, pseudo_random(20, 1)};
  EXPECT_NE(message_of([&] {
              validate_near_nullspace(short_rows, rows, "B");
            }).find("B: the near-nullspace vectors have 10 rows for a matrix of 12 rows"),
            std::string::npos);
  NearNullspace block{5, 0, {}};
  EXPECT_NE(message_of([&] {
              validate_near_nullspace(block, rows, "B");
            }).find("the block size 5 does not divide the matrix's 12 rows"),
            std::string::npos);
  NearNullspace nan = ok;
  nan.vectors[7] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(message_of([&] {
              validate_near_nullspace(nan, rows, "B");
            }).find("near-nullspace vector 1 has a non-finite entry in row 3"),
            std::string::npos);
  NearNullspace dependent{1, 3, pseudo_random(36, 2)};
  for (index_t i = 0; i < rows; ++i)  // v2 = 2 v0 - v1
    dependent.vectors[i * 3 + 2] = 2 * dependent.vectors[i * 3] - dependent.vectors[i * 3 + 1];
  EXPECT_NE(message_of([&] {
              validate_near_nullspace(dependent, rows, "B");
            }).find("near-nullspace vector 2 is (to 1e-7) a linear combination"),
            std::string::npos);
  // 1e-5 of a new direction is independent enough: it passes.
  NearNullspace nearly = dependent;
  const std::vector<double> other = pseudo_random(12, 5);
  for (index_t i = 0; i < rows; ++i) nearly.vectors[i * 3 + 2] += 1e-5 * other[i];
  EXPECT_NO_THROW(validate_near_nullspace(nearly, rows, "B"));
  NearNullspace zero{1, 1, std::vector<double>(12, 0.0)};
  EXPECT_NE(message_of([&] {
              validate_near_nullspace(zero, rows, "B");
            }).find("near-nullspace vector 0 is zero"),
            std::string::npos);
  NearNullspace many{1, max_near_nullspace_vectors + 1, {}};
  EXPECT_NE(
      message_of([&] { validate_near_nullspace(many, 100, "B"); }).find("must lie in [0, 16]"),
      std::string::npos);
}

TEST(NodeMatrix, EntriesAreTheBlocksFrobeniusNorms) {
  // A 3-node, block-2 matrix with every block filled by distinct values.
  const index_t n = 6;
  CsrMatrix<double> A = zero_matrix<double>(n, n);
  const std::vector<double> values = pseudo_random(n * n, 3);
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < n; ++j) {
      if (i / 2 == 0 && j / 2 == 2) continue;  // no block (0, 2)
      if (i / 2 == 2 && j / 2 == 0) continue;
      A.col_idx.push_back(j);
      A.values.push_back(values[i * n + j]);
    }
    A.row_ptr[i + 1] = index_t(A.col_idx.size());
  }
  const CsrMatrix<double> N = node_matrix(A, {0, 2, 4, 6});
  ASSERT_EQ(N.rows, 3);
  EXPECT_EQ(N.nnz(), 7);
  for (index_t p = 0; p < 3; ++p)
    for (index_t e = N.row_ptr[p]; e < N.row_ptr[p + 1]; ++e) {
      const index_t q = N.col_idx[e];
      double sum = 0;
      for (index_t i = 2 * p; i < 2 * p + 2; ++i)
        for (index_t j = 2 * q; j < 2 * q + 2; ++j) sum += values[i * n + j] * values[i * n + j];
      EXPECT_NEAR(N.values[e], std::sqrt(sum), 1e-14) << p << "," << q;
    }
  EXPECT_NE(message_of([&] {
              node_matrix(A, {0, 2, 2, 6});
            }).find("group 1 holds no rows"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              node_matrix(A, {0, 2, 4});
            }).find("must cover rows 0 to 6"),
            std::string::npos);
}

TEST(NodeMatrix, SystemsAggregateIntoFewerLargerAggregates) {
  // The systems' MIS-2 rule (a root needs 65% of its neighbours free) on the
  // node graphs of 2D and 3D elasticity: a partition into connected
  // aggregates, and fewer of them than the scalar rule makes.
  for (int d : {2, 3}) {
    const CsrMatrix<double> A = elasticity<double>(d, d == 2 ? 30 : 10);
    std::vector<index_t> node_ptr;
    for (index_t p = 0; p <= A.rows / d; ++p) node_ptr.push_back(p * d);
    const CsrMatrix<double> S = strength(node_matrix(A, node_ptr), 0.03);
    const Aggregates scalar = mis2_aggregation(S);
    const Aggregates system = mis2_aggregation(S, mis2_system_free_percent);
    EXPECT_LT(system.count, scalar.count) << d << "D";
    for (index_t a : system.aggregate_of) {
      EXPECT_GE(a, 0);
      EXPECT_LT(a, system.count);
    }
  }
}

// Aggregates of 1 to 7 rows over 40 rows, interleaved.
Aggregates mixed_aggregates() {
  const std::vector<index_t> sizes{1, 2, 3, 4, 5, 6, 7, 5, 4, 3};  // sum 40
  Aggregates aggregates;
  aggregates.count = index_t(sizes.size());
  for (index_t a = 0; a < aggregates.count; ++a)
    for (index_t s = 0; s < sizes[a]; ++s) aggregates.aggregate_of.push_back(a);
  // Interleave: row i takes the id at (7 i) mod 40, a permutation.
  std::vector<index_t> shuffled(40);
  for (index_t i = 0; i < 40; ++i) shuffled[i] = aggregates.aggregate_of[(7 * i) % 40];
  aggregates.aggregate_of = shuffled;
  return aggregates;
}

TEST(TentativeQr, MatchesEigensQrOnEveryAggregate) {
  const index_t n = 40, k = 3;
  const Aggregates aggregates = mixed_aggregates();
  Candidates candidates;
  candidates.k = k;
  candidates.vectors = pseudo_random(n * k, 4);
  const SystemTentative<double> t = tentative_qr<double>(aggregates, candidates);
  // Rank min(size, 3) per aggregate: sizes 1 and 2 keep 1 and 2 columns.
  EXPECT_EQ(t.P.cols, 1 + 2 + 3 * 8);
  EXPECT_EQ(t.coarse.node_ptr, (std::vector<index_t>{0, 1, 3, 6, 9, 12, 15, 18, 21, 24, 27}));
  for (index_t a = 0; a < aggregates.count; ++a) {
    std::vector<index_t> rows;
    for (index_t i = 0; i < n; ++i)
      if (aggregates.aggregate_of[i] == a) rows.push_back(i);
    const index_t m = index_t(rows.size()), rank = std::min<index_t>(m, k);
    Eigen::MatrixXd Ba(m, k);
    for (index_t s = 0; s < m; ++s)
      for (index_t j = 0; j < k; ++j) Ba(s, j) = candidates.vectors[rows[s] * k + j];
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(Ba);
    const Eigen::MatrixXd Q = qr.householderQ() * Eigen::MatrixXd::Identity(m, rank);
    const Eigen::MatrixXd R = qr.matrixQR().topRows(rank).triangularView<Eigen::Upper>();
    for (index_t c = 0; c < rank; ++c) {
      const double sign = R(c, c) < 0 ? -1 : 1;  // the QR with a positive diagonal is unique
      const index_t column = t.coarse.node_ptr[a] + c;
      for (index_t s = 0; s < m; ++s) {
        const index_t i = rows[s];
        ASSERT_EQ(t.P.row_ptr[i + 1] - t.P.row_ptr[i], rank);
        EXPECT_EQ(t.P.col_idx[t.P.row_ptr[i] + c], column);
        EXPECT_NEAR(t.P.values[t.P.row_ptr[i] + c], sign * Q(s, c), 1e-12) << a << " " << c;
      }
      for (index_t l = 0; l < k; ++l)
        EXPECT_NEAR(t.coarse.vectors[column * k + l], sign * R(c, l), 1e-12) << a << " " << c;
    }
  }
  // B = P B_c and PᵀP = I.
  std::vector<double> PB;
  spmm(t.P, t.coarse.vectors, k, PB);
  for (std::size_t e = 0; e < PB.size(); ++e) EXPECT_NEAR(PB[e], candidates.vectors[e], 1e-13);
  const CsrMatrix<double> PtP = spgemm(transpose(t.P), t.P);
  for (index_t i = 0; i < PtP.rows; ++i)
    for (index_t e = PtP.row_ptr[i]; e < PtP.row_ptr[i + 1]; ++e)
      EXPECT_NEAR(PtP.values[e], PtP.col_idx[e] == i ? 1.0 : 0.0, 1e-13);
}

TEST(TentativeQr, RigidBodyModesOfFewNodesKeepWhatTheyCanRepresent) {
  // One 3D node represents the 3 translations only; two nodes 5 of the 6
  // modes (no rotation about the line through them); three, all 6.
  const std::vector<double> xyz{0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1};
  Candidates c;
  c.k = 6;
  c.vectors = rigid_body_modes(3, xyz);  // 6 nodes, 18 dofs
  Aggregates aggregates;
  aggregates.count = 3;  // nodes {0}, {1, 2}, {3, 4, 5}
  for (index_t node : {0, 1, 1, 2, 2, 2})
    for (int c3 = 0; c3 < 3; ++c3) aggregates.aggregate_of.push_back(node);
  const SystemTentative<double> t = tentative_qr<double>(aggregates, c);
  EXPECT_EQ(t.coarse.node_ptr, (std::vector<index_t>{0, 3, 8, 14}));
  std::vector<double> PB;
  spmm(t.P, t.coarse.vectors, 6, PB);
  for (std::size_t e = 0; e < PB.size(); ++e) EXPECT_NEAR(PB[e], c.vectors[e], 1e-13);
}

TEST(TentativeQr, VectorsThatVanishOnAnAggregateAreNamed) {
  Candidates c;
  c.k = 1;
  c.vectors = {1, 2, 0, 0, 3};
  const Aggregates aggregates{{0, 0, 1, 1, 2}, 3};
  EXPECT_NE(message_of([&] {
              tentative_qr<double>(aggregates, c);
            }).find("the near-nullspace vectors vanish on aggregate 1 (rows 2 ...)"),
            std::string::npos);
  const Aggregates bad{{0, 0, 1, 4, 2}, 3};
  EXPECT_NE(
      message_of([&] { tentative_qr<double>(bad, c); }).find("row 3 has group 4 outside [0, 3)"),
      std::string::npos);
}

TEST(TentativeQr, OnesGiveTheScalarTentativeBitwise) {
  const Aggregates aggregates = mixed_aggregates();
  Candidates c;
  c.k = 1;
  c.vectors.assign(40, 1.0);
  const SystemTentative<double> t = tentative_qr<double>(aggregates, c);
  testing::expect_same_matrix(tentative_prolongator<double>(aggregates), t.P);
}

template <typename T>
void expect_same_hierarchy(const Hierarchy<T>& a, const Hierarchy<T>& b) {
  ASSERT_EQ(a.num_levels(), b.num_levels());
  for (std::size_t l = 0; l < a.levels.size(); ++l) {
    testing::expect_same_matrix(a.levels[l].A, b.levels[l].A, "A" + std::to_string(l));
    testing::expect_same_matrix(a.levels[l].P, b.levels[l].P, "P" + std::to_string(l));
  }
  testing::expect_same_matrix(a.coarse_matrix, b.coarse_matrix, "coarsest");
}

TEST(SystemHierarchy, AConstantNearNullspaceKeepsTheScalarBits) {
  const CsrMatrix<double> A = poisson<double>(Stencil::poisson2d_5, 40);
  AmgParameters constant;
  constant.near_nullspace = {1, 1, std::vector<double>(A.rows, 3.0)};
  expect_same_hierarchy(build_hierarchy(A), build_hierarchy(A, constant));
  constant.near_nullspace.vectors.pop_back();
  EXPECT_NE(message_of([&] { build_hierarchy(A, constant); })
                .find("build_hierarchy: near_nullspace: the near-nullspace vectors have 1599 "
                      "rows for a matrix of 1600 rows"),
            std::string::npos);
}

int pcg_iterations(const CsrMatrix<double>& A, const AmgParameters& parameters,
                   int max_iterations = 300) {
  const Hierarchy<double> h = build_hierarchy(A, parameters);
  std::vector<double> b(A.rows, 1.0), x(A.rows, 0.0);
  const SolveResult result = pcg(h, b, x, {1e-8, max_iterations});
  return result.converged ? result.iterations : max_iterations + 1;
}

TEST(SystemHierarchy, RigidBodyModesSolveElasticityThatTheScalarPathCannot) {
  for (int d : {2, 3}) {
    const index_t n = d == 2 ? 40 : 12;
    const std::string name = d == 2 ? "elasticity2d" : "elasticity3d";
    const CsrMatrix<double> A = model_problem<double>(name, n);
    AmgParameters modes;
    modes.near_nullspace = model_near_nullspace(name, n);
    ASSERT_EQ(modes.near_nullspace.block_size, d);
    const int with_modes = pcg_iterations(A, modes);
    const int scalar = pcg_iterations(A, {});
    EXPECT_LE(with_modes, 40) << name;
    EXPECT_LT(2 * with_modes, scalar) << name;
    // Every aggregate holds whole nodes: P's rows of a node share their columns.
    const Hierarchy<double> h = build_hierarchy(A, modes);
    const CsrMatrix<double>& P = h.levels[0].P;
    for (index_t node = 0; node < A.rows / d; ++node)
      for (int c = 1; c < d; ++c) {
        const index_t i = node * d, j = node * d + c;
        EXPECT_TRUE(
            std::equal(P.col_idx.begin() + P.row_ptr[i], P.col_idx.begin() + P.row_ptr[i + 1],
                       P.col_idx.begin() + P.row_ptr[j], P.col_idx.begin() + P.row_ptr[j + 1]))
            << name << " node " << node;
      }
  }
}

TEST(SystemHierarchy, BlockSizeAloneTakesOneConstantPerComponent) {
  const CsrMatrix<double> A = model_problem<double>("elasticity2d", 30);
  AmgParameters components;
  components.near_nullspace.block_size = 2;
  const Hierarchy<double> h = build_hierarchy(A, components);
  ASSERT_GT(h.levels.size(), 0u);
  // Two coarse unknowns per aggregate of whole nodes.
  EXPECT_EQ(h.levels[0].P.cols % 2, 0);
  EXPECT_LE(pcg_iterations(A, components), 300);
}

}  // namespace
}  // namespace binamg
