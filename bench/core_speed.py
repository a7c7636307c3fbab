"""Core throughput: random legal play, legal masks and observations, memory per game.

    python -m bench.core_speed [--quick] [--write docs/core_speed.md]

Pinned to one core. Random play keeps every lane busy (finished games are dealt anew), counts
one decision per lane per step, and includes the legal mask and choosing the action.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tute_env.engine.core import Game, random_legal_actions
from tute_env.engine.observation import encode_observation

from .common import machine, median_rate, pin_to_core, today, write_page


def random_play_rate(preset: str, batch: int, seconds: float, seed: int = 0) -> float:
    game = Game(preset)
    rng = np.random.default_rng(seed)
    state = game.random_state(rng, batch)

    def run():
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            mask = game.legal_action_mask(state)
            game.step(state, random_legal_actions(mask, rng))
            game.reset_done(state, rng)
            steps += 1
        return steps * batch, time.perf_counter() - start

    return median_rate(run)


def part_rates(preset: str, batch: int, repeats: int = 20, seed: int = 0) -> dict:
    """Masks/s and observations/s on mid-game states, and bytes of state per game."""
    game = Game(preset)
    rng = np.random.default_rng(seed)
    state = game.random_state(rng, batch)
    for _ in range(game.rules.num_players * 2 + 1):  # into the game, cantes and draws possible
        mask = game.legal_action_mask(state)
        game.step(state, random_legal_actions(mask, rng))
        game.reset_done(state, rng)
    players = np.maximum(state.current, 0)

    def masks():
        start = time.perf_counter()
        for _ in range(repeats):
            game.legal_action_mask(state)
        return repeats * batch, time.perf_counter() - start

    def observations():
        start = time.perf_counter()
        for _ in range(repeats):
            encode_observation(game.rules, state, players)
        return repeats * batch, time.perf_counter() - start

    return {
        "masks_per_s": median_rate(masks),
        "observations_per_s": median_rate(observations),
        "bytes_per_game": state.nbytes / batch,
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs (smoke test)")
    parser.add_argument("--write", default=None, help="markdown file to write the figures to")
    args = parser.parse_args(argv)
    pinned = pin_to_core(0)
    seconds = 0.2 if args.quick else 2.0
    rows = []
    for preset in ("partnership", "two_player"):
        for batch in ((64, 4096) if args.quick else (1, 64, 1024, 4096, 16384)):
            rate = random_play_rate(preset, batch, seconds if batch > 1 else seconds / 2)
            parts = part_rates(preset, batch, repeats=3 if args.quick else 20)
            rows.append((preset, batch, rate, parts))
            print(
                f"{preset:12s} B={batch:6d}  {rate:12,.0f} decisions/s  {parts['masks_per_s']:12,.0f} masks/s  "
                f"{parts['observations_per_s']:12,.0f} observations/s  {parts['bytes_per_game']:.0f} B/game",
                flush=True,
            )
    if args.write:
        lines = [
            "# Core speed",
            "",
            f"Measured {today()} on {machine()}; pinned to one core: {pinned}. "
            "`python -m bench.core_speed --write docs/core_speed.md`. Median of 5 runs of random legal play "
            "(legal masks and action choice included, finished games dealt anew); masks and observations "
            "timed alone on mid-game states.",
            "",
            "| preset | B | decisions/s | masks/s | observations/s | state bytes/game |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for preset, batch, rate, parts in rows:
            lines.append(
                f"| {preset} | {batch} | {rate:,.0f} | {parts['masks_per_s']:,.0f} | "
                f"{parts['observations_per_s']:,.0f} | {parts['bytes_per_game']:.0f} |"
            )
        write_page(args.write, lines)


if __name__ == "__main__":
    main()
