"""python_tute's speed through the pyspiel API, beside OpenSpiel's Python ``python_team_dominoes``
and C++ ``oh_hell`` (4 players, 4 suits of 10, 9 tricks: Tute's deck and table) in the same run.

    python -m bench.openspiel_speed [--quick] [--seconds 5] [--write docs/openspiel_speed.md]

One Python loop of random play per game, the same for the three: ``chance_outcomes`` and
``apply_action`` at chance nodes, ``legal_actions`` and ``apply_action`` at decision nodes;
actions per second count both. Also ``clone()`` of a state mid-hand. Targets (issue 36): at
least 3x python_team_dominoes and 0.25x oh_hell. Pinned to one core; the load average is noted.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import timeit

import pyspiel
from open_spiel.python.games import team_dominoes  # noqa: F401 - registers python_team_dominoes

import tute_env.envs.openspiel  # noqa: F401 - registers python_tute

from .common import load_average, machine, pin_to_core, today, write_page

GAMES = [
    ("python_tute", {"preset": "partnership"}, "python_tute, partnership (Python, the core's PackedGame)"),
    ("python_tute", {"preset": "two_player"}, "python_tute, two_player"),
    ("python_team_dominoes", {}, "python_team_dominoes (OpenSpiel's Python)"),
    ("oh_hell", {"players": 4, "num_suits": 4, "num_cards_per_suit": 10, "num_tricks_fixed": 9},
     "oh_hell, 4 players, 40 cards, 9 tricks (C++)"),
]


def random_play(game, seconds: float, seed: int = 0) -> dict:
    """Random games for ``seconds``: actions and games per second."""
    rng = random.Random(seed)
    actions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
            actions += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {"actions_per_s": actions / elapsed, "games_per_s": games / elapsed, "actions_per_game": actions / games}


def clone_us(game, number: int) -> float:
    """Microseconds of ``clone()`` of a state after 60 random actions (mid-hand for these games)."""
    rng = random.Random(1)
    state = game.new_initial_state()
    for _ in range(60):
        if state.is_terminal():
            break
        outcomes = state.chance_outcomes() if state.is_chance_node() else [(a, 0) for a in state.legal_actions()]
        state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
    return min(timeit.repeat(state.clone, number=number, repeat=3)) / number * 1e6


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="0.5 s per game (a smoke run)")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds of random play per game (default 5)")
    parser.add_argument("--write", metavar="PAGE", help="write the figures to this markdown page")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    seconds = 0.5 if args.quick else args.seconds
    pinned = pin_to_core(0)
    loads = [load_average()]
    rows = []
    for name, params, label in GAMES:
        game = pyspiel.load_game(name, params)
        random_play(game, min(1.0, seconds))  # warm up: numba's cache, OpenSpiel's first calls
        clones = clone_us(game, 200 if args.quick else 2000)
        rows.append({"label": label, **random_play(game, seconds), "clone_us": clones})
        loads.append(load_average())
    dominoes, oh_hell = rows[2]["actions_per_s"], rows[3]["actions_per_s"]
    lines = [
        "# python_tute through the pyspiel API",
        "",
        (f"Written by `python -m bench.openspiel_speed{' --quick' if args.quick else ''}` on {today()}: {machine()}, "
         f"{'pinned to one core' if pinned else 'not pinned'}, load average {min(loads):.1f}-{max(loads):.1f} "
         f"during the run, {seconds:g} s of random play per game. Rerun, do not edit."),
        "",
        "One Python loop of random play (`chance_outcomes` / `legal_actions`, `apply_action`), chance and decision",
        "nodes counted alike; `clone()` of a state 60 actions in. Targets: 3x python_team_dominoes, 0.25x oh_hell.",
        "",
        "| game | actions/s | games/s | actions per game | clone (us) | vs dominoes | vs oh_hell |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(f"| {row['label']} | {row['actions_per_s']:,.0f} | {row['games_per_s']:,.1f} | "
                     f"{row['actions_per_game']:.1f} | {row['clone_us']:.1f} | "
                     f"{row['actions_per_s'] / dominoes:.2f}x | {row['actions_per_s'] / oh_hell:.2f}x |")
    print("\n".join(lines))
    if args.write:
        write_page(args.write, lines)


if __name__ == "__main__":
    sys.exit(main())
