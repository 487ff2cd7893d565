#pragma once
// Command-line helpers the example programs share.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "binamg/core/device.hpp"
#include "binamg/core/error.hpp"
#include "binamg/core/types.hpp"
#include "binamg/problems/model_problem.hpp"

namespace binamg::cli {

/// `--name value` options and `--flag`s as given on the command line.
struct Arguments {
  std::map<std::string, std::string> values;
  bool json = false;  // --json

  /// The value of `name`, or nullptr when it was not given.
  const std::string* get(const std::string& name) const {
    auto it = values.find(name);
    return it == values.end() ? nullptr : &it->second;
  }
};

/// Reads argv: --help/-h prints `usage` and exits 0; --json is the one flag;
/// every other argument must be one of `takes_value` followed by its value,
/// else InvalidInput names it.
inline Arguments parse_arguments(int argc, char** argv, const std::vector<std::string>& takes_value,
                                 const char* usage) {
  Arguments arguments;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << usage;
      std::exit(0);
    }
    if (arg == "--json") {
      arguments.json = true;
      continue;
    }
    bool known = false;
    for (const auto& name : takes_value) known = known || name == arg;
    require(known, "unknown option '" + arg + "' (see --help)");
    require(i + 1 < argc, "option " + arg + " needs a value");
    arguments.values[arg] = argv[++i];
  }
  return arguments;
}

/// Parses a whole-string number or throws naming the option.
template <typename Number>
Number parse_number(const std::string& option, const std::string& text) {
  std::istringstream stream(text);
  Number value{};
  stream >> value;
  require(stream && stream.eof(), "option " + option + " expects a number, got '" + text + "'");
  return value;
}

/// The checks every example makes of its input and where it runs: exactly one
/// of a named model problem (with a size) or a Matrix Market file, and a
/// known precision and device.
inline void validate_input_options(const std::string& problem, index_t size,
                                   const std::string& matrix, const std::string& precision,
                                   const std::string& device) {
  require(problem.empty() != matrix.empty(),
          "give exactly one of --problem NAME --size N or --matrix FILE (see --help)");
  if (!problem.empty()) {
    validate_problem_name(problem);
    require(size >= 1, "--problem needs --size N with N >= 1");
  }
  require(precision == "double" || precision == "float",
          "--precision must be double or float, got '" + precision + "'");
  require(device == "auto" || device == "cpu" || device == "gpu",
          "--device must be auto, cpu or gpu, got '" + device + "'");
}

/// `text` as a JSON string, quoted, with quotes, backslashes and control
/// characters escaped (paths and messages may hold any of them).
inline std::string json_string(const std::string& text) {
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(c));
      quoted += escape;
    } else {
      quoted += c;
    }
  }
  return quoted + "\"";
}

/// A JSON number with every digit a double holds; null for NaN and infinities,
/// which JSON cannot write.
inline std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

/// Bitwise equality: what a repeat must reproduce (NaN equals itself here).
inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// The device that runs the work: auto is the GPU when one is usable; an
/// explicit gpu without one is refused rather than silently run elsewhere.
inline Device choose_device(const std::string& requested) {
  if (requested == "auto") return gpu_available() ? Device::gpu : Device::cpu;
  const Device device = parse_device(requested);
  if (device == Device::gpu && !gpu_available())
    throw InvalidInput("--device gpu: no usable CUDA GPU (" + gpu_description() +
                       "); use --device cpu (or auto)");
  return device;
}

}  // namespace binamg::cli
