#pragma once
// A product rounded on its own, never fused into a following add (FMA), so that
// a sum built in a row's order rounds exactly as the CPU reference does.
#include <cuda_runtime.h>

namespace binamg {

__device__ __forceinline__ float rounded_product(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double rounded_product(double a, double b) { return __dmul_rn(a, b); }

}  // namespace binamg
