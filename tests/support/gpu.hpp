#pragma once
// GPU tests skip cleanly on a machine without a usable GPU.
#include <gtest/gtest.h>

#include "binamg/core/device.hpp"

#define BINAMG_REQUIRE_GPU()                                        \
  do {                                                              \
    if (!::binamg::gpu_available()) GTEST_SKIP() << "no CUDA GPU"; \
  } while (0)
