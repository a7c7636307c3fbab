"""First use: import, first step and first observation in a fresh process, cold and warm.

    python -m bench.startup [--quick] [--runs 3] [--presets partnership] [--write docs/startup.md]
    python -m bench.startup --after-setup [--runs 3] [--presets partnership] [--write docs/startup.md]

Each run is a fresh interpreter (this one's ``sys.executable``) that imports ``tute_env.engine.core``
and ``tute_env.engine.observation``, makes a ``Game``, a first ``random_state`` (B = 1), a first step
(legal mask, random action, ``Game.step``) and a first observation (``encode_observation``), and
reports the time of each phase, measured inside the process. *Cold*: numba's cache is empty (a
fresh ``NUMBA_CACHE_DIR``), so everything compiled is compiled: the first use after installing.
*Warm*: the cache filled by a previous run, the normal case after that. Figures are medians over
``--runs`` runs; the child's wall time (interpreter start included) is reported beside them. A
cold run also reports each compiled function's compile time (numba's own timers).

``--after-setup``: the first ``tute_v0.env()`` step in a fresh process after ``scripts/setup.sh``,
against a later step. Into an empty cache, ``python -m tute_lab.warmup`` (what setup.sh runs last) fills
numba's cache; then each run is a fresh process that makes ``tute_v0.env()``, resets it and times its
first step and the steps after it (median), then the same for ``gym_env.TuteEnv`` against the
heuristic bot, and counts the compilations numba could not load from the cache (0: the warm-up
compiled everything this first use needs). The same without the warm-up (cold) is beside it.

``--write`` rewrites the measured part of the markdown file and keeps what follows the line
``## Notes`` (written by hand: what bounds the figures); ``--after-setup --write`` rewrites only its
own section, ``## After setup``.
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
AFTER_SETUP = "## After setup"

# Runs in the child. Phases in seconds, then the compile time of every compiled function.
CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import numba
t1 = time.perf_counter()
import numpy as np
import tute_env
from tute_env.engine import core, kernel, observation
from tute_env.engine.core import Game, random_legal_actions
from tute_env.engine.observation import encode_observation
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
for module in (core, kernel, observation, sys.modules.get("tute_env.engine.cards")):
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
    "phases": {"import numba": t1 - t0, "import tute_env.engine.core, .observation": t2 - t1,
               "Game and first random_state": t3 - t2, "first step": t4 - t3, "first observation": t5 - t4},
    "total": t5 - t0, "compiled": compiled,
}))
"""


# Runs in the child of --after-setup: the first step of tute_v0.env() and of TuteEnv (heuristic
# opponents) against the later ones, and numba's cache misses (functions compiled in this process).
ENV_CHILD = r"""
import json, statistics, sys, time
import numba
import numpy as np
import tute_env
from agents import make_agent
from tute_env.engine.rules import make_rules

def play(env_reset, step, mask):  # first reset, the hand's steps, then a second reset
    start = time.perf_counter()
    env_reset(0)
    first_reset = time.perf_counter() - start
    steps = []
    while (m := mask()) is not None:
        start = time.perf_counter()
        step(int(np.flatnonzero(m)[0]))
        steps.append(time.perf_counter() - start)
    start = time.perf_counter()
    env_reset(1)
    return {"first reset": first_reset, "later reset": time.perf_counter() - start, "first step": steps[0],
            "later step": statistics.median(steps[1:])}

t0 = time.perf_counter()
from tute_env import tute_v0
from tute_env.envs.gym_env import TuteEnv
imported = time.perf_counter() - t0
env = tute_v0.env(preset=PRESET)

def env_mask():
    observation, _, termination, truncation, _ = env.last()
    if termination or truncation:
        while env.agents:  # the dead steps closing the hand
            env.step(None)
        return None
    return observation["action_mask"]

out = {"pettingzoo": play(lambda seed: env.reset(seed=seed), env.step, env_mask)}
single = TuteEnv(PRESET, opponents=make_agent("heuristic", make_rules(PRESET)))
over = [False]

def single_reset(seed):
    single.reset(seed=seed)
    over[0] = False

def single_step(action):
    over[0] = any(single.step(action)[2:4])

out["heuristic"] = play(single_reset, single_step, lambda: None if over[0] else single.action_masks())
misses = {}
for name, module in list(sys.modules.items()):
    if name.split(".")[0] in ("tute_env", "agents"):
        for value in list(vars(module).values()):
            if isinstance(value, numba.core.registry.CPUDispatcher) and value.__module__ == name:
                missed = sum(value.stats.cache_misses.values())
                if missed:
                    misses[f"{name}.{value.__name__}"] = missed
print(json.dumps({"file": tute_env.__file__, "import": imported, **out, "misses": misses}))
"""


