#include "binamg/core/device.hpp"

#include "binamg/core/config.hpp"
#include "binamg/core/error.hpp"

#if BINAMG_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace binamg {

#if BINAMG_WITH_CUDA
bool gpu_available() {
  int count = 0;
  // No driver or no device is an answer here, not an error.
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return count > 0;
}

std::string gpu_description() {
  if (!gpu_available()) return "none";
  cudaDeviceProp properties{};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaGetDeviceProperties(&properties, device) != cudaSuccess)
    return "unknown";
  return std::string(properties.name) + ", " +
         std::to_string(properties.multiProcessorCount) + " SMs";
}
#else
bool gpu_available() { return false; }

std::string gpu_description() { return "none: binamg was built without CUDA"; }
#endif

Device parse_device(const std::string& name) {
  if (name == "cpu") return Device::cpu;
  if (name == "gpu") return Device::gpu;
  throw InvalidInput("unknown device '" + name + "' (expected cpu or gpu)");
}

const char* device_name(Device device) {
  return device == Device::gpu ? "gpu" : "cpu";
}

}  // namespace binamg
