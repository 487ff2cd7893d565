// GPU twin of the smoothed prolongator.
#include <climits>
#include <string>

#include "binamg/amg/prolongation.hpp"
#include "binamg/core/device_value.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"
#include "binamg/smoothers/jacobi.hpp"
#include "binamg/spgemm/refill.hpp"
#include "binamg/spgemm/spgemm.hpp"

namespace binamg {
namespace {

constexpr int prolongator_threads = 256;

// One thread per row: overwrites row `row` of A·T (sorted) with
// t_ij − (ω/a_ii)·(A·T)_ij, walking T's sorted row alongside. The factor is
// rounded to T as the CPU rounds it. A T entry missing from A·T's pattern lowers
// *first_bad to the row (impossible when A has a full diagonal).
template <typename T>
__global__ void jacobi_smooth_rows(index_t rows, const index_t* t_ptr, const index_t* t_col,
                                   const T* t_val, const T* diag, double omega,
                                   const index_t* p_ptr, const index_t* p_col, T* p_val,
                                   index_t* first_bad) {
  const index_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const T factor = static_cast<T>(omega / double(diag[row]));
  index_t t = t_ptr[row];
  const index_t t_end = t_ptr[row + 1];
  for (index_t k = p_ptr[row]; k < p_ptr[row + 1]; ++k) {
    const T scaled = p_val[k] * factor;
    T tentative = 0;
    if (t < t_end && t_col[t] == p_col[k]) tentative = t_val[t++];
    p_val[k] = T(1) * tentative + T(-1) * scaled;
  }
  if (t != t_end) atomicMin(first_bad, row);
}

// P's values, A·T on entry, become T − ω D⁻¹(A·T) (jacobi_smooth_rows).
template <typename T>
void jacobi_smooth(const DeviceCsr<T>& tentative, const DeviceBuffer<T>& diag, double omega,
                   DeviceCsr<T>& P, cudaStream_t stream) {
  DeviceBuffer<index_t> first_bad = device_value(index_t(INT_MAX), stream, "first bad row");
  if (P.rows > 0) {
    jacobi_smooth_rows<<<blocks_for(P.rows, prolongator_threads), prolongator_threads, 0,
                         stream>>>(P.rows, tentative.row_ptr.data(), tentative.col_idx.data(),
                                   tentative.values.data(), diag.data(), omega,
                                   P.row_ptr.data(), P.col_idx.data(), P.values.data(),
                                   first_bad.data());
    BINAMG_CHECK_LAUNCH();
  }
  const index_t bad = read_back(first_bad.data(), stream);
  if (bad != INT_MAX)
    throw InvalidInput("smoothed_prolongator: row " + std::to_string(bad) +
                       " of the tentative prolongator has an entry outside the pattern of A*T");
}

template <typename T>
void require_prolongator_operands(const DeviceCsr<T>& A, const DeviceBuffer<T>& diag,
                                  const DeviceCsr<T>& tentative) {
  require(tentative.rows == A.rows,
          "smoothed_prolongator: the tentative prolongator has " +
              std::to_string(tentative.rows) + " rows, A has " + std::to_string(A.rows));
  require(diag.size() == static_cast<std::size_t>(A.rows),
          "smoothed_prolongator: the diagonal does not match A's rows");
}

}  // namespace

template <typename T>
DeviceCsr<T> smoothed_prolongator(const DeviceCsr<T>& A, const DeviceCsr<T>& tentative,
                                  double omega, cudaStream_t stream) {
  inverse_diagonal(A, stream);  // throws unless square with a nonzero diagonal
  return smoothed_prolongator(A, diagonal(A, stream), tentative, omega, stream);
}

template <typename T>
DeviceCsr<T> smoothed_prolongator(const DeviceCsr<T>& A, const DeviceBuffer<T>& diag,
                                  const DeviceCsr<T>& tentative, double omega,
                                  cudaStream_t stream, SpgemmReport* report) {
  require_prolongator_operands(A, diag, tentative);
  DeviceCsr<T> P = spgemm(A, tentative, stream, report);
  jacobi_smooth(tentative, diag, omega, P, stream);
  return P;
}

template <typename T>
void refill_smoothed_prolongator(const DeviceCsr<T>& A, const DeviceBuffer<T>& diag,
                                 const DeviceCsr<T>& tentative, double omega, DeviceCsr<T>& P,
                                 const DeviceBuffer<index_t>& rows, cudaStream_t stream) {
  require_prolongator_operands(A, diag, tentative);
  spgemm_refill(A, tentative, P, rows, stream);
  jacobi_smooth(tentative, diag, omega, P, stream);
}

#define BINAMG_INSTANTIATE(T)                                                                 \
  template DeviceCsr<T> smoothed_prolongator<T>(const DeviceCsr<T>&, const DeviceCsr<T>&,     \
                                                double, cudaStream_t);                        \
  template DeviceCsr<T> smoothed_prolongator<T>(const DeviceCsr<T>&, const DeviceBuffer<T>&,  \
                                                const DeviceCsr<T>&, double, cudaStream_t,    \
                                                SpgemmReport*);                               \
  template void refill_smoothed_prolongator<T>(const DeviceCsr<T>&, const DeviceBuffer<T>&,    \
                                               const DeviceCsr<T>&, double, DeviceCsr<T>&,     \
                                               const DeviceBuffer<index_t>&, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
