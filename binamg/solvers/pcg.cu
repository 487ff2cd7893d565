// GPU twin of V-cycle-preconditioned conjugate gradients.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "binamg/core/read_back.hpp"
#include "binamg/solvers/monitor.hpp"
#include "binamg/solvers/rhs_scaling.hpp"
#include "binamg/solvers/pcg.hpp"
#include "binamg/solvers/solve_steps.hpp"
#include "binamg/solvers/vcycle.hpp"
#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmv.hpp"
#include "binamg/vector/block_vector_ops.hpp"
#include "binamg/vector/convert.hpp"
#include "binamg/vector/vector_ops.hpp"

namespace binamg {
namespace {

// ‖v‖ from vᵀv, the root taken in the solve's precision (as the CPU does).
template <typename T>
double norm_of(T squared_norm) {
  return static_cast<double>(std::sqrt(squared_norm));
}

template <typename T>
void copy(const DeviceBuffer<T>& from, DeviceBuffer<T>& to, cudaStream_t stream) {
  BINAMG_CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), sizeof(T) * from.size(),
                                    cudaMemcpyDeviceToDevice, stream));
}

// x times 2^by[j] per column, finished on return (a rescaled solve's x).
template <typename T>
void scale_in_place(DeviceBuffer<T>& x, index_t k, const std::vector<int>& by,
                    cudaStream_t stream) {
  scale_columns(x, k, by, stream);
  BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream));
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

// The scalars of one iteration, in device memory and read back together: rᵀz
// alternates between two slots (the iteration uses one while the next is formed).
template <typename T>
struct CgScalars {
  T pq, rr, rz[2];
};

