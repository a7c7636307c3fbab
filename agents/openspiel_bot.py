"""``openspiel:ismcts[...]``: OpenSpiel's own ISMCTS bot (``open_spiel.python.algorithms.ismcts``)
playing Tute through ``python_tute`` (:mod:`tute_env.envs.openspiel`), as a project agent.

The bot sees only its information set, as every agent: for each decision it decodes the
observation (:func:`tute_env.search.infoset.decode_infoset`), draws one deal of the hidden cards
consistent with it (:class:`~tute_env.search.infoset.DealSampler`), builds that position as a core
state with itself at seat 0 (:func:`~tute_env.search.infoset.build_states`) and hands it to ISMCTS
as a ``python_tute`` state (:func:`~tute_env.envs.openspiel.position_state`). ISMCTS then draws a
new deal for every simulation (``resample_from_infostate``, the same exact sampler), so the deal it
started from is only one of them, and never the true one.

``OpenSpielAgent.from_spec("ismcts[simulations=200,uct_c=2,rollouts=1]", rules, seed)``: the
settings are ``simulations`` (per decision), ``uct_c`` (UCT's exploration constant), ``rollouts``
(random playouts per leaf) and ``world_samples`` (-1: a new deal every simulation). Rewards are the
env's win reward; deterministic given the seed (and the keys, at a table with streams).
"""

from __future__ import annotations

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from tute_env.engine.core import Game
from tute_env.engine.rules import Rules
from tute_env.envs.openspiel import load_game, position_state
from tute_env.search.infoset import build_states, decode_infoset

from .base import Agent
from .pimc import row_generator, row_sampler, searched_rows

#: The settings and their defaults.
SETTINGS = {"simulations": 200, "uct_c": 2.0, "rollouts": 1, "world_samples": -1}


def parse_spec(arg: str) -> dict:
    """``"ismcts"`` or ``"ismcts[simulations=100,uct_c=1.5]"`` -> the settings given."""
    name, bracket, rest = arg.partition("[")
    if name != "ismcts" or (bracket and not rest.endswith("]")):
        raise ValueError(f"bad openspiel spec {arg!r}: expected 'ismcts' or 'ismcts[simulations=200,uct_c=2]'")
    out = {}
    for item in filter(None, rest[:-1].split(",")) if bracket else ():
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or key not in SETTINGS:
            raise ValueError(f"bad openspiel setting {item!r}: expected KEY=VALUE, keys {sorted(SETTINGS)}")
        try:
            out[key] = type(SETTINGS[key])(value)
        except ValueError:
            raise ValueError(f"bad openspiel setting {item!r}: {key} is a number") from None
    return out


class OpenSpielAgent(Agent):
    """OpenSpiel's ISMCTS bot over ``python_tute``, driven from the agent's information set."""

    takes_keys = True

    def __init__(self, rules: Rules, seed: int = 0, simulations: int = 200, uct_c: float = 2.0, rollouts: int = 1,
                 world_samples: int = -1):
        super().__init__(rules, seed)
        if simulations < 1 or rollouts < 1:
            raise ValueError(f"simulations and rollouts must be at least 1, got {simulations} and {rollouts}")
        self.simulations, self.uct_c, self.rollouts, self.world_samples = simulations, uct_c, rollouts, world_samples
        self.name = f"openspiel:ismcts[simulations={simulations},uct_c={uct_c:g}]"
        self.game = load_game(rules)
        self.core = Game(rules)

    @classmethod
    def from_spec(cls, arg: str, rules: Rules, seed: int = 0) -> OpenSpielAgent:
        return cls(rules, seed=seed, **parse_spec(arg))

    def act_batch(self, observations, masks, keys=None):
        masks = np.asarray(masks, dtype=bool)
        info = decode_infoset(self.rules, observations, masks)
        out = np.zeros(len(masks), dtype=np.int64)
        for row in searched_rows(masks, out):
            rng = row_generator(self, keys, row)
            hands, stock = row_sampler(info, row).sample(rng, 1)
            state = position_state(self.game, build_states(self.core, info, row, hands, stock))
            out[row] = self._search(state, np.random.RandomState(int(rng.integers(2**32))))
        return out

    def _search(self, state, random_state: np.random.RandomState) -> int:
        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, random_state)
        bot = ismcts.ISMCTSBot(self.game, evaluator, self.uct_c, self.simulations, self.world_samples,
                               random_state=random_state)
        bot.set_resampler(lambda s, player: s.resample_from_infostate(player, random_state.uniform))
        return int(bot.step(state))
