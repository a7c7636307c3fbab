"""Evaluation speed on one core: duplicate hands per second between rule-based bots, and the
PIMC bot's time per move. Writes the figures, the machine and the date to docs/eval_speed.md.

    python bench/eval_speed.py                      # pins itself to CPU 0
    python bench/eval_speed.py --deals 4096 --repeats 3 --out docs/eval_speed.md

Targets (issue 4): at least 5,000 duplicate hands per second for ``greedy`` against ``greedy``;
the PIMC default within 1 second per move.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tute_env.engine.core import Game
from tute_env.engine.rules import make_rules
from tute_env.play.seating import Seating
from tute_lab import evaluation

TARGET_HANDS_PER_SECOND = 5000
TARGET_PIMC_SECONDS = 1.0


def cpu_model() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return platform.processor() or "unknown"


def git_state(path: str) -> str:
    """Which version of a file was measured: its last commit, and whether the work tree differs."""
    try:
        commit = subprocess.run(["git", "log", "-1", "--format=%h", "--", path], cwd=ROOT, capture_output=True,
                                text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", path], cwd=ROOT, capture_output=True,
                               text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "version unknown"
    if not commit:
        return "not committed yet (work tree)"
    return f"commit {commit}" + (" with uncommitted changes" if dirty else "")


def eval_speed(preset: str, a: str, b: str, deals: int, repeats: int) -> dict:
    """Best of ``repeats`` runs of one duplicate evaluation of ``deals`` deals (one batch)."""
    warnings.simplefilter("ignore")
    evaluation.evaluate_pairing(preset, a, b, num_deals=min(deals, 64))  # warm up
    best = None
    for r in range(repeats):
        res = evaluation.evaluate_pairing(preset, a, b, num_deals=deals, batch_deals=deals,
                                        seed_start=evaluation.HELD_OUT_SEED_START + r * deals)
        if best is None or res.seconds < best.seconds:
            best = res
    return {"preset": preset, "pairing": f"{a} vs {b}", "deals": deals, "hands": best.hands,
            "seconds": best.seconds, "hands_per_s": best.hands / best.seconds,
            "deals_per_s": deals / best.seconds}


def pimc_speed(preset: str, moves: int, seed: int = 0) -> dict | None:
    """Seconds per move of the default PIMC bot on single observations from random mid-game states."""
    try:
        from agents import make_agent

        rules = make_rules(preset)
        agent = make_agent("pimc", rules, seed=seed)
    except (ImportError, AttributeError, ModuleNotFoundError) as err:
        print(f"pimc not available: {err}", file=sys.stderr)
        return None
    game = Game(rules)
    rng = np.random.default_rng(seed)
    times = []
    for k in range(moves):
        state = game.random_state(rng, 1)
        depth = int(rng.integers(0, 2 * rules.num_tricks))  # a random point in the hand
        for _ in range(depth):
            if state.done[0]:
                break
            mask = game.legal_action_mask(state)
            game.step(state, np.array([int(rng.choice(np.flatnonzero(mask[0])))]))
        if state.done[0]:
            continue
        start = time.perf_counter()  # the move, its observation encoded by the table included
        Seating(game, [agent], [0] * rules.num_players).actions(state, ~state.done)
        times.append(time.perf_counter() - start)
    times = np.array(times)
    return {"preset": preset, "moves": len(times), "mean_s": float(times.mean()),
            "p95_s": float(np.quantile(times, 0.95)), "max_s": float(times.max())}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=4096, help="duplicate deals per run (one batch)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (the best is kept)")
    parser.add_argument("--pimc-moves", type=int, default=30, help="PIMC moves timed per preset (0: skip)")
    parser.add_argument("--cpu", type=int, default=0, help="CPU to pin to (-1: do not pin)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "eval_speed.md"))
    args = parser.parse_args(argv)
    if args.cpu >= 0 and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})

    rows = []
    for preset in ("partnership", "two_player"):
        for a, b in (("greedy", "greedy"), ("heuristic", "heuristic"), ("random", "random")):
            deals = args.deals if a != "heuristic" else max(args.deals // 2, 1)
            row = eval_speed(preset, a, b, deals, args.repeats if a == "greedy" else 1)
            rows.append(row)
            print(f"{preset:12s} {row['pairing']:24s} {row['hands_per_s']:10,.0f} hands/s "
                  f"{row['deals_per_s']:9,.0f} deals/s", flush=True)
    pimc = []
    if args.pimc_moves:
        for preset in ("partnership", "two_player"):
            res = pimc_speed(preset, args.pimc_moves)
            if res:
                pimc.append(res)
                print(f"{preset:12s} pimc (default) {res['mean_s']:.3f} s/move mean, {res['max_s']:.3f} max",
                      flush=True)

    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",) * 3
    lines = [
        "# Evaluation speed",
        "",
        "Written by `python bench/eval_speed.py` (pinned to one core). Do not edit by hand; rerun it.",
        "",
        f"- date: {datetime.datetime.now().isoformat(timespec='seconds')}",
        f"- machine: {cpu_model()} (`lscpu` model name), {os.cpu_count()} CPUs, run on CPU {args.cpu}",
        f"- python {platform.python_version()}, numpy {np.__version__}; repository at {git_state('.')}",
        f"- load average when done: {' '.join(f'{x:.2f}' if isinstance(x, float) else x for x in load)} "
        "(other jobs on the machine slow the figures down)",
        "",
        "## Duplicate evaluation between rule-based bots",
        "",
        "A duplicate hand is one game of a deal played in one seating; a duplicate deal is played in "
        "both seatings (two hands). Each figure is the whole `tute_lab.evaluation.evaluate_pairing` (dealing, "
        f"observations, bots, rules core, scoring) on one batch, best of {args.repeats} runs for greedy.",
        "",
        f"Target: at least {TARGET_HANDS_PER_SECOND:,} duplicate hands per second for greedy vs greedy.",
        "",
        "| preset | pairing | deals | hands | seconds | hands/s | deals/s | target |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        target = ""
        if r["pairing"] == "greedy vs greedy":
            target = "met" if r["hands_per_s"] >= TARGET_HANDS_PER_SECOND else "NOT met"
        lines.append(f"| {r['preset']} | {r['pairing']} | {r['deals']} | {r['hands']} | {r['seconds']:.2f} | "
                     f"{r['hands_per_s']:,.0f} | {r['deals_per_s']:,.0f} | {target} |")
    lines += ["", "## PIMC time per move", ""]
    if pimc:
        lines += [f"`agents/pimc.py`: {git_state('agents/pimc.py')}.", ""]
        lines += [
            f"Target: the default within {TARGET_PIMC_SECONDS:.0f} s per move. Single observations from random "
            "points of random hands.",
            "",
            "| preset | moves | mean s/move | 95th percentile | max | target |",
            "|---|---|---|---|---|---|",
        ]
        for r in pimc:
            if r["max_s"] <= TARGET_PIMC_SECONDS:
                target = "met"
            else:
                target = "met (p95)" if r["p95_s"] <= TARGET_PIMC_SECONDS else "NOT met"
            lines.append(f"| {r['preset']} | {r['moves']} | {r['mean_s']:.3f} | {r['p95_s']:.3f} | {r['max_s']:.3f} "
                         f"| {target} |")
    else:
        lines.append("Not measured (the PIMC bot was not available or `--pimc-moves 0`).")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
