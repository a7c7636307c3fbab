#!/usr/bin/env bash
# Sets up .venv and runs the tests: all of them (the command CI runs), or with --fast only those not
# marked slow (a minute or two, in one process). Other arguments go to pytest. The whole suite runs
# on every core (pytest-xdist: -n auto; the tests that start Ray share one worker, --dist loadgroup);
# -n 0 runs it in one process.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
select=(-n auto --dist loadgroup)
args=()
for arg in "$@"; do
    if [ "$arg" = "--fast" ]; then
        select=(-m "not slow")  # xdist's workers cost more than they save here
    else
        args+=("$arg")
    fi
done
exec .venv/bin/python -m pytest -q "${select[@]}" ${args[@]+"${args[@]}"}
