"""Tute as an RLCard environment: ``rlcard.make("tute", config={...})`` after importing this module.

>>> import rlcard
>>> import tute_env.envs.rlcard_env  # registers "tute" in RLCard's registry
>>> from rlcard.agents import RandomAgent
>>> env = rlcard.make("tute", config={"preset": "two_player", "seed": 0})
>>> env.set_agents([RandomAgent(env.num_actions) for _ in range(env.num_players)])
>>> trajectories, payoffs = env.run(is_training=False)

It follows RLCard's own environments (``rlcard/envs/leducholdem.py``, ``uno.py``) so that RLCard's
agents (``RandomAgent``, ``DQNAgent``, ``NFSPAgent``, ``DMCTrainer``) and ``rlcard.utils.tournament``
run on it unchanged:

* **config**: RLCard's ``seed`` and ``allow_step_back``; ``preset`` (default ``"partnership"``, or a
  :class:`~tute_env.engine.rules.Rules`), ``reward`` (``"win"``, the default, or ``"points"``: as
  ``tute_v0``), and any rule option by its name (``stock_duty``, ``tute``, ...), validated by
  :func:`~tute_env.engine.rules.make_rules`: a bad key or value raises ``ValueError``.
  An episode is one hand.
* **players** are the seats 0..n-1 (``player_id`` = seat; the dealer is random, so every seat
  plays every role); ``num_actions`` = 47 (the ids of :mod:`tute_env.engine.cards`).
* **state dicts**: ``obs`` the player's observation, :func:`tute_env.engine.observation.encode_observation`
  as is (int8, unscaled: RLCard's agents cast it to float, and DMC's buffers are int8);
  ``legal_actions`` an ``OrderedDict`` ``{action id: None}``, ascending (empty for a player not to
  act, and once the hand is over); ``raw_legal_actions`` the same actions as strings
  (:func:`~tute_env.engine.cards.action_str`: ``"Ao"``, ``"sing-c"``, ``"pass"``...);
  ``raw_obs`` a readable dict of what the player may see; ``action_record`` the (player, action
  string) pairs played so far.
* ``state_shape`` ``[[obs size]] * n``, ``action_shape`` ``[None] * n`` (one-hot actions, as leduc).
* ``get_payoffs()``: each seat's reward of the finished hand, from
  :class:`tute_env.engine.scoring.Scoring` (``"win"``: +g to the winners, the losers sharing -g per
  winner; zeros before the hand ends), the rewards ``tute_v0`` gives.
* **actions**: ``step(action_id)`` or ``step(action_string, raw_action=True)``. An illegal action
  raises ``ValueError`` (RLCard's poker envs swap it for a legal one; a Tute move is never
  guessed). ``step_back()`` works with ``allow_step_back=True`` (the game keeps a copy of the
  state per step) and raises otherwise, as RLCard's base ``Env`` does.

The game (:class:`TuteGame`) is the project's batched core with one game (B = 1); no rule is
implemented here. Deals come from ``env.np_random`` (RLCard's seeding): the same seed gives the
same deals.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

try:
    from rlcard.envs import Env
    from rlcard.envs.registration import DEFAULT_CONFIG, register, registry
except ImportError as err:  # pragma: no cover - depends on the install
    raise ImportError("tute_env.envs.rlcard_env needs RLCard: pip install 'tute_env[rlcard]'") from err

from ..engine.cards import NUM_ACTIONS, SUITS, action_str, as_action, card_str, cards_of
from ..engine.core import Game
from ..engine.deal import random_deals
from ..engine.observation import encode_observation, observation_layout
from ..engine.rules import Rules
from ..engine.scoring import Scoring
from .args import parse_env_args

__all__ = ["ENV_ID", "TuteGame", "TuteRLCardEnv"]

ENV_ID = "tute"
#: Config keys that are not rule options.
ENV_KEYS = ("seed", "allow_step_back", "preset", "reward")
ACTION_STRS = tuple(action_str(a) for a in range(NUM_ACTIONS))
ACTION_IDS = {text: a for a, text in enumerate(ACTION_STRS)}
_LANE = np.zeros(1, np.intp)


class TuteGame:
    """One hand of Tute behind RLCard's game interface (``init_game``, ``step``, ``step_back``,
    ``get_state``, ``get_payoffs``...): the core's :class:`~tute_env.engine.core.Game` on one game.
    Actions are action strings (RLCard's raw actions) or ids; ``np_random`` is set by the env's
    ``seed``."""

    def __init__(self, rules: Rules, reward: str = "win", allow_step_back: bool = False):
        self.rules = rules
        self.core = Game(rules)
        self.allow_step_back = allow_step_back
        self.np_random = np.random.RandomState()
        self.scoring = Scoring(rules, "hand", reward, 1)
        self.state = None  # the core's one-game State
        self.deal = None  # the hand's Deal
        self.history: list[tuple] = []  # (state, last actor, payoffs) before each step, with allow_step_back
        self.last_actor = -1
        self.payoffs = np.zeros(rules.num_players)
        self._action = np.zeros(1, np.int64)

    def get_num_players(self) -> int:
        return self.rules.num_players

    @staticmethod
    def get_num_actions() -> int:
        return NUM_ACTIONS

    def init_game(self) -> tuple[dict, int]:
        """Deal a new hand (a random dealer) from ``np_random``; returns (state, player to act)."""
        rng = np.random.default_rng(self.np_random.randint(0, 2**63 - 1, dtype=np.int64))
        deals = random_deals(self.rules, rng, 1)
        self.deal = deals[0]
        self.state = self.core.new_state(deals, validate=False)
        self.history = []
        self.last_actor = -1
        self.payoffs = np.zeros(self.rules.num_players)
        player = self.get_player_id()
        return self.get_state(player), player

    def step(self, action) -> tuple[dict, int]:
        """Play an action (string or id) for the player to act; returns (the next player's state,
        the next player): once the hand is over, the last actor's. ``ValueError`` if illegal."""
        a = ACTION_IDS.get(action, -1) if isinstance(action, str) else as_action(action)
        if not 0 <= a < NUM_ACTIONS:
            raise ValueError(f"bad action {action!r}: expected an action id 0..{NUM_ACTIONS - 1} or an action string")
        before = (self.state.copy(), self.last_actor, self.payoffs) if self.allow_step_back else None
        actor = self.get_player_id()
        self._action[0] = a
        self.core.step(self.state, self._action, active=np.ones(1, bool))  # ValueError if illegal or over
        if before is not None:
            self.history.append(before)
        self.last_actor = actor
        if self.is_over():
            self.payoffs = self.scoring.hand_over(self.state, _LANE)["rewards"][0]
        player = self.get_player_id()
        return self.get_state(player), player

    def step_back(self) -> bool:
        """Undo the last action; False if there is none to undo (or ``allow_step_back`` is off)."""
        if not self.history:
            return False
        self.state, self.last_actor, self.payoffs = self.history.pop()
        return True

    def get_player_id(self) -> int:
        """The seat to act; once the hand is over, the seat that acted last."""
        current = int(self.state.current[0])
        return current if current >= 0 else self.last_actor

    def is_over(self) -> bool:
        return bool(self.state.done[0])

    def get_legal_actions(self) -> list[str]:
        """The legal actions of the player to act, as strings, by id ([] once over)."""
        legal = int(self.state.legal[0])
        return [ACTION_STRS[a] for a in range(NUM_ACTIONS) if legal >> a & 1]

    def get_payoffs(self) -> np.ndarray:
        """(n,) float: each seat's reward for the hand (zeros until it is over)."""
        return self.payoffs.copy()

    def get_state(self, player: int) -> dict:
        """What ``player`` may see, readable: the raw state (RLCard's ``raw_obs``)."""
        s, r = self.state, self.rules
        turned = int(s.turned_card[0])
        acting = int(s.current[0]) == player
        return {
            "player": player,
            "current_player": int(s.current[0]),
            "dealer": int(s.dealer[0]),
            "trump": SUITS[int(s.trump[0])],
            "turned_card": card_str(turned) if turned >= 0 else None,
            "hand": [card_str(c) for c in cards_of(s.hands[0, player])],
            "trick": [card_str(int(c)) if c >= 0 else None for c in s.trick[0, : r.num_players]],
            "tricks_played": int(s.tricks_played[0]),
            "stock_size": int(s.to_draw[0]),
            "card_points": s.card_points[0].tolist(),
            "cante_points": s.cante_points[0].tolist(),
            "legal_actions": self.get_legal_actions() if acting else [],
        }


class TuteRLCardEnv(Env):
    """Tute as an RLCard ``Env`` (see the module doc). ``rlcard.make("tute", config)``."""

    def __init__(self, config: dict | None = None):
        config = {**DEFAULT_CONFIG, **(config or {})}
        options = {k: v for k, v in config.items() if k not in ENV_KEYS}
        preset, reward = config.get("preset", "partnership"), config.get("reward", "win")
        self.rules = parse_env_args(preset, "hand", reward, None, options, where='rlcard.make("tute")')
        self.name = ENV_ID
        self.game = TuteGame(self.rules, reward)
        super().__init__(config)
        size = observation_layout(self.rules).size
        self.state_shape = [[size] for _ in range(self.num_players)]
        self.action_shape = [None for _ in range(self.num_players)]

    def step(self, action, raw_action: bool = False) -> tuple[dict, int]:
        """RLCard's step; an illegal action raises ``ValueError`` and leaves no trace (RLCard's
        ``Env.step`` records the action before the game plays it: the record is taken back)."""
        recorded = len(self.action_recorder)
        try:
            return super().step(action, raw_action)
        except ValueError:
            if len(self.action_recorder) > recorded:
                del self.action_recorder[recorded:]
                self.timestep -= 1
            raise

    def _extract_state(self, state: dict) -> dict:
        player = state["player"]
        raw_legal = state["legal_actions"]
        return {
            "obs": encode_observation(self.rules, self.game.state, player)[0],
            "legal_actions": OrderedDict((ACTION_IDS[a], None) for a in raw_legal),
            "raw_obs": state,
            "raw_legal_actions": list(raw_legal),
            "action_record": self.action_recorder,
        }

    def _decode_action(self, action_id) -> str:
        return action_str(action_id)  # ValueError out of range; the game checks legality

    def _get_legal_actions(self) -> OrderedDict:
        return OrderedDict((ACTION_IDS[a], None) for a in self.game.get_legal_actions())

    def get_payoffs(self) -> np.ndarray:
        return self.game.get_payoffs()

    def get_perfect_information(self) -> dict:
        """Everything, hidden cards included: the deal, every hand, the stock left, the legal actions."""
        s, game = self.game.state, self.game
        return {
            "deal": game.deal.to_dict(),
            "hands": [[card_str(c) for c in cards_of(h)] for h in s.hands[0, : self.num_players]],
            "stock": [card_str(int(c)) for c in s.stock[0, int(s.stock_next[0]):]],
            "current_player": int(s.current[0]),
            "legal_actions": game.get_legal_actions(),
        }


if ENV_ID not in registry.env_specs:
    register(env_id=ENV_ID, entry_point="tute_env.envs.rlcard_env:TuteRLCardEnv")
