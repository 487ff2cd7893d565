#pragma once
// Smoothed prolongator of smoothed aggregation: one damped-Jacobi step applied
// to the tentative prolongator.
#include "binamg/sparse/csr.hpp"
#include "binamg/sparse/device_csr.hpp"

namespace binamg {

/// P = (I − ω D⁻¹A)·T = T − ω D⁻¹(A·T), with sorted, duplicate-free rows.
/// A is square with a nonzero diagonal; T has A.rows rows.
template <typename T>
CsrMatrix<T> smoothed_prolongator(const CsrMatrix<T>& A, const CsrMatrix<T>& tentative,
                                  double omega);

/// GPU twin: A·T with the GPU spgemm, then one kernel forms T − ω D⁻¹(A·T) on
/// the pattern of A·T, which is the CPU result's pattern (T's pattern lies in
/// A·T's because A has a full diagonal; explicit zeros are kept as add() keeps them).
template <typename T>
DeviceCsr<T> smoothed_prolongator(const DeviceCsr<T>& A, const DeviceCsr<T>& tentative,
                                  double omega, cudaStream_t stream = nullptr);

/// The same with A's diagonal given (diagonal(A), every entry nonzero: the caller
/// has checked it, as the GPU setup does once per level).
template <typename T>
DeviceCsr<T> smoothed_prolongator(const DeviceCsr<T>& A, const DeviceBuffer<T>& diagonal,
                                  const DeviceCsr<T>& tentative, double omega,
                                  cudaStream_t stream = nullptr);

/// The same into P, a prolongator formed before from A's and the tentative
/// prolongator's patterns: its values are recomputed on its pattern (the
/// SpGEMM's numeric pass), bit for bit what smoothed_prolongator gives.
/// Throws InvalidInput if the patterns no longer give P's.
template <typename T>
void refill_smoothed_prolongator(const DeviceCsr<T>& A, const DeviceBuffer<T>& diagonal,
                                 const DeviceCsr<T>& tentative, double omega, DeviceCsr<T>& P,
                                 cudaStream_t stream = nullptr);

}  // namespace binamg
