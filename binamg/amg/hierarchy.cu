// The device's steps of the setup loop (amg/setup_loop.hpp): every matrix
// built and kept on the GPU.
#include <chrono>
#include <string>

#include "binamg/amg/aggregation.hpp"
#include "binamg/amg/filtered.hpp"
#include "binamg/amg/galerkin.hpp"
#include "binamg/amg/hierarchy.hpp"
#include "binamg/amg/node_matrix.hpp"
#include "binamg/amg/prolongation.hpp"
#include "binamg/amg/setup_loop.hpp"
#include "binamg/amg/spectral_radius.hpp"
#include "binamg/amg/strength.hpp"
#include "binamg/amg/tentative.hpp"
#include "binamg/amg/tentative_qr.hpp"
#include "binamg/smoothers/jacobi.hpp"
#include "binamg/sparse/transpose.hpp"
#include "binamg/spgemm/refill.hpp"
#include "binamg/spgemm/spgemm.hpp"
#include "binamg/spmv/spmm.hpp"
#include "binamg/vector/block_vector_ops.hpp"

namespace binamg {
namespace {

// A non-blocking stream of the setup's own, created on first use: work on
// it is ordered with the setup's stream by events alone.
class SideStream {
 public:
  SideStream() = default;
  ~SideStream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);  // nothing to report from a destructor
  }
  SideStream(const SideStream&) = delete;
  SideStream& operator=(const SideStream&) = delete;
  cudaStream_t get() {
    if (stream_ == nullptr)
      BINAMG_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    return stream_;
  }

 private:
  cudaStream_t stream_ = nullptr;
};

