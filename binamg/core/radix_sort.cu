#include "binamg/core/cuda_check.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/radix_sort.hpp"

namespace binamg {
namespace {

constexpr int identity_threads = 256;

__global__ void identity_kernel(index_t count, index_t* out) {
  const index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) out[i] = i;
}

}  // namespace

void fill_identity(index_t* out, index_t count, cudaStream_t stream) {
  if (count == 0) return;
  identity_kernel<<<blocks_for(count, identity_threads), identity_threads, 0, stream>>>(count,
                                                                                        out);
  BINAMG_CHECK_LAUNCH();
}

}  // namespace binamg
