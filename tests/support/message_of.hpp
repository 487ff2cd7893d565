#pragma once
// The message of the InvalidInput a call throws, to compare a message whole.
#include <functional>
#include <string>

#include "binamg/core/error.hpp"

namespace binamg::testing {

/// f()'s InvalidInput message, or "(no error)" when it throws none.
inline std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InvalidInput& error) {
    return error.what();
  }
  return "(no error)";
}

}  // namespace binamg::testing
