#!/usr/bin/env bash
# Creates .venv (if missing) and installs tute_env with its training ([train]) and test dependencies.
# The CPU build of torch 2.13.0 is pinned first so that pip never pulls a multi-GB CUDA build;
# a GPU user sets TUTE_TORCH to the torch requirement they want (e.g. TUTE_TORCH="torch").
# The rllib extra is installed so its example's test runs; ray[rllib] 2.60 pins gymnasium==1.2.2,
# which the project (gymnasium>=1.0) supports.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q "${TUTE_TORCH:-torch==2.13.0}"
.venv/bin/python -m pip install -q -e ".[train,dev,bench,ray,rllib]"
# Compile numba's kernels (rules core, observation encoder, the heuristic bot) into its cache now,
# so that the first env step after setup runs as fast as any later one (docs/startup.md).
.venv/bin/python -m tute_lab.warmup
