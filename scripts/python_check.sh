#!/usr/bin/env bash
# The Python package as a user gets it: a new virtual environment, pip install .
# (which builds the library and the module), then the pytest suite (python/tests;
# its GPU tests skip without a GPU). Then the same for the CPU-only package, as
# pip builds it where there is no CUDA toolkit (BINAMG_CUDA=OFF).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvcc >/dev/null 2>&1 || export PATH=/usr/local/cuda/bin:$PATH
check() {  # venv, then pip's extra arguments
  local venv=$1
  shift
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "$@" ".[test]"
  "$venv/bin/python" -c "import binamg; print('binamg', binamg.__version__, \
'built with CUDA:', binamg.built_with_cuda)"
  (cd python/tests && "../../$venv/bin/python" -m pytest -q .)
}
check "${BINAMG_VENV:-build/venv}"
check "${BINAMG_VENV:-build/venv}-cpu" -Ccmake.define.BINAMG_CUDA=OFF
