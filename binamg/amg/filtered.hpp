#pragma once
// The filtered matrix of Vaněk, Mandel and Brezina (1996), which smooths the
// tentative prolongator in place of A when the strength threshold is positive.
#include <cstdint>

#include "binamg/amg/strength_measure.hpp"
#include "binamg/core/config.hpp"
#include "binamg/sparse/csr.hpp"
#if BINAMG_WITH_CUDA
#include "binamg/sparse/device_csr.hpp"
#endif

namespace binamg {

/// A_F: A's diagonal and its strong off-diagonal entries (strength()'s test
/// with the same measure), with each weak off-diagonal entry
/// added to its row's diagonal (left to right, in T), so that A_F's row sums
/// are A's and the constant stays in A_F's near-nullspace. Smoothing with A_F
/// keeps P from reaching across weak connections (a coefficient jump, the weak
/// direction of an anisotropy), and P stays as sparse as the aggregates.
/// A row whose lumped diagonal is not above √ε_T·|a_ii| (no strong neighbour
/// left in a row that sums to zero, or weak entries that outweigh a_ii) keeps
/// a_ii: its smoothing would divide by a rounding residue.
/// A must be square with sorted rows and a diagonal entry in every row
/// (require_square_with_diagonal); θ finite and ≥ 0. Rows of A_F are sorted.
template <typename T>
CsrMatrix<T> filtered_matrix(const CsrMatrix<T>& A, double theta,
                             StrengthMeasure measure = StrengthMeasure::symmetric);

#if BINAMG_WITH_CUDA
/// The GPU twin: the same matrix, bit for bit. A's diagonal is not checked here
/// (the setup has checked it once per level).
template <typename T>
DeviceCsr<T> filtered_matrix(const DeviceCsr<T>& A, double theta, cudaStream_t stream = nullptr,
                             StrengthMeasure measure = StrengthMeasure::symmetric);
#endif  // BINAMG_WITH_CUDA

/// How many entries of A are weak at θ, that is, left out of A_F: with none,
/// A_F is A bit for bit and the setup smooths with A. Same contract as
/// filtered_matrix(); the GPU twin counts the same entries (integer sums).
template <typename T>
std::int64_t weak_entries(const CsrMatrix<T>& A, double theta,
                          StrengthMeasure measure = StrengthMeasure::symmetric);

#if BINAMG_WITH_CUDA
template <typename T>
std::int64_t weak_entries(const DeviceCsr<T>& A, double theta, cudaStream_t stream = nullptr,
                          StrengthMeasure measure = StrengthMeasure::symmetric);
#endif  // BINAMG_WITH_CUDA

}  // namespace binamg
