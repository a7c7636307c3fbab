"""Speed of the exact double-dummy solver (tute_env.search.solver), against issue 30's goals.

    python -m bench.solver_speed [--quick] [--deals 100] [--write docs/solver_speed.md]
    python -m bench.solver_speed --compare OLD_CHECKOUT NEW_CHECKOUT [--rounds 5] [--deals 20]

Pinned to one core, compilation excluded (one solve first). Positions are random deals, played
on at random (seeded) where a figure needs a later position; each is solved by a fresh call of
one :class:`~tute_env.search.solver.Solver` (its transposition table reused, its entries not: each
lane starts a new generation). Figures, each the seconds of one call on a one-lane state:

* ``partnership``, whole deals from the first lead: ``value`` (the position's value) and
  ``action_values`` (every first lead valued);
* ``two_player`` once the stock is gone (8 tricks left, the first lead of trick 13);
* ``two_player`` from the first lead with the stock known (under a time budget: how many fail);
* the speed-up over ``bench.oracle.exact_values`` (full expansion, no pruning) on the same
  positions with 4 tricks left (partnership and two_player, point weights 0 and 1.15), both
  computing every legal action's value, in the same run.

``--compare``: two checkouts of the solver side by side (as ``bench.compare``: each in fresh
processes with its checkout first on ``sys.path``, alternating old, new, old, new; a first
round warms the numba caches and is not counted), on the same fixed positions: ``--deals``
partnership deals from the first lead (``value``, ``action_values``) and as many two_player
endgames (stock gone; each call repeated 50 times, so that the calls' fixed costs count).
Solve calls are timed inside the process (compilation excluded); the figures are new / old
seconds per round (median, min-max), and whether the positions searched and the values are
the same (bit for bit) in both.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from tute_env.engine.core import Game, random_legal_actions
from tute_env.search.solver import Solver, SolverBudgetExceeded

from .common import load_average, machine, pin_to_core, today, write_page_keeping_notes

GOALS = {"deal_median": 0.2, "deal_p99": 5.0, "endgame_median": 0.005, "speedup": 100.0}


def positions(preset: str, count: int, tricks_played: int, seed: int):
    """``count`` one-lane states at the first lead after ``tricks_played`` random tricks."""
    game = Game(preset)
    rng = np.random.default_rng(seed)
    s = game.random_state(rng, count)
    while True:
        todo = ~s.done & ((s.tricks_played < tricks_played) | (s.decision != 0))
        if not todo.any():
            break
        game.step(s, random_legal_actions(game.legal_action_mask(s), rng), active=todo)
    lanes = np.flatnonzero(~s.done)
    return [s.take(np.array([lane])) for lane in lanes]


def timed_solves(solver: Solver, states, method: str, budget: float | None = None):
    """Seconds and positions searched of each solve; None where the budget ran out."""
    solver.max_seconds = budget
    seconds, nodes = [], []
    for s in states:
        start = time.perf_counter()
        try:
            getattr(solver, method)(s)
        except SolverBudgetExceeded:
            seconds.append(None)
            nodes.append(solver.nodes)
            continue
        seconds.append(time.perf_counter() - start)
        nodes.append(solver.nodes)
    return seconds, nodes


def summary(seconds, nodes) -> dict:
    done = np.array([x for x in seconds if x is not None])
    out = {"n": len(seconds), "over_budget": sum(x is None for x in seconds)}
    if done.size:
        out.update(median=float(np.median(done)), p99=float(np.percentile(done, 99)), max=float(done.max()),
                   nodes_median=float(np.median(nodes)), nodes_per_s=float(np.sum(
                       [n for n, x in zip(nodes, seconds) if x is not None]) / done.sum()))
    return out


def speedup(preset: str, count: int, seed: int, point_weight: float) -> dict:
    """Solver against exact_values, every legal action valued, on the same positions."""
    from bench.oracle import exact_values

    game = Game(preset)
    states = positions(preset, count, game.rules.num_tricks - 4, seed)
    solver = Solver(preset, point_weight=point_weight)
    solver.action_values(states[0])
    solve_s, exact_s = [], []
    for s in states:
        start = time.perf_counter()
        values = solver.action_values(s)[0]
        solve_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        legal = np.flatnonzero(game.legal_action_mask(s)[0])
        kids = s.take(np.zeros(len(legal), np.intp))
        game.step(kids, legal)
        reference = exact_values(game, kids, int(s.current[0]), point_weight)
        exact_s.append(time.perf_counter() - start)
        assert np.array_equal(values[legal], reference)
    ratio = np.array(exact_s) / np.array(solve_s)
    return {"n": len(states), "solver_median": float(np.median(solve_s)), "exact_median": float(np.median(exact_s)),
            "total_ratio": float(np.sum(exact_s) / np.sum(solve_s)), "median_ratio": float(np.median(ratio)),
            "min_ratio": float(ratio.min())}


def run(deals: int, quick: bool) -> dict:
    solver, two = Solver("partnership"), Solver("two_player")
    solver.value(positions("partnership", 1, 6, 0)[0])  # compile (or load) and touch the tables
    two.action_values(positions("two_player", 1, 14, 0)[0])
    res = {}
    whole = positions("partnership", deals, 0, 1)
    res["partnership_value"] = summary(*timed_solves(solver, whole, "value", 60.0))
    print("partnership, whole deal, value:", res["partnership_value"], flush=True)
    res["partnership_actions"] = summary(*timed_solves(solver, whole[: max(deals // 4, 5)], "action_values", 60.0))
    print("partnership, whole deal, action_values:", res["partnership_actions"], flush=True)
    weighted = Solver("partnership", point_weight=1.15)
    res["partnership_value_pw"] = summary(*timed_solves(weighted, whole[: max(deals // 8, 5)], "value", 60.0))
    print("partnership, whole deal, value, point weight 1.15:", res["partnership_value_pw"], flush=True)
    endgames = positions("two_player", deals, 12, 2)
    res["two_player_endgame_actions"] = summary(*timed_solves(two, endgames, "action_values"))
    res["two_player_endgame_value"] = summary(*timed_solves(two, endgames, "value"))
    print("two_player, stock gone:", res["two_player_endgame_actions"], res["two_player_endgame_value"], flush=True)
    first = positions("two_player", 2 if quick else 5, 0, 3)
    budget = 5.0 if quick else 30.0
    res["two_player_first_lead"] = summary(*timed_solves(two, first, "value", budget)) | {"budget_s": budget}
    print("two_player, first lead:", res["two_player_first_lead"], flush=True)
    count = 10 if quick else 60
    for weight in (0.0, 1.15):
        for k, preset in enumerate(("partnership", "two_player")):
            res[f"speedup_{preset}_{weight}"] = speedup(preset, count, 4 + k, weight)
            print("speed-up:", preset, weight, res[f"speedup_{preset}_{weight}"], flush=True)
    return res


# One process of --compare: the checkout's solver on the fixed positions; prints the figures as JSON.
COMPARE_WORKLOAD = """
import hashlib, json, time
from bench.solver_speed import positions
from tute_env.search.solver import Solver
deals, endgames = positions("partnership", DEALS, 0, 1), positions("two_player", DEALS, 12, 2)
solvers = {"partnership": Solver("partnership"), "two_player": Solver("two_player")}
solvers["partnership"].value(positions("partnership", 1, 6, 0)[0])  # compile (or load) and touch the tables
solvers["two_player"].action_values(endgames[0])
out = {}
for name, preset, states, method, repeat in (
        ("partnership deal, value", "partnership", deals, "value", 1),
        ("partnership deal, action_values", "partnership", deals, "action_values", 1),
        ("two_player endgame, value x50", "two_player", endgames, "value", 50),
        ("two_player endgame, action_values x50", "two_player", endgames, "action_values", 50)):
    solve, seconds, nodes, digest = getattr(solvers[preset], method), 0.0, 0, hashlib.sha256()
    for s in states:
        start = time.perf_counter()
        for _ in range(repeat):
            values = solve(s)
        seconds += time.perf_counter() - start
        nodes += solvers[preset].nodes
        digest.update(values.tobytes())
    out[name] = {"seconds": seconds, "nodes": nodes, "values": digest.hexdigest()}
