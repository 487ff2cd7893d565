#include "binamg/vector/convert.hpp"

#include <cstdint>
#include <string>

#include "binamg/core/chained_launch.cuh"
#include "binamg/core/error.hpp"
#include "binamg/core/launch.hpp"

namespace binamg {
namespace {

template <typename To, typename From>
__global__ void convert_entries(std::int64_t n, const From* in, To* out) {
  wait_for_prior_kernel();
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<To>(in[i]);
}

}  // namespace

template <typename To, typename From>
void convert(const DeviceBuffer<From>& in, DeviceBuffer<To>& out, cudaStream_t stream) {
  require(in.size() == out.size(), "convert: " + std::to_string(in.size()) + " entries into " +
                                       std::to_string(out.size()));
  const std::int64_t n = std::int64_t(in.size());
  if (n == 0) return;
  launch_chained(convert_entries<To, From>, blocks_for(n, 256), 256, 0, stream, n, in.data(),
                 out.data());
}

template void convert<float, double>(const DeviceBuffer<double>&, DeviceBuffer<float>&,
                                     cudaStream_t);
template void convert<double, float>(const DeviceBuffer<float>&, DeviceBuffer<double>&,
                                     cudaStream_t);

}  // namespace binamg
