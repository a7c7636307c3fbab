"""Two checkouts of the project side by side: fixed workloads timed in alternating fresh processes.

    python -m bench.compare OLD_CHECKOUT NEW_CHECKOUT [--rounds 3] [--workloads core aec vec eval ppo]

A workload runs with its checkout first on ``sys.path`` (both use this environment's packages),
so a change can be measured against the commit before it on the same machine in the same
minutes: rounds alternate old, new, old, new, and each figure is the median over rounds of
new / old wall time (below 1: the new checkout is faster). Whole processes are timed, imports
and compilation (numba caches warm after the first round) included; the PPO workload also
reports the trainer's own environment decisions/s, startup excluded.

Workloads: ``core`` (4,000 random batched steps of 4,096 partnership games), ``aec`` (60,000
random steps of ``tute_v0.env()``), ``vec`` (1,500 steps of ``TuteVectorEnv`` with 1,024
games), ``eval`` (greedy vs greedy on 32,768 duplicate deals), ``ppo`` (4 updates of
``configs/partnership.yaml``, no evaluation).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORKLOADS = {
    "core": """
try:
    from tute_env.engine.core import Game, random_legal_actions
except ImportError:  # a checkout before the engine package (issue 35)
    from tute_env.core import Game, random_legal_actions
import numpy as np
game = Game("partnership"); rng = np.random.default_rng(0); s = game.random_state(rng, 4096)
for _ in range(4000):
    game.step(s, random_legal_actions(game.legal_action_mask(s), rng)); game.reset_done(s, rng)
""",
    "aec": """
import numpy as np
from tute_env import tute_v0
try:
    env = tute_v0.env(preset="partnership")
except (TypeError, ValueError):  # a checkout before the preset argument (issue 35)
    env = tute_v0.env(variant="partnership")
env.reset(seed=0); rng = np.random.default_rng(0); n = 0
while n < 60000:
    for agent in env.agent_iter():
        obs, r, term, trunc, info = env.last(); n += 1
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    env.reset()
""",
    "vec": """
import numpy as np
try:
    from tute_env.envs.gym_env import TuteVectorEnv
except ImportError:  # a checkout before the envs package (issue 35)
    from tute_env.gym_env import TuteVectorEnv
envs = TuteVectorEnv(1024, "partnership"); envs.reset(seed=0); rng = np.random.default_rng(0)
for _ in range(1500):
    m = envs.action_masks(); envs.step(np.argmax(rng.random(m.shape) * m, axis=1))
""",
    "eval": """
import evaluate  # the script: before and after the tute_lab package alike
evaluate.evaluate_pairing("partnership", "greedy", "greedy", num_deals=32768, batch_deals=4096)
""",
    "ppo": """
import sys, train
sys.argv = ["train.py", "--config", "configs/partnership.yaml", "--total-steps", "65536", "--eval-every", "0",
            "--run-dir", RUN_DIR, "--no-progress", "--threads", "2"]
train.main(sys.argv[1:])
""",
}


def run(checkout: Path, workload: str, run_dir: Path) -> tuple[float, float | None]:
    """Wall seconds of one fresh process; for ppo also the trainer's last env decisions/s."""
    code = f"import sys; sys.path.insert(0, {str(checkout)!r}); RUN_DIR = {str(run_dir)!r}\n" + WORKLOADS[workload]
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=checkout, check=True, capture_output=True)
    seconds = time.perf_counter() - start
    env_sps = None
    if workload == "ppo":
        env_sps = float((run_dir / "log.csv").read_text().splitlines()[-1].split(",")[4])
    return seconds, env_sps


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.compare", description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path, help="the checkout before the change")
    parser.add_argument("new", type=Path, help="the checkout after it")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per workload (default 3)")
    parser.add_argument("--workloads", nargs="+", default=list(WORKLOADS), choices=list(WORKLOADS))
    args = parser.parse_args(argv)
    for path in (args.old, args.new):
        if not (path / "tute_env" / "__init__.py").is_file() or not (path / "train.py").is_file():
            parser.error(f"{path} is not a checkout of this project (no tute_env/__init__.py and train.py)")
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    print("workload | old s | new s | new/old wall (median, min-max)")
    for workload in args.workloads:
        times = {"old": [], "new": []}
        sps = {"old": [], "new": []}
        with tempfile.TemporaryDirectory() as tmp:
            for k in range(args.rounds + 1):  # the first round warms the numba caches: not counted
                for side in ("old", "new"):
                    seconds, env_sps = run(getattr(args, side), workload, Path(tmp) / f"{side}{k}")
                    if k:
                        times[side].append(seconds)
                        sps[side].append(env_sps)
        ratios = [n / o for o, n in zip(times["old"], times["new"])]
        line = (f"{workload} | {statistics.median(times['old']):.2f} | {statistics.median(times['new']):.2f} | "
                f"{statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})")
        if workload == "ppo":
            line += (f" | env decisions/s {statistics.median(sps['old']):,.0f} -> "
                     f"{statistics.median(sps['new']):,.0f}")
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
