#include "binamg/core/device_value.hpp"

#include "binamg/core/cuda_check.hpp"

namespace binamg {
namespace {

template <typename T>
__global__ void set_value(T* target, T value) {
  *target = value;
}

}  // namespace

template <typename T>
DeviceBuffer<T> device_value(T value, cudaStream_t stream, const char* what) {
  DeviceBuffer<T> buffer(1, stream, what);
  set_value<<<1, 1, 0, stream>>>(buffer.data(), value);
  BINAMG_CHECK_LAUNCH();
  return buffer;
}

template DeviceBuffer<int> device_value(int, cudaStream_t, const char*);
template DeviceBuffer<unsigned long long> device_value(unsigned long long, cudaStream_t,
                                                       const char*);

}  // namespace binamg
