// Block storage for systems (issue 37): does BSR pay against binamg's CSR SpMV
// on an elasticity operator? Times y = A·x three ways on the same matrix, each
// checked against the CPU reference first: binamg's CSR SpMV (the cycle's
// kernel), a BSR SpMV with one warp per block row (lanes stride over the
// block row's values, coalesced, and keep one partial sum per row of the
// block), and cuSPARSE's bsrmv. BSR stores one column index per b×b block
// instead of one per entry: for b = 3, 8.4 bytes per entry instead of 12, if
// the blocks are dense. With k right-hand sides, binamg's CSR SpMM against
// cuSPARSE's bsrmm (k = 8, 32). The finest level is the only one with uniform blocks
// (coarse nodes carry 1 to k unknowns), so this is the operator it would serve.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "bench/common.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/problems/model_problem.hpp"
#include "binamg/sparse/matrix_market.hpp"
#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmv.hpp"

using namespace binamg;
using bench::JsonLine;

namespace {

using T = double;

// A's b×b blocks, row-major within a block, block rows sorted by block column.
struct Bsr {
  index_t block_rows = 0, b = 0;
  std::vector<index_t> row_ptr, col_idx;
  std::vector<T> values;
};

Bsr to_bsr(const CsrMatrix<T>& A, index_t b) {
  require(A.rows % b == 0 && A.cols % b == 0, "bench_block_spmv: the block size does not divide A");
  Bsr B;
  B.b = b;
  B.block_rows = A.rows / b;
  B.row_ptr.assign(std::size_t(B.block_rows) + 1, 0);
  std::vector<index_t> slot(A.cols / b, -1);
  for (index_t I = 0; I < B.block_rows; ++I) {
    std::vector<index_t> columns;
    for (index_t i = I * b; i < I * b + b; ++i)
      for (index_t e = A.row_ptr[i]; e < A.row_ptr[i + 1]; ++e)
        if (slot[A.col_idx[e] / b] != I) {
          slot[A.col_idx[e] / b] = I;
          columns.push_back(A.col_idx[e] / b);
        }
    std::sort(columns.begin(), columns.end());
    const std::size_t first = B.col_idx.size();
    B.col_idx.insert(B.col_idx.end(), columns.begin(), columns.end());
    B.values.resize(B.col_idx.size() * b * b, T(0));
    for (index_t i = I * b; i < I * b + b; ++i)
      for (index_t e = A.row_ptr[i]; e < A.row_ptr[i + 1]; ++e) {
        const index_t J = A.col_idx[e] / b;
        const std::size_t block =
            first + (std::lower_bound(columns.begin(), columns.end(), J) - columns.begin());
        B.values[block * b * b + (i - I * b) * b + A.col_idx[e] % b] = A.values[e];
      }
    B.row_ptr[I + 1] = index_t(B.col_idx.size());
  }
  return B;
}

// One warp per block row: lane l takes the block row's values l, l+32, … (in
// storage order, so a warp reads 32 consecutive values), adds each product to
// its partial sum of that value's row, and the warp sums each row's partials.
template <int B>
__global__ void bsr_spmv_warp(index_t block_rows, const index_t* row_ptr, const index_t* col_idx,
                              const T* values, const T* x, T* y) {
  const std::int64_t I = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (I >= block_rows) return;
  T sum[B] = {};
  const std::int64_t begin = std::int64_t(row_ptr[I]) * B * B,
                     end = std::int64_t(row_ptr[I + 1]) * B * B;
  for (std::int64_t p = begin + lane; p < end; p += 32) {
    const std::int64_t block = p / (B * B);
    const int within = int(p - block * B * B), r = within / B, c = within % B;
    const T product = values[p] * x[std::int64_t(col_idx[block]) * B + c];
#pragma unroll
    for (int q = 0; q < B; ++q)
      if (q == r) sum[q] += product;
  }
#pragma unroll
  for (int q = 0; q < B; ++q)
    for (int offset = 16; offset > 0; offset /= 2)
      sum[q] += __shfl_down_sync(0xffffffffu, sum[q], offset);
  if (lane == 0)
#pragma unroll
    for (int q = 0; q < B; ++q) y[I * B + q] = sum[q];
}

// Y (row-major, or column-major when `column_major`) against the CPU's row-major
// reference, entry by entry within 2·(row length)·ε·Σ|a_ij| (|x| ≤ 1).
bool matches_block(const CsrMatrix<T>& A, index_t k, const std::vector<T>& reference,
                   const std::vector<T>& got, bool column_major) {
  const double eps = std::numeric_limits<T>::epsilon();
  for (index_t i = 0; i < A.rows; ++i) {
    double magnitude = 0;
    for (index_t e = A.row_ptr[i]; e < A.row_ptr[i + 1]; ++e) magnitude += std::abs(A.values[e]);
    for (index_t j = 0; j < k; ++j) {
      const T value = column_major ? got[std::size_t(j) * A.rows + i] : got[std::size_t(i) * k + j];
      if (!(std::abs(value - reference[std::size_t(i) * k + j]) <=
            2.0 * A.row_length(i) * eps * magnitude + 1e-300))
        return false;
    }
  }
  return true;
}

void run(const std::string& name, const CsrMatrix<T>& A, index_t b, double bandwidth_gbs) {
  const Bsr B = to_bsr(A, b);
  std::vector<T> x(A.cols);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37 * double(i % 100003));
  std::vector<T> reference;
  spmv(A, x, reference);
  const DeviceCsr<T> dA = to_device(A);
  const DeviceBuffer<T> dx = to_device(x);
  DeviceBuffer<T> dy(A.rows);
  const DeviceBuffer<index_t> bsr_ptr = to_device(B.row_ptr), bsr_col = to_device(B.col_idx);
  const DeviceBuffer<T> bsr_values = to_device(B.values);
  const double vectors = double(A.rows + A.cols) * sizeof(T);
  const double csr_bytes = double(A.rows + 1) * 4 + double(A.nnz()) * 12 + vectors;
  const double bsr_bytes =
      double(B.block_rows + 1) * 4 + double(B.col_idx.size()) * (4 + 8.0 * b * b) + vectors;
  auto line = [&](const char* impl, double ms, double bytes, bool ok) {
    JsonLine()
        .field("bench", "block_spmv")
        .field("problem", name)
        .field("rows", A.rows)
        .field("nnz", A.nnz())
        .field("block_size", b)
        .field("stored_per_nnz", double(B.values.size()) / A.nnz())
        .field("impl", impl)
        .field("ms", ms)
        .field("mb", bytes / 1e6)
        .field("roofline_fraction", bytes / (ms * 1e-3) / 1e9 / bandwidth_gbs)
        .field("checked", ok)
        .print();
  };
  BINAMG_CUDA_CHECK(cudaMemset(dy.data(), 0, dy.size() * sizeof(T)));
  double ms = bench::median_ms([&] { spmv(dA, dx.data(), dy.data()); });
  if (!matches_block(A, 1, reference, to_host(dy), false))
    throw DeviceError("wrong result: binamg csr");
  line("binamg_csr", ms, csr_bytes, true);