print(json.dumps(out))
"""


def compare_round(checkout: Path, deals: int) -> dict:
    """The figures of one fresh process of COMPARE_WORKLOAD in ``checkout``."""
    code = f"import sys; sys.path.insert(0, {str(checkout)!r}); DEALS = {deals}\n" + COMPARE_WORKLOAD
    done = subprocess.run([sys.executable, "-c", code], cwd=checkout, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.splitlines()[-1])


def compare(old: Path, new: Path, rounds: int, deals: int) -> None:
    """Prints, per workload, old and new seconds (medians over rounds) and new / old."""
    runs = {"old": [], "new": []}
    for k in range(rounds + 1):  # the first round warms the numba caches: not counted
        for side, checkout in (("old", old), ("new", new)):
            figures = compare_round(checkout, deals)
            if k:
                runs[side].append(figures)
            print(f"round {k} {side}: " + ", ".join(f"{w} {f['seconds']:.3f} s" for w, f in figures.items()),
                  flush=True)
    print(f"{deals} positions each, {rounds} rounds, load average {load_average():.2f}")
    print("workload | old s | new s | new/old (median, min-max) | positions searched | values")
    for workload in runs["old"][0]:
        o = [r[workload] for r in runs["old"]]
        n = [r[workload] for r in runs["new"]]
        ratios = [b["seconds"] / a["seconds"] for a, b in zip(o, n)]
        same_nodes = {r["nodes"] for r in o + n}
        same_values = len({r["values"] for r in o + n}) == 1
        print(f"{workload} | {statistics.median(r['seconds'] for r in o):.3f} | "
              f"{statistics.median(r['seconds'] for r in n):.3f} | {statistics.median(ratios):.3f} "
              f"({min(ratios):.3f}-{max(ratios):.3f}) | "
              f"{'same: ' + format(o[0]['nodes'], ',') if len(same_nodes) == 1 else 'DIFFER'} | "
              f"{'same' if same_values else 'DIFFER'}", flush=True)


def fmt(x) -> str:
    return "-" if x is None else (f"{x * 1000:.1f} ms" if x < 1 else f"{x:.2f} s")


def write(path: str, res: dict, pinned: bool, deals: int) -> None:
    d, e, s = res["partnership_value"], res["two_player_endgame_actions"], res["speedup_partnership_0.0"]
    rows = [
        ("whole partnership deal, median", "0.2 s", fmt(d.get("median")), d.get("median", 1e9) <= GOALS["deal_median"]),
        ("whole partnership deal, p99", "5 s", fmt(d.get("p99")), d.get("p99", 1e9) <= GOALS["deal_p99"] and not d["over_budget"]),
        ("two_player, stock gone (8 tricks), median", "5 ms", fmt(e.get("median")), e.get("median", 1e9) <= GOALS["endgame_median"]),
        ("speed-up over exact_values, 4 tricks left (partnership, point weight 0, total time)", "100x", f"{s['total_ratio']:.0f}x",
         s["total_ratio"] >= GOALS["speedup"]),
    ]
    lines = [
        "# Solver speed",
        "",
        (f"Measured {today()} on {machine()}; pinned to one core: {pinned}. `python -m bench.solver_speed "
         f"--deals {deals} --write docs/solver_speed.md`. Seconds of one call on a one-lane state, compilation "
         "excluded; random deals (seeded), played on at random to the position measured; point weight 0 unless said."),
        "",
        "## Goals (issue 30)",
        "",
        "| goal | target | measured | met |",
        "|---|---:|---:|---|",
    ]
    lines += [f"| {name} | {target} | {got} | {'yes' if ok else '**no**'} |" for name, target, got, ok in rows]
    lines += ["", "## All figures", "", "| position | call | n | median | p99 | max | over budget | positions searched (median) | positions/s |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    named = [
        ("partnership, whole deal", "value", "partnership_value"),
        ("partnership, whole deal", "action_values", "partnership_actions"),
        ("partnership, whole deal, point weight 1.15", "value", "partnership_value_pw"),
        ("two_player, stock gone (8 tricks)", "action_values", "two_player_endgame_actions"),
        ("two_player, stock gone (8 tricks)", "value", "two_player_endgame_value"),
        (f"two_player, first lead, stock known (budget {res['two_player_first_lead']['budget_s']:.0f} s)", "value",
         "two_player_first_lead"),
    ]
    for name, call, key in named:
        r = res[key]
        lines.append(
            f"| {name} | `{call}` | {r['n']} | {fmt(r.get('median'))} | {fmt(r.get('p99'))} | {fmt(r.get('max'))} | "
            f"{r['over_budget']} | {r.get('nodes_median', 0):,.0f} | {r.get('nodes_per_s', 0):,.0f} |"
        )
    lines += ["", ("Speed-up over `bench.oracle.exact_values` (every legal action valued, the same positions: the "
                   "first lead with 4 tricks left; the values checked equal):"), "",
              ("| preset | point weight | n | solver median | exact_values median | total time ratio | median ratio | "
               "worst ratio |"), "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for weight in (0.0, 1.15):
        for preset in ("partnership", "two_player"):
            r = res[f"speedup_{preset}_{weight}"]
            lines.append(f"| {preset} | {weight} | {r['n']} | {fmt(r['solver_median'])} | {fmt(r['exact_median'])} | "
                         f"{r['total_ratio']:.0f}x | {r['median_ratio']:.0f}x | {r['min_ratio']:.0f}x |")
    write_page_keeping_notes(path, lines)  # the hand-written notes below the figures are kept


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few positions (smoke test)")
    parser.add_argument("--deals", type=int, default=None,
                        help="whole deals and endgames timed (default 100; 20 with --compare)")
    parser.add_argument("--write", default=None, help="markdown file to write the figures to")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"),
                        help="two checkouts' solvers side by side on fixed positions (--deals, default 20)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds of --compare (default 5)")
    args = parser.parse_args(argv)
    if args.compare:
        for path in args.compare:
            if not (path / "tute_env" / "search" / "solver.py").is_file() or not (path / "bench").is_dir():
                parser.error(f"{path} is not a checkout of this project with the solver")
    if args.rounds < 1 or (args.deals is not None and args.deals < 1):
        parser.error("--rounds and --deals must be at least 1")
    if args.compare:
        compare(*(p.resolve() for p in args.compare), args.rounds, args.deals or 20)
        return
    pinned = pin_to_core(0)
    deals = 8 if args.quick else args.deals or 100
    res = run(deals, args.quick)
    if args.write:
        write(args.write, res, pinned, deals)


if __name__ == "__main__":
    main()
