// GPU twin of the V-cycle and the stationary V-cycle solver.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <limits>
#include <string>

#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"
#include "binamg/smoothers/jacobi.hpp"
#include "binamg/smoothers/smooth.hpp"
#include "binamg/solvers/monitor.hpp"
#include "binamg/solvers/rhs_scaling.hpp"
#include "binamg/solvers/solve_steps.hpp"
#include "binamg/solvers/vcycle.hpp"
#include "binamg/spmv/block_row_split.cuh"
#include "binamg/spmv/row_stream.cuh"
#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmv.hpp"
#include "binamg/vector/block_vector_ops.hpp"
#include "binamg/vector/vector_ops.hpp"

namespace binamg {
namespace {

constexpr int check_threads = 256;

// One thread per entry of b and of x: lowers first[0] (b) and first[1] (x) to
// the index of a non-finite entry, so the smallest such index is reported.
template <typename T>
__global__ void find_nonfinite(index_t n, const T* b, const T* x, unsigned* first) {
  const index_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  if (!isfinite(b[k])) atomicMin(first, unsigned(k));
  if (!isfinite(x[k])) atomicMin(first + 1, unsigned(k));
}

// Throws naming the first non-finite entry of b, else of x (both of n entries):
// `who: b[i]`, or `who: b[row, column]` for a block of k > 1 columns. One launch
// and one read-back for both: a small solve pays this once per call.
template <typename T>
void require_finite(const DeviceBuffer<T>& b, const DeviceBuffer<T>& x, const std::string& who,
                    index_t k, cudaStream_t stream) {
  const index_t n = static_cast<index_t>(b.size());
  if (n == 0) return;
  DeviceBuffer<unsigned> first(2, stream, "first non-finite entries");
  // All bits set: UINT_MAX, above every index, until an entry lowers it.
  BINAMG_CUDA_CHECK(cudaMemsetAsync(first.data(), 0xFF, 2 * sizeof(unsigned), stream));
  find_nonfinite<<<blocks_for(n, check_threads), check_threads, 0, stream>>>(n, b.data(), x.data(),
                                                                             first.data());
  BINAMG_CHECK_LAUNCH();
  unsigned bad[2];
  read_back(bad, first.data(), sizeof(bad), stream);
  for (int which = 0; which < 2; ++which) {
    if (bad[which] == UINT_MAX) continue;
    const index_t at = static_cast<index_t>(bad[which]);
    const std::string where =
        k == 1 ? std::to_string(at) : std::to_string(at / k) + ", " + std::to_string(at % k);
    throw InvalidInput(who + ": " + (which == 0 ? "b" : "x") + "[" + where + "] is not finite");
  }
}

// Two fused steps of the cycle, each bitwise the pair of calls it replaces (the
// same row sums as the residual and SpMV, the same expressions as the Jacobi and
// axpy kernels), minus a vector pass and a launch: the first Jacobi sweep from
// zero, x = w·d⁻¹·b, with the residual r = b − A x of its result (the entries of
// x formed where the product reads them; k > 1 only, see below), and the
// prolongation with the correction, x += P e. k row-major right-hand sides run
// them as the block SpMM's gather and epilogue (column c of input row `col` of
// the first sweep is w·d⁻¹[col]·B(col, c)); k = 1 sums rows with
// spmv/row_stream.cuh and the epilogue's per-row overload.
template <typename T>
struct FirstSweepEntry {
  const T* __restrict__ inverse_diagonal;
  T weight;
  const T* __restrict__ b;
  index_t k;
  __device__ T operator()(index_t col, index_t c) const {
    return weight * inverse_diagonal[col] * b[std::int64_t(col) * k + c];
  }
};

template <typename T>
struct SmoothAndResidualEntry {
  FirstSweepEntry<T> first_sweep;
  T* __restrict__ x;
  T* __restrict__ r;
  __device__ void operator()(index_t row, index_t c, T sum) const {
    const std::int64_t e = std::int64_t(row) * first_sweep.k + c;
    x[e] = first_sweep(row, c);
    r[e] = first_sweep.b[e] - sum;
  }
};

template <typename T>
struct CorrectEntry {
  T* __restrict__ x;
  index_t k;
  __device__ void operator()(index_t row, index_t c, T sum) const {
    x[std::int64_t(row) * k + c] += sum;
  }
  __device__ void operator()(index_t row, T sum) const { (*this)(row, 0, sum); }
};

// The post-smoothing of the finest level when the caller wants bᵀx of its
// result: the smoother's last pass forms the dots too.
template <typename T>
void smooth_with_column_dots(const AmgParameters& parameters, const DeviceLevel<T>& level,
                             const DeviceBuffer<T>& b, DeviceBuffer<T>& x, index_t k, int sweeps,
                             DeviceBuffer<T>& scratch, DeviceBuffer<T>& direction, T* dots,
                             DeviceBuffer<T>& partials, cudaStream_t stream) {
  if (parameters.smoother != SmootherKind::chebyshev) {
    jacobi_with_column_dots(level.A, level.inverse_diagonal, level.jacobi_weight, b, x, k, sweeps,
                            scratch, dots, partials, stream);
    return;
  }
  smoother_detail::smooth(parameters, level, b, x, k, sweeps - 1, false, scratch, direction,
                          stream);
  const ChebyshevSteps steps = chebyshev_steps(level.spectral_radius, parameters.chebyshev_degree,
                                               parameters.chebyshev_lower);
  chebyshev_with_column_dots(level.A, level.inverse_diagonal, steps, b, x, k, false, scratch,
                             direction, dots, partials, stream);
}

// Level l of the cycle on k right-hand sides, as in vcycle.cpp (k = 1 runs the
// vector kernels). With b_dot_x, the column dots bᵀx of the result.
template <typename T>
void cycle(const DeviceHierarchy<T>& h, DeviceCycleWorkspace<T>& work, index_t k, std::size_t l,
           const DeviceBuffer<T>& b, DeviceBuffer<T>& x, bool zero_guess,
           T* b_dot_x = nullptr) {
  cudaStream_t stream = h.stream;
  if (l == h.levels.size()) {
    h.coarse.solve(b.data(), k, x.data(), stream);
    if (b_dot_x) column_dots(b, x, k, b_dot_x, work.column_partials, stream);
    return;
  }
  const DeviceLevel<T>& level = h.levels[l];
  DeviceBuffer<T>& r = work.residual[l];
  const bool jacobi_kind = h.parameters.smoother != SmootherKind::chebyshev;
  if (jacobi_kind && zero_guess && h.parameters.presweeps == 1) {
    smooth_from_zero_with_residual(level, b, x, r, k, stream);
  } else {
    smoother_detail::smooth(h.parameters, level, b, x, k, h.parameters.presweeps, zero_guess, r,
                            work.direction[l], stream);
    residual(level.A, x.data(), b.data(), k, r.data(), stream);
  }
  spmm(level.R, r.data(), k, work.rhs[l + 1].data(), stream);
  cycle(h, work, k, l + 1, work.rhs[l + 1], work.solution[l + 1], true);
  prolong_and_correct(level.P, work.solution[l + 1], x, k, stream);
  if (b_dot_x && h.parameters.postsweeps > 0) {
    smooth_with_column_dots(h.parameters, level, b, x, k, h.parameters.postsweeps, r,
                            work.direction[l], b_dot_x, work.column_partials, stream);
    return;
  }
  smoother_detail::smooth(h.parameters, level, b, x, k, h.parameters.postsweeps, false, r,
                          work.direction[l], stream);
  if (b_dot_x) column_dots(b, x, k, b_dot_x, work.column_partials, stream);
}

template <typename T>
void require_fine_size(const DeviceHierarchy<T>& h, const DeviceBuffer<T>& v, const char* what,
                       const char* who) {
  const std::size_t rows = h.matrix(0).rows;
  require(v.size() == rows, std::string(who) + ": " + what + " has " + std::to_string(v.size()) +
                                " entries, the matrix has " + std::to_string(rows) + " rows");
}

}  // namespace

// k = 1 runs the pair unfused: fused, every nonzero gathers both d⁻¹ and b,
// which measured slower than a vector pass forming x and a residual gathering x
// alone (clearly on level 1, a tie on level 0; docs/experiments.md).
// A block shares d⁻¹[col] across its k columns, so the block step stays fused.
template <typename T>
void smooth_from_zero_with_residual(const DeviceLevel<T>& level, const DeviceBuffer<T>& b,
                                    DeviceBuffer<T>& x, DeviceBuffer<T>& r,
                                    cudaStream_t stream) {
  jacobi_from_zero(level.A, level.inverse_diagonal, level.jacobi_weight, b, x, 1, r, stream);
  residual(level.A, x.data(), b.data(), r.data(), stream);
}

template <typename T>
void prolong_and_correct(const DeviceCsr<T>& P, const DeviceBuffer<T>& e, DeviceBuffer<T>& x,
                         cudaStream_t stream) {
  row_stream::launch<T>(P, row_stream::VectorEntry<T>{e.data()}, CorrectEntry<T>{x.data(), 1},
                        stream);
}

template <typename T>
void smooth_from_zero_with_residual(const DeviceLevel<T>& level, const DeviceBuffer<T>& b,
                                    DeviceBuffer<T>& x, DeviceBuffer<T>& r, index_t k,
                                    cudaStream_t stream) {
  if (k == 1) return smooth_from_zero_with_residual(level, b, x, r, stream);
  const FirstSweepEntry<T> first_sweep{level.inverse_diagonal.data(), level.jacobi_weight,
                                       b.data(), k};
  block_row_split::launch(level.A, k, first_sweep,
                          SmoothAndResidualEntry<T>{first_sweep, x.data(), r.data()}, stream);
}

template <typename T>
void prolong_and_correct(const DeviceCsr<T>& P, const DeviceBuffer<T>& e, DeviceBuffer<T>& x,
                         index_t k, cudaStream_t stream) {
  if (k == 1) return prolong_and_correct(P, e, x, stream);
  block_row_split::launch(P, k, block_row_split::BlockEntry<T>{e.data(), k},
                          CorrectEntry<T>{x.data(), k}, stream);
}

template <typename T>
void validate_solve_inputs(const DeviceHierarchy<T>& h, const DeviceBuffer<T>& b,
                           const DeviceBuffer<T>& x, const SolveOptions& options,
                           const char* who) {
  validate_solve_inputs(h, b, x, 1, options, who);
}

template <typename T>
void validate_solve_inputs(const DeviceHierarchy<T>& h, const DeviceBuffer<T>& b,
                           const DeviceBuffer<T>& x, index_t k, const SolveOptions& options,
                           const char* who) {
  const std::string name(who);
  if (k == 1) {
    require_fine_size(h, b, "b", who);
    require_fine_size(h, x, "x", who);
  } else {
    require(k > 0, name + ": the number of right-hand sides k = " + std::to_string(k) +
                       " must be positive");
    const std::size_t entries = std::size_t(h.matrix(0).rows) * k;
    require(b.size() == entries, name + ": b has " + std::to_string(b.size()) +
                                     " entries, expected rows x k = " + std::to_string(entries));
    require(x.size() == entries, name + ": x has " + std::to_string(x.size()) +
                                     " entries, expected rows x k = " + std::to_string(entries));
  }
  require_finite(b, x, name, k, h.stream);
  validate(options, who);
}

template <typename T>
void require_finite_entries(const DeviceBuffer<T>& b, const DeviceBuffer<T>& x,
                            const std::string& who, cudaStream_t stream) {
  require_finite(b, x, who, 1, stream);
}

template <typename T>
void vcycle(const DeviceHierarchy<T>& h, const DeviceBuffer<T>& b, DeviceBuffer<T>& x) {
  require_fine_size(h, b, "b", "vcycle");
  require_fine_size(h, x, "x", "vcycle");
  cycle(h, h.workspace, 1, 0, b, x, false);
}

template <typename T>
void vcycle_from_zero(const DeviceHierarchy<T>& h, const DeviceBuffer<T>& b,
                      DeviceBuffer<T>& x) {
  require_fine_size(h, b, "b", "vcycle_from_zero");
  require_fine_size(h, x, "x", "vcycle_from_zero");
  cycle(h, h.workspace, 1, 0, b, x, true);
}

template <typename T>
void vcycle_from_zero(const DeviceHierarchy<T>& h, const DeviceBuffer<T>& b, DeviceBuffer<T>& x,
                      index_t k, DeviceCycleWorkspace<T>& work, T* b_dot_x) {
  const std::size_t entries = std::size_t(h.matrix(0).rows) * std::max<index_t>(k, 0);
  require(k > 0 && b.size() == entries && x.size() == entries,
          "vcycle_from_zero: b and x must hold rows x k = " + std::to_string(entries) +
              " entries");
  require(work.residual.size() == std::size_t(h.num_levels()) &&
              (h.levels.empty() || work.residual[0].size() == entries),
          "vcycle_from_zero: the workspace was not made by cycle_workspace(h, k) for this k");
  cycle(h, work, k, 0, b, x, true, b_dot_x);
}

template <typename T>
SolveResult vcycle_solve(const DeviceHierarchy<T>& h, const DeviceBuffer<T>& b,
                         DeviceBuffer<T>& x, const SolveOptions& options) {
  validate_solve_inputs(h, b, x, options, "vcycle_solve");
  const auto start = std::chrono::steady_clock::now();
  const DeviceCsr<T>& A = h.matrix(0);
  cudaStream_t stream = h.stream;
  const double b_norm = norm2(b, stream);
  const std::vector<int> exponents = solver_detail::rhs_exponents<T>({b_norm});
  if (solver_detail::any_rescaled(exponents))
    return solver_detail::solve_rescaled<SolveResult>(
        exponents,
        [&](const std::vector<int>& down) { return scaled_copy(b, 1, down, stream); },
        [&](const std::vector<int>& by) {
          scale_columns(x, 1, by, stream);
          BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream));
        },
        [&](const DeviceBuffer<T>& scaled_b) { return vcycle_solve(h, scaled_b, x, options); });
  SolveMonitor monitor("vcycle_solve", options, b_norm, std::numeric_limits<T>::epsilon());
  // Allocated once: a cycle and its residual norm allocate nothing.
  DeviceBuffer<T> r(A.rows, stream, "vcycle_solve residual");
  DeviceBuffer<T> scratch(reduction_scratch_size(A.rows) + 1, stream, "vcycle_solve norm");
  const double residual_norm = iterate_cycles(
      monitor, [&] { vcycle(h, b, x); },
      [&] {  // ‖b − Ax‖, the bits of norm2(r)
        residual(A, x.data(), b.data(), r.data(), stream);
        T* const rr = scratch.data() + scratch.size() - 1;
        dot(r, r, rr, scratch, stream);
        return static_cast<double>(std::sqrt(read_back(rr, stream)));
      },
      [&] { BINAMG_CUDA_CHECK(cudaMemsetAsync(x.data(), 0, sizeof(T) * x.size(), stream)); });
  BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream));
  return monitor.finish(
      residual_norm,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
}

