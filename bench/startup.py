"""First use: import, first step and first observation in a fresh process, cold and warm.

    python -m bench.startup [--quick] [--runs 3] [--presets partnership] [--write docs/startup.md]

Each run is a fresh interpreter (this one's ``sys.executable``) that imports ``tute_env.core``
and ``tute_env.observation``, makes a ``Game``, a first ``random_state`` (B = 1), a first step
(legal mask, random action, ``Game.step``) and a first observation (``encode_observation``), and
reports the time of each phase, measured inside the process. *Cold*: numba's cache is empty (a
fresh ``NUMBA_CACHE_DIR``), so everything compiled is compiled: the first use after installing.
*Warm*: the cache filled by a previous run, the normal case after that. Figures are medians over
``--runs`` runs; the child's wall time (interpreter start included) is reported beside them. A
cold run also reports each compiled function's compile time (numba's own timers).

``--write`` rewrites the measured part of the markdown file and keeps what follows the line
``## Notes`` (written by hand: what bounds the figures).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .common import machine, today

ROOT = Path(__file__).resolve().parent.parent
NOTES = "## Notes"

# Runs in the child. Phases in seconds, then the compile time of every compiled function.
CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import numba
t1 = time.perf_counter()
import numpy as np
import tute_env
from tute_env import core, observation
from tute_env.core import Game, random_legal_actions
from tute_env.observation import encode_observation
t2 = time.perf_counter()
game = Game(PRESET)
rng = np.random.default_rng(0)
state = game.random_state(rng, 1)
t3 = time.perf_counter()
game.step(state, random_legal_actions(game.legal_action_mask(state), rng))
t4 = time.perf_counter()
encode_observation(game.rules, state, state.current)
t5 = time.perf_counter()
compiled = {}
for module in (core, observation, sys.modules.get("tute_env.cards")):
    for name, value in vars(module or object()).items():
        if isinstance(value, numba.core.registry.CPUDispatcher) and value.__module__ == module.__name__:
            for sig, cres in value.overloads.items():
                timers = (cres.metadata or {}).get("timers", {})
                hits = sum(value.stats.cache_hits.values())
                compiled[f"{module.__name__.split('.')[-1]}.{name}"] = {
                    "seconds": timers.get("compiler_lock", 0.0), "llvm": timers.get("llvm_lock", 0.0),
                    "from_cache": hits > 0, "signatures": len(value.overloads),
                }
print(json.dumps({
    "file": tute_env.__file__,
    "phases": {"import numba": t1 - t0, "import tute_env.core, .observation": t2 - t1,
               "Game and first random_state": t3 - t2, "first step": t4 - t3, "first observation": t5 - t4},
    "total": t5 - t0, "compiled": compiled,
}))
"""


