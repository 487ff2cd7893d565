#include "binamg/vector/block_vector_ops.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "binamg/core/error.hpp"
#include "binamg/vector/safe_norms.hpp"
#include "binamg/vector/vector_ops.hpp"

namespace binamg {
namespace {

template <typename T>
index_t block_rows(const std::vector<T>& X, const std::vector<T>& Y, index_t k,
                   const char* what) {
  require(k > 0, std::string(what) + ": the number of columns k must be positive");
  require(X.size() == Y.size() && X.size() % std::size_t(k) == 0,
          std::string(what) + ": blocks of " + std::to_string(X.size()) + " and " +
              std::to_string(Y.size()) + " entries are not both n x " + std::to_string(k));
  return checked_index(static_cast<std::int64_t>(X.size() / k), std::string(what) + ": rows");
}

}  // namespace

template <typename T>
std::vector<T> column_dots(const std::vector<T>& X, const std::vector<T>& Y, index_t k) {
  const index_t n = block_rows(X, Y, k, "column_dots");
  // Blocks of reduction_block rows summed in parallel, then the block sums in
  // order: the bits do not depend on the thread count (dot() is the k = 1 case).
  const index_t blocks = (n + reduction_block - 1) / reduction_block;
  std::vector<T> partial(std::size_t(blocks) * k, T(0));
#pragma omp parallel for schedule(static)
  for (index_t b = 0; b < blocks; ++b) {
    const index_t begin = b * reduction_block;
    const index_t end = begin + reduction_block < n ? begin + reduction_block : n;
    T* sum = partial.data() + std::size_t(b) * k;
    for (index_t i = begin; i < end; ++i)
      for (index_t j = 0; j < k; ++j)
        sum[j] += X[std::size_t(i) * k + j] * Y[std::size_t(i) * k + j];
  }
  std::vector<T> total(k, T(0));
  for (index_t b = 0; b < blocks; ++b)
    for (index_t j = 0; j < k; ++j) total[j] += partial[std::size_t(b) * k + j];
  return total;
}

template <typename T>
std::vector<T> column_max_abs(const std::vector<T>& X, index_t k) {
  const index_t n = block_rows(X, X, k, "column_max_abs");
  std::vector<T> largest(k, T(0));
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < k; ++j) {
      const T a = std::abs(X[std::size_t(i) * k + j]);
      if (std::isnan(a)) largest[j] = std::numeric_limits<T>::quiet_NaN();
      if (a > largest[j]) largest[j] = a;  // false once largest[j] is NaN
    }
  return largest;
}

template <typename T>
void scale_columns(std::vector<T>& X, index_t k, const std::vector<int>& exponents) {
  const index_t n = block_rows(X, X, k, "scale_columns");
  require(exponents.size() == std::size_t(k), "scale_columns: exponents must have k entries");
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < k; ++j) {
      T& entry = X[std::size_t(i) * k + j];
      entry = std::ldexp(entry, exponents[j]);
    }
}

template <typename T>
std::vector<T> scaled_copy(const std::vector<T>& X, index_t k, const std::vector<int>& exponents) {
  std::vector<T> scaled = X;
  scale_columns(scaled, k, exponents);
  return scaled;
}

template <typename T>
std::vector<double> column_norms(const std::vector<T>& X, index_t k) {
  return vector_detail::column_norms_with<T>(
      k, [&] { return column_dots(X, X, k); }, [&] { return column_max_abs(X, k); },
      [&](const std::vector<int>& exponents) {
        const std::vector<T> scaled = scaled_copy(X, k, exponents);
        return column_dots(scaled, scaled, k);
      });
}

template <typename T>
void column_axpy(const std::vector<T>& alpha, const std::vector<T>& X, std::vector<T>& Y,
                 index_t k) {
  const index_t n = block_rows(X, Y, k, "column_axpy");
  require(alpha.size() == std::size_t(k), "column_axpy: alpha must have k entries");
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < k; ++j) Y[std::size_t(i) * k + j] += alpha[j] * X[std::size_t(i) * k + j];
}

template <typename T>
void column_xpby(const std::vector<T>& X, const std::vector<T>& beta, std::vector<T>& Y,
                 index_t k) {
  const index_t n = block_rows(X, Y, k, "column_xpby");
  require(beta.size() == std::size_t(k), "column_xpby: beta must have k entries");
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < k; ++j) {
      const std::size_t e = std::size_t(i) * k + j;
      Y[e] = X[e] + beta[j] * Y[e];
    }
}

#define BINAMG_INSTANTIATE(T)                                                                \
  template std::vector<T> column_dots<T>(const std::vector<T>&, const std::vector<T>&, index_t); \
  template std::vector<double> column_norms<T>(const std::vector<T>&, index_t);             \
  template std::vector<T> column_max_abs<T>(const std::vector<T>&, index_t);                \
  template void scale_columns<T>(std::vector<T>&, index_t, const std::vector<int>&);        \
  template std::vector<T> scaled_copy<T>(const std::vector<T>&, index_t,                    \
                                         const std::vector<int>&);                          \
  template void column_axpy<T>(const std::vector<T>&, const std::vector<T>&, std::vector<T>&,  \
                               index_t);                                                     \
  template void column_xpby<T>(const std::vector<T>&, const std::vector<T>&, std::vector<T>&,  \
                               index_t);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
