"""Every benchmark in one run, with the peers measured beside tute_env on the same machine.

Writes docs/benchmarks.md (tables, headline ratios, machine and date), a bar chart of the ratios
(docs/img/benchmarks.png) and the figures as JSON (docs/data/benchmarks.json).

    python -m bench                      # full run (about 5 minutes on 2 idle cores); needs a quiet machine
    python -m bench --quick              # smoke run (well under two minutes) into runs/bench_quick/

Everything but PPO runs in this process, pinned to one core (``--core``; -1: not pinned), each
figure the median of ``--runs`` runs. PPO training runs ``train.py`` in a child process on two
cores (``--threads 2``). Peers come from the optional ``[bench]`` extra (open_spiel, rlcard); a peer
that cannot be imported is reported as missing, not dropped. The measuring code is reused from
the other bench modules (core_speed, env_speed, eval_speed); see bench/peers.py for how peers'
decisions are counted.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from tute_env import tute_v0
from tute_env.engine.deal import random_deals
from tute_env.engine.reference import ReferenceGame
from tute_env.engine.rules import make_rules

from . import peers as peers_mod
from .common import machine, pin_to_core, today
from .core_speed import part_rates, random_play_rate
from .env_speed import aec_rate, vector_rate

ROOT = Path(__file__).resolve().parent.parent
PRESETS = ("partnership", "two_player")
BATCHES = (1, 64, 1024, 4096, 16384)
VECTOR_ENVS = 1024

# Settings of each mode. seconds: length of one timed run; runs: runs per figure (median).
MODES = {
    "full": dict(seconds=1.0, runs=5, part_repeats=20, count_games=400, eval_deals=4096, eval_runs=5,
                 pimc_moves=20, pimc_runs=3, ppo_updates=7, ppo_args=[]),
    "quick": dict(seconds=0.02, runs=3, part_repeats=1, count_games=10, eval_deals=32, eval_runs=1,
                  pimc_moves=2, pimc_runs=1, ppo_updates=3,
                  ppo_args=["--num-envs", "32", "--num-steps", "4", "--hidden", "32", "--update-epochs", "1",
                            "--num-minibatches", "1", "--bots", "random", "--pool-size", "1"]),
}
PPO_CONFIG = "configs/partnership.yaml"


def log(msg: str) -> None:
    print(msg, flush=True)


# ------------------------------------------------------------------------------------------------
# tute_env
# ------------------------------------------------------------------------------------------------
def reference_rate(preset: str, seconds: float, runs: int, seed: int = 0) -> float:
    """Decisions/s of the plain-Python reference engine, random legal play, on the deals the core's
    ``random_state(seed, ...)`` starts from (``random_deals`` with the same generator). Legal
    actions and steps are timed; dealing is not (it is the core's deal code)."""
    rules = make_rules(preset)
    pick = random.Random(seed)
    deals = random_deals(rules, np.random.default_rng(seed), 256)
    next_deal = [0]

    def run():
        steps, start = 0, time.perf_counter()
        while steps == 0 or time.perf_counter() - start < seconds:
            game = ReferenceGame(rules, deals[next_deal[0] % len(deals)])
            next_deal[0] += 1
            while not game.done:
                game.step(pick.choice(game.legal_actions()))
                steps += 1
        return steps / (time.perf_counter() - start)

    return statistics.median(run() for _ in range(runs))


def core_rows(cfg: dict) -> list[dict]:
    rows = []
    for preset in PRESETS:
        for batch in BATCHES:
            rate = random_play_rate(preset, batch, cfg["seconds"])  # median of 5 runs
            parts = part_rates(preset, batch, repeats=cfg["part_repeats"])  # medians of 5 runs
            rows.append({"preset": preset, "batch": batch, "decisions_per_s": rate,
                         "mask_ns_per_game": 1e9 / parts["masks_per_s"],
                         "observation_ns_per_game": 1e9 / parts["observations_per_s"],
                         "bytes_per_game": parts["bytes_per_game"]})
            log(f"core {preset:12s} B={batch:6d} {rate:13,.0f} decisions/s  mask "
                f"{rows[-1]['mask_ns_per_game']:9,.0f} ns/game  observation "
                f"{rows[-1]['observation_ns_per_game']:9,.0f} ns/game  {parts['bytes_per_game']:.0f} B/game")
    return rows


def env_rates(cfg: dict) -> dict:
    out = {}
    for preset in PRESETS:
        aec = statistics.median(aec_rate(tute_v0.env(preset=preset), cfg["seconds"], seed=r)
                                for r in range(cfg["runs"]))
        vec = statistics.median(vector_rate(preset, VECTOR_ENVS, cfg["seconds"], seed=r) for r in range(cfg["runs"]))
        out[preset] = {"aec_decisions_per_s": aec, "vector_steps_per_s": vec}
        log(f"env  {preset:12s} tute_v0 AEC {aec:,.0f} decisions/s, TuteVectorEnv N={VECTOR_ENVS} {vec:,.0f} "
            "learner steps/s")
    return out


def eval_rates(cfg: dict) -> dict:
    from .eval_speed import eval_speed, pimc_speed

    out = {}
    for preset in PRESETS:
        hands = statistics.median(eval_speed(preset, "greedy", "greedy", cfg["eval_deals"], 1)["hands_per_s"]
                                  for _ in range(cfg["eval_runs"]))
        row = {"greedy_hands_per_s": hands, "pimc": None, "pimc_missing": None}
        try:
            runs = [pimc_speed(preset, cfg["pimc_moves"], seed=r) for r in range(cfg["pimc_runs"])]
        except Exception as err:  # reported in the table
            runs, row["pimc_missing"] = [], f"failed: {type(err).__name__}: {err}"
        if runs and all(runs):
            row["pimc"] = {"mean_s": statistics.median(r["mean_s"] for r in runs),
                           "p95_s": statistics.median(r["p95_s"] for r in runs),
                           "moves": sum(r["moves"] for r in runs)}
        elif not row["pimc_missing"]:
            row["pimc_missing"] = "missing: the PIMC bot could not be made (see stderr)"
        out[preset] = row
        pimc = f"{row['pimc']['mean_s'] * 1e3:.1f} ms/move" if row["pimc"] else row["pimc_missing"]
        log(f"eval {preset:12s} greedy vs greedy {hands:,.0f} duplicate hands/s; PIMC {pimc}")
    return out


def rollout_settings(overrides: list[str]) -> dict:
    """num_envs, num_steps and hidden of PPO_CONFIG with ``overrides`` (``--num-envs N`` ...) applied
    (read here rather than through train.py's parser, which would import torch into this process)."""
    import yaml

    with open(ROOT / PPO_CONFIG) as f:
        values = yaml.safe_load(f)
    out = {"num_envs": int(values.get("num_envs", 1024)), "num_steps": int(values.get("num_steps", 16)),
           "hidden": [int(h) for h in values.get("hidden", [256, 256])]}
    for i, flag in enumerate(overrides):
        if flag == "--num-envs":
            out["num_envs"] = int(overrides[i + 1])
        elif flag == "--num-steps":
            out["num_steps"] = int(overrides[i + 1])
        elif flag == "--hidden":
            rest = overrides[i + 1:]
            end = next((k for k, x in enumerate(rest) if x.startswith("--")), len(rest))
            out["hidden"] = [int(x) for x in rest[:end]]
    return out


def ppo_rate(cfg: dict, cores: set[int] | None) -> dict:
    """train.py on PPO_CONFIG for a few updates on two threads; learner and env steps/s of the
    updates after the first (log.csv's sps/env_sps are averages since the start, so the figures
    are recomputed from the differences between the first and the last row)."""
    with tempfile.TemporaryDirectory(prefix="bench_ppo_") as tmp:
        run_dir = Path(tmp) / "run"
        cmd = [sys.executable, str(ROOT / "train.py"), "--config", str(ROOT / PPO_CONFIG), "--eval-every", "0",
               "--eval-opponents", "--no-progress", "--threads", "2", "--checkpoint-every", "1000",
               "--snapshot-every", "1000", "--run-dir", str(run_dir), *cfg["ppo_args"]]
        settings = rollout_settings(cfg["ppo_args"])
        batch = settings["num_envs"] * settings["num_steps"]
        cmd += ["--total-steps", str(cfg["ppo_updates"] * batch)]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}

        def unpin():  # the child gets every core this process had before pinning
            if cores and hasattr(os, "sched_setaffinity"):
                os.sched_setaffinity(0, cores)

        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, preexec_fn=unpin,
                              timeout=900, check=False)
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
            return {"missing": f"failed: train.py exited {proc.returncode}: {tail[0][:200]}"}
        with open(run_dir / "log.csv") as f:
            rows = list(csv.DictReader(f))
    first, last = rows[0], rows[-1]
    # elapsed since the start of training at each row = learner steps done since the start / sps
    t0 = int(first["learner_steps"]) / float(first["sps"])
    t1 = int(last["learner_steps"]) / float(last["sps"])
    out = {"config": PPO_CONFIG, "overrides": " ".join(cfg["ppo_args"]), "threads": 2,
           "updates": len(rows), "timed_updates": len(rows) - 1, "steps_per_update": batch,
           "num_envs": settings["num_envs"], "hidden": settings["hidden"], "wall_s": wall,
           "sps": (int(last["learner_steps"]) - int(first["learner_steps"])) / (t1 - t0),
           "env_sps": (int(last["env_steps"]) - int(first["env_steps"])) / (t1 - t0)}
    log(f"ppo  {PPO_CONFIG} on 2 threads: {out['sps']:,.0f} learner steps/s, {out['env_sps']:,.0f} env steps/s "
        f"({out['timed_updates']} updates after the first)")
    return out


