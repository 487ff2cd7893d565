// Row-split CSR × dense (Yang, Buluç & Owens 2018, "row split"): each row of A
// belongs to one group of L lanes; the lanes load up to L of the row's
// nonzeros at once (coalesced), then broadcast each (column, value) to the
// group by shuffles while every lane updates its own columns of the row of Y,
// reading the matching row of X contiguously across the group. k = 1 stages
// the rows' nonzeros through shared memory instead (spmv/row_stream.cuh).
#include <cstdint>

#include "binamg/core/cuda_check.hpp"
#include "binamg/core/launch.hpp"
#include "binamg/spmv/block_row_split.cuh"
#include "binamg/spmv/row_stream.cuh"
#include "binamg/spmv/spmm_kernels.hpp"

namespace binamg::spmm_detail {
namespace {

// The SpMM's epilogue: Y(row, c) = the row's sum.
template <typename T>
struct StoreEntry {
  T* __restrict__ Y;
  index_t k;
  __device__ void operator()(index_t row, index_t c, T sum) const { Y[std::int64_t(row) * k + c] = sum; }
  __device__ void pair(index_t row, index_t c, T first, T second) const {
    *reinterpret_cast<typename block_row_split::TwoOf<T>::type*>(Y + std::int64_t(row) * k + c) =
        {first, second};
  }
  bool aligned_for_pairs() const { return block_row_split::aligned_for_pairs<T>(Y); }
};

// StoreEntry that also returns X(row, c)·Y(row, c), for the column dots of a
// square A (X's row `row` is the diagonal's gather, so it is read from cache).
template <typename T>
struct StoreAndDot {
  StoreEntry<T> store;
  const T* __restrict__ X;
  __device__ T operator()(index_t row, index_t c, T sum) const {
    store(row, c, sum);
    return X[std::int64_t(row) * store.k + c] * sum;
  }
  __device__ T operator()(index_t row, T sum) const { return (*this)(row, 0, sum); }
};

// The SpMV's epilogue: y[row] = the row's sum, or b[row] - sum for the residual.
template <typename T>
struct StoreOrResidual {
  const T* __restrict__ b;
  T* __restrict__ y;
  __device__ void operator()(index_t row, T sum) const { y[row] = b ? b[row] - sum : sum; }
};

}  // namespace

template <typename T>
void row_split_vector(const DeviceCsr<T>& A, const T* x, const T* b, T* y, cudaStream_t stream) {
  row_stream::launch<T>(A, row_stream::VectorEntry<T>{x}, StoreOrResidual<T>{b, y}, stream);
}

template <typename T>
void row_split(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, cudaStream_t stream) {
  if (A.rows == 0) return;
  if (k == 1) return row_split_vector<T>(A, X, nullptr, Y, stream);
  block_row_split::launch(A, k, block_row_split::BlockEntry<T>{X, k}, StoreEntry<T>{Y, k},
                          stream);
}

template <typename T>
void row_split_with_dots(const DeviceCsr<T>& A, const T* X, index_t k, T* Y, T* dots,
                         DeviceBuffer<T>& partials, cudaStream_t stream) {
  if (k == 1)
    return row_stream::launch_with_sum<T>(A, row_stream::VectorEntry<T>{X},
                                          StoreAndDot<T>{{Y, 1}, X}, dots, partials, stream);
  block_row_split::launch_with_column_sums(A, k, block_row_split::BlockEntry<T>{X, k},
                                           StoreAndDot<T>{{Y, k}, X}, dots, partials, stream);
}

#define BINAMG_INSTANTIATE(T)                                                              \
  template void row_split<T>(const DeviceCsr<T>&, const T*, index_t, T*, cudaStream_t);    \
  template void row_split_with_dots<T>(const DeviceCsr<T>&, const T*, index_t, T*, T*,     \
                                       DeviceBuffer<T>&, cudaStream_t);                    \
  template void row_split_vector<T>(const DeviceCsr<T>&, const T*, const T*, T*, cudaStream_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg::spmm_detail
