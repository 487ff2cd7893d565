#!/usr/bin/env bash
# Installs what binamg needs that is missing (Debian/Ubuntu packages), then
# configures and builds everything (library, CUDA sources, examples, benchmarks,
# tests) into build/. Without the CUDA toolkit it builds the CPU library alone
# (amg_solve and the CPU tests included). Safe to run again: it only rebuilds
# what changed.
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

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
if command -v nvcc >/dev/null 2>&1; then
  cuda=(-DBINAMG_CUDA=ON -DCMAKE_CUDA_COMPILER="$(command -v nvcc)")
else
  echo "setup: no CUDA toolkit (nvcc): building the CPU library alone; install the toolkit" \
       "from NVIDIA for the GPU code" >&2
  cuda=(-DBINAMG_CUDA=OFF)
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${cuda[@]}"
cmake --build build -j"$(nproc)"
