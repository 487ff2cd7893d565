// The V-cycle's smallest levels in one launch (tail_cycle.hpp): the host walks
// those levels as vcycle.cu's cycle() does, records each step with the buffers
// it would use, and launches one cluster that runs the steps in order.
#include <cooperative_groups.h>

#include <cstdint>
#include <string>

#include "binamg/core/cuda_check.hpp"
#include "binamg/core/error.hpp"
#include "binamg/core/rounded_product.cuh"
#include "binamg/smoothers/chebyshev.hpp"
#include "binamg/solvers/tail_cycle.hpp"
#include "binamg/spmv/row_split.cuh"
#include "binamg/spmv/row_stream.cuh"
#include "binamg/spmv/spmm.hpp"

namespace binamg::tail_cycle {
namespace {

// One cluster of the largest portable size, a full block per SM: the steps
// of a coarse level then spread over 8 SMs, and the cluster's barrier is the
// hardware's.
constexpr int cluster_blocks = 8;
constexpr int block_threads = 1024;
constexpr int max_steps = 64;  // recorded as a kernel parameter (~7 KB)
constexpr int warp = 32;

enum class Kind : int { zero, first, rows, inverse };

// What a row's sum becomes (the epilogues of the launch-per-step kernels).
enum class Finish : int { store, residual, correct, chebyshev, jacobi };

// One step. rows: out[row] from Σ values·gather over the row, by `finish`;
// first: out = beta·diagonal·b (and direction, when non-null), the first
// smoothing step from zero; zero: out = 0; inverse: out = values·gather with
// values the coarse matrix's row-major inverse.
template <typename T>
struct Step {
  Kind kind;
  Finish finish;
  int lanes;         // rows: lanes per row, row_stream's for the matrix
  bool staged;       // rows: row_stream stages the products (rounded before they are added)
  bool first, last;  // chebyshev: the application's first and last step
  index_t rows;
  const index_t* row_ptr;
  const index_t* col_idx;
  const T* values;
  const T* gather;
  const T* b;
  const T* diagonal;
  const T* x;
  T* out;
  T* direction;
  T alpha, beta;
};

template <typename T>
struct Program {
  int count = 0;
  Step<T> steps[max_steps];
};

// Vectors the launch itself writes are read from L2 (ld.global.cg): another
// SM of the cluster may have written them since this SM last cached the line.
template <typename T>
__device__ T fresh(const T* p) {
  return __ldcg(p);
}

// The epilogues' arithmetic as chebyshev.cu's, jacobi.cu's, spmv's and
// vcycle.cu's kernels write it.
template <typename T>
__device__ void finish_row(const Step<T>& s, index_t row, T sum) {
  switch (s.finish) {
    case Finish::store: s.out[row] = sum; break;
    case Finish::residual: s.out[row] = fresh(s.b + row) - sum; break;
    case Finish::correct: s.out[row] = fresh(s.out + row) + sum; break;
    case Finish::chebyshev: {
      const T step = s.beta * fresh(s.diagonal + row) * (fresh(s.b + row) - sum);
      const T d = s.first ? step : s.alpha * fresh(s.direction + row) + step;
      if (!s.last) s.direction[row] = d;
      s.out[row] = fresh(s.x + row) + d;
      break;
    }
    case Finish::jacobi:
      s.out[row] = fresh(s.x + row) + s.beta * fresh(s.diagonal + row) * (fresh(s.b + row) - sum);
      break;
  }
}

// G lanes per row, lane l adding entries l, l + G, ... and the group its
// partials in a shuffle-down tree: row_stream's staged order (products rounded
// on their own, as staging them in shared memory rounds them) or its warp per
// row (row_split::row_sum's expression).
template <typename T, int G>
__device__ void rows_step(const Step<T>& s, unsigned thread, unsigned threads) {
  const unsigned lane = thread % G;
  const unsigned mask = row_split::group_mask<G>();
  for (index_t row = thread / G; row < s.rows; row += threads / G) {
    const index_t begin = s.row_ptr[row], end = s.row_ptr[row + 1];
    T sum = 0;
    if (s.staged) {
      for (index_t e = begin + lane; e < end; e += G)
        sum += rounded_product(s.values[e], fresh(s.gather + s.col_idx[e]));
    } else {
      for (index_t e = begin + lane; e < end; e += G) {
        const T x = fresh(s.gather + s.col_idx[e]);
        sum += s.values[e] * x;
      }
    }
    if constexpr (G > 1) {
#pragma unroll
      for (int offset = G / 2; offset > 0; offset /= 2)
        sum += __shfl_down_sync(mask, sum, offset, G);
    }
    if (lane == 0) finish_row(s, row, sum);
  }
}

// The coarse solve as DeviceCoarseSolver's apply_inverse<T, 1>: a warp per
// row, lane l adding inverse(row, j)·b[j] by fma over j ≡ l (mod 32), then an
// xor-shuffle tree.
template <typename T>
__device__ void inverse_step(const Step<T>& s, unsigned thread, unsigned threads) {
  const unsigned lane = thread % warp;
  for (index_t row = thread / warp; row < s.rows; row += threads / warp) {
    const T* inverse_row = s.values + std::size_t(row) * s.rows;
    T sum = T(0);
    for (index_t j = lane; j < s.rows; j += warp)
      sum = fma(inverse_row[j], fresh(s.gather + j), sum);
    for (int offset = warp / 2; offset > 0; offset /= 2)
      sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (lane == 0) s.out[row] = sum;
  }
}

template <typename T>
__device__ void run_step(const Step<T>& s, unsigned thread, unsigned threads) {
  switch (s.kind) {
    case Kind::zero:
      for (index_t i = thread; i < s.rows; i += threads) s.out[i] = T(0);
      return;
    case Kind::first:
      for (index_t i = thread; i < s.rows; i += threads) {
        const T d = s.beta * s.diagonal[i] * fresh(s.b + i);
        if (s.direction) s.direction[i] = d;
        s.out[i] = d;
      }
      return;
    case Kind::inverse: return inverse_step(s, thread, threads);
    case Kind::rows:
      switch (s.lanes) {
        case 1: return rows_step<T, 1>(s, thread, threads);
        case 2: return rows_step<T, 2>(s, thread, threads);
        case 4: return rows_step<T, 4>(s, thread, threads);
        case 8: return rows_step<T, 8>(s, thread, threads);
        case 16: return rows_step<T, 16>(s, thread, threads);
        default: return rows_step<T, 32>(s, thread, threads);
      }
  }
}

template <typename T>
__global__ void __launch_bounds__(block_threads)
    tail_kernel(const __grid_constant__ Program<T> program) {
  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  const unsigned thread = cluster.block_rank() * blockDim.x + threadIdx.x;
  const unsigned threads = cluster.num_blocks() * blockDim.x;
  for (int i = 0; i < program.count; ++i) {
    run_step(program.steps[i], thread, threads);
    // Release and acquire at the cluster's scope: the step's stores are seen
    // by the next step's L2 reads on every SM.
    cluster.sync();
  }
}

// Whether M's rows can be summed by rows_step as its own kernels sum them: a
// row_stream launch without long rows or coded values, and the row-split
// SpMV for the residual and the restriction (not the merge-based one).
template <typename T>
bool replicable(const DeviceCsr<T>& M, std::int64_t max_entries) {
  return M.rows > 0 && M.nnz() <= max_entries && M.max_row_length >= 0 &&
         row_split::long_rows_of(M, row_stream::long_row_lanes) == row_split::no_long_rows &&
         spmm_algorithm_for(M.rows, M.nnz(), M.max_row_length, 1) == SpmmAlgorithm::row_split &&
         !M.coded.describe(M.values);
}

bool chebyshev_kind(const AmgParameters& p) { return p.smoother == SmootherKind::chebyshev; }

// Steps of one smoothing: `sweeps` applications (none from zero: one zeroing).
int smoothing_steps(const AmgParameters& p, int sweeps, bool zero_guess) {
  if (sweeps == 0) return zero_guess ? 1 : 0;
  return sweeps * (chebyshev_kind(p) ? p.chebyshev_degree : 1);
}

// A level's steps: pre-smoothing, residual, restriction, correction, post-smoothing.
int level_steps(const AmgParameters& p) {
  return smoothing_steps(p, p.presweeps, true) + 3 + smoothing_steps(p, p.postsweeps, false);
}

template <typename T>
Step<T> rows_of(const DeviceCsr<T>& M, const T* gather, Finish finish, T* out) {
  Step<T> s{};
  s.kind = Kind::rows;
  s.finish = finish;
  s.lanes = row_stream::lanes_per_row(M.rows, M.nnz());
  s.staged = row_stream::staged(M.rows, M.nnz());
  s.rows = M.rows;
  s.row_ptr = M.row_ptr.data();
  s.col_idx = M.col_idx.data();
  s.values = M.values.data();
  s.gather = gather;
  s.out = out;
  return s;
}

// Walks levels l, l + 1, ... as cycle() in vcycle.cu does for k = 1 from a
// zero guess, recording each step and swapping the buffers it swaps.
template <typename T>
class Recorder {
 public:
  explicit Recorder(const DeviceHierarchy<T>& h) : h_(h), work_(h.workspace) {}

