#pragma once
// Helpers every binamg benchmark shares (see /work/shared/BENCH.md): the
// device banner with measured copy bandwidth, CUDA-event timing with one
// warm-up and the median of several runs, checked cuSPARSE calls and JSON lines.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <ctime>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "binamg/core/cuda_check.hpp"
#include "binamg/core/device_buffer.hpp"
#include "binamg/core/error.hpp"
#include "binamg/core/version.hpp"

namespace binamg::bench {

/// Throws DeviceError naming the cuSPARSE call and its status.
inline void check_cusparse(cusparseStatus_t status, const char* call, const char* file,
                           int line) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw DeviceError(std::string("cuSPARSE error '") + cusparseGetErrorString(status) +
                      "' in " + call + " at " + file + ":" + std::to_string(line));
}
#define BINAMG_CUSPARSE_CHECK(call) \
  ::binamg::bench::check_cusparse((call), #call, __FILE__, __LINE__)

/// One JSON object per line: add fields in order, then print().
class JsonLine {
 public:
  JsonLine& field(const std::string& key, const std::string& value) {
    std::string escaped;
    for (char c : value) {
      if (c == '"' || c == '\\') escaped += '\\';
      escaped += c;
    }
    return raw(key, "\"" + escaped + "\"");
  }
  JsonLine& field(const std::string& key, const char* value) {
    return field(key, std::string(value));
  }
  JsonLine& field(const std::string& key, double value) {
    char text[64];
    std::snprintf(text, sizeof text, "%.6g", value);
    return raw(key, text);
  }
  JsonLine& field(const std::string& key, long long value) {
    return raw(key, std::to_string(value));
  }
  JsonLine& field(const std::string& key, int value) {
    return raw(key, std::to_string(value));
  }
  JsonLine& field(const std::string& key, std::size_t value) {
    return raw(key, std::to_string(value));
  }
  JsonLine& field(const std::string& key, bool value) {
    return raw(key, value ? "true" : "false");
  }
  void print() const {
    std::printf("{%s}\n", body_.c_str());
    std::fflush(stdout);
  }

 private:
  JsonLine& raw(const std::string& key, const std::string& value) {
    if (!body_.empty()) body_ += ",";
    body_ += "\"" + key + "\":" + value;
    return *this;
  }
  std::string body_;
};

/// Milliseconds between two events recorded around `work` on `stream`.
inline double time_once(const std::function<void()>& work, cudaStream_t stream) {
  cudaEvent_t start = nullptr, stop = nullptr;
  BINAMG_CUDA_CHECK(cudaEventCreate(&start));
  BINAMG_CUDA_CHECK(cudaEventCreate(&stop));
  BINAMG_CUDA_CHECK(cudaEventRecord(start, stream));
  work();
  BINAMG_CUDA_CHECK(cudaEventRecord(stop, stream));
  BINAMG_CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  BINAMG_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  BINAMG_CUDA_CHECK(cudaEventDestroy(start));
  BINAMG_CUDA_CHECK(cudaEventDestroy(stop));
  return ms;
}

/// BENCH.md protocol: one warm-up call, then the median of `runs` timed calls.
inline double median_ms(const std::function<void()>& work, cudaStream_t stream = nullptr,
                        int runs = 5) {
  work();
  BINAMG_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> times;
  for (int run = 0; run < runs; ++run) times.push_back(time_once(work, stream));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// Device-to-device copy bandwidth in GB/s (bytes read + bytes written per second),
/// measured with a 256 MiB copy: the memory roofline the kernels are compared with.
inline double measure_copy_bandwidth_gbs() {
  const std::size_t bytes = std::size_t(256) << 20;
  DeviceBuffer<char> source(bytes, nullptr, "bandwidth probe source");
  DeviceBuffer<char> target(bytes, nullptr, "bandwidth probe target");
  BINAMG_CUDA_CHECK(cudaMemsetAsync(source.data(), 1, bytes));
  const double ms = median_ms([&] {
    BINAMG_CUDA_CHECK(cudaMemcpyAsync(target.data(), source.data(), bytes,
                                      cudaMemcpyDeviceToDevice));
  });
  return 2.0 * double(bytes) / (ms * 1e-3) / 1e9;
}

/// The command line as typed (arguments joined by spaces).
inline std::string command_line(int argc, char** argv) {
  std::string command;
  for (int i = 0; i < argc; ++i) command += std::string(i > 0 ? " " : "") + argv[i];
  return command;
}

/// The date and time now, UTC, as 2026-11-27T23:59:59Z.
inline std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

/// Prints the first JSON line of every benchmark (BENCH.md): the commit it
/// was built from, the date, the command, and the device: its name, SM
/// count, shared memory per block (opt-in) and measured copy bandwidth.
inline void print_device_banner(const std::string& bench_name, int argc, char** argv) {
  int device = 0;
  BINAMG_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  BINAMG_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  JsonLine()
      .field("bench", bench_name)
      .field("commit", build_commit())
      .field("date", utc_now())
      .field("command", command_line(argc, argv))
      .field("device", prop.name)
      .field("sm_count", prop.multiProcessorCount)
      .field("shared_per_block_optin", static_cast<std::size_t>(prop.sharedMemPerBlockOptin))
      .field("l2_bytes", prop.l2CacheSize)
      .field("copy_bandwidth_gbs", measure_copy_bandwidth_gbs())
      .print();
}

}  // namespace binamg::bench
