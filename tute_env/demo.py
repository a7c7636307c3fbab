"""Random play demo: renders one hand in progress, then measures the batched core's throughput.

    python -m tute_env.demo [--preset partnership] [--batch-size 4096] [--seconds 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from .core import Game, random_legal_actions
from .render import render_text
from .rules import PRESETS


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="partnership", choices=sorted(PRESETS))
    parser.add_argument("--batch-size", type=int, default=4096)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    game = Game(args.preset)
    rng = np.random.default_rng(args.seed)
    state = game.random_state(rng, 1)
    for _ in range(game.rules.num_players + 2):  # into the second trick
        game.step(state, random_legal_actions(game.legal_action_mask(state), rng))
    print(render_text(game.rules, state, show_all=True))
    while not state.done[0]:
        game.step(state, random_legal_actions(game.legal_action_mask(state), rng))
    print(render_text(game.rules, state, show_all=True))

    state = game.random_state(rng, args.batch_size)
    decisions, hands, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        game.step(state, random_legal_actions(game.legal_action_mask(state), rng))
        decisions += args.batch_size
        hands += int(state.done.sum())
        game.reset_done(state, rng)
    elapsed = time.perf_counter() - start
    print(
        f"\n{args.preset}: {decisions / elapsed:,.0f} random decisions/s, {hands / elapsed:,.0f} hands/s "
        f"(batch {args.batch_size}, masks included, {elapsed:.1f} s)"
    )


if __name__ == "__main__":
    main()
