#!/usr/bin/env bash
# Sets up .venv and runs the tests: all of them (the command CI runs), or with --fast (first
# argument) those not marked slow (a few minutes). Other arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
select=()
if [ "${1:-}" = "--fast" ]; then
    shift
    select=(-m "not slow")
fi
exec .venv/bin/python -m pytest -q ${select[@]+"${select[@]}"} "$@"
