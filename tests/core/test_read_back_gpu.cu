// Reads back from the device: read_back and PendingRead return the bytes the
// work queued before them wrote, however many are in flight together and
// however often their pooled stagings and events are reused.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "binamg/core/device_buffer.hpp"
#include "binamg/core/read_back.hpp"
#include "support/gpu.hpp"

namespace binamg {
namespace {

// x[i] = value + i over n entries, after about `delay` clock cycles per
// thread: a read queued behind it must wait for it.
__global__ void fill(std::int64_t* x, int n, std::int64_t value, long long delay) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const long long start = clock64();
  while (clock64() - start < delay) {
  }
  x[i] = value + i;
}

TEST(ReadBackGpu, ReturnsWhatTheWorkBeforeItWrote) {
  BINAMG_REQUIRE_GPU();
  constexpr int n = 3000;  // more than a staging's first 4096 bytes
  DeviceBuffer<std::int64_t> x(n);
  std::vector<std::int64_t> host(n);
  for (std::int64_t round = 0; round < 3; ++round) {
    fill<<<(n + 255) / 256, 256>>>(x.data(), n, 100 * round, 20000);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    read_back(host.data(), x.data(), sizeof(std::int64_t) * n, nullptr);
    for (int i = 0; i < n; ++i) ASSERT_EQ(host[i], 100 * round + i) << "round " << round;
  }
  EXPECT_EQ(read_back(x.data() + 7, nullptr), 200 + 7);
}

TEST(ReadBackGpu, PendingReadsInFlightTogetherKeepTheirOwnBytes) {
  BINAMG_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  constexpr int n = 64;
  DeviceBuffer<std::int64_t> x(n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // allocated on the default stream
  // Rounds of four reads queued before any is collected, each after a fill
  // that overwrites the last one's source: the pool's stagings and events are
  // taken, returned and taken again.
  for (int round = 0; round < 50; ++round) {
    std::vector<std::unique_ptr<PendingRead>> reads;
    for (int k = 0; k < 4; ++k) {
      fill<<<1, n, 0, stream>>>(x.data(), n, 1000 * (4 * round + k), k == 0 ? 20000 : 0);
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
      reads.push_back(std::make_unique<PendingRead>(x.data(), sizeof(std::int64_t) * n, stream));
    }
    for (int k = 3; k >= 0; --k) {
      std::vector<std::int64_t> host(n);
      reads[k]->wait(host.data());
      for (int i = 0; i < n; ++i)
        ASSERT_EQ(host[i], 1000 * (4 * round + k) + i) << "round " << round << ", read " << k;
    }
  }
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST(ReadBackGpu, AnotherStreamWaitsForAPendingReadsEvent) {
  BINAMG_REQUIRE_GPU();
  cudaStream_t first = nullptr, second = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking), cudaSuccess);
  constexpr int n = 32;
  DeviceBuffer<std::int64_t> x(n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // allocated on the default stream
  for (int round = 0; round < 20; ++round) {
    fill<<<1, n, 0, first>>>(x.data(), n, round, 50000);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    PendingRead read(x.data(), sizeof(std::int64_t) * n, first);
    // The second stream overwrites x only after the read has copied it.
    ASSERT_EQ(cudaStreamWaitEvent(second, read.done(), 0), cudaSuccess);
    fill<<<1, n, 0, second>>>(x.data(), n, -1, 0);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    std::vector<std::int64_t> host(n);
    read.wait(host.data());
    for (int i = 0; i < n; ++i) ASSERT_EQ(host[i], round + i) << "round " << round;
    ASSERT_EQ(cudaStreamSynchronize(second), cudaSuccess);
  }
  ASSERT_EQ(cudaStreamDestroy(first), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(second), cudaSuccess);
}

}  // namespace
}  // namespace binamg
