#pragma once
// Dense vector operations on the host. Reductions sum fixed-size blocks and
// then the block sums in order, so results are bitwise reproducible whatever
// the number of OpenMP threads.
#include <vector>

#include "binamg/core/config.hpp"
#include "binamg/core/types.hpp"
#if BINAMG_WITH_CUDA
#include "binamg/core/device_buffer.hpp"
#endif

namespace binamg {

/// Elements per reduction block (fixed: part of the result's definition).
constexpr index_t reduction_block = 4096;

template <typename T>
T dot(const std::vector<T>& x, const std::vector<T>& y);

/// ‖x‖₂ without overflow or underflow (as BLAS nrm2): √dot(x, x) where that sum
/// of squares is in range (its bits), otherwise x rescaled by a power of two
/// first. NaN if x holds one.
template <typename T>
T norm2(const std::vector<T>& x);

/// y += alpha * x
template <typename T>
void axpy(T alpha, const std::vector<T>& x, std::vector<T>& y);

/// y = x + beta * y
template <typename T>
void xpby(const std::vector<T>& x, T beta, std::vector<T>& y);

/// True when every entry is finite.
template <typename T>
bool all_finite(const std::vector<T>& x);

#if BINAMG_WITH_CUDA
// GPU twins on device-resident vectors, ordered on `stream`. dot and norm2
// reduce in a fixed tree that depends only on the length, so they are bitwise
// reproducible run to run; they return to the host and so synchronize `stream`.

template <typename T>
T dot(const DeviceBuffer<T>& x, const DeviceBuffer<T>& y, cudaStream_t stream = nullptr);

/// ‖x‖₂ by the host's norm2 algorithm: √ of the device dot where that is in
/// range (its bits), otherwise x rescaled by a power of two first.
template <typename T>
T norm2(const DeviceBuffer<T>& x, cudaStream_t stream = nullptr);

/// y += alpha * x
template <typename T>
void axpy(T alpha, const DeviceBuffer<T>& x, DeviceBuffer<T>& y, cudaStream_t stream = nullptr);

/// y = x + beta * y
template <typename T>
void xpby(const DeviceBuffer<T>& x, T beta, DeviceBuffer<T>& y, cudaStream_t stream = nullptr);

// Device-side reductions and the fused updates of CG: results and scalars stay in
// device memory (T* below are device pointers to one value), nothing synchronizes,
// so a CG iteration reads its scalars back once. `scratch` holds the block partial
// sums: at least reduction_scratch_size(n) entries for vectors of length n.

std::size_t reduction_scratch_size(index_t n);

/// *result = xᵀy, the bits of dot(x, y).
template <typename T>
void dot(const DeviceBuffer<T>& x, const DeviceBuffer<T>& y, T* result, DeviceBuffer<T>& scratch,
         cudaStream_t stream = nullptr);

/// One pass: alpha = T(double(*rz) / double(*pq)), r −= alpha·q, and *rr = rᵀr
/// of the new r. Bitwise what axpy(−alpha, q, r) and dot(r, r) give. CG's x takes
/// the same step later, in the pass that forms the next direction (cg_direction).
template <typename T>
void cg_residual_update(const T* rz, const T* pq, const DeviceBuffer<T>& q, DeviceBuffer<T>& r,
                        T* rr, DeviceBuffer<T>& scratch, cudaStream_t stream = nullptr);

/// One pass: x += alpha·p with alpha = T(double(*rz) / double(*pq)), then p = z +
/// beta·p with beta = T(double(*rz_next) / double(*rz)). Bitwise axpy(alpha, p, x)
/// then xpby(z, beta, p).
template <typename T>
void cg_direction(const T* rz_next, const T* rz, const T* pq, const DeviceBuffer<T>& z,
                  DeviceBuffer<T>& p, DeviceBuffer<T>& x, cudaStream_t stream = nullptr);

/// x += alpha·p with alpha = T(double(*rz) / double(*pq)): CG's last step of x.
template <typename T>
void cg_last_step(const T* rz, const T* pq, const DeviceBuffer<T>& p, DeviceBuffer<T>& x,
                  cudaStream_t stream = nullptr);

/// z = double(z_float) and *rz = rᵀz in one pass, bitwise what convert(z_float, z)
/// (vector/convert.hpp) and dot(r, z) give: the mixed-precision CG's widened
/// correction and its rᵀz.
void widen_with_dot(const DeviceBuffer<float>& z_float, DeviceBuffer<double>& z,
                    const DeviceBuffer<double>& r, double* rz, DeviceBuffer<double>& scratch,
                    cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