# ------------------------------------------------------------------------------------------------
def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny runs: a smoke test of every row (< 2 minutes)")
    parser.add_argument("--out", default=None,
                        help="markdown report; the chart goes into img/ and the figures (JSON) into data/ beside it. Default: "
                             "docs/benchmarks.md, or runs/bench_quick/benchmarks.md with --quick")
    parser.add_argument("--core", type=int, default=0, help="core to pin to (-1: do not pin)")
    parser.add_argument("--seconds", type=float, default=None, help="length of one timed run (overrides the mode)")
    parser.add_argument("--runs", type=int, default=None, help="runs per figure, median kept (overrides the mode)")
    parser.add_argument("--skip-ppo", action="store_true", help="leave out the PPO figure (reported as skipped)")
    args = parser.parse_args(argv)
    if args.seconds is not None and not args.seconds > 0:
        parser.error(f"--seconds must be positive, got {args.seconds}")
    if args.runs is not None and args.runs < 1:
        parser.error(f"--runs must be at least 1, got {args.runs}")
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    if args.core < -1 or (cpus is not None and args.core >= 0 and args.core not in cpus):
        parser.error(f"--core must be -1 (do not pin) or one of this machine's cores {cpus}, got {args.core}")
    mode = "quick" if args.quick else "full"
    cfg = dict(MODES[mode])
    if args.seconds:
        cfg["seconds"] = args.seconds
    if args.runs:
        cfg["runs"] = args.runs

    from . import report  # matplotlib only once the measuring is set up

    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    pinned = pin_to_core(args.core) if args.core >= 0 else False
    started = time.perf_counter()
    results = {
        "mode": mode, "date": today(), "machine": machine(), "pinned_core": args.core if pinned else None,
        "load_start": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "settings": {k: v for k, v in cfg.items() if k != "ppo_args"},
        "batches": list(BATCHES), "vector_envs": VECTOR_ENVS,
    }
    log(f"bench ({mode}): {results['machine']}; pinned to core {results['pinned_core']}")
    results["core"] = core_rows(cfg)
    results["reference"] = {}
    for preset in PRESETS:
        results["reference"][preset] = reference_rate(preset, cfg["seconds"] * 2, cfg["runs"])
        log(f"reference {preset:12s} {results['reference'][preset]:,.0f} decisions/s")
    results["peers"] = [asdict(p) for p in
                        peers_mod.measure_peers(cfg["seconds"], cfg["runs"], cfg["count_games"], log=log)]
    results["env"] = env_rates(cfg)
    results["eval"] = eval_rates(cfg)
    results["ppo"] = {"missing": "skipped (--skip-ppo)"} if args.skip_ppo else ppo_rate(cfg, cores)
    results["load_end"] = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    results["seconds_total"] = time.perf_counter() - started
    out = Path(args.out or ROOT / ("runs/bench_quick" if args.quick else "docs") / "benchmarks.md")
    out.parent.mkdir(parents=True, exist_ok=True)
    report.write(results, out)
    log(f"wrote {out}, {report.chart_path(out)} and {report.json_path(out)} in {results['seconds_total']:.0f} s")
    return results


if __name__ == "__main__":
    main()
