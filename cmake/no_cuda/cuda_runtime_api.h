// A CPU-only build of binamg (BINAMG_CUDA OFF, or AUTO without nvcc) must not
// include the CUDA headers: code that needs them belongs in a .cu source or
// under #if BINAMG_WITH_CUDA (binamg/core/config.hpp).
#error "cuda_runtime_api.h is included by a CPU-only build of binamg"
