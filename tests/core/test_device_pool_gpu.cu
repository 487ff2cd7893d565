// Running out of GPU memory is a clear OutOfMemory error that names what was
// asked for and what the device has free, and the pool still serves afterwards.
// (A Poisson problem larger than an H200 needs more than 2^31 entries in some
// product, refused earlier as too large for 32-bit indices; a pool limit stands
// in for a smaller card.)
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/core/device_buffer.hpp"
#include "binamg/core/device_pool.hpp"
#include "binamg/core/error.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/solvers/pcg.hpp"
#include "binamg/sparse/device_csr.hpp"
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
              std::string::npos)
        << message;
    EXPECT_NE(message.find("are free"), std::string::npos) << message;
  }
  DeviceBuffer<double> after(1 << 20, nullptr, "an ordinary buffer");  // the pool still serves
  EXPECT_EQ(cudaMemsetAsync(after.data(), 0, sizeof(double) * after.size()), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

// A whole problem larger than the memory it may use (a pool limit, so that no
// other process on the card loses memory to the test): the setup or the solve
// stops with OutOfMemory naming the buffer it could not get, never a CUDA error
// string; without the limit the same problem solves.
TEST(DevicePoolGpu, ProblemLargerThanItsMemoryIsOutOfMemory) {
  BINAMG_REQUIRE_GPU();
  const CsrMatrix<double> A = poisson<double>(Stencil::poisson3d_7, 96);  // 885k rows
  const std::vector<double> b = poisson_rhs<double>(A.rows);
  auto solve = [&] {
    const DeviceHierarchy<double> h = build_hierarchy(to_device(A));
    DeviceBuffer<double> x = to_device(std::vector<double>(A.rows, 0.0));
    return pcg(h, to_device(b), x, SolveOptions{1e-8, 100});
  };
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  // 128 MiB beyond what is live: A takes 77 MB of it, the setup more.
  set_pool_limit(pool_bytes_in_use() + (std::size_t(128) << 20));
  try {
    solve();
    ADD_FAILURE() << "solved within a pool limit of " << pool_limit() << " bytes";
  } catch (const OutOfMemory& error) {
    EXPECT_NE(std::string(error.what()).find("of the pool's limit of"), std::string::npos)
        << error.what();
  }
  set_pool_limit(0);
  EXPECT_TRUE(solve().converged);
}

}  // namespace
}  // namespace binamg
