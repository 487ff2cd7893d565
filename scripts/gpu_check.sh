#!/usr/bin/env bash
# On a machine with a GPU: runs every GoogleTest binary of a build (the GPU tests
# compare with the CPU reference), JOBS at a time (default 1), and writes the full
# log and a one-line-per-binary summary to OUT_DIR. Exit status 1 if any failed.
# Usage: [JOBS=N] scripts/gpu_check.sh BUILD_DIR OUT_DIR
set -uo pipefail
build=${1:?build directory}
out=${2:?output directory}
jobs=${JOBS:-1}
# The tests' CPU references use OpenMP: JOBS processes of nproc threads each
# oversubscribe the cores and slow every run several-fold (docs/sanitizers.md).
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(( $(nproc) / jobs > 0 ? $(nproc) / jobs : 1 ))}
mkdir -p "$out/logs"
nvidia-smi -L > "$out/gpu-summary.txt"
run_one() {
  local test=$1 out=$2 name status
  name=$(basename "$test")
  if "$test" --gtest_brief=1 > "$out/logs/$name.log" 2>&1; then status=passed; else status=FAILED; fi
  echo "$name: $status $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/logs/$name.log" | tr '\n' ' ')"
}
export -f run_one
# test_device_pool_gpu fills the device's memory on purpose (its out-of-memory
# errors): run beside another binary it made that one's allocations fail, so it
# runs alone, after the rest.
alone='test_device_pool_gpu'
find "$build/tests" -maxdepth 1 -name 'test_*' -type f -executable | sort | grep -v "/$alone\$" |
  xargs -P "$jobs" -I{} bash -c 'run_one "$1" "$2"' _ {} "$out" > "$out/runs.txt"
if [ -x "$build/tests/$alone" ]; then run_one "$build/tests/$alone" "$out" >> "$out/runs.txt"; fi
sort "$out/runs.txt" >> "$out/gpu-summary.txt"
rm -f "$out/runs.txt"
for log in "$out"/logs/*.log; do
  { echo "===== $(basename "$log" .log)"; cat "$log"; } >> "$out/gpu-tests.log"
done
rm -rf "$out/logs"
cat "$out/gpu-summary.txt"
! grep -q ': FAILED' "$out/gpu-summary.txt"
