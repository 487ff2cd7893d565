#include <algorithm>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <vector>

#include "binamg/core/launch.hpp"
#include "binamg/core/lower_bound.cuh"
#include "binamg/core/read_back.hpp"
#include "binamg/sparse/device_csr.hpp"

namespace binamg {
namespace {

constexpr int code_threads = 256;
constexpr int max_code_blocks = 1024;
// Open addressing at most half full: a lookup ends within a few probes. The
// one-byte table lives in each block's shared memory, the two-byte one in
// global memory (1 MB).
constexpr int table_slots = 2 * coded_table_size;
constexpr int wide_table_slots = 2 * wide_coded_table_size;
static_assert((table_slots & (table_slots - 1)) == 0 &&
                  (wide_table_slots & (wide_table_slots - 1)) == 0,
              "slot counts are powers of two");
// Blocks of the two-byte collection: at most 32768 threads insert at once, so
// the table holds at most 65536 + 32768 keys when overflow is raised, whatever
// the timing (3/4 full: every probe ends). With two million threads a table of
// values all distinct filled up, and the probes that followed walked it whole.
constexpr int wide_code_blocks = 128;
static_assert(wide_code_blocks * code_threads <= wide_table_slots / 4, "the table never fills");
// No value has this bit pattern in float (32 bits); in double it is a NaN,
// which a hierarchy's matrices never hold, and such a value declines the codes.
constexpr unsigned long long empty_slot = ~0ull;

// What the one read-back brings home: the distinct bit patterns found (in a
// table of table_slots, empty_slot where free), and whether there were more
// than coded_table_size.
struct DistinctValues {
  unsigned long long slot[table_slots];
  int count;
  int overflow;
};

template <typename T>
__device__ unsigned long long bits_of(T value) {
  if constexpr (sizeof(T) == 8)
    return static_cast<unsigned long long>(__double_as_longlong(value));
  else
    return __float_as_uint(value);
}

template <typename T>
__device__ T value_of_bits(unsigned long long bits) {
  if constexpr (sizeof(T) == 8)
    return __longlong_as_double(static_cast<long long>(bits));
  else
    return __uint_as_float(static_cast<unsigned>(bits));
}

template <int slots>
__device__ int home_slot(unsigned long long key) {
  return static_cast<int>((key * 0x9E3779B97F4A7C15ull) >> 32) & (slots - 1);
}

// Adds key to a table of `slots` unless it is there: true when this call added
// it. With `stop`, it gives up (false) once *stop is raised: past the count's
// limit the remaining insertions are wasted probes.
template <int slots>
__device__ bool insert(unsigned long long* table, unsigned long long key,
                       const int* stop = nullptr) {
  int s = home_slot<slots>(key);
  for (int probe = 0; probe < slots; ++probe, s = (s + 1) & (slots - 1)) {
    if (stop != nullptr && probe % 16 == 15 && *static_cast<const volatile int*>(stop))
      return false;
    unsigned long long seen = *static_cast<volatile unsigned long long*>(table + s);
    if (seen == empty_slot) seen = atomicCAS(table + s, empty_slot, key);
    if (seen == empty_slot) return true;
    if (seen == key) return false;
  }
  return false;  // unreachable: a table is never more than half full
}

// The slot of a key the table holds.
template <int slots>
__device__ int slot_of(const unsigned long long* table, unsigned long long key) {
  int s = home_slot<slots>(key);
  while (table[s] != key) s = (s + 1) & (slots - 1);
  return s;
}

// Each block gathers the distinct values of its share in shared memory, then
// adds them to the global table; any block seeing more than coded_table_size
// (alone or in the global count) raises overflow, and every block stops early
// once it is raised.
template <typename T>
__global__ void collect_distinct(std::int64_t n, const T* values, DistinctValues* found) {
  __shared__ unsigned long long table[table_slots];
  __shared__ int count, full;
  for (int s = threadIdx.x; s < table_slots; s += code_threads) table[s] = empty_slot;
  if (threadIdx.x == 0) {
    count = 0;
    full = *static_cast<volatile int*>(&found->overflow);
  }
  __syncthreads();
  const std::int64_t stride = std::int64_t(gridDim.x) * code_threads;
  for (std::int64_t e = std::int64_t(blockIdx.x) * code_threads + threadIdx.x;
       e < n && !*static_cast<volatile int*>(&full); e += stride) {
    const unsigned long long key = bits_of(values[e]);
    if (key == empty_slot ||
        (insert<table_slots>(table, key) && atomicAdd(&count, 1) >= coded_table_size)) {
      full = 1;
      atomicExch(&found->overflow, 1);
    }
  }
  __syncthreads();
  if (full) return;
  for (int s = threadIdx.x; s < table_slots; s += code_threads)
    if (table[s] != empty_slot && insert<table_slots>(found->slot, table[s]) &&
        atomicAdd(&found->count, 1) >= coded_table_size)
      atomicExch(&found->overflow, 1);
}

// A thread per entry: the index of its value's bit pattern in the ascending
// table (a binary search over at most coded_table_size keys in shared memory).
template <typename T>
__global__ void encode(std::int64_t n, const T* values, const unsigned long long* keys, int count,
                       std::uint8_t* code) {
  __shared__ unsigned long long table[coded_table_size];
  for (int s = threadIdx.x; s < count; s += code_threads) table[s] = keys[s];
  __syncthreads();
  const std::int64_t e = std::int64_t(blockIdx.x) * code_threads + threadIdx.x;
  if (e >= n) return;
  const unsigned long long key = bits_of(values[e]);
  // The key is in the table: at or before its last entry.
  code[e] = static_cast<std::uint8_t>(lower_bound_in(table, 0, count - 1, key));
}

// The two-byte path, for matrices of more than coded_table_size distinct values.
struct WideCount {
  int count, overflow;
};

// A thread per entry (grid-stride) adds its value's bit pattern to the global
// table; more than wide_coded_table_size distinct raises overflow, and every
// thread stops once it is raised.
template <typename T>
__global__ void collect_distinct_wide(std::int64_t n, const T* values, unsigned long long* table,
                                      WideCount* found) {
  const std::int64_t stride = std::int64_t(gridDim.x) * code_threads;
  for (std::int64_t e = std::int64_t(blockIdx.x) * code_threads + threadIdx.x;
       e < n && !*static_cast<volatile int*>(&found->overflow); e += stride) {
    const unsigned long long key = bits_of(values[e]);
    if (key == empty_slot || (insert<wide_table_slots>(table, key, &found->overflow) &&
                              atomicAdd(&found->count, 1) >= wide_coded_table_size))
      atomicExch(&found->overflow, 1);
  }
}

// A thread per slot: the keys the table holds, in no particular order (sorted next).
__global__ void held_keys(const unsigned long long* table, unsigned long long* keys, int* cursor) {
  const int s = blockIdx.x * code_threads + threadIdx.x;
  if (s < wide_table_slots && table[s] != empty_slot) keys[atomicAdd(cursor, 1)] = table[s];
}

// A thread per distinct value: its place in the ascending table, at its slot,
// and the value itself.
template <typename T>
__global__ void rank_slots(int count, const unsigned long long* sorted,
                           const unsigned long long* table, int* rank, T* values) {
  const int i = blockIdx.x * code_threads + threadIdx.x;
  if (i >= count) return;
  rank[slot_of<wide_table_slots>(table, sorted[i])] = i;
  values[i] = value_of_bits<T>(sorted[i]);
}

// A thread per entry: the index of its value in the ascending table.
template <typename T>
__global__ void encode_wide(std::int64_t n, const T* values, const unsigned long long* table,
                            const int* rank, std::uint16_t* code) {
  const std::int64_t e = std::int64_t(blockIdx.x) * code_threads + threadIdx.x;
  if (e < n)
    code[e] =
        static_cast<std::uint16_t>(rank[slot_of<wide_table_slots>(table, bits_of(values[e]))]);
}

// Two-byte codes for M's values where it holds at most wide_coded_table_size
// distinct ones; false (M untouched) where it holds more.
template <typename T>
bool code_wide(DeviceCsr<T>& M, cudaStream_t stream) {
  const std::int64_t n = M.nnz();
  DeviceBuffer<unsigned long long> table(wide_table_slots, stream, "wide code table");
  DeviceBuffer<WideCount> found(1, stream, "wide code count");
  BINAMG_CUDA_CHECK(
      cudaMemsetAsync(table.data(), 0xFF, sizeof(unsigned long long) * wide_table_slots, stream));
  BINAMG_CUDA_CHECK(cudaMemsetAsync(found.data(), 0, sizeof(WideCount), stream));
  const int blocks =
      static_cast<int>(std::min<std::int64_t>(blocks_for(n, code_threads), wide_code_blocks));
  collect_distinct_wide<<<blocks, code_threads, 0, stream>>>(n, M.values.data(), table.data(),
                                                             found.data());
  BINAMG_CHECK_LAUNCH();
  WideCount host;
  read_back(&host, found.data(), sizeof(WideCount), stream);
  if (host.overflow) return false;
  const int count = host.count;
  DeviceBuffer<unsigned long long> keys(count, stream, "wide code keys"),
      sorted(count, stream, "wide code sorted keys");
  DeviceBuffer<int> cursor(1, stream, "wide code cursor");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(cursor.data(), 0, sizeof(int), stream));
  held_keys<<<blocks_for(wide_table_slots, code_threads), code_threads, 0, stream>>>(
      table.data(), keys.data(), cursor.data());
  BINAMG_CHECK_LAUNCH();
  std::size_t temp_bytes = 0;
  BINAMG_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys.data(), sorted.data(),
                                                   count, 0, 64, stream));
  DeviceBuffer<unsigned char> temp(temp_bytes, stream, "wide code sort scratch");
  BINAMG_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.data(), temp_bytes, keys.data(),
                                                   sorted.data(), count, 0, 64, stream));
  CodedValues<T> coded;
  coded.table = DeviceBuffer<T>(count, stream, "wide code values");
  DeviceBuffer<int> rank(wide_table_slots, stream, "wide code ranks");
  rank_slots<<<blocks_for(count, code_threads), code_threads, 0, stream>>>(
      count, sorted.data(), table.data(), rank.data(), coded.table.data());
  BINAMG_CHECK_LAUNCH();
  coded.wide_code = DeviceBuffer<std::uint16_t>(n, stream, "wide coded values");
  encode_wide<<<blocks_for(n, code_threads), code_threads, 0, stream>>>(
      n, M.values.data(), table.data(), rank.data(), coded.wide_code.data());
  BINAMG_CHECK_LAUNCH();
  coded.judged = M.values.data();
  M.coded = std::move(coded);
  return true;
}

