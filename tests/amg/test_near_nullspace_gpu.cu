// The GPU's system steps against the CPU's on the same input: the node graph,
// the aggregates of unknowns, the QR-built tentative prolongator (bitwise),
// and whole elasticity hierarchies and solves.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "binamg/amg/aggregation.hpp"
#include "binamg/amg/hierarchy.hpp"
#include "binamg/amg/node_matrix.hpp"
#include "binamg/amg/strength.hpp"
#include "binamg/amg/tentative_qr.hpp"
#include "binamg/problems/elasticity.hpp"
#include "binamg/problems/model_problem.hpp"
#include "binamg/solvers/pcg.hpp"
#include "support/gpu.hpp"
#include "support/message_of.hpp"
#include "support/same_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class NearNullspaceGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(NearNullspaceGpu, Precisions);

using testing::message_of;

// The finest candidates uploaded and checked on the GPU: the host's vectors
// and nodes, and the host's message for each bad input.
TEST(FinestCandidatesGpu, MatchTheHostsAndNameTheSameProblems) {
  BINAMG_REQUIRE_GPU();
  const index_t n = 20;  // 3·20³ = 24,000 rows: several rows per Gram chunk
  const CsrMatrix<double> A = model_problem<double>("elasticity3d", n);
  const NearNullspace modes = model_near_nullspace("elasticity3d", n);
  for (const NearNullspace& nullspace : {modes, NearNullspace{3, 0, {}}}) {
    const Candidates host = finest_candidates(nullspace, A.rows);
    const Candidates device = to_host(finest_candidates(nullspace, A.rows, nullptr));
    EXPECT_EQ(host.k, device.k);
    EXPECT_EQ(host.node_ptr, device.node_ptr);
    EXPECT_EQ(host.vectors, device.vectors);
  }
  std::vector<NearNullspace> bad(5, modes);
  bad[0].vectors[6 * 777 + 4] = std::numeric_limits<double>::infinity();
  bad[0].vectors[6 * 9000 + 1] = std::numeric_limits<double>::quiet_NaN();
  for (index_t i = 0; i < A.rows; ++i)  // vector 5 = vector 0 − 2·vector 3
    bad[1].vectors[i * 6 + 5] = bad[1].vectors[i * 6] - 2 * bad[1].vectors[i * 6 + 3];
  for (index_t i = 0; i < A.rows; ++i) bad[2].vectors[i * 6] = 0;
  bad[3].block_size = 7;
  bad[4].vectors.pop_back();
  for (const NearNullspace& nullspace : bad) {
    const std::string expected =
        message_of([&] { finest_candidates(nullspace, A.rows); });
    EXPECT_NE(expected, "(no error)");
    EXPECT_EQ(expected, message_of([&] { finest_candidates(nullspace, A.rows, nullptr); }));
  }
}

TYPED_TEST(NearNullspaceGpu, NodeMatrixMatchesTheCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  for (const char* name : {"elasticity2d", "elasticity3d"}) {
    const CsrMatrix<T> A = model_problem<T>(name, 9);
    const index_t d = std::string(name) == "elasticity2d" ? 2 : 3;
    std::vector<index_t> node_ptr;
    for (index_t p = 0; p <= A.rows / d; ++p) node_ptr.push_back(p * d);
    const CsrMatrix<T> cpu = node_matrix(A, node_ptr);
    const CsrMatrix<T> gpu = to_host(node_matrix(to_device(A), to_device(node_ptr)));
    EXPECT_EQ(cpu.row_ptr, gpu.row_ptr) << name;
    EXPECT_EQ(cpu.col_idx, gpu.col_idx) << name;
    const double ulps = std::is_same_v<T, float> ? 1e-5 : 1e-13;
    for (std::size_t e = 0; e < cpu.values.size(); ++e)
      EXPECT_NEAR(cpu.values[e], gpu.values[e], ulps * std::abs(cpu.values[e])) << name;
    // the systems' MIS-2 rule on both devices, and the aggregates of unknowns it leads to
    const CsrMatrix<T> S = strength(cpu, 0.03);
    const Aggregates nodes = mis2_aggregation(S, mis2_system_free_percent);
    const DeviceAggregates device_nodes =
        mis2_aggregation(to_device(S), nullptr, mis2_system_free_percent);
    EXPECT_EQ(nodes.count, device_nodes.count) << name;
    EXPECT_EQ(nodes.aggregate_of, to_host(device_nodes.aggregate_of)) << name;
    EXPECT_EQ(unknown_aggregates(nodes, node_ptr).aggregate_of,
              to_host(unknown_aggregates(device_nodes, to_device(node_ptr)).aggregate_of));
  }
}

