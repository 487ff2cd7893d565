#!/usr/bin/env bash
# Builds the library, the examples and the CPU tests with AddressSanitizer and
# UndefinedBehaviorSanitizer into build-sanitize/ and runs those tests: any
# memory error, leak or undefined behaviour fails them. Run by CI after the
# README's test command; the GPU binaries are checked with compute-sanitizer
# on a GPU machine instead (scripts/gpu_check.sh).
#
# The build is CPU-only (BINAMG_CUDA=OFF): the CPU tests never run GPU code,
# and so this also proves that binamg builds and passes them without the CUDA
# toolkit (a CPU-only build cannot reach the CUDA headers: cmake/no_cuda).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBINAMG_SANITIZE=ON \
  -DBINAMG_CUDA=OFF -DBINAMG_BUILD_BENCH=OFF >/dev/null
cmake --build build-sanitize -j"$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)"