template <typename T>
T value_of(unsigned long long bits) {
  T value;
  if constexpr (sizeof(T) == 8) {
    std::memcpy(&value, &bits, sizeof(T));
  } else {
    const auto narrow = static_cast<std::uint32_t>(bits);
    std::memcpy(&value, &narrow, sizeof(T));
  }
  return value;
}

}  // namespace

template <typename T>
void code_values(DeviceCsr<T>& M, cudaStream_t stream, std::int64_t min_entries) {
  M.coded = {};
  M.coded.judged = M.values.data();
  const std::int64_t n = M.nnz();
  if (n == 0 || n < min_entries) return;
  DeviceBuffer<DistinctValues> found(1, stream, "distinct values");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(found.data(), 0xFF, sizeof(found.data()->slot), stream));
  BINAMG_CUDA_CHECK(cudaMemsetAsync(&found.data()->count, 0, 2 * sizeof(int), stream));
  const int blocks =
      static_cast<int>(std::min<std::int64_t>(blocks_for(n, code_threads), max_code_blocks));
  collect_distinct<<<blocks, code_threads, 0, stream>>>(n, M.values.data(), found.data());
  BINAMG_CHECK_LAUNCH();
  DistinctValues host;
  read_back(&host, found.data(), sizeof(DistinctValues), stream);
  if (host.overflow) {
    if (M.max_row_length >= 0 && M.max_row_length <= thread_row_max) code_wide(M, stream);
    return;
  }
  std::vector<unsigned long long> keys;
  for (unsigned long long key : host.slot)
    if (key != empty_slot) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  std::vector<T> table(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) table[i] = value_of<T>(keys[i]);
  const DeviceBuffer<unsigned long long> device_keys = to_device(keys, stream);
  CodedValues<T> coded;
  coded.table = to_device(table, stream);
  coded.code = DeviceBuffer<std::uint8_t>(n, stream, "coded values");
  encode<<<blocks_for(n, code_threads), code_threads, 0, stream>>>(
      n, M.values.data(), device_keys.data(), static_cast<int>(keys.size()), coded.code.data());
  BINAMG_CHECK_LAUNCH();
  coded.judged = M.values.data();
  M.coded = std::move(coded);
}

template void code_values<float>(DeviceCsr<float>&, cudaStream_t, std::int64_t);
template void code_values<double>(DeviceCsr<double>&, cudaStream_t, std::int64_t);

}  // namespace binamg
