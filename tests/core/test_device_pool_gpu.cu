// Running out of GPU memory is a clear OutOfMemory error that names what was
// asked for and what the device has free, and the pool still serves afterwards.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <string>

#include "binamg/core/device_buffer.hpp"
#include "binamg/core/error.hpp"
#include "support/gpu.hpp"

namespace binamg {
namespace {

TEST(DevicePoolGpu, AllocationLargerThanTheCardIsOutOfMemory) {
  BINAMG_REQUIRE_GPU();
  std::size_t free = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
  const std::size_t too_many = total + (std::size_t(1) << 30);
  try {
    DeviceBuffer<unsigned char> buffer(too_many, nullptr, "a buffer larger than the card");
    FAIL() << "allocated " << too_many << " bytes on a card of " << total;
  } catch (const OutOfMemory& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("GPU out of memory: a buffer larger than the card needs"),
              std::string::npos) << message;
    EXPECT_NE(message.find("are free"), std::string::npos) << message;
  }
  DeviceBuffer<double> after(1 << 20, nullptr, "an ordinary buffer");  // the pool still serves
  EXPECT_EQ(cudaMemsetAsync(after.data(), 0, sizeof(double) * after.size()), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

}  // namespace
}  // namespace binamg