// CG on A (device vectors, ordered on `stream`), z = M r and *rz = rᵀz (device
// memory) by precondition(r, z, rz, scratch), with `scratch` the iteration's
// partial sums. Right-hand sides are rescaled where their norms leave Range's
// safe span (rhs_scaling.hpp): Range is the precision the preconditioner works in.
// An iteration makes 8 passes over vectors besides the cycle and q = A p: pᵀq is
// formed by the SpMV (row-split), rᵀz by the cycle's last pass, and x takes each
// step in the pass that forms the next direction.
template <typename Range, typename T, typename Precondition>
SolveResult preconditioned_cg(const DeviceCsr<T>& A, cudaStream_t stream,
                              Precondition& precondition, const DeviceBuffer<T>& b,
                              DeviceBuffer<T>& x, const SolveOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const double b_norm = norm2(b, stream);
  const std::vector<int> exponents = solver_detail::rhs_exponents<Range>({b_norm});
  if (solver_detail::any_rescaled(exponents))
    return solver_detail::solve_rescaled<SolveResult>(
        exponents, [&](const std::vector<int>& down) { return scaled_copy(b, 1, down, stream); },
        [&](const std::vector<int>& by) { scale_in_place(x, 1, by, stream); },
        [&](const DeviceBuffer<T>& scaled_b) {
          return preconditioned_cg<Range>(A, stream, precondition, scaled_b, x, options);
        });
  SolveMonitor monitor("pcg", options, b_norm, std::numeric_limits<T>::epsilon());
  if (monitor.zero_rhs()) {  // x = 0 solves it exactly
    BINAMG_CUDA_CHECK(cudaMemsetAsync(x.data(), 0, sizeof(T) * x.size(), stream));
    BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream));
    return monitor.finish(0, milliseconds_since(start));
  }
  // Every buffer of the iteration is allocated here, none inside the loop.
  const std::size_t n = A.rows;
  DeviceBuffer<T> r(n, stream, "pcg r"), z(n, stream, "pcg z"), p(n, stream, "pcg p"),
      q(n, stream, "pcg q");
  DeviceBuffer<T> scratch(std::max(reduction_scratch_size(A.rows), column_dots_scratch_size(A, 1)),
                          stream, "pcg reduction scratch");
  DeviceBuffer<CgScalars<T>> device_scalars(1, stream, "pcg scalars");
  CgScalars<T>* const s = device_scalars.data();
  // Every read-back takes all the scalars, some not yet formed: zeroed, not uninitialized.
  BINAMG_CUDA_CHECK(cudaMemsetAsync(s, 0, sizeof(CgScalars<T>), stream));
  CgScalars<T> host{};
  auto read_scalars = [&] {  // the one synchronisation of an iteration
    host = read_back(s, stream);
  };
  // q = A p and pᵀq: in one pass where the row-split SpMV is A's kernel; where
  // a few long rows give the merge-based one (spmm_algorithm_for), two passes.
  const bool fused_product =
      spmm_algorithm_for(A.rows, A.nnz(), A.max_row_length, 1) == SpmmAlgorithm::row_split;
  auto product = [&] {
    if (fused_product)
      return spmm_with_column_dots(A, p.data(), 1, q.data(), &s->pq, scratch, stream);
    spmv(A, p.data(), q.data(), stream);
    dot(p, q, &s->pq, scratch, stream);
  };
  residual(A, x.data(), b.data(), r.data(), stream);
  dot(r, r, &s->rr, scratch, stream);
  read_scalars();
  monitor.start(norm_of(host.rr));
  // CG from r; where its own residual met the tolerance but b − Ax does not
  // (rounding drift), it starts again from b − Ax (SolveMonitor::restart).
  double true_norm = -1;
  while (monitor.active()) {
    precondition(r, z, &s->rz[0], scratch);
    copy(z, p, stream);
    int slot = 0;  // rz[slot] = r'z of the current direction
    while (true) {
      product();
      cg_residual_update(&s->rz[slot], &s->pq, q, r, &s->rr, scratch, stream);
      // Where this step will very likely not end the solve, the next cycle is
      // queued before its scalars are read, so the device does not wait for
      // the host's read and launch (a wrong guess wastes that one cycle: it
      // writes z and the other rᵀz slot only, which the last step ignores).
      const bool cycle_queued = monitor.likely_active_after_next();
      if (cycle_queued) {
        PendingRead read(s, sizeof(CgScalars<T>), stream);
        precondition(r, z, &s->rz[1 - slot], scratch);
        read.wait(&host);
      } else {
        read_scalars();
      }
      // Checked in the order the host-side iteration checks them; a breakdown
      // has by now also updated r with a meaningless step, but it throws.
      monitor.require_positive(host.rz[slot], "r'z", monitor.iterations());
      monitor.require_positive(host.pq, "p'Ap", monitor.iterations() + 1);
      monitor.step(norm_of(host.rr));
      if (!monitor.active()) {
        cg_last_step(&s->rz[slot], &s->pq, p, x, stream);
        break;
      }
      if (!cycle_queued) precondition(r, z, &s->rz[1 - slot], scratch);
      // x += α p, then p = z + β p
      cg_direction(&s->rz[1 - slot], &s->rz[slot], &s->pq, z, p, x, stream);
      slot = 1 - slot;
    }
    residual(A, x.data(), b.data(), r.data(), stream);
    true_norm = norm2(r, stream);
    monitor.restart(true_norm);
  }
  if (true_norm < 0) {  // no iteration
    residual(A, x.data(), b.data(), r.data(), stream);
    true_norm = norm2(r, stream);
  }
  BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream));
  return monitor.finish(true_norm, milliseconds_since(start));
}

template <typename T>
SolveResult pcg(const DeviceHierarchy<T>& h, const DeviceBuffer<T>& b, DeviceBuffer<T>& x,
                const SolveOptions& options) {
  validate_solve_inputs(h, b, x, options, "pcg");
  auto cycle = [&](const DeviceBuffer<T>& r, DeviceBuffer<T>& z, T* rz, DeviceBuffer<T>&) {
    vcycle_from_zero(h, r, z, 1, h.workspace, rz);
  };
  return preconditioned_cg<T>(h.matrix(0), h.stream, cycle, b, x, options);
}