def run_child(preset: str, cache_dir: str) -> dict:
    """One fresh process: the figures it reports, and its wall time."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(NUMBA_CACHE_DIR=cache_dir, PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", f"PRESET = {preset!r}\n" + CHILD], cwd=ROOT, env=env, capture_output=True,
        text=True, check=False,
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"the child failed:\n{proc.stderr[-3000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    if not out["file"].startswith(str(ROOT)):
        raise RuntimeError(f"the child imported {out['file']}, not the tute_env of {ROOT}")
    out["wall"] = wall
    return out


def measure(preset: str, runs: int) -> dict:
    """Cold runs, each into an empty cache, then warm runs from the cache the last one filled."""
    cold, warm = [], []
    with tempfile.TemporaryDirectory(prefix="tute_env-startup-") as tmp:
        for r in range(runs):
            cache = os.path.join(tmp, f"cold{r}")
            cold.append(run_child(preset, cache))
            print(f"{preset}: cold run {r + 1}: {cold[-1]['total']:.2f} s in process, {cold[-1]['wall']:.2f} s wall",
                  flush=True)
        for r in range(runs):
            warm.append(run_child(preset, cache))
            print(f"{preset}: warm run {r + 1}: {warm[-1]['total']:.2f} s in process, {warm[-1]['wall']:.2f} s wall",
                  flush=True)
    med = statistics.median

    def summary(rows):
        return {
            "total": med(r["total"] for r in rows),
            "wall": med(r["wall"] for r in rows),
            "phases": {k: med(r["phases"][k] for r in rows) for k in rows[0]["phases"]},
        }

    compiled = {
        name: {
            **cold[-1]["compiled"][name],
            "seconds": med(r["compiled"][name]["seconds"] for r in cold),
            "llvm": med(r["compiled"][name]["llvm"] for r in cold),
        }
        for name in cold[-1]["compiled"]
    }
    return {"cold": summary(cold), "warm": summary(warm), "compiled": compiled, "runs": runs}


def write(path: str, results: dict[str, dict]) -> None:
    lines = [
        "# Startup: first use",
        "",
        f"Measured {today()} on {machine()}; `python -m bench.startup --write {path}`. Each figure is the "
        f"median of {next(iter(results.values()))['runs']} fresh processes: import `tute_env.core` and "
        "`tute_env.observation`, `Game`, a first `random_state` (B = 1), a first step, a first observation, timed "
        "inside the process (the wall time of the whole process, interpreter start included, beside it). Cold: "
        "an empty numba cache (`NUMBA_CACHE_DIR` a new directory), the first use after installing; warm: the "
        "cache a previous run filled, every use after that.",
        "",
        "| preset | cold first use (s) | cold, wall (s) | warm first use (s) | warm, wall (s) |",
        "|---|---:|---:|---:|---:|",
    ]
    for preset, res in results.items():
        c, w = res["cold"], res["warm"]
        lines.append(f"| {preset} | {c['total']:.2f} | {c['wall']:.2f} | {w['total']:.2f} | {w['wall']:.2f} |")
    first = next(iter(results))
    res = results[first]
    lines += [
        "",
        f"Phases ({first}, seconds, medians):",
        "",
        "| phase | cold | warm |",
        "|---|---:|---:|",
    ]
    for phase in res["cold"]["phases"]:
        lines.append(f"| {phase} | {res['cold']['phases'][phase]:.3f} | {res['warm']['phases'][phase]:.3f} |")
    lines += [
        "",
        f"Compiled functions at first use ({first}, cold, medians; numba's timers: the whole compilation, "
        "and the part in LLVM. A function's figure includes the functions compiled while typing it: "
        "`_rules_kernel`'s includes `_check_state` and `beating_set`, compiled with it):",
        "",
        "| function | signatures | compile (s) | of which LLVM (s) |",
        "|---|---:|---:|---:|",
    ]
    for name, info in sorted(res["compiled"].items(), key=lambda kv: -kv[1]["seconds"]):
        lines.append(f"| `{name}` | {info['signatures']} | {info['seconds']:.2f} | {info['llvm']:.2f} |")
    notes = ""
    if os.path.exists(path):
        text = Path(path).read_text()
        if NOTES in text:
            notes = text[text.index(NOTES):]
    Path(path).write_text("\n".join(lines) + "\n" + ("\n" + notes if notes else ""))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run of each (smoke test)")
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per figure (median)")
    parser.add_argument("--presets", default="partnership", help="comma-separated presets, or 'all'")
    parser.add_argument("--write", default=None, help="markdown file to write the figures to")
    args = parser.parse_args(argv)
    if args.presets == "all":
        from tute_env.rules import PRESETS

        presets = list(PRESETS)
    else:
        presets = args.presets.split(",")
    runs = 1 if args.quick else args.runs
    results = {p: measure(p, runs) for p in presets}
    for preset, res in results.items():
        print(f"{preset}: cold first use {res['cold']['total']:.2f} s ({res['cold']['wall']:.2f} s wall), "
              f"warm {res['warm']['total']:.2f} s ({res['warm']['wall']:.2f} s wall)")
    first = results[presets[0]]
    for name, info in sorted(first["compiled"].items(), key=lambda kv: -kv[1]["seconds"]):
        print(f"  {name}: {info['seconds']:.2f} s to compile ({info['llvm']:.2f} s LLVM), "
              f"{info['signatures']} signature(s)")
    if args.write:
        write(args.write, results)
    return results


if __name__ == "__main__":
    main()
