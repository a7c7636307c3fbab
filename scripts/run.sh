#!/usr/bin/env bash
# Sets up .venv and runs the main job: a short PPO run (configs/quickstart.yaml) and its evaluation.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python train.py --config configs/quickstart.yaml "$@"
