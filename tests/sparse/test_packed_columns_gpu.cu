// Packed columns (sparse/packed_columns.hpp): which matrices pack, and that
// the row kernels give the same bits from the packed columns as from the
// index array, on every kernel shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/sparse/device_csr.hpp"
#include "support/device_row_sums.hpp"
#include "support/gpu.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

template <typename T>
class PackedColumnsGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(PackedColumnsGpu, Precisions);

template <typename T>
bool is_packed(const DeviceCsr<T>& M) {
  return M.packed.describe(M.col_idx);
}

using testing::expect_same_bits;
using testing::residual_of;
using testing::spmv_of;

// Every chunk spans fewer than 2^16 columns: a 2D stencil (band 300), short
// rows, a 3000-column dense row, power-law rows, rows of ~60 (8 lanes a row)
// and of ~100 (a warp a row, unstaged), a
// 40000-entry row among short ones (a block for the row, a warp for each other
// row of its block), a tall rectangle and empty rows; packed whatever their
// size (min_entries 0). The packed matrix records its longest row, and SpMV and
// residual give the index array's bits.
TYPED_TEST(PackedColumnsGpu, PacksNarrowChunksAndKeepsTheBits) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  std::vector<CsrMatrix<T>> matrices;
  matrices.push_back(poisson<T>(Stencil::poisson2d_5, 300));
  const testing::RandomMatrixShape shapes[] = {
      {5000, 4000, 6, 0.2, 0, false},   {300, 3000, 5, 0.0, 1, false},
      {8000, 6000, 6, 0.1, 0, true},    {2000, 5000, 60, 0.0, 0, false},
      {2000, 5000, 100, 0.0, 0, false}, {30000, 40000, 6, 0.0, 1, false},
      {70000, 900, 3, 0.3, 0, false}};
  std::uint64_t seed = 400;
  for (const auto& shape : shapes) matrices.push_back(testing::random_matrix<T>(shape, seed++));
  for (const CsrMatrix<T>& host : matrices) {
    index_t longest = 0;
    for (index_t row = 0; row < host.rows; ++row) longest = std::max(longest, host.row_length(row));
    const DeviceCsr<T> plain = to_device(host);
    DeviceCsr<T> packed = copy_of(plain);
    packed.max_row_length = -1;
    prepare_for_row_kernels(packed, nullptr, 0);
    ASSERT_TRUE(is_packed(packed)) << host.rows << " x " << host.cols;
    ASSERT_FALSE(is_packed(plain));
    EXPECT_EQ(packed.max_row_length, longest);
    const DeviceBuffer<T> x = to_device(testing::random_vector<T>(host.cols, seed++));
    const DeviceBuffer<T> b = to_device(testing::random_vector<T>(host.rows, seed++));
    expect_same_bits(spmv_of(plain, x), spmv_of(packed, x), "spmv");
    expect_same_bits(residual_of(plain, x, b), residual_of(packed, x, b), "residual");
  }
}

// Left unpacked, with the longest row still recorded: random columns over
// 270000 (a chunk spans more than 2^16), rows of ~300 on average, and a matrix
// of fewer than packed_min_entries nonzeros at the default.
TYPED_TEST(PackedColumnsGpu, LeavesWideLongRowedAndSmallMatricesUnpacked) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const std::pair<CsrMatrix<T>, std::int64_t> cases[] = {
      {testing::random_matrix<T>({270000, 270000, 10, 0.1, 0, false}, 410), 0},
      {testing::random_matrix<T>({1000, 5000, 300, 0.0, 0, false}, 411), 0},
      {poisson<T>(Stencil::poisson2d_5, 300), packed_min_entries}};
  for (const auto& [host, min_entries] : cases) {
    DeviceCsr<T> M = to_device(host);
    const index_t longest = M.max_row_length;
    M.max_row_length = -1;
    prepare_for_row_kernels(M, nullptr, min_entries);
    EXPECT_FALSE(is_packed(M)) << host.rows << " x " << host.cols;
    EXPECT_TRUE(M.packed.judged_for(M.col_idx));
    EXPECT_TRUE(M.packed.offset.empty());
    EXPECT_EQ(M.max_row_length, longest);
  }
}

// Offsets are read only while they describe the matrix's column storage: new
// entries (allocate_entries) clear them, and new column storage is never
// described by offsets packed from the old.
TYPED_TEST(PackedColumnsGpu, NewColumnStorageIsNotDescribedByOldOffsets) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const CsrMatrix<T> host = poisson<T>(Stencil::poisson2d_5, 20);
  DeviceCsr<T> M = to_device(host);
  prepare_for_row_kernels(M, nullptr, 0);
  ASSERT_TRUE(is_packed(M));
  M.col_idx = to_device(host.col_idx);
  EXPECT_FALSE(is_packed(M));
  EXPECT_FALSE(M.packed.judged_for(M.col_idx));
  prepare_for_row_kernels(M, nullptr, 0);
  ASSERT_TRUE(is_packed(M));
  M.allocate_entries(M.nnz(), nullptr, "test entries");
  EXPECT_FALSE(is_packed(M));
  EXPECT_TRUE(M.packed.offset.empty());
}

// The GPU setup judges every matrix its cycle multiplies (A, P and R of each
// level) and packs those large enough, with short enough rows (on a 2D grid
// every chunk fits); a refresh keeps them judged and packed.
TYPED_TEST(PackedColumnsGpu, TheSetupAndARefreshPackTheCycleMatrices) {
  BINAMG_REQUIRE_GPU();
  using T = TypeParam;
  const DeviceCsr<T> A = to_device(poisson<T>(Stencil::poisson2d_5, 1024));
  DeviceHierarchy<T> h = build_hierarchy(A);
  ASSERT_GE(h.levels.size(), 2u);
  ASSERT_TRUE(is_packed(h.levels[0].A));
  const auto expect_packed = [&](const char* when) {
    for (std::size_t l = 0; l < h.levels.size(); ++l)
      for (const auto& [M, name] : {std::pair{&h.levels[l].A, "A"}, std::pair{&h.levels[l].P, "P"},
                                    std::pair{&h.levels[l].R, "R"}}) {
        EXPECT_TRUE(M->packed.judged_for(M->col_idx)) << when << ", level " << l << " " << name;
        EXPECT_EQ(is_packed(*M), worth_packing(M->nnz(), M->rows))
            << when << ", level " << l << " " << name;
      }
  };
  expect_packed("setup");
  refresh(h, A);
  expect_packed("first refresh");
  refresh(h, A);
  expect_packed("second refresh");
}

}  // namespace
}  // namespace binamg