  void cycle(std::size_t l, const DeviceBuffer<T>& b, DeviceBuffer<T>& x) {
    if (l == h_.levels.size()) {
      Step<T> s{};
      s.kind = Kind::inverse;
      s.rows = h_.coarse.rows();
      s.values = h_.coarse.inverse();
      s.gather = b.data();
      s.out = x.data();
      return push(s);
    }
    const DeviceLevel<T>& level = h_.levels[l];
    const AmgParameters& p = h_.parameters;
    DeviceBuffer<T>& r = work_.residual[l];
    smooth(level, b, x, p.presweeps, true, r, l);
    Step<T> residual = rows_of(level.A, x.data(), Finish::residual, r.data());
    residual.b = b.data();
    push(residual);
    push(rows_of(level.R, r.data(), Finish::store, work_.rhs[l + 1].data()));
    cycle(l + 1, work_.rhs[l + 1], work_.solution[l + 1]);
    push(rows_of(level.P, work_.solution[l + 1].data(), Finish::correct, x.data()));
    smooth(level, b, x, p.postsweeps, false, r, l);
  }

  const Program<T>& program() const { return program_; }

 private:
  void push(const Step<T>& s) {
    require(program_.count < max_steps, "tail_cycle: more steps than the launch records");
    program_.steps[program_.count++] = s;
  }

