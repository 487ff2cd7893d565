#include "binamg/core/cuda_check.hpp"

namespace binamg::detail {

void throw_cuda_error(cudaError_t status, const char* call, const char* file,
                      int line) {
  cudaGetLastError();  // clear a sticky-free error so later calls can proceed
  std::string message = std::string("CUDA error '") + cudaGetErrorString(status) +
                        "' in " + call + " at " + file + ":" + std::to_string(line);
  if (status == cudaErrorMemoryAllocation)
    message = "GPU out of memory: " + message;
  throw DeviceError(message);
}

}  // namespace binamg::detail
