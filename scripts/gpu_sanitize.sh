#!/usr/bin/env bash
# On a machine with a GPU: runs every GPU test binary of a build (test_*_gpu)
# under compute-sanitizer with each TOOL (default: memcheck racecheck initcheck),
# each binary split into SHARDS GoogleTest shards (default 1; every test runs in
# one shard), JOBS runs at a time (default 4), each stopped after LIMIT seconds
# (default 300), and writes the full logs and a one-line-per-run summary to
# OUT_DIR: the tool's error count, whether the tests passed, or that the run
# timed out. CUDA API errors are not reported: every call is checked in the code,
# so one fails its test, and the out-of-memory tests make them on purpose.
# Exit status 1 if any run reported an error or failed.
# NAMES (a find -name pattern, default test_*_gpu) picks the binaries. JOBLIST
# (a file of lines "TOOL BINARY SHARD SHARDS", e.g. "racecheck test_spgemm_gpu 3 8")
# runs those runs instead, in that order. Each run's line is also appended to
# OUT_DIR/sanitize-summary.partial as it ends, so a run cut short keeps what finished.
# Usage: [TOOLS="memcheck ..."] [NAMES=GLOB] [SHARDS=N] [JOBLIST=FILE] [JOBS=N] [LIMIT=S] scripts/gpu_sanitize.sh BUILD_DIR OUT_DIR
set -uo pipefail
build=${1:?build directory}
out=${2:?output directory}
jobs=${JOBS:-4}
# The tests' CPU references use OpenMP: JOBS processes of nproc threads each
# oversubscribe the cores and slow every run several-fold (docs/sanitizers.md).
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(( $(nproc) / jobs > 0 ? $(nproc) / jobs : 1 ))}
export LIMIT=${LIMIT:-300}
shards=${SHARDS:-1}
tools=${TOOLS:-memcheck racecheck initcheck}
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
export sanitizer
mkdir -p "$out/logs"
run_one() {
  local tool=$1 test=$2 shard=$3 shards=$4 out=$5 name log status
  name=$(basename "$test")
  log="$out/logs/$tool.$name.$shard.log"
  [ "$shards" -gt 1 ] && name="$name shard $shard/$shards"
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$shard timeout "$LIMIT" "$sanitizer" \
    --tool "$tool" --report-api-errors no --error-exitcode 9 "$test" --gtest_brief=1 > "$log" 2>&1
  case $? in
    0) status=clean ;;
    9) status=ERRORS ;;
    124) status="TIMED OUT after ${LIMIT} s" ;;
    *) status=FAILED ;;
  esac
  echo "$tool $name: $status; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)" \
       "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')" |
    tee -a "$out/sanitize-summary.partial"
}
export -f run_one
runs() {
  if [ -n "${JOBLIST:-}" ]; then
    while read -r tool name shard count; do echo "$tool $build/tests/$name $shard $count"; done < "$JOBLIST"
    return
  fi
  for tool in $tools; do
    for test in $(find "$build/tests" -maxdepth 1 -name "${NAMES:-test_*_gpu}" -type f -executable | sort); do
      for ((shard = 0; shard < shards; ++shard)); do echo "$tool $test $shard $shards"; done
    done
  done
}
runs | OUT=$out xargs -P "$jobs" -L 1 bash -c 'run_one "$1" "$2" "$3" "$4" "$OUT"' _ |
  sort > "$out/sanitize-summary.txt"
for log in "$out"/logs/*.log; do
  { echo "===== $(basename "$log" .log)"; cat "$log"; } >> "$out/sanitize.log"
done
rm -rf "$out/logs"
cat "$out/sanitize-summary.txt"
! grep -qE ': (ERRORS|FAILED)' "$out/sanitize-summary.txt"
