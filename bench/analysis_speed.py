"""Whole-hand analysis speed (issue 38): seconds to analyse a recorded hand the way tute-analyze and
the reviews do, and the solver measured the way the analysis uses it.

    python -m bench.analysis_speed [--quick] [--two-player 50] [--partnership 20] [--deals 20]
                                   [--write docs/analysis_speed.md]
    python -m bench.analysis_speed --parts two_player --core 0 --save a.json   # the parts apart, in parallel,
    python -m bench.analysis_speed --parts partnership solver --core 1 --save b.json   # each on its core
    python -m bench.analysis_speed --merge a.json b.json --write docs/analysis_speed.md

Pinned to one core (like ``taskset -c 0``), compilation excluded (a hand analysed first, not
counted). Hands: heuristic against greedy (both seatings of each deal) on the held-out deal seeds
of ``tute_lab.evaluation``. Each is analysed by :func:`tute_play.analyze.analyze` (the time limit
:data:`~tute_env.search.analysis.MAX_SECONDS` a decision, point weight
:data:`~tute_env.search.analysis.POINT_WEIGHT`, one solver per preset as tute-analyze keeps it):
the seconds of the whole hand (wall clock, and the process's CPU time: on a shared core the
CPU time is what one idle core would take, roughly, though the time limit is on the wall
clock), and how many decisions were exact and how many estimated.
The solver: ``action_values`` of whole partnership deals from the first lead (every first lead
valued, a fresh table generation each) at the analysis's point weight, under a 60 s budget.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from tute_env.engine.rules import make_rules
from tute_env.search.analysis import ESTIMATE, MAX_SECONDS, POINT_WEIGHT, SAMPLES
from tute_env.search.solver import Solver, SolverBudgetExceeded
from tute_play.analyze import PLAYOUT, analyze

from .common import load_average, machine, pin_to_core, today, write_page_keeping_notes
from .solver_speed import positions

GOALS = {"two_player_median": 60.0, "partnership_median": 10.0, "partnership_worst": 60.0,
         "solver_median": 1.0, "solver_p99": 10.0}
SOLVER_BUDGET = 60.0
PARTS = ("two_player", "partnership", "solver")


def hands(preset: str, count: int) -> list:
    """``count`` records of heuristic against greedy on held-out deals (two seatings a deal)."""
    from tute_lab.evaluation.playing import evaluate_pairing

    out: list = []
    evaluate_pairing(make_rules(preset), "heuristic", "greedy", num_deals=max(1, -(-count // 2)), record=out.append)
    return out[:count]


def hand_times(preset: str, count: int) -> dict:
    """Seconds of each hand's whole analysis, and its decisions exact and estimated."""
    records = hands(preset, count + 1)
    solver = Solver(records[0].rules, point_weight=POINT_WEIGHT, max_seconds=MAX_SECONDS)
    analyze(records[-1], solver=solver)  # compile (or load) outside the figures
    seconds, cpu, exact, estimated, slowest = [], [], [], [], []
    for k, record in enumerate(records[:count]):
        marks, cpu_start = [time.perf_counter()], time.process_time()
        decisions = analyze(record, solver=solver, progress=lambda done, total: marks.append(time.perf_counter()))
        cpu.append(time.process_time() - cpu_start)
        seconds.append(marks[-1] - marks[0])
        slowest.append(float(np.max(np.diff(marks))))
        exact.append(sum(d.solved for d in decisions))
        estimated.append(sum(d.kind == ESTIMATE for d in decisions))
        print(f"{preset} hand {k + 1}/{count}: {seconds[-1]:.2f} s (CPU {cpu[-1]:.2f} s), {exact[-1]} exact, {estimated[-1]} estimated, "
              f"slowest decision {slowest[-1]:.2f} s", flush=True)
    s, c = np.array(seconds), np.array(cpu)
    return {"preset": preset, "hands": count, "median_s": float(np.median(s)), "p90_s": float(np.quantile(s, 0.9)),
            "max_s": float(s.max()), "cpu_median_s": float(np.median(c)), "cpu_max_s": float(c.max()), "decisions": int(np.sum(exact) + np.sum(estimated)), "exact": int(np.sum(exact)),
            "estimated": int(np.sum(estimated)), "slowest_decision_s": float(max(slowest))}


