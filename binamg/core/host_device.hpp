#pragma once
// Marks a function that both devices compile (a CUDA source sees
// __host__ __device__, a C++ source nothing).
#ifdef __CUDACC__
#define BINAMG_HOST_DEVICE __host__ __device__
#else
#define BINAMG_HOST_DEVICE
#endif
