#!/usr/bin/env bash
# Sets up .venv and runs the tests: all of them (the command CI runs), or with --fast only those not
# marked slow (a few minutes). Other arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
args=()
for arg in "$@"; do
    if [ "$arg" = "--fast" ]; then
        args+=(-m "not slow")
    else
        args+=("$arg")
    fi
done
exec .venv/bin/python -m pytest -q ${args[@]+"${args[@]}"}
