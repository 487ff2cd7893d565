// Coded values (sparse/coded_values.hpp): which matrices are coded, that the row
// kernels give the same bits from the codes as from the values (with index and
// packed columns), and that a refresh codes the values it rewrites again.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/problems/scaled.hpp"
#include "binamg/sparse/device_csr.hpp"
#include "support/device_row_sums.hpp"
#include "support/gpu.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class CodedValuesGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CodedValuesGpu, Precisions);

template <typename T>
bool is_coded(const DeviceCsr<T>& M) {
  return M.coded.describe(M.values);
}

using testing::expect_same_bits;
using testing::residual_of;
using testing::spmv_of;

// A's values replaced by `distinct` values cycled over the entries (with 0 and
// −0 among them, distinct bit patterns), the pattern kept.
template <typename T>
CsrMatrix<T> with_distinct_values(CsrMatrix<T> A, int distinct) {
  for (std::size_t e = 0; e < A.values.size(); ++e) {
    const int v = int(e % distinct);
    A.values[e] = v == 0 ? T(0) : v == 1 ? -T(0) : T(v) + T(0.5);  // exact in float
  }
  return A;
}

// Coded where the distinct values fit a byte's table (a 2D stencil's two,
// 256 made up, zero and −0 among them), with a lane per row, lane groups, a
// warp per row and a block for a 30000-entry row, or two bytes' (257 and 5000
// made up, rows of at most thread_row_max: read a thread per row); SpMV
// and residual give the values' bits, from index and from packed columns.
TYPED_TEST(CodedValuesGpu, CodesFewDistinctValuesAndKeepsTheBits) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  std::vector<std::pair<CsrMatrix<T>, std::size_t>> cases;
  cases.push_back({poisson<T>(Stencil::poisson2d_5, 300), 2});
  const testing::RandomMatrixShape shapes[] = {{20000, 20000, 6, 0.2, 0, false},
                                               {5000, 5000, 60, 0.0, 0, false},
                                               {4000, 4000, 100, 0.0, 0, false},
                                               {30000, 30000, 6, 0.0, 1, false}};
  std::uint64_t seed = 600;
  for (const auto& shape : shapes)
    cases.push_back({with_distinct_values(testing::random_matrix<T>(shape, seed++), 256), 256});
  for (const int distinct : {257, 5000})
    cases.push_back(
        {with_distinct_values(testing::random_matrix<T>(shapes[0], seed++), distinct), distinct});
  for (const auto& [host, distinct] : cases) {
    const DeviceBuffer<T> x = to_device(testing::random_vector<T>(host.cols, seed++));
    const DeviceBuffer<T> b = to_device(testing::random_vector<T>(host.rows, seed++));
    const DeviceCsr<T> plain = to_device(host);
    const std::vector<T> y = spmv_of(plain, x), r = residual_of(plain, x, b);
    for (int packed = 0; packed < 2; ++packed) {
      const std::string what = std::to_string(host.rows) + (packed ? " rows, packed" : " rows");
      DeviceCsr<T> coded = copy_of(plain);
      if (packed) prepare_for_row_kernels(coded, nullptr, 0);
      code_values(coded, nullptr, 0);
      ASSERT_TRUE(is_coded(coded)) << what;
      EXPECT_EQ(coded.coded.table.size(), distinct) << what;
      EXPECT_EQ(coded.coded.narrow(), distinct <= coded_table_size) << what;
      EXPECT_EQ(packed != 0, coded.packed.describe(coded.col_idx)) << what;
      expect_same_bits(y, spmv_of(coded, x), "spmv, " + what);
      expect_same_bits(r, residual_of(coded, x, b), "residual, " + what);
    }
  }
}

