// The GPU setup of the smoothed-aggregation hierarchy: the algorithm of
// amg/hierarchy.cpp with every matrix kept on the device.
#include <chrono>
#include <cmath>
#include <string>

#include "binamg/amg/aggregation.hpp"
#include "binamg/amg/galerkin.hpp"
#include "binamg/amg/hierarchy.hpp"
#include "binamg/amg/prolongation.hpp"
#include "binamg/amg/spectral_radius.hpp"
#include "binamg/amg/strength.hpp"
#include "binamg/amg/tentative.hpp"
#include "binamg/smoothers/jacobi.hpp"
#include "binamg/vector/block_vector_ops.hpp"
#include "binamg/sparse/transpose.hpp"

namespace binamg {
namespace {

// As in hierarchy.cpp: aggregation keeping more than this fraction of the rows has stalled.
constexpr double stalled_coarsening_ratio = 0.9;

// Phase clock for asynchronous work: synchronises the stream before reading the
// host clock, so each phase is charged for its own kernels.
class StreamStopwatch {
 public:
  explicit StreamStopwatch(cudaStream_t stream) : stream_(stream) {
    BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream_));
    last_ = std::chrono::steady_clock::now();
  }
  void lap(double& total) {
    BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const auto now = std::chrono::steady_clock::now();
    total += std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
  }

 private:
  cudaStream_t stream_;
  std::chrono::steady_clock::time_point last_;
};

// `standard` aggregation is serial by definition (a greedy sweep in node order),
// so it is the one setup step done on the host: download S, aggregate, upload the ids.
template <typename T>
DeviceAggregates aggregate_on_device(const DeviceCsr<T>& S, AggregationMethod method,
                                     cudaStream_t stream) {
  if (method == AggregationMethod::mis2) return mis2_aggregation(S, stream);
  const Aggregates host = aggregate(to_host(S), method);
  DeviceAggregates device;
  device.aggregate_of = to_device(host.aggregate_of, stream);
  device.count = host.count;
  return device;
}

}  // namespace

template <typename T>
const DeviceCsr<T>& DeviceHierarchy<T>::matrix(index_t level) const {
  require(level >= 0 && level < num_levels(),
          "DeviceHierarchy::matrix: level " + std::to_string(level) + " does not exist");
  return level < static_cast<index_t>(levels.size()) ? levels[level].A : coarse_matrix;
}

template <typename T>
std::vector<LevelSize> DeviceHierarchy<T>::level_sizes() const {
  std::vector<LevelSize> sizes;
  for (index_t l = 0; l < num_levels(); ++l) sizes.push_back({matrix(l).rows, matrix(l).nnz});
  return sizes;
}

