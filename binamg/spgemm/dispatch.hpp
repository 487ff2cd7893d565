#pragma once
// The GPU SpGEMM under an explicit tuning and with paths ruled out: what
// spgemm() runs with the device's tuning and nothing ruled out. Tests steer a
// product onto each path with it, and check that every path gives the CPU's
// bits.
#include <cuda_runtime.h>

#include "binamg/sparse/device_csr.hpp"
#include "binamg/spgemm/spgemm.hpp"
#include "binamg/spgemm/tuning.hpp"

namespace binamg::spgemm_detail {

/// A·B taking the first path of choose_path's order that is not in
/// `excluded` (empty and binned cannot be ruled out).
template <typename T>
DeviceCsr<T> spgemm_with(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const SpgemmTuning& tuning,
                         SpgemmPathSet excluded, cudaStream_t stream = nullptr,
                         SpgemmReport* report = nullptr);

/// A·(B·C) likewise (`excluded` applies to both products).
template <typename T>
DeviceCsr<T> spgemm_with(const DeviceCsr<T>& A, const DeviceCsr<T>& B, const DeviceCsr<T>& C,
                         const SpgemmTuning& tuning, SpgemmPathSet excluded,
                         cudaStream_t stream = nullptr, SpgemmReport* outer = nullptr,
                         SpgemmReport* inner = nullptr);

}  // namespace binamg::spgemm_detail
