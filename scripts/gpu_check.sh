#!/usr/bin/env bash
# On a machine with a GPU: runs every GoogleTest binary of a build (the GPU tests
# compare with the CPU reference) and writes the full log and a one-line-per-binary
# summary to OUT_DIR. Exit status 1 if any binary failed.
# Usage: scripts/gpu_check.sh BUILD_DIR OUT_DIR
set -uo pipefail
build=${1:?build directory}
out=${2:?output directory}
mkdir -p "$out"
nvidia-smi -L | tee "$out/gpu-summary.txt"
failed=0
for test in "$build"/tests/test_*; do
  [ -x "$test" ] || continue
  name=$(basename "$test")
  log=$(mktemp)
  if "$test" --gtest_brief=1 > "$log" 2>&1; then status=passed; else status=FAILED; failed=1; fi
  { echo "===== $name: $status"; cat "$log"; } >> "$out/gpu-tests.log"
  echo "$name: $status $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')" |
    tee -a "$out/gpu-summary.txt"
  rm -f "$log"
done
exit $failed