def run_child(preset: str, cache_dir: str, child: str = CHILD) -> dict:
    """One fresh process: the figures it reports, and its wall time."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(NUMBA_CACHE_DIR=cache_dir, PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", f"PRESET = {preset!r}\n" + child], cwd=ROOT, env=env, capture_output=True,
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


def measure_after_setup(preset: str, runs: int) -> dict:
    """Cold runs (each into an empty cache), then the warm-up into an empty cache and runs after it."""
    fields = ("first reset", "later reset", "first step", "later step")
    out = {}
    with tempfile.TemporaryDirectory(prefix="tute_env-startup-") as tmp:
        cold = [run_child(preset, os.path.join(tmp, f"cold{r}"), ENV_CHILD) for r in range(runs)]
        cache = os.path.join(tmp, "setup")
        env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
        env.update(NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "tute_lab.warmup"], cwd=ROOT, env=env, check=True, capture_output=True)
        out["warm-up"] = time.perf_counter() - start
        after = [run_child(preset, cache, ENV_CHILD) for _ in range(runs)]
    for name, rows in (("cold", cold), ("after setup", after)):
        out[name] = {kind: {f: statistics.median(r[kind][f] for r in rows) for f in fields}
                     for kind in ("pettingzoo", "heuristic")}
        out[name]["import"] = statistics.median(r["import"] for r in rows)
        out[name]["misses"] = sorted({m for r in rows for m in r["misses"]})
        for kind in ("pettingzoo", "heuristic"):
            print(f"{preset} {name} {kind}: " + ", ".join(f"{f} {out[name][kind][f]:.4f} s" for f in fields),
                  flush=True)
    out["runs"] = runs
    return out


def write_after_setup(path: str, results: dict[str, dict]) -> None:
    """Rewrite the ``## After setup`` section of ``path`` (before ``## Notes``), keeping the rest."""
    runs = next(iter(results.values()))["runs"]
    lines = [
        AFTER_SETUP,
        "",
        f"Measured {today()} on {machine()}; `python -m bench.startup --after-setup --write {path}`. In a "
        "fresh process: `tute_v0.env()`'s first `reset` and first `step` against a later reset and a later step "
        "(the median of the hand's steps), then the same for `gym_env.TuteEnv` against the heuristic bot (its "
        f"reset plays the bot up to the learner's turn); medians of {runs} fresh processes. After setup: numba's "
        "cache filled by `python -m tute_lab.warmup`, the last step of `scripts/setup.sh` (it took the time in the "
        "last column); cold: an empty cache. Importing `tute_env.envs.tute_v0` and `.gym_env` (numba, PettingZoo, "
        "Gymnasium) comes before and is not counted here (~0.5-1 s, see above).",
        "",
        "| preset | cache | env | first reset (ms) | later reset (ms) | first step (ms) | later step (ms) "
        "| compiled in the process | warm-up (s) |",
        "|---|---|---|---:|---:|---:|---:|---|---:|",
    ]
    for preset, res in results.items():
        for name in ("cold", "after setup"):
            for kind, label in (("pettingzoo", "`tute_v0.env()`"), ("heuristic", "`TuteEnv`, heuristic")):
                r = res[name][kind]
                misses = ", ".join(f"`{m}`" for m in res[name]["misses"]) or "nothing"
                lines.append(
                    f"| {preset} | {name} | {label} | {1e3 * r['first reset']:.1f} | {1e3 * r['later reset']:.1f} | "
                    f"{1e3 * r['first step']:.2f} | {1e3 * r['later step']:.2f} | "
                    + (f"{misses} | " if kind == "pettingzoo" else "| ")
                    + (f"{res['warm-up']:.1f} |" if name == "after setup" and kind == "pettingzoo" else "|"))
    block = "\n".join(lines) + "\n\n"
    text = Path(path).read_text() if os.path.exists(path) else ""
    if f"\n{AFTER_SETUP}\n" in f"\n{text}":  # the heading, at the start of a line
        head, rest = f"\n{text}".split(f"\n{AFTER_SETUP}\n", 1)
        head = head[1:] + ("\n" if head else "")
        tail = rest[rest.index("\n## "):].lstrip("\n") if "\n## " in rest else ""
        text = head + block + tail
    elif NOTES in text:
        text = text.replace(NOTES, block + NOTES, 1)
    else:
        text = text + ("\n" if text else "") + block
    Path(path).write_text(text)


def write(path: str, results: dict[str, dict]) -> None:
    lines = [
        "# Startup: first use",
        "",
        f"Measured {today()} on {machine()}; `python -m bench.startup --write {path}`. Each figure is the "
        f"median of {next(iter(results.values()))['runs']} fresh processes: import `tute_env.engine.core` and "
        "`tute_env.engine.observation`, `Game`, a first `random_state` (B = 1), a first step, a first observation, timed "
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
        "`rules_kernel`'s includes `check_state` and `beating_set`, compiled with it):",
        "",
        "| function | signatures | compile (s) | of which LLVM (s) |",
        "|---|---:|---:|---:|",
    ]
    for name, info in sorted(res["compiled"].items(), key=lambda kv: -kv[1]["seconds"]):
        lines.append(f"| `{name}` | {info['signatures']} | {info['seconds']:.2f} | {info['llvm']:.2f} |")
    notes = ""  # the sections kept: After setup (--after-setup's) and the Notes
    if os.path.exists(path):
        text = Path(path).read_text()
        kept = [text.index(f"{h}\n") for h in (AFTER_SETUP, NOTES) if f"{h}\n" in text]
        if kept:
            notes = text[min(kept):]
    Path(path).write_text("\n".join(lines) + "\n" + ("\n" + notes if notes else ""))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run of each (smoke test)")
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per figure (median)")
    parser.add_argument("--presets", default="partnership", help="comma-separated presets, or 'all'")
    parser.add_argument("--write", default=None, help="markdown file to write the figures to")
    parser.add_argument("--after-setup", action="store_true",
                        help="the first env step after scripts/setup.sh's warm-up, against a later step")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.presets == "all":
        from tute_env.engine.rules import PRESETS

        presets = list(PRESETS)
    else:
        presets = args.presets.split(",")
    runs = 1 if args.quick else args.runs
    if args.after_setup:
        results = {p: measure_after_setup(p, runs) for p in presets}
        if args.write:
            write_after_setup(args.write, results)
        return results
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
