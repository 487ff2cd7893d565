#include "binamg/core/device_pool.hpp"

#include <atomic>
#include <cstdint>
#include <string>

#include "binamg/core/cuda_check.hpp"
#include "binamg/core/memory.hpp"

namespace binamg {
namespace {

cudaMemPool_t current_pool() {
  int device = 0;
  BINAMG_CUDA_CHECK(cudaGetDevice(&device));
  cudaMemPool_t pool = nullptr;
  BINAMG_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  static bool configured = false;
  if (!configured) {
    // Keep freed blocks cached instead of returning them at every synchronize.
    std::uint64_t keep_everything = UINT64_MAX;
    BINAMG_CUDA_CHECK(cudaMemPoolSetAttribute(
        pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
    configured = true;
  }
  return pool;
}

std::atomic<std::size_t> limit_bytes{0};

}  // namespace

void set_pool_limit(std::size_t bytes) { limit_bytes = bytes; }
std::size_t pool_limit() { return limit_bytes; }

void* pool_allocate(std::size_t bytes, cudaStream_t stream, const char* what) {
  if (bytes == 0) return nullptr;
  cudaMemPool_t pool = current_pool();
  if (const std::size_t limit = limit_bytes; limit > 0) {
    const std::size_t used = pool_bytes_in_use();
    if (used + bytes > limit)
      throw OutOfMemory(std::string("GPU out of memory: ") + what + " needs " +
                        format_bytes(bytes) + ", " + format_bytes(limit > used ? limit - used : 0) +
                        " of the pool's limit of " + format_bytes(limit) + " are free");
  }
  void* pointer = nullptr;
  cudaError_t status = cudaMallocFromPoolAsync(&pointer, bytes, pool, stream);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    std::size_t free = 0, total = 0;
    const bool known = cudaMemGetInfo(&free, &total) == cudaSuccess;
    cudaGetLastError();
    throw OutOfMemory(std::string("GPU out of memory: ") + what + " needs " +
                      format_bytes(bytes) +
                      (known ? ", " + format_bytes(free) + " of the device's " +
                                   format_bytes(total) + " are free"
                             : std::string()));
  }
  BINAMG_CUDA_CHECK(status);
  return pointer;
}

void pool_free(void* pointer, cudaStream_t stream) noexcept {
  if (pointer != nullptr) cudaFreeAsync(pointer, stream);
}

std::size_t pool_bytes_in_use() {
  std::uint64_t used = 0;
  BINAMG_CUDA_CHECK(cudaMemPoolGetAttribute(current_pool(),
                                            cudaMemPoolAttrUsedMemCurrent, &used));
  return used;
}

std::size_t pool_peak_bytes() {
  std::uint64_t peak = 0;
  BINAMG_CUDA_CHECK(cudaMemPoolGetAttribute(current_pool(),
                                            cudaMemPoolAttrUsedMemHigh, &peak));
  return peak;
}

void pool_reset_peak() {
  std::uint64_t zero = 0;
  BINAMG_CUDA_CHECK(cudaMemPoolSetAttribute(current_pool(),
                                            cudaMemPoolAttrUsedMemHigh, &zero));
}

std::size_t pool_peak_extra_bytes(const std::function<void()>& work) {
  BINAMG_CUDA_CHECK(cudaDeviceSynchronize());
  const std::size_t before = pool_bytes_in_use();
  pool_reset_peak();
  work();
  BINAMG_CUDA_CHECK(cudaDeviceSynchronize());
  // A reset watermark may read 0 until the next allocation: work that
  // allocated nothing needed nothing extra.
  const std::size_t peak = pool_peak_bytes();
  return peak > before ? peak - before : 0;
}

void pool_trim() {
  BINAMG_CUDA_CHECK(cudaDeviceSynchronize());
  BINAMG_CUDA_CHECK(cudaMemPoolTrimTo(current_pool(), 0));
}

}  // namespace binamg
