#pragma once
// Checked CUDA calls: every runtime call and kernel launch goes through these.
#include "binamg/core/config.hpp"
#if !BINAMG_WITH_CUDA
#error "binamg/core/cuda_check.hpp needs a binamg built with CUDA (BINAMG_WITH_CUDA is 0)"
#endif
#include <cuda_runtime.h>

#include <string>

#include "binamg/core/error.hpp"

namespace binamg::detail {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call,
                                   const char* file, int line);

inline void check_cuda(cudaError_t status, const char* call, const char* file,
                       int line) {
  if (status != cudaSuccess) throw_cuda_error(status, call, file, line);
}

}  // namespace binamg::detail

#define BINAMG_CUDA_CHECK(call) \
  ::binamg::detail::check_cuda((call), #call, __FILE__, __LINE__)

/// After a kernel launch: reports a bad configuration at once.
#define BINAMG_CHECK_LAUNCH() \
  ::binamg::detail::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
