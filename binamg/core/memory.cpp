#include "binamg/core/memory.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "binamg/core/error.hpp"

namespace binamg {

std::uint64_t available_host_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t kilobytes = 0;
    if (fields >> key >> kilobytes && key == "MemAvailable:") return kilobytes * 1024;
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

std::string format_bytes(std::uint64_t bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB"};
  double value = double(bytes);
  int unit = 0;
  while (value >= 1000 && unit < 5) {
    value /= 1000;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

void require_host_memory(std::uint64_t bytes, const std::string& what) {
  const std::uint64_t available = available_host_bytes();
  if (available != 0 && bytes > available)
    throw InvalidInput(what + " needs " + format_bytes(bytes) + " of host memory, " +
                       format_bytes(available) + " are available");
}

}  // namespace binamg
