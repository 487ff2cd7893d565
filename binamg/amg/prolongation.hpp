#pragma once
// Smoothed prolongator of smoothed aggregation: one damped-Jacobi step applied
// to the tentative prolongator.
#include "binamg/core/config.hpp"
#include "binamg/sparse/csr.hpp"
#include "binamg/spgemm/spgemm.hpp"
#if BINAMG_WITH_CUDA
#include "binamg/sparse/device_csr.hpp"
#endif

namespace binamg {

/// P = (I − ω D⁻¹A)·T = T − ω D⁻¹(A·T), with sorted, duplicate-free rows.
/// A is square with a nonzero diagonal; T has A.rows rows.
template <typename T>
CsrMatrix<T> smoothed_prolongator(const CsrMatrix<T>& A, const CsrMatrix<T>& tentative,
                                  double omega);

#if BINAMG_WITH_CUDA
/// GPU twin: A·T with the GPU spgemm, then one kernel forms T − ω D⁻¹(A·T) on
/// the pattern of A·T, which is the CPU result's pattern (T's pattern lies in
/// A·T's because A has a full diagonal; explicit zeros are kept as add() keeps them).
template <typename T>
DeviceCsr<T> smoothed_prolongator(const DeviceCsr<T>& A, const DeviceCsr<T>& tentative,
                                  double omega, cudaStream_t stream = nullptr);

/// The same with A's diagonal given (diagonal(A), every entry nonzero: the caller
/// has checked it, as the GPU setup does once per level). With `report`, says
/// which path A·T took.
template <typename T>
DeviceCsr<T> smoothed_prolongator(const DeviceCsr<T>& A, const DeviceBuffer<T>& diagonal,
                                  const DeviceCsr<T>& tentative, double omega,
                                  cudaStream_t stream = nullptr, SpgemmReport* report = nullptr);

/// The same into P, formed before by smoothed_prolongator from A's and the
/// tentative prolongator's patterns on a path that sums in row order
/// (sums_in_row_order, spgemm/refill.hpp): A·T by spgemm_refill (`rows` = entry_rows(P)), so P
/// gets smoothed_prolongator's bits.
template <typename T>
void refill_smoothed_prolongator(const DeviceCsr<T>& A, const DeviceBuffer<T>& diagonal,
                                 const DeviceCsr<T>& tentative, double omega, DeviceCsr<T>& P,
                                 const DeviceBuffer<index_t>& rows, cudaStream_t stream = nullptr);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
