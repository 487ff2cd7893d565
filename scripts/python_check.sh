#!/usr/bin/env bash
# The Python package as a user gets it: a new virtual environment, pip install .
# (which builds the library and the module), then the pytest suite (python/tests;
# its GPU tests skip without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvcc >/dev/null 2>&1 || export PATH=/usr/local/cuda/bin:$PATH
venv=${BINAMG_VENV:-build/venv}
python3 -m venv "$venv"
"$venv/bin/pip" install -q ".[test]"
cd python/tests && "../../$venv/bin/python" -m pytest -q .
