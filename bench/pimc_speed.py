"""PIMC bot speed: seconds per move of the default ``pimc`` on every preset, and how the time of
one search grows with the number of samples.

    python -m bench.pimc_speed [--quick] [--hands 2] [--write docs/pimc_speed.md]

Pinned to one core (like ``taskset -c 0``). Moves: hands played with the default bot at every
seat; every decision with more than one legal action is timed (``act_batch`` on one
observation: decoding, sampling, building the states, playouts and the choice). Scaling: the
first decision of fixed deals (the opening lead, the most candidate actions and the longest
playouts) searched with N samples and no time budget.
"""

from __future__ import annotations

import numpy as np

from agents.pimc import PIMCAgent
from tute_env.engine.core import Game
from tute_env.engine.rules import PRESETS
from tute_env.play.seating import Seating

from .common import Timed, machine, start_move_bench, today, write_page


class _Searched:
    """An action hook noting what a PIMC agent's last search used (samples, cut short, solved
    exactly: the dds bot); NaN and False for agents that do not say."""

    def __init__(self, agent):
        self.agent, self.samples, self.cut, self.exact = agent, [], [], []

    def __call__(self, state, lanes, actions):
        self.samples.append(getattr(self.agent, "last_samples", np.nan))
        self.cut.append(getattr(self.agent, "last_cut", False))
        self.exact.append(getattr(self.agent, "last_exact", False))


def move_times(preset: str, hands: int, seed: int = 0, make=PIMCAgent) -> dict:
    """Time every decision of ``hands`` hands played by ``make(rules, seed=seed)`` (default: the
    default PIMC bot) at every seat."""
    game = Game(preset)
    rules = game.rules
    agent = make(rules, seed=seed)
    timed = Timed(agent)
    searched_hook = _Searched(agent)
    seating = Seating(game, [timed], [0] * rules.num_players, hooks=[searched_hook])
    rng = np.random.default_rng(seed)
    for _ in range(hands):
        seating.advance(game.random_state(rng, 1))
    searched = np.array(timed.choices) > 1  # a single legal action is played without a search
    times = np.array(timed.seconds)[searched]
    samples, cut = np.array(searched_hook.samples)[searched], np.array(searched_hook.cut)[searched]
    exact = np.array(searched_hook.exact)[searched]
    actions = np.array(timed.choices)[searched]
    return {
        "preset": preset,
        "moves": len(times),
        "mean_s": float(times.mean()),
        "median_s": float(np.median(times)),
        "p95_s": float(np.quantile(times, 0.95)),
        "p99_s": float(np.quantile(times, 0.99)),
        "max_s": float(times.max()),
        "max_actions": int(actions.max()),
        "mean_samples": float(samples.mean()),
        "cut": float(np.mean(cut)),
        "exact": float(np.mean(exact)),
        "exact_median_s": float(np.median(times[exact])) if exact.any() else float("nan"),
        "exact_max_s": float(times[exact].max()) if exact.any() else float("nan"),
    }


def first_move_time(preset: str, num_samples: int, deals: int, seed: int = 0) -> float:
    """Median seconds of the first decision of ``deals`` hands with ``num_samples`` samples."""
    game = Game(preset)
    rules = game.rules
    agent = Timed(PIMCAgent(rules, seed=seed, num_samples=num_samples, time_budget=None))
    seating = Seating(game, [agent], [0] * rules.num_players)
    state = game.random_state(np.random.default_rng(seed), deals)
    for lane in range(deals):
        seating.actions(state, np.arange(deals) == lane)
    times = agent.seconds
    return float(np.median(times))


def main(argv=None) -> None:
    args, hands, pinned, load = start_move_bench(__doc__, 2, "short runs (smoke test)",
                                                 "hands per preset for the per-move times", argv)
    presets = ("partnership", "two_player") if args.quick else sorted(PRESETS)
    default = PIMCAgent(PRESETS["partnership"])
    rows = []
    for preset in presets:
        res = move_times(preset, hands)
        rows.append(res)
        print(
            f"{preset:14s} {res['moves']:4d} moves  mean {res['mean_s']:.3f} s  median {res['median_s']:.3f} s  "
            f"p95 {res['p95_s']:.3f} s  max {res['max_s']:.3f} s  (up to {res['max_actions']} actions; "
            f"{res['mean_samples']:.0f} samples on average, {100 * res['cut']:.0f}% cut by the budget)",
            flush=True,
        )
    sample_counts = (64, 256) if args.quick else (64, 256, 1024, 2048)
    deals = 2 if args.quick else 5
    scaling = []
    for preset in ("partnership", "two_player"):
        row = [first_move_time(preset, n, deals) for n in sample_counts]
        scaling.append((preset, row))
        print(f"{preset:14s} first move: " + "  ".join(f"{n}: {t:.3f} s" for n, t in zip(sample_counts, row)), flush=True)
    if args.write:
        lines = [
            "# PIMC speed",
            "",
            (
                f"Measured {today()} on {machine()}; pinned to one core: {pinned}. "
                f"`python -m bench.pimc_speed --write docs/pimc_speed.md`. The default bot: "
                f"{default.num_samples} samples per decision, time budget {default.time_budget} s per decision "
                "(no further batch of samples is started once it would be exceeded). "
                f"Load average at the start: {load:.2f} (other jobs share the machine's cores)."
            ),
            "",
            "## Seconds per move, default bot",
            "",
            (
                f"{hands} hand(s) per preset with the bot at every seat; every decision with more than one legal "
                "action timed (decoding, sampling, state building, playouts, choice). Decisions with a single "
                "legal action return at once and are not counted. Mean samples are below the default where only "
                "one deal is consistent (two players once the stock is out): one sample is played there."
            ),
            "",
            "| preset | moves | mean s | median s | p95 s | max s | most actions | mean samples | cut by budget |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in rows:
            lines.append(
                f"| {r['preset']} | {r['moves']} | {r['mean_s']:.3f} | {r['median_s']:.3f} | {r['p95_s']:.3f} | "
                f"{r['max_s']:.3f} | {r['max_actions']} | {r['mean_samples']:.0f} | {100 * r['cut']:.0f}% |"
            )
        lines += [
            "",
            "## Seconds for the opening lead by number of samples",
            "",
            (
                f"Median over {deals} deals of the first decision of the hand (all its cards are candidates and "
                "the playouts are the longest), no time budget."
            ),
            "",
            "| preset | " + " | ".join(f"{n} samples" for n in sample_counts) + " |",
            "|---|" + "---:|" * len(sample_counts),
        ]
        for preset, row in scaling:
            lines.append(f"| {preset} | " + " | ".join(f"{t:.3f}" for t in row) + " |")
        write_page(args.write, lines)


if __name__ == "__main__":
    main()
