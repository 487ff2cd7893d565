// GPU twin of V-cycle-preconditioned conjugate gradients.
#include <chrono>
#include <cmath>
#include <string>

#include "solvers/pcg.hpp"
#include "solvers/vcycle.hpp"
#include "sparse/spmv.hpp"
#include "sparse/vector_ops.hpp"

namespace binamg {
namespace {

void require_positive(double value, const char* what, int iteration) {
  require(std::isfinite(value), std::string("pcg: ") + what + " is not finite at iteration " +
                                    std::to_string(iteration));
  require(value > 0, std::string("pcg: breakdown, ") + what + " = " + std::to_string(value) +
                         " <= 0 at iteration " + std::to_string(iteration) +
                         " (the matrix or the V-cycle is not positive definite)");
}

template <typename T>
void copy(const DeviceBuffer<T>& from, DeviceBuffer<T>& to, cudaStream_t stream) {
  BINAMG_CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), sizeof(T) * from.size(),
                                    cudaMemcpyDeviceToDevice, stream));
}

}  // namespace

// The scalars of one iteration, in device memory and read back together: rᵀz
// alternates between two slots (the iteration uses one while the next is formed).
template <typename T>
struct CgScalars {
  T pq, rr, rz[2];
};

template <typename T>
SolveResult pcg(const DeviceHierarchy<T>& h, const DeviceBuffer<T>& b, DeviceBuffer<T>& x,
                const SolveOptions& options) {
  validate_solve_inputs(h, b, x, options, "pcg");
  const auto start = std::chrono::steady_clock::now();
  const DeviceCsr<T>& A = h.matrix(0);
  cudaStream_t stream = h.stream;
  SolveResult result;
  const double b_norm = norm2(b, stream);
  if (b_norm == 0) {
    BINAMG_CUDA_CHECK(cudaMemsetAsync(x.data(), 0, sizeof(T) * x.size(), stream));
    result.converged = true;
    result.residual_history = {0.0};
  } else {
    // Every buffer of the iteration is allocated here, none inside the loop.
    const std::size_t n = A.rows;
    DeviceBuffer<T> r(n, stream, "pcg r"), z(n, stream, "pcg z"), p(n, stream, "pcg p"),
        q(n, stream, "pcg q");
    DeviceBuffer<T> scratch(reduction_scratch_size(A.rows), stream, "pcg reduction scratch");
    DeviceBuffer<CgScalars<T>> device_scalars(1, stream, "pcg scalars");
    CgScalars<T>* const s = device_scalars.data();
    CgScalars<T> host{};
    auto read_scalars = [&] {  // the one synchronisation of an iteration
      BINAMG_CUDA_CHECK(cudaMemcpyAsync(&host, s, sizeof host, cudaMemcpyDeviceToHost, stream));
      BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream));
    };
    residual(A, x.data(), b.data(), r.data(), stream);
    dot(r, r, &s->rr, scratch, stream);
    read_scalars();
    result.residual_history.push_back(std::sqrt(host.rr) / b_norm);
    if (result.residual_history.back() > options.tolerance && options.max_iterations > 0) {
      vcycle_from_zero(h, r, z);
      copy(z, p, stream);
      dot(r, z, &s->rz[0], scratch, stream);
      int slot = 0;  // rz[slot] = r'z of the current direction
      while (true) {
        spmv(A, p.data(), q.data(), stream);
        dot(p, q, &s->pq, scratch, stream);
        cg_update(&s->rz[slot], &s->pq, p, q, x, r, &s->rr, scratch, stream);
        read_scalars();
        // Checked in the order the host-side iteration checks them; a breakdown
        // has by now also updated x and r with a meaningless step, but it throws.
        require_positive(host.rz[slot], "r'z", result.iterations);
        require_positive(host.pq, "p'Ap", result.iterations + 1);
        ++result.iterations;
        const double relative = std::sqrt(host.rr) / b_norm;
        require(std::isfinite(relative), "pcg: the residual became non-finite at iteration " +
                                             std::to_string(result.iterations));
        result.residual_history.push_back(relative);
        if (relative <= options.tolerance || result.iterations >= options.max_iterations) break;
        vcycle_from_zero(h, r, z);
        dot(r, z, &s->rz[1 - slot], scratch, stream);
        cg_direction(&s->rz[1 - slot], &s->rz[slot], z, p, stream);  // p = z + β p
        slot = 1 - slot;
      }
    }
    result.converged = result.residual_history.back() <= options.tolerance;
    residual(A, x.data(), b.data(), r.data(), stream);
    result.relative_residual = norm2(r, stream) / b_norm;
  }
  BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream));
  result.solve_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

template SolveResult pcg<float>(const DeviceHierarchy<float>&, const DeviceBuffer<float>&,
                                DeviceBuffer<float>&, const SolveOptions&);
template SolveResult pcg<double>(const DeviceHierarchy<double>&, const DeviceBuffer<double>&,
                                 DeviceBuffer<double>&, const SolveOptions&);

}  // namespace binamg