template <typename T>
struct DeviceSteps {
  using Matrix = DeviceCsr<T>;
  struct Diagonal {
    DeviceBuffer<T> diagonal, inverse;
  };
  // Synchronises the stream before reading the host clock, so that each
  // phase is charged for its own kernels.
  class Clock {
   public:
    explicit Clock(cudaStream_t stream) : stream_(stream) {
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

  explicit DeviceSteps(cudaStream_t setup_stream) : stream(setup_stream) {}

  cudaStream_t stream;
  SideStream side_stream;

  // The kernels that sweep a matrix's rows skip their look for rows long
  // enough to need a whole block once the longest row is known
  // (row_split::long_rows_of), and read packed columns where they pay: every
  // matrix a cycle multiplies records the one and is judged for the other,
  // once per column storage (a refresh refilling a matrix in place keeps both).
  Matrix recorded(Matrix M) {
    if (M.max_row_length < 0) M.max_row_length = max_row_length(M, stream);
    return M;
  }
  Matrix prepared(Matrix M) {
    if (M.max_row_length < 0 || !M.packed.judged_for(M.col_idx)) prepare_for_row_kernels(M, stream);
    return M;
  }
  // The finest matrix also has its values coded where they are few
  // (sparse/coded_values.hpp): it is the largest and an iteration sweeps it
  // five times. Judging the transfers and coarser matrices too (Galerkin
  // products, rarely of few values) cost the setup more than it saved the
  // solve (docs/experiments.md).
  Matrix own(const Matrix& A) {
    require_consistent(A, "build_hierarchy: A");
    Matrix M = prepared(copy_of(A, stream));
    code_values(M, stream);
    return M;
  }
  Diagonal diagonal(const Matrix& A, const std::string& what) {
    Diagonal d{binamg::diagonal(A, stream), {}};
    try {
      d.inverse = inverse_diagonal(d.diagonal, stream);
    } catch (const InvalidInput& error) {
      throw InvalidInput(what + ": " + error.what());
    }
    return d;
  }
  Matrix strength(const Matrix& A, double theta, StrengthMeasure measure, std::int64_t* weak) {
    return binamg::strength(A, theta, stream, measure, weak);
  }
  Matrix filtered(const Matrix& A, double theta, StrengthMeasure measure) {
    return recorded(filtered_matrix(A, theta, stream, measure));
  }
  std::int64_t weak_entries(const Matrix& A, double theta, StrengthMeasure measure) {
    return binamg::weak_entries(A, theta, stream, measure);
  }
  // `standard` aggregation is serial by definition (a greedy sweep in node
  // order), so it is the one setup step done on the host: download S,
  // aggregate, upload the ids.
  DeviceAggregates aggregate(const Matrix& S, AggregationMethod method, int free_percent) {
    if (method == AggregationMethod::mis2) return mis2_aggregation(S, stream, free_percent);
    const Aggregates host = binamg::aggregate(to_host(S), method, free_percent);
    DeviceAggregates device;
    device.aggregate_of = to_device(host.aggregate_of, stream);
    device.count = host.count;
    return device;
  }
  using Weights = DeviceBuffer<index_t>;
  DeviceTentative<T> tentative(const DeviceAggregates& aggregates, const Weights& weights) {
    return tentative_prolongator<T>(aggregates, weights, stream);
  }
  using Candidates = DeviceCandidates;
  Candidates finest_candidates(const NearNullspace& nullspace, index_t rows) {
    return binamg::finest_candidates(nullspace, rows, stream);
  }
  Matrix node_matrix(const Matrix& A, const Candidates& c) {
    return binamg::node_matrix(A, c.node_ptr, stream);
  }
  DeviceAggregates unknown_aggregates(const DeviceAggregates& nodes, const Candidates& c) {
    return binamg::unknown_aggregates(nodes, c.node_ptr, stream);
  }
  DeviceSystemTentative<T> tentative_qr(const DeviceAggregates& aggregates, const Candidates& c) {
    return binamg::tentative_qr<T>(aggregates, c, stream);
  }
  // The estimate runs on a stream of its own (side_stream), beside the
  // level's strength and aggregation: their read-backs leave the GPU idle
  // between kernels, and the estimate's 2 × iterations launches fill it.
  using Radius = SpectralRadiusEstimate<T>;
  Radius start_spectral_radius(const Matrix& A, const Diagonal& d, int iterations) {
    return Radius(A, d.diagonal, iterations, stream, side_stream.get());
  }
  double spectral_radius(Radius& estimate) { return estimate.wait(); }
  using Kept = DeviceRefreshProducts<T>;
  // With `refill` (a refresh), the matrix's pattern is kept and only its
  // values are recomputed, where the first refresh found that the product's
  // path allows (ProductRefill); a gather refills R.
  // How a product C = X·Y will be refreshed: refilled where its path sums in
  // row order and the refill pays (spgemm/refill.hpp), by the numeric pass on
  // the kept pattern where its path was binned, else formed whole.
  static void learn(ProductRefill& how, const Matrix& X, const Matrix& Y, const Matrix& C,
                    SpgemmPath path, cudaStream_t stream) {
    if (how.mode != ProductRefill::Mode::unknown) return;
    const bool refill =
        sums_in_row_order(path) && spgemm_refill_pays(X.rows, Y.rows, Y.nnz(), C.nnz());
    how.mode = refill                       ? ProductRefill::Mode::in_place
               : path == SpgemmPath::binned ? ProductRefill::Mode::numeric
                                            : ProductRefill::Mode::whole;
    if (refill) how.entry_rows = entry_rows(C, stream);
  }
  static bool in_place(const ProductRefill& how) {
    return how.mode == ProductRefill::Mode::in_place;
  }
  Matrix smoothed_prolongator(const Matrix& A, const Diagonal& d, const Matrix& tentative,
                              double omega, Matrix* refill, Kept* kept) {
    if (refill != nullptr && in_place(kept->prolongator)) {
      refill_smoothed_prolongator(A, d.diagonal, tentative, omega, *refill,
                                  kept->prolongator.entry_rows, stream);
      return std::move(*refill);
    }
    SpgemmReport report;
    Matrix P =
        prepared(binamg::smoothed_prolongator(A, d.diagonal, tentative, omega, stream, &report));
    if (refill != nullptr) learn(kept->prolongator, A, tentative, P, report.path, stream);
    return P;
  }
  Matrix transpose(const Matrix& P, Matrix* refill, Kept* kept) {
    if (refill == nullptr) return prepared(binamg::transpose(P, stream));
    if (kept->transpose_order.empty())
      return prepared(binamg::transpose(P, stream, &kept->transpose_order));
    transpose_values(P, kept->transpose_order, *refill, stream);
    return std::move(*refill);
  }
  // A product formed whole (learning its path where `how` is given) or refilled.
  Matrix product(const Matrix& X, const Matrix& Y, Matrix* refill, ProductRefill* how) {
    if (refill != nullptr && in_place(*how)) {
      spgemm_refill(X, Y, *refill, how->entry_rows, stream);
      return std::move(*refill);
    }
    if (refill != nullptr && how->mode == ProductRefill::Mode::numeric) {
      spgemm_binned_numeric(X, Y, *refill, stream);
      return std::move(*refill);
    }
    SpgemmReport report;
    Matrix C = spgemm(X, Y, stream, &report);
    if (how != nullptr) learn(*how, X, Y, C, report.path, stream);
    return C;
  }
  Matrix galerkin(const Matrix& A, const Matrix& P, const Matrix& R, GalerkinOrdering ordering,
                  Matrix* refill, Kept* kept) {
    if (refill == nullptr) return prepared(galerkin_product(A, P, R, ordering, stream));
    // The middle product: A·P, or R·A for ptap_left; the outer one multiplies
    // it. spgemm(R, spgemm(A, P)) has the setup's chained spgemm(R, A, P)'s bits.
    const bool right = ordering != GalerkinOrdering::ptap_left;
    const bool held = !kept->middle.row_ptr.empty();
    kept->middle = product(right ? A : R, right ? P : A, held ? &kept->middle : nullptr,
                           &kept->middle_product);
    return prepared(
        product(right ? R : kept->middle, right ? kept->middle : P, refill, &kept->coarse));
  }
  void refill_values(Matrix& finest, const Matrix& A) {
    require_consistent(A, "refresh: A");
    setup_detail::require_same_shape(finest, A);
    const index_t row = first_pattern_difference(finest, A, stream);
    if (row >= 0) throw InvalidInput(setup_detail::different_pattern(row));
    if (A.nnz() > 0)
      BINAMG_CUDA_CHECK(cudaMemcpyAsync(finest.values.data(), A.values.data(),
                                        sizeof(T) * A.nnz(), cudaMemcpyDeviceToDevice, stream));
    code_values(finest, stream);  // the old codes describe the old values
  }
  double largest_diagonal(const Matrix&, const Diagonal& d) {
    return double(column_max_abs(d.diagonal, 1, stream)[0]);
  }
  DeviceBuffer<T> inverse_l1_diagonal(const Matrix& A) {
    return binamg::inverse_l1_diagonal(A, stream);
  }
  void factor(DeviceCoarseSolver<T>& coarse, const Matrix& A, double scale) {
    coarse.factor(A, scale, stream);  // on the device, unless the host must judge it
  }
  Clock clock() { return Clock(stream); }
};

}  // namespace

template <typename T>
DeviceHierarchy<T> build_hierarchy(const DeviceCsr<T>& A, const AmgParameters& parameters,
                                   cudaStream_t stream) {
  validate(parameters);
  DeviceHierarchy<T> h;
  h.parameters = parameters;
  h.stream = stream;
  DeviceSteps<T> steps{stream};
  setup_detail::build_levels(steps, A, h);
  auto clock = steps.clock();
  h.workspace = cycle_workspace(h, 1);
  clock.lap(h.timings.prepare_ms);
  return h;
}

template <typename T>
void refresh(DeviceHierarchy<T>& h, const DeviceCsr<T>& A) {
  DeviceSteps<T> steps{h.stream};
  setup_detail::refresh_levels(steps, A, h, &h.refresh_products);
}

template <typename T>
DeviceCycleWorkspace<T> cycle_workspace(const DeviceHierarchy<T>& h, index_t k) {
  DeviceCycleWorkspace<T> work = setup_detail::cycle_workspace_of<DeviceCycleWorkspace<T>>(
      h, k,
      [&](std::size_t entries) { return DeviceBuffer<T>(entries, h.stream, "cycle scratch"); });
  work.column_partials =
      DeviceBuffer<T>(column_dots_scratch_size(h.matrix(0), k), h.stream, "cycle column partials");
  return work;
}

#define BINAMG_INSTANTIATE(T)                                                               \
  template DeviceHierarchy<T> build_hierarchy<T>(const DeviceCsr<T>&, const AmgParameters&, \
                                                 cudaStream_t);                             \
  template void refresh<T>(DeviceHierarchy<T>&, const DeviceCsr<T>&);                       \
  template DeviceCycleWorkspace<T> cycle_workspace<T>(const DeviceHierarchy<T>&, index_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
