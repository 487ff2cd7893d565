#!/usr/bin/env bash
# Packs a build's test, benchmark and example binaries (stripped) with
# gpu_check.sh into devpack/devbin.tar.xz, small enough to carry to a GPU
# machine that has no build: run there `tar xJf devpack/devbin.tar.xz` and
# `devbin/gpu_check.sh devbin OUT_DIR`. EXTRA folders (binaries of another
# build, matrices) are packed beside devbin/ as they are.
# Usage: scripts/pack_devbin.sh [BUILD_DIR [EXTRA...]]
set -euo pipefail
build=${1:-build}
shift || true
rm -rf devbin devpack
mkdir -p devbin/tests devbin/bench devpack
find "$build/tests" -maxdepth 1 -name 'test_*' -type f -executable -exec cp {} devbin/tests/ \;
find "$build/bench" -maxdepth 1 -name 'bench_*' -type f -executable -exec cp {} devbin/bench/ \;
cp "$build/amg_solve" "$build/compare_ordering" devbin/
strip devbin/tests/* devbin/bench/* devbin/amg_solve devbin/compare_ordering
cp scripts/gpu_check.sh scripts/gpu_sanitize.sh devbin/
tar cf - devbin "$@" | xz -9e --lzma2=dict=192MiB -T2 > devpack/devbin.tar.xz
ls -l devpack/devbin.tar.xz
