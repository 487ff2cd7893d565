#pragma once
// Errors binamg reports: every failure is an exception whose message names the
// input and the problem (file, line, row), never a crash or a silent wrong answer.
#include <stdexcept>
#include <string>

namespace binamg {

/// Invalid input or arguments: malformed files, bad matrices, bad options.
class InvalidInput : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A CUDA, cuBLAS or cuSPARSE call failed (out of memory included).
class DeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The GPU had too little memory for an allocation: the message names what
/// needed it, how much, and how much the device had free.
class OutOfMemory : public DeviceError {
 public:
  using DeviceError::DeviceError;
};

/// Throws InvalidInput with `message` unless `condition` holds.
inline void require(bool condition, const std::string& message) {
  if (!condition) throw InvalidInput(message);
}

}  // namespace binamg