SolveResult pcg(const DeviceHierarchy<float>& h, const DeviceCsr<double>& A,
                const DeviceBuffer<double>& b, DeviceBuffer<double>& x,
                const SolveOptions& options) {
  const std::size_t n = A.rows;
  require(A.rows == h.matrix(0).rows && A.cols == A.rows,
          "pcg: the double matrix has " + std::to_string(A.rows) + " rows, the float hierarchy " +
              std::to_string(h.matrix(0).rows));
  require(b.size() == n && x.size() == n, "pcg: b and x must have " + std::to_string(n) +
                                              " entries");
  require_finite_entries(b, x, "pcg", h.stream);
  validate(options, "pcg");
  DeviceBuffer<float> r_float(n, h.stream, "mixed pcg r"), z_float(n, h.stream, "mixed pcg z");
  auto cycle = [&](const DeviceBuffer<double>& r, DeviceBuffer<double>& z, double* rz,
                   DeviceBuffer<double>& scratch) {
    convert(r, r_float, h.stream);
    vcycle_from_zero(h, r_float, z_float);
    widen_with_dot(z_float, z, r, rz, scratch, h.stream);
  };
  return preconditioned_cg<float>(A, h.stream, cycle, b, x, options);
}

template <typename T>
BlockSolveResult pcg(const DeviceHierarchy<T>& h, const DeviceBuffer<T>& b, DeviceBuffer<T>& x,
                     index_t k, const SolveOptions& options) {
  if (k == 1) {  // the vector iteration, with its fused kernels
    BlockSolveResult single;
    single.columns = {pcg(h, b, x, options)};
    single.solve_ms = single.columns[0].solve_ms;
    return single;
  }
  validate_solve_inputs(h, b, x, k, options, "pcg");
  const auto start = std::chrono::steady_clock::now();
  const DeviceCsr<T>& A = h.matrix(0);
  cudaStream_t stream = h.stream;
  const index_t n = A.rows;
  const std::size_t entries = std::size_t(n) * k;
  const std::vector<double> b_norm = column_norms(b, k, stream);
  const std::vector<int> exponents = solver_detail::rhs_exponents<T>(b_norm);
  if (solver_detail::any_rescaled(exponents))
    return solver_detail::solve_rescaled<BlockSolveResult>(
        exponents, [&](const std::vector<int>& down) { return scaled_copy(b, k, down, stream); },
        [&](const std::vector<int>& by) { scale_in_place(x, k, by, stream); },
        [&](const DeviceBuffer<T>& scaled_b) { return pcg(h, scaled_b, x, k, options); });

  // Every buffer of the iteration is allocated here, none inside the loop. The
  // per-column scalars sit in one device array read back at once: pq, rr, then
  // r'z in two slots (the iteration uses one while the next is formed).
  DeviceBuffer<T> r(entries, stream, "block pcg r"), z(entries, stream, "block pcg z"),
      p(entries, stream, "block pcg p"), q(entries, stream, "block pcg q");
  // The cycle's scratch, made once per solve, also holds the partial sums of
  // every block reduction here (they never run during a cycle).
  DeviceCycleWorkspace<T> work = cycle_workspace(h, k);
  DeviceBuffer<T>& scratch = work.column_partials;
  DeviceBuffer<T> device_scalars(std::size_t(4) * k, stream, "block pcg scalars");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(device_scalars.data(), 0, sizeof(T) * device_scalars.size(),
                                    stream));  // read back whole before all are formed
  T* const pq = device_scalars.data();
  T* const rr = pq + k;
  T* const rz[2] = {pq + 2 * k, pq + 3 * k};
  std::vector<T> host(std::size_t(4) * k);
  auto read_scalars = [&] {  // the one synchronisation of an iteration
    read_back(host.data(), device_scalars.data(), sizeof(T) * host.size(), stream);
  };
  auto host_scalar = [&](const T* device, index_t j) { return host[(device - pq) + j]; };
  // Flags of the columns still iterating, on the device in two slots: the
  // iteration's own, and the next one's once a column stops (the deferred x step
  // of the iteration still needs the old flags).
  std::vector<int> active(k, 0);
  DeviceBuffer<int> device_flags(std::size_t(2) * k, stream, "block pcg active columns");
  int* device_active = device_flags.data();
  int* device_next = device_active + k;
  auto upload_active = [&](int* to) {  // pageable: `active` may change once it returns
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(to, active.data(), sizeof(int) * k,
                                      cudaMemcpyHostToDevice, stream));
  };

  std::vector<SolveMonitor> monitor =
      column_monitors("pcg", options, b_norm, std::numeric_limits<T>::epsilon());
  if (std::find(b_norm.begin(), b_norm.end(), 0.0) != b_norm.end()) {
    // Rare: x = 0 solves the columns whose b is 0 exactly (a round trip, once).
    std::vector<T> host_x = to_host(x);
    for (index_t j = 0; j < k; ++j)
      if (monitor[j].zero_rhs())
        for (std::size_t i = 0; i < std::size_t(n); ++i) host_x[i * k + j] = T(0);
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(x.data(), host_x.data(), sizeof(T) * entries,
                                      cudaMemcpyHostToDevice, stream));
    BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream));  // host_x dies here
  }
  residual(A, x.data(), b.data(), k, r.data(), stream);
  column_dots(r, r, k, rr, scratch, stream);
  read_scalars();
  bool any_active = false;
  for (index_t j = 0; j < k; ++j) {
    monitor[j].start(norm_of(host_scalar(rr, j)));
    active[j] = monitor[j].active();
    any_active = any_active || active[j];
  }

  // The iteration of the block CG in the fewest block passes: q = A p with pᵀq
  // in one, r −= αq with ‖r‖² in the next, rᵀz formed by the V-cycle's last
  // sweep, and the x step deferred into the pass that turns p (x += αp and
  // p = z + βp read p once). Each column's scalars and bits are those of the
  // separate operations.
  // CG from r; where a column's own residual met the tolerance but b − Ax does
  // not (rounding drift), it starts again from b − Ax (SolveMonitor::restart).
  std::vector<double> true_norm;
  while (any_active) {
    upload_active(device_active);
    vcycle_from_zero(h, r, z, k, work, rz[0]);
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(p.data(), z.data(), sizeof(T) * entries,
                                      cudaMemcpyDeviceToDevice, stream));
    int slot = 0;
    while (true) {
      spmm_with_column_dots(A, p.data(), k, q.data(), pq, scratch, stream);
      block_cg_residual_update(device_active, rz[slot], pq, q, r, rr, k, scratch, stream);
      read_scalars();
      bool changed = false;
      any_active = false;
      for (index_t j = 0; j < k; ++j) {
        if (!active[j]) continue;
        SolveMonitor& column = monitor[j];
        column.require_positive(host_scalar(rz[slot], j), "r'z", column.iterations());
        column.require_positive(host_scalar(pq, j), "p'Ap", column.iterations() + 1);
        column.step(norm_of(host_scalar(rr, j)));
        active[j] = column.active();
        changed = changed || !active[j];
        any_active = any_active || active[j];
      }
      if (!any_active) {
        block_cg_step(device_active, rz[slot], pq, p, x, k, stream);
        break;
      }
      if (changed) upload_active(device_next);
      vcycle_from_zero(h, r, z, k, work, rz[1 - slot]);
      block_cg_step_and_direction(device_active, changed ? device_next : device_active,
                                  rz[1 - slot], rz[slot], pq, z, p, x, k, stream);
      if (changed) std::swap(device_active, device_next);
      slot = 1 - slot;
    }
    residual(A, x.data(), b.data(), k, r.data(), stream);
    true_norm = column_norms(r, k, stream);
    for (index_t j = 0; j < k; ++j) {
      monitor[j].restart(true_norm[j]);
      active[j] = monitor[j].active();
      any_active = any_active || active[j];
    }
  }
  if (true_norm.empty()) {  // no iteration
    residual(A, x.data(), b.data(), k, r.data(), stream);
    true_norm = column_norms(r, k, stream);
  }
  BlockSolveResult result;
  result.solve_ms = milliseconds_since(start);
  for (index_t j = 0; j < k; ++j)
    result.columns.push_back(monitor[j].finish(true_norm[j], result.solve_ms));
  return result;
}

template SolveResult pcg<float>(const DeviceHierarchy<float>&, const DeviceBuffer<float>&,
                                DeviceBuffer<float>&, const SolveOptions&);
template SolveResult pcg<double>(const DeviceHierarchy<double>&, const DeviceBuffer<double>&,
                                 DeviceBuffer<double>&, const SolveOptions&);
template BlockSolveResult pcg<float>(const DeviceHierarchy<float>&, const DeviceBuffer<float>&,
                                     DeviceBuffer<float>&, index_t, const SolveOptions&);
template BlockSolveResult pcg<double>(const DeviceHierarchy<double>&,
                                      const DeviceBuffer<double>&, DeviceBuffer<double>&, index_t,
                                      const SolveOptions&);

}  // namespace binamg
