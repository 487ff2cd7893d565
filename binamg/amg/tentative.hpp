#pragma once
// Tentative prolongator: the constant near-nullspace restricted to each aggregate.
#include "binamg/amg/aggregation.hpp"
#include "binamg/sparse/csr.hpp"

namespace binamg {

/// T(i, agg(i)) = 1/sqrt(|agg(i)|): one entry per row, columns orthonormal
/// (TᵀT = I). Throws InvalidInput if an aggregate id is out of range or empty.
template <typename T>
CsrMatrix<T> tentative_prolongator(const Aggregates& aggregates);

/// The GPU twin: bitwise the same matrix.
template <typename T>
DeviceCsr<T> tentative_prolongator(const DeviceAggregates& aggregates, cudaStream_t stream = nullptr);

}  // namespace binamg
