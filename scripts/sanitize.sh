#!/usr/bin/env bash
# Builds the library, the examples and the CPU tests with AddressSanitizer and
# UndefinedBehaviorSanitizer into build-sanitize/ and runs those tests: any
# memory error, leak or undefined behaviour fails them. Run by CI after the
# README's test command; the GPU binaries are checked with compute-sanitizer
# on a GPU machine instead (scripts/gpu_check.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvcc >/dev/null 2>&1 || export PATH=/usr/local/cuda/bin:$PATH
# Device code is compiled to PTX only (90-virtual): the CPU tests never run it, and
# skipping ptxas shortens the build.
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBINAMG_SANITIZE=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90-virtual \
  -DBINAMG_BUILD_BENCH=OFF -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" >/dev/null
cmake --build build-sanitize -j"$(nproc)"
# protect_shadow_gap=0: the CUDA runtime maps memory where ASan keeps its shadow gap.
export ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)"
