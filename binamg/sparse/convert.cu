// convert_values() on the device (sparse/device_csr.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "binamg/core/cuda_check.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"
#include "binamg/sparse/device_csr.hpp"
#include "binamg/vector/convert.hpp"

namespace binamg {
namespace {

constexpr int round_threads = 256;
constexpr unsigned long long none = ~0ull;  // the flag's value while every entry rounds well

// One thread per entry: out = To(in), lowering *first to the index of an entry
// that rounding loses (csr.hpp's rounds_away()), so the smallest such index is
// reported; one pass for the rounding and its check.
template <typename To, typename From>
__global__ void round_values(std::int64_t entries, const From* __restrict__ in,
                             To* __restrict__ out, unsigned long long* first) {
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= entries) return;
  const From value = in[k];
  out[k] = static_cast<To>(value);
  if (rounds_away<To>(value)) atomicMin(first, static_cast<unsigned long long>(k));
}

// result's values = matrix's rounded to To; throws csr.hpp's message for the
// first entry that does not survive (one pass and one read-back; an error
// path reads more).
template <typename To, typename From>
void round_representable(const DeviceCsr<From>& matrix, DeviceCsr<To>& result,
                         cudaStream_t stream) {
  if (matrix.nnz() == 0) return;
  DeviceBuffer<unsigned long long> first(1, stream, "convert_values: first unrepresentable");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(first.data(), 0xff, sizeof(unsigned long long), stream));
  round_values<To, From><<<blocks_for(matrix.nnz(), round_threads), round_threads, 0, stream>>>(
      matrix.nnz(), matrix.values.data(), result.values.data(), first.data());
  BINAMG_CHECK_LAUNCH();
  const unsigned long long bad = read_back(first.data(), stream);
  if (bad == none) return;
  const std::vector<index_t> row_ptr = to_host(matrix.row_ptr);
  const index_t row =
      index_t(std::upper_bound(row_ptr.begin(), row_ptr.end(), index_t(bad)) - row_ptr.begin()) - 1;
  index_t col = 0;
  From value{};
  read_back(&col, matrix.col_idx.data() + bad, sizeof(index_t), stream);
  read_back(&value, matrix.values.data() + bad, sizeof(From), stream);
  throw InvalidInput(unrepresentable_entry_message(row, col, unrepresentable<To>(value)));
}

}  // namespace

template <typename To, typename From>
DeviceCsr<To> convert_values(const DeviceCsr<From>& matrix, cudaStream_t stream) {
  require_consistent(matrix, "convert_values: the matrix");
  DeviceCsr<To> result;
  result.rows = matrix.rows;
  result.cols = matrix.cols;
  result.max_row_length = matrix.max_row_length;
  result.row_ptr = DeviceBuffer<index_t>(matrix.row_ptr.size(), stream, "converted row_ptr");
  BINAMG_CUDA_CHECK(cudaMemcpyAsync(result.row_ptr.data(), matrix.row_ptr.data(),
                                    matrix.row_ptr.size() * sizeof(index_t),
                                    cudaMemcpyDeviceToDevice, stream));
  result.allocate_entries(matrix.nnz(), stream, "converted entries");
  if (matrix.nnz() > 0)
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(result.col_idx.data(), matrix.col_idx.data(),
                                      matrix.col_idx.size() * sizeof(index_t),
                                      cudaMemcpyDeviceToDevice, stream));
  if constexpr (sizeof(To) < sizeof(From))
    round_representable(matrix, result, stream);
  else
    convert(matrix.values, result.values, stream);
  return result;
}

template DeviceCsr<float> convert_values<float, double>(const DeviceCsr<double>&, cudaStream_t);
template DeviceCsr<double> convert_values<double, float>(const DeviceCsr<float>&, cudaStream_t);

}  // namespace binamg
