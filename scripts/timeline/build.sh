#!/usr/bin/env bash
# Builds the CUPTI timeline recorder (cupti_timeline.cpp) into OUT_DIR (default .)
# with the CUDA toolkit's CUPTI; copy libcupti.so.* beside it for a machine
# whose toolkit lacks it, and put that folder on LD_LIBRARY_PATH there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-.}
cuda=${CUDA_HOME:-/usr/local/cuda}
g++ -O2 -Wall -Wextra -shared -fPIC "$here/cupti_timeline.cpp" -I"$cuda/include" \
  -L"$cuda/targets/x86_64-linux/lib" -L"$cuda/lib64" -lcupti -o "$out/libcupti_timeline.so"