  BINAMG_CUDA_CHECK(cudaMemset(dy.data(), 0, dy.size() * sizeof(T)));
  const unsigned blocks = blocks_for(std::int64_t(B.block_rows) * 32, 256);
  auto ours = [&] {
    if (b == 2)
      bsr_spmv_warp<2><<<blocks, 256>>>(B.block_rows, bsr_ptr.data(), bsr_col.data(),
                                        bsr_values.data(), dx.data(), dy.data());
    else
      bsr_spmv_warp<3><<<blocks, 256>>>(B.block_rows, bsr_ptr.data(), bsr_col.data(),
                                        bsr_values.data(), dx.data(), dy.data());
    BINAMG_CHECK_LAUNCH();
  };
  ms = bench::median_ms(ours);
  if (!matches_block(A, 1, reference, to_host(dy), false))
    throw DeviceError("wrong result: bsr warp");
  line("bsr_warp_per_block_row", ms, bsr_bytes, true);

  cusparseHandle_t handle = nullptr;
  BINAMG_CUSPARSE_CHECK(cusparseCreate(&handle));
  cusparseMatDescr_t descr = nullptr;
  BINAMG_CUSPARSE_CHECK(cusparseCreateMatDescr(&descr));
  const T alpha = 1, beta = 0;
  BINAMG_CUDA_CHECK(cudaMemset(dy.data(), 0, dy.size() * sizeof(T)));
  ms = bench::median_ms([&] {
    BINAMG_CUSPARSE_CHECK(cusparseDbsrmv(
        handle, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, B.block_rows, A.cols / b,
        index_t(B.col_idx.size()), &alpha, descr, bsr_values.data(), bsr_ptr.data(), bsr_col.data(),
        b, dx.data(), &beta, dy.data()));
  });
  const bool ok = matches_block(A, 1, reference, to_host(dy), false);
  line("cusparse_bsrmv", ms, bsr_bytes, ok);
  // Many right-hand sides (block solves): binamg's CSR SpMM on row-major X and
  // Y against cuSPARSE's bsrmm, which reads X row-major as its transpose and
  // writes Y column-major.
  for (index_t k : {8, 32}) {
    std::vector<T> X(std::size_t(A.cols) * k);
    for (std::size_t i = 0; i < X.size(); ++i) X[i] = std::sin(0.37 * double(i % 100003));
    std::vector<T> Y_reference;
    spmm(A, X, k, Y_reference);
    const DeviceBuffer<T> dX = to_device(X);
    DeviceBuffer<T> dY(std::size_t(A.rows) * k);
    const double block_vectors = double(A.rows + A.cols) * k * sizeof(T);
    auto block_line = [&](const char* impl, double block_ms, double bytes, bool checked) {
      JsonLine()
          .field("bench", "block_spmm")
          .field("problem", name)
          .field("rows", A.rows)
          .field("nnz", A.nnz())
          .field("block_size", b)
          .field("k", k)
          .field("impl", impl)
          .field("ms", block_ms)
          .field("roofline_fraction", bytes / (block_ms * 1e-3) / 1e9 / bandwidth_gbs)
          .field("checked", checked)
          .print();
    };
    double block_ms = bench::median_ms([&] { spmm(dA, dX.data(), k, dY.data()); });
    if (!matches_block(A, k, Y_reference, to_host(dY), false))
      throw DeviceError("wrong result: binamg csr spmm");
    block_line("binamg_csr", block_ms, csr_bytes - vectors + block_vectors, true);
    // bsrmm is deprecated for cusparseSpMM, but this toolkit's generic API has
    // no BSR matrix (no cusparseCreateBsr): it is the one BSR SpMM to compare.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    block_ms = bench::median_ms([&] {
      BINAMG_CUSPARSE_CHECK(cusparseDbsrmm(
          handle, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE,
          CUSPARSE_OPERATION_TRANSPOSE, B.block_rows, k, A.cols / b, index_t(B.col_idx.size()),
          &alpha, descr, bsr_values.data(), bsr_ptr.data(), bsr_col.data(), b, dX.data(), k, &beta,
          dY.data(), A.rows));
    });
