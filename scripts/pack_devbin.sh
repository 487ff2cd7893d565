#!/usr/bin/env bash
# Packs a build's test, benchmark and amg_solve binaries (stripped) with
# gpu_check.sh into devpack/devbin.tgz, small enough to carry to a GPU machine
# that has no build: run there `tar xzf devpack/devbin.tgz` and
# `devbin/gpu_check.sh devbin OUT_DIR`.
# Usage: scripts/pack_devbin.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
rm -rf devbin devpack
mkdir -p devbin/tests devbin/bench devpack
find "$build/tests" -maxdepth 1 -name 'test_*' -type f -executable -exec cp {} devbin/tests/ \;
find "$build/bench" -maxdepth 1 -name 'bench_*' -type f -executable -exec cp {} devbin/bench/ \;
cp "$build/amg_solve" devbin/
strip devbin/tests/* devbin/bench/* devbin/amg_solve
cp scripts/gpu_check.sh devbin/
tar czf devpack/devbin.tgz devbin
ls -l devpack/devbin.tgz