  // smoother_detail::smooth for k = 1: Chebyshev's steps (the first from zero
  // without a product), or Jacobi's sweeps (the first from zero likewise);
  // each step with a product writes `scratch`, which then swaps with x.
  void smooth(const DeviceLevel<T>& level, const DeviceBuffer<T>& b, DeviceBuffer<T>& x, int sweeps,
              bool zero_guess, DeviceBuffer<T>& scratch, std::size_t l) {
    const AmgParameters& p = h_.parameters;
    const bool chebyshev = chebyshev_kind(p) && sweeps > 0;
    if (!chebyshev && zero_guess && sweeps == 0) {
      Step<T> s{};
      s.kind = Kind::zero;
      s.rows = level.A.rows;
      s.out = x.data();
      return push(s);
    }
    const ChebyshevSteps steps =
        chebyshev ? chebyshev_steps(level.spectral_radius, p.chebyshev_degree, p.chebyshev_lower)
                  : ChebyshevSteps{};
    const int per_sweep = chebyshev ? steps.degree : 1;
    for (int sweep = 0; sweep < sweeps; ++sweep)
      for (int i = 0; i < per_sweep; ++i) {
        const bool last = i + 1 == per_sweep;
        const T beta = chebyshev ? static_cast<T>(steps.beta[i]) : level.jacobi_weight;
        if (zero_guess && sweep == 0 && i == 0) {
          Step<T> s{};
          s.kind = Kind::first;
          s.rows = level.A.rows;
          s.diagonal = level.inverse_diagonal.data();
          s.beta = beta;
          s.b = b.data();
          s.out = x.data();
          s.direction = chebyshev && !last ? work_.direction[l].data() : nullptr;
          push(s);
          continue;
        }
        Step<T> s = rows_of(level.A, x.data(), chebyshev ? Finish::chebyshev : Finish::jacobi,
                            scratch.data());
        s.b = b.data();
        s.x = x.data();
        s.diagonal = level.inverse_diagonal.data();
        s.beta = beta;
        if (chebyshev) {
          s.alpha = static_cast<T>(steps.alpha[i]);
          s.first = i == 0;
          s.last = last;
          s.direction = work_.direction[l].data();
        }
        push(s);
        x.swap(scratch);
      }
  }

  const DeviceHierarchy<T>& h_;
  DeviceCycleWorkspace<T>& work_;
  Program<T> program_;
};

}  // namespace

template <typename T>
std::size_t first_level(const DeviceHierarchy<T>& h) {
  const std::size_t none = h.levels.size() + 1;
  const std::int64_t limit = h.parameters.tail_launch_entries;
  const index_t n = h.coarse.rows();
  if (limit <= 0 || h.levels.size() < 2 || h.coarse.inverse() == nullptr ||
      std::int64_t(n) * n > limit)
    return none;
  int steps = 1;  // the coarse solve
  std::size_t first = none;
  for (std::size_t l = h.levels.size() - 1; l >= 1; --l) {
    const DeviceLevel<T>& level = h.levels[l];
    steps += level_steps(h.parameters);
    if (steps > max_steps || !replicable(level.A, limit) || !replicable(level.P, limit) ||
        !replicable(level.R, limit))
      break;
    first = l;
  }
  return first;
}

template <typename T>
void run(const DeviceHierarchy<T>& h, std::size_t level, const DeviceBuffer<T>& b,
         DeviceBuffer<T>& x) {
  require(level >= 1 && level < h.levels.size() &&
              b.size() == std::size_t(h.levels[level].A.rows) && x.size() == b.size(),
          "tail_cycle::run: level " + std::to_string(level) +
              " and the sizes of b and x must "
              "name one of the hierarchy's levels");
  Recorder<T> recorder(h);
  recorder.cycle(level, b, x);
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(cluster_blocks);
  config.blockDim = dim3(block_threads);
  config.stream = h.stream;
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = cluster_blocks;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  BINAMG_CUDA_CHECK(cudaLaunchKernelEx(&config, tail_kernel<T>, recorder.program()));
  BINAMG_CHECK_LAUNCH();
}

template std::size_t first_level<float>(const DeviceHierarchy<float>&);
template std::size_t first_level<double>(const DeviceHierarchy<double>&);
template void run<float>(const DeviceHierarchy<float>&, std::size_t, const DeviceBuffer<float>&,
                         DeviceBuffer<float>&);
template void run<double>(const DeviceHierarchy<double>&, std::size_t, const DeviceBuffer<double>&,
                          DeviceBuffer<double>&);

}  // namespace binamg::tail_cycle