#pragma GCC diagnostic pop
    block_line("cusparse_bsrmm", block_ms, bsr_bytes - vectors + block_vectors,
               matches_block(A, k, Y_reference, to_host(dY), true));
  }
  cusparseDestroyMatDescr(descr);
  cusparseDestroy(handle);
}

}  // namespace

// Usage: bench_block_spmv [--matrix FILE --block-size B] [--problem elasticity3d --size N]...
// Without arguments: elasticity2d 513 and elasticity3d 65 (Q1, clamped).
int main(int argc, char** argv) {
  try {
    bench::print_device_banner("block_spmv", argc, argv);
    const double bandwidth = bench::measure_copy_bandwidth_gbs();
    std::vector<std::pair<std::string, index_t>> problems;
    std::string matrix;
    index_t block_size = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
      const std::string option = argv[i], value = argv[i + 1];
      if (option == "--matrix")
        matrix = value;
      else if (option == "--block-size")
        block_size = std::stoi(value);
      else if (option == "--problem" && i + 3 < argc)
        problems.push_back({value, std::stoi(argv[i + 3])}), i += 2;
      else
        throw InvalidInput("bench_block_spmv: unknown option " + option);
    }
    if (problems.empty() && matrix.empty())
      problems = {{"elasticity2d", 513}, {"elasticity3d", 65}};
    for (const auto& [name, n] : problems)
      run(name + "-" + std::to_string(n), model_problem<T>(name, n), name == "elasticity2d" ? 2 : 3,
          bandwidth);
    if (!matrix.empty()) run(matrix, read_matrix_market<T>(matrix), block_size, bandwidth);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_block_spmv: %s\n", error.what());
    return 1;
  }
  return 0;
}