#define BINAMG_INSTANTIATE(T)                                                                    \
  template void require_finite_entries<T>(const DeviceBuffer<T>&, const DeviceBuffer<T>&,        \
                                          const std::string&, cudaStream_t);                     \
  template void validate_solve_inputs<T>(const DeviceHierarchy<T>&, const DeviceBuffer<T>&,      \
                                         const DeviceBuffer<T>&, const SolveOptions&,            \
                                         const char*);                                           \
  template void validate_solve_inputs<T>(const DeviceHierarchy<T>&, const DeviceBuffer<T>&,      \
                                         const DeviceBuffer<T>&, index_t, const SolveOptions&,   \
                                         const char*);                                           \
  template void vcycle<T>(const DeviceHierarchy<T>&, const DeviceBuffer<T>&, DeviceBuffer<T>&);  \
  template void vcycle_from_zero<T>(const DeviceHierarchy<T>&, const DeviceBuffer<T>&,           \
                                    DeviceBuffer<T>&);                                           \
  template SolveResult vcycle_solve<T>(const DeviceHierarchy<T>&, const DeviceBuffer<T>&,        \
                                       DeviceBuffer<T>&, const SolveOptions&);                   \
  template void smooth_from_zero_with_residual<T>(const DeviceLevel<T>&, const DeviceBuffer<T>&, \
                                                  DeviceBuffer<T>&, DeviceBuffer<T>&,            \
                                                  cudaStream_t);                                 \
  template void prolong_and_correct<T>(const DeviceCsr<T>&, const DeviceBuffer<T>&,              \
                                       DeviceBuffer<T>&, cudaStream_t);                          \
  template void smooth_from_zero_with_residual<T>(const DeviceLevel<T>&, const DeviceBuffer<T>&, \
                                                  DeviceBuffer<T>&, DeviceBuffer<T>&, index_t,   \
                                                  cudaStream_t);                                 \
  template void prolong_and_correct<T>(const DeviceCsr<T>&, const DeviceBuffer<T>&,              \
                                       DeviceBuffer<T>&, index_t, cudaStream_t);                 \
  template void vcycle_from_zero<T>(const DeviceHierarchy<T>&, const DeviceBuffer<T>&,           \
                                    DeviceBuffer<T>&, index_t, DeviceCycleWorkspace<T>&, T*);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
