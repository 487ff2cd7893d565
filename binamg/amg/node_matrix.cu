// GPU twins of amg/node_matrix.cpp: the same Galerkin product on the device.
#include <string>

#include "binamg/amg/galerkin.hpp"
#include "binamg/amg/incidence.hpp"
#include "binamg/amg/node_matrix.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/core/read_back.hpp"
#include "binamg/sparse/transpose.hpp"

namespace binamg {
namespace {

constexpr int node_threads = 256;

template <typename T>
__global__ void square_values(index_t count, const T* in, T* out) {
  const index_t e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < count) out[e] = in[e] * in[e];
}

template <typename T>
__global__ void square_root_values(index_t count, T* values) {
  const index_t e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < count) values[e] = sqrt(values[e]);
}

__global__ void gather_groups(index_t n, const index_t* index, const index_t* group_of,
                              index_t* out) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = group_of[index[i]];
}

}  // namespace

template <typename T>
DeviceCsr<T> node_matrix(const DeviceCsr<T>& A, const DeviceBuffer<index_t>& node_ptr,
                         cudaStream_t stream) {
  const DeviceCsr<T> C =
      incidence_matrix<T>(groups_of_ranges(node_ptr, A.rows, "node_matrix", stream),
                          static_cast<index_t>(node_ptr.size()) - 1, "node_matrix", stream);
  DeviceCsr<T> squares = copy_of(A, stream);
  if (A.nnz() > 0) {
    square_values<<<blocks_for(A.nnz(), node_threads), node_threads, 0, stream>>>(
        A.nnz(), A.values.data(), squares.values.data());
    BINAMG_CHECK_LAUNCH();
  }
  DeviceCsr<T> N =
      galerkin_product(squares, C, transpose(C, stream), GalerkinOrdering::ptap_right, stream);
  if (N.nnz() > 0) {
    square_root_values<<<blocks_for(N.nnz(), node_threads), node_threads, 0, stream>>>(
        N.nnz(), N.values.data());
    BINAMG_CHECK_LAUNCH();
  }
  return N;
}

DeviceAggregates unknown_aggregates(const DeviceAggregates& nodes,
                                    const DeviceBuffer<index_t>& node_ptr, cudaStream_t stream) {
  require(node_ptr.size() == nodes.aggregate_of.size() + 1,
          "unknown_aggregates: " + std::to_string(nodes.aggregate_of.size()) +
              " node aggregates for " + std::to_string(node_ptr.size() - 1) + " nodes");
  index_t rows = 0;
  read_back(&rows, node_ptr.data() + node_ptr.size() - 1, sizeof(index_t), stream);
  const DeviceBuffer<index_t> node_of =
      groups_of_ranges(node_ptr, rows, "unknown_aggregates", stream);
  DeviceAggregates unknowns;
  unknowns.count = nodes.count;
  unknowns.aggregate_of = DeviceBuffer<index_t>(rows, stream, "unknown aggregates");
  if (rows > 0) {
    gather_groups<<<blocks_for(rows, node_threads), node_threads, 0, stream>>>(
        rows, node_of.data(), nodes.aggregate_of.data(), unknowns.aggregate_of.data());
    BINAMG_CHECK_LAUNCH();
  }
  return unknowns;
}

#define BINAMG_INSTANTIATE(T)                                                             \
  template DeviceCsr<T> node_matrix<T>(const DeviceCsr<T>&, const DeviceBuffer<index_t>&, \
                                       cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
