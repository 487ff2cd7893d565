#include "binamg/vector/vector_ops.hpp"

#include <cmath>

#include "binamg/core/error.hpp"
#include "binamg/vector/block_vector_ops.hpp"

namespace binamg {

template <typename T>
T dot(const std::vector<T>& x, const std::vector<T>& y) {
  require(x.size() == y.size(), "dot: vectors differ in length");
  return column_dots(x, y, 1)[0];  // the blocked, thread-count-independent sum
}

template <typename T>
T norm2(const std::vector<T>& x) {
  return static_cast<T>(column_norms(x, 1)[0]);
}

template <typename T>
void axpy(T alpha, const std::vector<T>& x, std::vector<T>& y) {
  require(x.size() == y.size(), "axpy: vectors differ in length");
  const index_t n = static_cast<index_t>(x.size());
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}

template <typename T>
void xpby(const std::vector<T>& x, T beta, std::vector<T>& y) {
  require(x.size() == y.size(), "xpby: vectors differ in length");
  const index_t n = static_cast<index_t>(x.size());
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < n; ++i) y[i] = x[i] + beta * y[i];
}

template <typename T>
bool all_finite(const std::vector<T>& x) {
  for (T value : x)
    if (!std::isfinite(value)) return false;
  return true;
}

#define BINAMG_INSTANTIATE(T)                                              \
  template T dot<T>(const std::vector<T>&, const std::vector<T>&);         \
  template T norm2<T>(const std::vector<T>&);                              \
  template void axpy<T>(T, const std::vector<T>&, std::vector<T>&);        \
  template void xpby<T>(const std::vector<T>&, T, std::vector<T>&);        \
  template bool all_finite<T>(const std::vector<T>&);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
