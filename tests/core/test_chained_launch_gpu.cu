// Kernels started by launch_chained see everything the kernel before them wrote,
// however small or large either is, and the device's answer follows its compute
// capability.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "binamg/core/chained_launch.cuh"
#include "binamg/core/device_buffer.hpp"
#include "binamg/core/launch.hpp"
#include "support/gpu.hpp"

namespace binamg {
namespace {

// y[i] = x[i] + 1 over n entries; with delay, each thread first spins about that
// many clock cycles, so the next kernel is set up long before this one ends.
__global__ void add_one(std::int64_t n, const std::int64_t* x, std::int64_t* y,
                        long long delay) {
  wait_for_prior_kernel();
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const long long start = clock64();
  while (clock64() - start < delay) {
  }
  y[i] = x[i] + 1;
}

TEST(ChainedLaunchGpu, EachKernelSeesThePreviousKernelsWrites) {
  BINAMG_REQUIRE_GPU();
  const std::int64_t large = std::int64_t(1) << 22;
  DeviceBuffer<std::int64_t> a(large), b(large);
  ASSERT_EQ(cudaMemset(a.data(), 0, sizeof(std::int64_t) * large), cudaSuccess);
  // Alternating sizes (a block, a few, many) and slow kernels ahead of fast ones:
  // every entry below the smallest size passes through all 200 steps.
  const std::int64_t sizes[] = {large, 256, 1 << 16, 3000, large, 1 << 20};
  const long long delays[] = {0, 20000, 0, 0, 5000, 0};
  const std::int64_t smallest = 256;
  constexpr int steps = 200;
  for (int step = 0; step < steps; ++step) {
    const std::int64_t n = sizes[step % 6];
    const std::int64_t* from = step % 2 == 0 ? a.data() : b.data();
    std::int64_t* to = step % 2 == 0 ? b.data() : a.data();
    launch_chained(add_one, blocks_for(n, 256), 256, 0, nullptr, n, from, to, delays[step % 6]);
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<std::int64_t> result = to_host(a);  // step 199 wrote a
  for (std::int64_t i = 0; i < smallest; ++i) ASSERT_EQ(result[i], steps) << "entry " << i;
}

TEST(ChainedLaunchGpu, ChainsWhereTheComputeCapabilityAllows) {
  BINAMG_REQUIRE_GPU();
  int device = 0, major = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
            cudaSuccess);
  EXPECT_EQ(device_chains_launches(), major >= 9);
  EXPECT_EQ(device_chains_launches(), major >= 9);  // the cached answer
}

}  // namespace
}  // namespace binamg
