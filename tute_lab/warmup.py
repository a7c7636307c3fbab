"""``python -m tute_lab.warmup``: fill numba's cache, so that a first use runs as fast as any later one.

The rules core, the observation encoder and the heuristic bot's scorer are compiled by numba on
first use (~10 s, see docs/startup.md) and cached (``cache=True``) beside their source or in
``NUMBA_CACHE_DIR``. ``scripts/setup.sh`` runs this once after installing: it plays a few hands of
every kind a first use plays (the PettingZoo env, a packed game (OpenSpiel's ``python_tute``), the Gymnasium view with the greedy and heuristic
bots as opponents, in both the partnership and the two-player game) and solves one position with
the double-dummy solver (the dds bot, ``tute-analyze``: ~1 min to compile), which compiles what
those compile and writes it to the cache. Later processes load it from there.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from agents.registry import make_agent
from tute_env import tute_v0
from tute_env.engine.cards import NUM_ACTIONS
from tute_env.engine.core import Game, random_legal_actions
from tute_env.engine.deal import random_deals
from tute_env.engine.rules import make_rules
from tute_env.envs import gym_env
from tute_env.search.solver import Solver

PRESETS = ("partnership", "two_player")


def warm_up(presets=PRESETS, hands: int = 2) -> None:
    """Play ``hands`` hands of each kind in each preset (compiling, or loading from the cache)."""
    rng = np.random.default_rng(0)
    for preset in presets:
        env = tute_v0.env(preset=preset)
        for hand in range(hands):
            env.reset(seed=hand)
            for agent in env.agent_iter():
                observation, _, termination, truncation, _ = env.last()
                done = termination or truncation
                env.step(None if done else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        env.close()
        for bot in ("greedy", "heuristic"):
            single = gym_env.TuteEnv(preset, opponents=make_agent(bot, make_rules(preset)))
            for hand in range(hands):
                single.reset(seed=hand)
                over = False
                while not over:
                    action = int(rng.choice(np.flatnonzero(single.action_masks())))
                    over = any(single.step(action)[2:4])
    game = Game("two_player")  # the solver's code is the same for every rule set
    packed = game.new_packed(random_deals(game.rules, rng, 1), validate=False)  # OpenSpiel's python_tute
    packed.step(int(np.flatnonzero([packed.legal >> a & 1 for a in range(NUM_ACTIONS)])[0]))
    state = game.random_state(rng, 1)
    while state.done[0] or state.tricks_played[0] < 16 or state.decision[0] != 0:  # a card to play, stock gone
        if state.done[0]:  # over early (a Tute, R8b): a new deal
            state = game.random_state(rng, 1)
        else:
            game.step(state, random_legal_actions(game.legal_action_mask(state), rng))
    Solver(game.rules).action_values(state)


def main(argv=None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv:
        print("usage: python -m tute_lab.warmup  (takes no arguments)", file=sys.stderr)
        return 2
    start = time.perf_counter()
    warm_up()
    print(f"numba's cache is warm ({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