template <typename T>
DeviceHierarchy<T> build_hierarchy(const DeviceCsr<T>& A, const AmgParameters& parameters,
                                   cudaStream_t stream) {
  validate(parameters);
  require(A.rows == A.cols && A.rows > 0,
          "build_hierarchy: A must be square and non-empty, got " + std::to_string(A.rows) +
              " x " + std::to_string(A.cols));
  require_consistent(A, "build_hierarchy: A");
  DeviceHierarchy<T> h;
  h.parameters = parameters;
  h.stream = stream;
  // The fine matrix is copied once so that the hierarchy owns every level.
  DeviceCsr<T> current;
  current.rows = A.rows;
  current.cols = A.cols;
  current.nnz = A.nnz;
  current.max_row_length =
      A.max_row_length >= 0 ? A.max_row_length : max_row_length(A, stream);
  current.row_ptr = DeviceBuffer<index_t>(A.row_ptr.size(), stream, "hierarchy A row_ptr");
  current.col_idx = DeviceBuffer<index_t>(A.col_idx.size(), stream, "hierarchy A col_idx");
  current.values = DeviceBuffer<T>(A.values.size(), stream, "hierarchy A values");
  BINAMG_CUDA_CHECK(cudaMemcpyAsync(current.row_ptr.data(), A.row_ptr.data(),
                                    sizeof(index_t) * A.row_ptr.size(),
                                    cudaMemcpyDeviceToDevice, stream));
  if (A.nnz > 0) {
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(current.col_idx.data(), A.col_idx.data(),
                                      sizeof(index_t) * A.nnz, cudaMemcpyDeviceToDevice, stream));
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(current.values.data(), A.values.data(), sizeof(T) * A.nnz,
                                      cudaMemcpyDeviceToDevice, stream));
  }
  // Each level's diagonal is extracted and inverted (and so checked) once: the ρ
  // estimate and the prolongator divide by it, the smoother keeps the inverse.
  DeviceBuffer<T> diag = diagonal(current, stream);
  DeviceBuffer<T> inverse;
  try {
    inverse = inverse_diagonal(diag, stream);
  } catch (const InvalidInput& error) {
    throw InvalidInput(std::string("build_hierarchy: A: ") + error.what());
  }

  while (current.rows > parameters.max_coarse_rows &&
         static_cast<int>(h.levels.size()) + 1 < parameters.max_levels) {
    StreamStopwatch clock(stream);
    const DeviceCsr<T> S = strength(current, parameters.strength_threshold, stream);
    clock.lap(h.timings.strength_ms);
    const DeviceAggregates aggregates = aggregate_on_device(S, parameters.aggregation, stream);
    clock.lap(h.timings.aggregation_ms);
    if (aggregates.count > stalled_coarsening_ratio * current.rows) break;
    const DeviceCsr<T> tentative = tentative_prolongator<T>(aggregates, stream);
    clock.lap(h.timings.tentative_ms);

    const std::string name = "build_hierarchy: level " + std::to_string(h.levels.size());
    DeviceLevel<T> level;
    level.spectral_radius =
        spectral_radius_dinv_a(current, diag, parameters.spectral_radius_iterations, stream);
    require(level.spectral_radius > 0 && std::isfinite(level.spectral_radius),
            name + " has no usable estimate of rho(D^-1 A)");
    level.jacobi_weight = static_cast<T>(parameters.jacobi_weight / level.spectral_radius);
    level.inverse_diagonal = std::move(inverse);
    level.P = smoothed_prolongator(current, diag, tentative,
                                   parameters.prolongator_weight / level.spectral_radius, stream);
    // Each cycle's kernels skip the look for rows long enough to need a whole
    // block once the longest row is known (row_split::long_rows_of).
    level.P.max_row_length = max_row_length(level.P, stream);
    clock.lap(h.timings.prolongator_ms);
    level.R = transpose(level.P, stream);
    level.R.max_row_length = max_row_length(level.R, stream);
    clock.lap(h.timings.restriction_ms);
    DeviceCsr<T> coarser =
        galerkin_product(current, level.P, level.R, parameters.ordering, stream);
    coarser.max_row_length = max_row_length(coarser, stream);
    clock.lap(h.timings.galerkin_ms);
    diag = diagonal(coarser, stream);
    try {
      inverse = inverse_diagonal(diag, stream);  // the next smoother multiplies by it
    } catch (const InvalidInput& error) {
      throw InvalidInput("build_hierarchy: Galerkin matrix of level " +
                         std::to_string(h.levels.size() + 1) + ": " + error.what());
    }
    level.A = std::move(current);
    h.levels.push_back(std::move(level));
    current = std::move(coarser);
  }
  StreamStopwatch clock(stream);
  h.coarse.factor(to_host(current), stream);  // the one download of the setup
  h.coarse_matrix = std::move(current);
  clock.lap(h.timings.coarse_factor_ms);

  h.workspace = cycle_workspace(h, 1);
  return h;
}

template <typename T>
DeviceCycleWorkspace<T> cycle_workspace(const DeviceHierarchy<T>& h, index_t k) {
  require(k > 0, "cycle_workspace: the number of right-hand sides must be positive");
  const std::size_t count = h.num_levels();
  DeviceCycleWorkspace<T> work;
  work.residual.resize(count);
  work.rhs.resize(count);
  work.solution.resize(count);
  for (std::size_t l = 0; l < count; ++l) {
    const std::size_t entries = std::size_t(h.matrix(static_cast<index_t>(l)).rows) * k;
    if (l < h.levels.size())
      work.residual[l] = DeviceBuffer<T>(entries, h.stream, "cycle residual");
    if (l > 0) {
      work.rhs[l] = DeviceBuffer<T>(entries, h.stream, "cycle rhs");
      work.solution[l] = DeviceBuffer<T>(entries, h.stream, "cycle solution");
    }
  }
  if (k > 1)
    work.column_partials = DeviceBuffer<T>(block_reduction_scratch_size(h.matrix(0).rows, k),
                                           h.stream, "cycle column partials");
  return work;
}

template <typename T>
std::string describe(const DeviceHierarchy<T>& h) {
  return describe_levels(h.level_sizes(), h.coarse.method());
}

#define BINAMG_INSTANTIATE(T)                                                         \
  template class DeviceHierarchy<T>;                                                  \
  template DeviceHierarchy<T> build_hierarchy<T>(const DeviceCsr<T>&,                 \
                                                 const AmgParameters&, cudaStream_t); \
  template std::string describe<T>(const DeviceHierarchy<T>&);                       \
  template DeviceCycleWorkspace<T> cycle_workspace<T>(const DeviceHierarchy<T>&, index_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