def solver_times(deals: int) -> dict:
    """``action_values`` of whole partnership deals from the first lead, point weight POINT_WEIGHT."""
    solver = Solver("partnership", point_weight=POINT_WEIGHT, max_seconds=SOLVER_BUDGET)
    solver.value(positions("partnership", 1, 6, 0)[0])  # compile (or load) and touch the tables
    seconds, cpu, nodes = [], [], []
    for state in positions("partnership", deals, 0, 1):
        start, cpu_start = time.perf_counter(), time.process_time()
        try:
            solver.action_values(state)
        except SolverBudgetExceeded:
            seconds.append(np.inf)
            cpu.append(np.inf)
        else:
            seconds.append(time.perf_counter() - start)
            cpu.append(time.process_time() - cpu_start)
        nodes.append(solver.nodes)
    s, c = np.array(seconds), np.array(cpu)
    # "higher": an order statistic, never between a deal over the budget (inf) and one within it
    p99, cpu_p99 = float(np.quantile(s, 0.99, method="higher")), float(np.quantile(c, 0.99, method="higher"))
    print(f"solver, action_values from the first lead: median {np.median(s):.2f} s, p99 {p99:.2f} s", flush=True)
    return {"deals": deals, "median_s": float(np.median(s)), "p99_s": p99, "max_s": float(s.max()),
            "over_budget": int(np.isinf(s).sum()), "nodes_median": float(np.median(nodes)),
            "cpu_median_s": float(np.median(c)), "cpu_p99_s": cpu_p99}


def met(value: float, goal: float) -> str:
    return "yes" if value <= goal else "**no**"


def secs(value: float, digits: int = 2) -> str:
    """Seconds, or what a figure over the solver's budget (inf; NaN from an older run) means."""
    return f"{value:.{digits}f} s" if np.isfinite(value) else f"over the {SOLVER_BUDGET:g} s budget"


