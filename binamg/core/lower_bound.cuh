#pragma once
// Binary searches in sorted device arrays (a CSR row's columns, sorted keys,
// segment offsets), in global or shared memory.
#include <cuda_runtime.h>

namespace binamg {

/// The first position in sorted[begin, end) holding a value >= key; end when
/// there is none.
template <typename Value, typename Index, typename Key>
__device__ __forceinline__ Index lower_bound_in(const Value* sorted, Index begin, Index end,
                                                Key key) {
  while (begin < end) {
    const Index mid = begin + (end - begin) / 2;
    if (sorted[mid] < key)
      begin = mid + 1;
    else
      end = mid;
  }
  return begin;
}

/// The last position in sorted[low, high] holding a value <= key, where
/// sorted[low] <= key (so there is one): the segment that holds key, given the
/// segments' sorted starts.
template <typename Value, typename Index, typename Key>
__device__ __forceinline__ Index last_at_or_below(const Value* sorted, Index low, Index high,
                                                  Key key) {
  while (low < high) {
    const Index mid = low + (high - low + 1) / 2;
    if (sorted[mid] <= key)
      low = mid;
    else
      high = mid - 1;
  }
  return low;
}

}  // namespace binamg
