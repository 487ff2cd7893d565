#pragma once
// Which device runs the work: chosen at run time, the CPU always available.
#include <string>

namespace binamg {

enum class Device { cpu, gpu };

/// True when a CUDA device can be used (driver present and at least one GPU).
bool gpu_available();

/// "NVIDIA H100 80GB HBM3, 132 SMs" or "none".
std::string gpu_description();

/// Parses "cpu" / "gpu"; throws InvalidInput on anything else.
Device parse_device(const std::string& name);
const char* device_name(Device device);

}  // namespace binamg