def page(figures: dict, argv_line: str, pinned: bool, loads: tuple[float, float]) -> list[str]:
    """The markdown page of the figures of every part."""
    two, part, sol = figures["two_player"], figures["partnership"], figures["solver"]
    lines = [
        "# Analysis speed",
        "",
        (f"Measured {today()} on {machine()}; pinned to one core: {pinned}; load average {loads[0]:.2f} at the "
         f"start, {loads[1]:.2f} at the end (the machine's 2 cores shared with other jobs: a loaded core makes "
         f"every figure slower, and the analysis's per-decision time limit makes more decisions estimates). "
         f"`{argv_line}`. Hands: heuristic against greedy on held-out deals, analysed as tute-analyze and the "
         f"reviews do (`tute_play.analyze.analyze`: {MAX_SECONDS:g} s of exact search a decision, point weight "
         f"{POINT_WEIGHT}, the stock phase's estimates from {SAMPLES} sampled stock orders played on by the "
         f"{PLAYOUT} bot; docs/analysis.md)."),
        "",
        "## Goals (issue 38)",
        "",
        "| goal | target | measured | met |",
        "|---|---:|---:|---|",
        f"| whole two_player hand, median ({two['hands']} hands) | about {GOALS['two_player_median']:g} s | "
        f"{two['median_s']:.1f} s (worst {two['max_s']:.1f} s; CPU {two['cpu_median_s']:.1f} s, worst "
        f"{two['cpu_max_s']:.1f} s) | {met(two['median_s'], GOALS['two_player_median'])} |",
        f"| whole partnership hand, median ({part['hands']} hands) | {GOALS['partnership_median']:g} s | "
        f"{part['median_s']:.1f} s (CPU {part['cpu_median_s']:.1f} s) | {met(part['median_s'], GOALS['partnership_median'])} |",
        f"| whole partnership hand, worst | {GOALS['partnership_worst']:g} s | {part['max_s']:.1f} s (CPU "
        f"{part['cpu_max_s']:.1f} s) | {met(part['max_s'], GOALS['partnership_worst'])} |",
        f"| solver, `action_values` from the first lead at {POINT_WEIGHT}, median ({sol['deals']} deals) | "
        f"{GOALS['solver_median']:g} s | {secs(sol['median_s'])} (CPU {secs(sol['cpu_median_s'])}) | "
        f"{met(sol['median_s'], GOALS['solver_median'])} |",
        f"| solver, the same, p99 | {GOALS['solver_p99']:g} s | {secs(sol['p99_s'])} (CPU {secs(sol['cpu_p99_s'])}) | "
        f"{met(sol['p99_s'] if np.isfinite(sol['p99_s']) else np.inf, GOALS['solver_p99'])} |",
        "",
        "## Whole hands",
        "",
        "| preset | hands | median s | p90 s | worst s | CPU median s | CPU worst s | slowest decision s | decisions "
        "| exact | estimated |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in (two, part):
        lines.append(f"| {r['preset']} | {r['hands']} | {r['median_s']:.2f} | {r['p90_s']:.2f} | {r['max_s']:.2f} | "
                     f"{r['cpu_median_s']:.2f} | {r['cpu_max_s']:.2f} | {r['slowest_decision_s']:.2f} | "
                     f"{r['decisions']} | {r['exact']} | {r['estimated']} |")
    lines += [
        "",
        "## The solver as the analysis uses it",
        "",
        f"`Solver(\"partnership\", point_weight={POINT_WEIGHT}).action_values` of whole deals from the first lead "
        f"(random deals of bench.solver_speed's seed), {SOLVER_BUDGET:g} s budget (a deal over it counts as "
        "infinitely slow).",
        "",
        "| deals | median | p99 | max | over budget | positions searched (median) |",
        "|---:|---:|---:|---:|---:|---:|",
        f"| {sol['deals']} | {secs(sol['median_s'])} | {secs(sol['p99_s'])} | {secs(sol['max_s'])} | {sol['over_budget']} | "
        f"{sol['nodes_median']:,.0f} |",
    ]
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one hand a preset and two deals (smoke test)")
    parser.add_argument("--two-player", type=int, default=50, help="two_player hands analysed")
    parser.add_argument("--partnership", type=int, default=20, help="partnership hands analysed")
    parser.add_argument("--deals", type=int, default=20, help="partnership deals for the solver's figures")
    parser.add_argument("--write", default=None, help="markdown file to write the figures to")
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS), help="the parts measured")
    parser.add_argument("--core", type=int, default=0, help="the core this process is pinned to (default 0)")
    parser.add_argument("--save", default=None, help="JSON file to save the parts' figures to (for --merge)")
    parser.add_argument("--merge", nargs="+", default=None, metavar="JSON",
                        help="write the page from the figures --save wrote (every part, from any of the files)")
    args = parser.parse_args(argv)
    if args.quick:
        args.two_player = args.partnership = 1
        args.deals = 2
    if args.merge:
        figures = {}
        for path in args.merge:
            with open(path) as f:
                figures.update(json.load(f))
    else:
        pinned = pin_to_core(args.core)
        start_load = load_average()
        figures = {"pinned": pinned, "start_load": start_load}
        for part in args.parts:
            figures[part] = (solver_times(args.deals) if part == "solver" else
                             hand_times(part, args.two_player if part == "two_player" else args.partnership))
        figures["end_load"] = load_average()
        print(figures, flush=True)
        if args.save:
            with open(args.save, "w") as f:
                json.dump(figures, f, indent=1)
    if args.write:
        argv_line = ("python -m bench.analysis_speed" + (" --quick" if args.quick else
                     f" --two-player {args.two_player} --partnership {args.partnership} --deals {args.deals}")
                     + f" --write {args.write}")
        if args.merge:
            argv_line += " (run as parts, each on its own core, merged with --merge)"
        write_page_keeping_notes(args.write, page(figures, argv_line, figures["pinned"], (figures["start_load"], figures["end_load"])))


if __name__ == "__main__":
    main()
