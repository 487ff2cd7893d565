#!/usr/bin/env bash
# Installs what binamg needs that is missing (Debian/Ubuntu packages), then
# configures and builds everything (library, CUDA sources, examples, benchmarks,
# tests) into build/. Safe to run again: it only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
for package in cmake g++ make libeigen3-dev libgtest-dev zlib1g-dev; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null 2>&1; then
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH=/usr/local/cuda/bin:$PATH
  else
    echo "setup: the CUDA toolkit (nvcc) is required to build binamg; install it from NVIDIA" >&2
    exit 1
  fi
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(command -v nvcc)"
cmake --build build -j"$(nproc)"
