#pragma once
// Host memory: how much is available, and a check before a large allocation,
// so that a declared size the machine cannot hold is a clear error rather
// than std::bad_alloc or a machine driven into swap.
#include <cstdint>
#include <string>

namespace binamg {

/// Bytes of host memory available now (Linux: MemAvailable of /proc/meminfo;
/// elsewhere the free physical pages), 0 when it cannot be told.
std::uint64_t available_host_bytes();

/// "3.9 GB", "512 MB", "12 kB": a byte count for messages.
std::string format_bytes(std::uint64_t bytes);

/// Throws InvalidInput "<what> needs <bytes> of host memory, <available> are
/// available" when `bytes` exceeds what is available (no check when that
/// cannot be told).
void require_host_memory(std::uint64_t bytes, const std::string& what);

}  // namespace binamg