// Left uncoded, and judged: 65537 distinct values, five million (more than the
// two-byte table's slots arrive at once), 300 on rows longer than
// thread_row_max, a random matrix's values, a NaN with the all-ones pattern
// (double), and a matrix under min_entries.
TYPED_TEST(CodedValuesGpu, LeavesManyDistinctValuesAndSmallMatricesUncoded) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const auto pattern = testing::random_matrix<T>({20000, 20000, 6, 0.0, 0, false}, 610);
  std::vector<std::pair<CsrMatrix<T>, std::int64_t>> cases = {
      {with_distinct_values(pattern, wide_coded_table_size + 1), 0},
      {with_distinct_values(poisson<T>(Stencil::poisson2d_5, 1000), 5000000), 0},
      {with_distinct_values(testing::random_matrix<T>({5000, 5000, 60, 0.0, 0, false}, 611), 300),
       0},
      {pattern, 0},
      {poisson<T>(Stencil::poisson2d_5, 300), packed_min_entries}};
  if constexpr (sizeof(T) == 8) {  // float has no value with the empty slot's pattern
    CsrMatrix<T> with_nan = with_distinct_values(pattern, 3);
    const std::uint64_t all_ones = ~std::uint64_t(0);
    std::memcpy(&with_nan.values[5], &all_ones, sizeof(T));
    cases.push_back({with_nan, 0});
  }
  for (const auto& [host, min_entries] : cases) {
    DeviceCsr<T> M = to_device(host);
    code_values(M, nullptr, min_entries);
    EXPECT_FALSE(is_coded(M)) << host.rows << " rows, min " << min_entries;
    EXPECT_TRUE(M.coded.judged_for(M.values));
    EXPECT_TRUE(M.coded.code.empty() && M.coded.wide_code.empty());
  }
}

// Codes are read only while they describe the value storage: new entries clear
// them, and new value storage is not described by the old codes.
TYPED_TEST(CodedValuesGpu, NewValueStorageIsNotDescribedByOldCodes) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> host = poisson<T>(Stencil::poisson2d_5, 20);
  DeviceCsr<T> M = to_device(host);
  code_values(M, nullptr, 0);
  ASSERT_TRUE(is_coded(M));
  M.values = to_device(host.values);
  EXPECT_FALSE(is_coded(M));
  code_values(M, nullptr, 0);
  ASSERT_TRUE(is_coded(M));
  M.allocate_entries(M.nnz(), nullptr, "test entries");
  EXPECT_FALSE(is_coded(M));
}

// The setup codes the finest matrix of a constant-coefficient stencil (and no
// other); a refresh that rewrites it with many distinct values (D·A·D) leaves
// it uncoded, one back to the stencil codes it again, and every cycle matrix's
// SpMV has the bits of an uncoded copy throughout.
TYPED_TEST(CodedValuesGpu, ARefreshCodesTheValuesItRewrites) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> stencil = poisson<T>(Stencil::poisson2d_5, 512);  // 1.3 M nonzeros
  const DeviceCsr<T> A = to_device(stencil);
  const DeviceCsr<T> scaled = to_device(symmetrically_scaled(stencil, 0.1, 1.0));
  DeviceHierarchy<T> h = build_hierarchy(A);
  ASSERT_TRUE(is_coded(h.levels[0].A));
  const auto expect_current = [&](const char* when) {
    for (std::size_t l = 0; l < h.levels.size(); ++l)
      for (const auto& [M, name] : {std::pair{&h.levels[l].A, "A"}, std::pair{&h.levels[l].P, "P"},
                                    std::pair{&h.levels[l].R, "R"}}) {
        EXPECT_EQ(l == 0 && name == std::string("A"), M->coded.judged_for(M->values))
            << when << ", level " << l << " " << name;
        DeviceCsr<T> uncoded = copy_of(*M);
        const DeviceBuffer<T> x = to_device(testing::random_vector<T>(M->cols, 620 + l));
        expect_same_bits(spmv_of(uncoded, x), spmv_of(*M, x),
                         std::string(when) + ", level " + std::to_string(l) + " " + name);
      }
  };
  expect_current("setup");
  refresh(h, scaled);
  EXPECT_FALSE(is_coded(h.levels[0].A));
  expect_current("refresh to D·A·D");
  refresh(h, A);
  EXPECT_TRUE(is_coded(h.levels[0].A));
  expect_current("refresh back");
}

}  // namespace
}  // namespace binamg
