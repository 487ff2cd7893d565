// Device selection, and what a build without CUDA says about the GPU.
#include <gtest/gtest.h>

#include <string>

#include "binamg/core/config.hpp"
#include "binamg/core/device.hpp"
#include "support/message_of.hpp"

namespace binamg {
namespace {

TEST(Device, NamesParseBackToTheirDevice) {
  EXPECT_EQ(parse_device(device_name(Device::cpu)), Device::cpu);
  EXPECT_EQ(parse_device(device_name(Device::gpu)), Device::gpu);
}

TEST(Device, UnknownNameIsRejectedByName) {
  EXPECT_EQ(testing::message_of([] { parse_device("tpu"); }),
            "unknown device 'tpu' (expected cpu or gpu)");
}

TEST(Device, DescriptionAgreesWithAvailability) {
  if (!gpu_available()) {
    EXPECT_EQ(gpu_description().rfind("none", 0), 0u) << gpu_description();
  } else {
    EXPECT_NE(gpu_description().find("SMs"), std::string::npos) << gpu_description();
  }
}

#if !BINAMG_WITH_CUDA
TEST(Device, BuildWithoutCudaHasNoGpuAndSaysWhy) {
  EXPECT_FALSE(gpu_available());
  EXPECT_EQ(gpu_description(), "none: binamg was built without CUDA");
}
#endif

}  // namespace
}  // namespace binamg