TYPED_TEST(NearNullspaceGpu, TentativeQrIsBitwiseTheCpus) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  // The 3D elasticity modes on MIS-2 aggregates of its nodes, plus two
  // aggregates too small for all six modes (one node; two nodes).
  const index_t n = 7;
  const CsrMatrix<T> A = model_problem<T>("elasticity3d", n);
  const NearNullspace modes = model_near_nullspace("elasticity3d", n);
  const Candidates candidates = finest_candidates(modes, A.rows);
  Aggregates nodes = mis2_aggregation(strength(node_matrix(A, candidates.node_ptr), 0.03),
                                      mis2_system_free_percent);
  nodes.aggregate_of[0] = nodes.count++;
  nodes.aggregate_of[1] = nodes.aggregate_of[2] = nodes.count++;
  // keep every aggregate nonempty: renumber the ids in use
  std::vector<index_t> id(nodes.count, -1);
  index_t used = 0;
  for (index_t& a : nodes.aggregate_of) {
    if (id[a] < 0) id[a] = used++;
    a = id[a];
  }
  nodes.count = used;
  const Aggregates unknowns = unknown_aggregates(nodes, candidates.node_ptr);
  const SystemTentative<T> cpu = tentative_qr<T>(unknowns, candidates);
  const DeviceAggregates device_unknowns{to_device(unknowns.aggregate_of), unknowns.count};
  const DeviceSystemTentative<T> gpu = tentative_qr<T>(device_unknowns, to_device(candidates));
  testing::expect_same_matrix(cpu.P, to_host(gpu.P));
  const Candidates coarse = to_host(gpu.coarse);
  EXPECT_EQ(cpu.coarse.node_ptr, coarse.node_ptr);
  EXPECT_EQ(cpu.coarse.vectors, coarse.vectors);
  EXPECT_EQ(cpu.coarse.node_ptr[1] - cpu.coarse.node_ptr[0], 3);  // a lone node: translations
}

TYPED_TEST(NearNullspaceGpu, TentativeQrNamesVanishingVectors) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  Candidates c;
  c.k = 1;
  c.vectors = {1, 2, 0, 0, 3};
  c.node_ptr = {0, 1, 2, 3, 4, 5};
  const DeviceAggregates aggregates{to_device(std::vector<index_t>{0, 0, 1, 1, 2}), 3};
  try {
    tentative_qr<T>(aggregates, to_device(c));
    ADD_FAILURE() << "no error";
  } catch (const InvalidInput& error) {
    EXPECT_NE(std::string(error.what()).find("vanish on aggregate 1 (rows 2 ...)"),
              std::string::npos)
        << error.what();
  }
  const DeviceAggregates bad{to_device(std::vector<index_t>{0, 0, 1, 4, 2}), 3};
  EXPECT_THROW(tentative_qr<T>(bad, to_device(c)), InvalidInput);
}

TYPED_TEST(NearNullspaceGpu, ElasticityHierarchyAndSolveMatchTheCpu) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  for (const char* name : {"elasticity2d", "elasticity3d"}) {
    const index_t n = std::string(name) == "elasticity2d" ? 40 : 12;
    const CsrMatrix<T> A = model_problem<T>(name, n);
    AmgParameters parameters;
    parameters.near_nullspace = model_near_nullspace(name, n);
    const Hierarchy<T> cpu = build_hierarchy(A, parameters);
    const DeviceHierarchy<T> gpu = build_hierarchy(to_device(A), parameters);
    ASSERT_EQ(cpu.num_levels(), gpu.num_levels()) << name;
    for (index_t l = 0; l < cpu.num_levels(); ++l) {
      EXPECT_EQ(cpu.matrix(l).rows, gpu.matrix(l).rows) << name << " level " << l;
      EXPECT_EQ(cpu.matrix(l).nnz(), gpu.matrix(l).nnz()) << name << " level " << l;
    }
    // 2D elasticity of 40² nodes attains about 5e-4 in float (κ·ε), so float asks for 2e-3.
    const double tolerance = std::is_same_v<T, float> ? 2e-3 : 1e-8;
    std::vector<T> b(A.rows, T(1)), x(A.rows, T(0));
    const SolveResult on_cpu = pcg(cpu, b, x, {tolerance, 300});
    DeviceBuffer<T> device_x = to_device(std::vector<T>(A.rows, T(0)));
    const SolveResult on_gpu = pcg(gpu, to_device(b), device_x, {tolerance, 300});
    EXPECT_TRUE(on_cpu.converged) << name;
    EXPECT_TRUE(on_gpu.converged) << name;
    EXPECT_NEAR(on_cpu.iterations, on_gpu.iterations, 1) << name;
  }
}

}  // namespace
}  // namespace binamg
