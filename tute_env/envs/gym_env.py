"""Gymnasium views of Tute: one learner against opponent policies.

Importing this module registers ``tute_env/Tute-v0`` with Gymnasium (or name the module in the
id: ``gymnasium.make("tute_env.envs.gym_env:tute_env/Tute-v0")``).

* :class:`TuteEnv` (``gymnasium.make("tute_env/Tute-v0")``): a single-agent ``gymnasium.Env``.
  The learner plays one seat (and, with ``control_partner=True`` in the partnership game, its
  partner's seat too); every other seat is played by an opponent policy inside the env.
  ``action_masks()`` gives the learner's legal actions, so sb3-contrib's ``MaskablePPO`` works
  as is (see ``examples/maskable_ppo.py``).
* :class:`TuteVectorEnv` (``gymnasium.make_vec("tute_env/Tute-v0", num_envs=N,
  vectorization_mode="vector_entry_point")``): a ``gymnasium.vector.VectorEnv`` of N games
  stepped together by the batched rules core, the same learner seats and opponents inside.
  **Autoreset mode: same-step** (``metadata["autoreset_mode"] == AutoresetMode.SAME_STEP``):
  when an episode ends, ``step`` returns the first observation of the next episode, and the
  last observation of the one that ended is in ``infos["final_obs"]`` (with
  ``infos["_final_obs"]`` saying which games ended). Every step is a learner decision.

Both take the arguments of ``tute_v0.env`` (``preset``, rule options, ``episode``, ``reward``)
and give the learner the rewards ``tute_v0`` gives its seat (see its doc: zero-sum, at the end
of a hand or match; ``tute_env.engine.scoring``). Besides:

``point_weight`` (default 0): with ``reward="win"``, adds this weight times the points reward
(the seat's side's hand total minus the others', / 230) to each hand's reward: the reward
``train.py`` trains on (its ``point_weight``).

``seat`` (default 0): the learner's seat. ``control_partner``: the learner plays ``seat + 2``
as well (partnerships only); the reward is the side's reward, counted once.

``opponents`` (default ``"random"``): the policies of the other seats (the learner's partner
included when not controlled). One spec for all of them, or a list with one per seat (the
learner's entries are ignored), or a dict ``{seat: spec}``. A spec is a policy object with
``act_batch(observations, masks) -> actions`` (``tute_env.play.seating.Policy``: the bots of
``agents``, e.g. ``agents.make_agent("heuristic", rules)``), a callable
``policy(observation, action_mask) -> action`` taking one int8 observation vector and a
(47,) bool mask, or ``"random"`` (uniformly random legal moves, ``tute_env.play.seating.RandomPolicy``).
Bots by name are made in ``agents``, not here: ``tute_env`` does not import ``agents``.
Opponents see only their own observation and are run by the table layer
(``tute_env.play.seating``). An opponent's illegal action raises ``ValueError``. ``"random"``
opponents are reseeded by ``reset(seed=...)``; objects and callables you pass keep their own
randomness.

``illegal_action``: what a learner's illegal action does. ``"penalty"`` (default, as
PettingZoo's ``TerminateIllegalWrapper``): the episode ends (``terminated=True``) with reward
-1 and ``info["illegal_action"] = True``, nothing is played; ``"raise"``: ``ValueError``. With
action masks (``MaskablePPO``) it never happens.

``scaled``: observations as float32 in [0, 1] (the int8 vector times
``tute_env.engine.observation.observation_scale``), handy for networks; default int8 as in ``tute_v0``.

``render_mode``, ``show_all_hands``, ``plain`` and ``lang`` (the rendered table's words, ``"en"`` or
``"es"``): as ``tute_v0``'s.

Observations are the learner's ``tute_v0`` observation vector (``observation_space`` a Box) from
the seat to act; ``info["action_mask"]`` repeats ``action_masks()``. When a hand ends, the
info holds the hand result of ``tute_v0`` (``points``, ``winner``, ``games``, ...).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from ..engine.cards import NUM_ACTIONS, action_str, as_action, is_int
from ..engine.core import Game, is_legal
from ..engine.deal import random_deals
from ..engine.observation import encode_observation, observation_layout, observation_scale
from ..engine.rules import Rules
from ..engine.scoring import INFO_KEYS, Scoring, hand_info
from ..play.seating import LEARNER, RandomPolicy, Seating
from .args import check_render_args, observation_high, parse_env_args, parse_reset_options
from .render import EnvRenderer

__all__ = ["CallablePolicy", "TuteEnv", "TuteVectorEnv"]

ILLEGAL_ACTIONS = ("penalty", "raise")


class CallablePolicy:
    """A ``policy(observation, action_mask) -> action`` callable as a table policy."""

    def __init__(self, fn):
        self.fn = fn

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.array([int(self.fn(o, m)) for o, m in zip(observations, masks)], dtype=np.int64)

    def __repr__(self) -> str:
        return f"CallablePolicy({self.fn!r})"


def _policy(spec):
    """A table policy from an opponent spec; ``(policy, owned)``, owned when made here."""
    if isinstance(spec, str):
        if spec != "random":
            raise ValueError(f"bad opponent {spec!r}: the only built-in opponent is 'random'; make bots by name "
                             f"with agents.make_agent({spec!r}, rules) and pass the object")
        return RandomPolicy(0), True
    if hasattr(spec, "act_batch"):
        return spec, False
    if callable(spec):
        return CallablePolicy(spec), False
    raise ValueError(
        f"bad opponent {spec!r}: expected an object with act_batch(observations, masks), a callable "
        "(observation, action_mask) -> action, or 'random'"
    )


def _learner_seats(rules: Rules, seat, control_partner, where: str) -> np.ndarray:
    n = rules.num_players
    if not is_int(seat, 0, n - 1):
        raise ValueError(f"bad argument seat={seat!r} for {where}: expected a seat 0..{n - 1}")
    if not isinstance(control_partner, bool):
        raise ValueError(f"bad argument control_partner={control_partner!r} for {where}: expected True or False")
    if control_partner and not rules.partnerships:
        raise ValueError(f"bad argument control_partner=True for {where}: only the partnership game has partners")
    learner = np.zeros(n, bool)
    learner[seat] = True
    if control_partner:
        learner[(seat + 2) % n] = True
    return learner


def _opponent_specs(spec, rules: Rules, learner: np.ndarray, where: str) -> dict:
    n = rules.num_players
    if isinstance(spec, Mapping):
        specs = dict(spec)
        bad = [k for k in specs if not isinstance(k, (int, np.integer)) or not 0 <= k < n]
        if bad:
            raise ValueError(f"bad argument opponents for {where}: keys {bad} are not seats 0..{n - 1}")
    elif isinstance(spec, Sequence) and not isinstance(spec, str):
        if len(spec) != n:
            raise ValueError(f"bad argument opponents for {where}: {len(spec)} entries, expected one per seat ({n})")
        specs = dict(enumerate(spec))
    else:
        specs = {seat: spec for seat in range(n)}
    missing = [seat for seat in range(n) if not learner[seat] and specs.get(seat) is None]
    if missing:
        raise ValueError(f"bad argument opponents for {where}: no policy for seat {missing[0]}")
    return {seat: specs[seat] for seat in range(n) if not learner[seat]}


class _LearnerGames:
    """B games at a :class:`Seating` whose learner seats are the caller's, scored by
    :class:`Scoring`: what both Gymnasium views are made of. ``autoreset``: a game whose episode
    ended is dealt anew at once (the vector view), else left over (the single view)."""

    def __init__(self, rules: Rules, num: int, learner: np.ndarray, opponents, episode: str, reward: str,
                 point_weight: float, autoreset: bool, where: str):
        self.rules, self.game, self.autoreset = rules, Game(rules), autoreset
        self.learner = learner
        self.seat = int(np.flatnonzero(learner)[0])
        policies, seats, self.owned = [], np.full(rules.num_players, LEARNER), {}
        index: dict[int, int] = {}  # the same object for several seats is one policy
        for seat, spec in _opponent_specs(opponents, rules, learner, where).items():
            try:
                policy, owned = _policy(spec)
            except ValueError as err:
                raise ValueError(f"bad argument opponents for {where}: {err}") from None
            key = id(policy) if not owned else -1 - seat
            if key not in index:
                index[key] = len(policies)
                policies.append(policy)
                if owned:
                    self.owned[seat] = policy
            seats[seat] = index[key]
        self.seating = Seating(self.game, policies, seats)
        self.opponents = {seat: policies[k] for seat, k in enumerate(seats) if k != LEARNER}
        if not isinstance(point_weight, (int, float)) or isinstance(point_weight, bool):
            raise ValueError(f"bad argument point_weight={point_weight!r} for {where}: expected a number")
        self.scoring = Scoring(rules, episode, reward, num, point_weight)
        self.rng = np.random.default_rng()
        self.state = None

    def reseed(self, seed: int | None, opponents: bool = True) -> None:
        """A new generator for the deals; with ``opponents``, the built-in opponents' too."""
        self.rng = np.random.default_rng(seed)
        for seat, policy in self.owned.items() if opponents else ():
            policy.rng = np.random.default_rng(int(self.rng.integers(2**63)) + seat)

    def start(self, options, num: int) -> dict:
        """New episodes in every game (a given deal, a dealer, or random deals)."""
        deals, dealer = parse_reset_options(options, self.rules)
        deals = random_deals(self.rules, self.rng, num, dealer) if deals is None else deals.repeat(num)
        self.state = self.game.new_state(deals, validate=False)
        self.scoring.reset()
        infos: dict = {}
        self.settle(np.zeros(num), np.zeros(num, bool), infos)
        return infos

    def settle(self, rewards: np.ndarray, terminated: np.ndarray, infos: dict) -> None:
        """The opponents play until every game waits for the learner or its episode is over;
        finished hands are scored into ``rewards``, ``terminated`` and ``infos``."""
        num = len(rewards)

        def hands_over(lanes):
            res = self.scoring.hand_over(self.state, lanes)
            rewards[lanes] += res["rewards"][:, self.seat]
            for key in INFO_KEYS:
                if key in res:
                    _put_info(infos, key, lanes, res[key], num)
            over = lanes[res["episode_over"]]
            terminated[over] = True
            if not self.autoreset:
                return lanes[~res["episode_over"]]
            if over.size:
                _put_info(infos, "final_obs", over, self.encode(over), num)
                self.scoring.reset(over)
            return lanes

        self.seating.advance(self.state, hands_over, self.rng)

    def encode(self, lanes=None, players=None) -> np.ndarray:
        """Learner observations of the games in ``lanes`` (all by default), from ``players``
        (default: the seat to act where it is a learner's, else ``seat``)."""
        s = self.state if lanes is None else self.state.take(lanes)
        if players is None:
            current = np.maximum(s.current, 0)
            players = np.where(self.learner[current] & ~s.done, current, self.seat)
        return encode_observation(self.rules, s, players)

    def check_actions(self, actions, illegal_action: str) -> np.ndarray:
        """(B,) bool: which learner actions are legal; raises for an illegal one in ``"raise"``
        mode or for actions of the wrong shape or kind."""
        s, b = self.state, self.state.batch_size
        actions = np.asarray(actions)
        if actions.shape != (b,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {b} integers, got {actions!r}")
        legal = is_legal(s.legal, actions) & ~s.done
        if not legal.all() and illegal_action == "raise":
            lane = int(np.flatnonzero(~legal)[0])
            allowed = " ".join(action_str(x) for x in range(NUM_ACTIONS) if int(s.legal[lane]) >> x & 1)
            raise ValueError(f"illegal action {actions[lane]!r} in game {lane} for seat {int(s.current[lane])}; "
                             f"legal: {allowed}")
        return legal


def _check_common(illegal_action, scaled, where):
    if illegal_action not in ILLEGAL_ACTIONS:
        raise ValueError(
            f"bad argument illegal_action={illegal_action!r} for {where}: expected one of {ILLEGAL_ACTIONS}"
        )
    if not isinstance(scaled, bool):
        raise ValueError(f"bad argument scaled={scaled!r} for {where}: expected True or False")


def _observation_space(rules: Rules, scaled: bool) -> spaces.Box:
    size = observation_layout(rules).size
    if scaled:
        return spaces.Box(0.0, 1.0, shape=(size,), dtype=np.float32)
    return spaces.Box(0, observation_high(rules), shape=(size,), dtype=np.int8)


class TuteEnv(gymnasium.Env):
    """Single-agent Tute: the learner's seat(s) against opponent policies (see the module doc)."""

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    def __init__(self, preset: str | Rules = "partnership", *, seat: int = 0, control_partner: bool = False,
                 opponents="random", episode: str = "hand", reward: str = "win", point_weight: float = 0.0,
                 illegal_action: str = "penalty", scaled: bool = False, render_mode: str | None = None,
                 show_all_hands: bool = False, plain: bool = False, lang: str = "en", **rule_options):
        where = "TuteEnv"
        rules = parse_env_args(preset, episode, reward, render_mode, rule_options,
                               render_modes=tuple(self.metadata["render_modes"]), where=where)
        _check_common(illegal_action, scaled, where)
        check_render_args(show_all_hands, plain, lang, where)
        self.rules, self.episode = rules, episode
        self.seat, self.control_partner = int(seat), control_partner
        self._games = _LearnerGames(rules, 1, _learner_seats(rules, seat, control_partner, where), opponents,
                                    episode, reward, point_weight, autoreset=False, where=where)
        self.opponents = self._games.opponents
        self.illegal_action, self.scaled = illegal_action, scaled
        self.render_mode = render_mode
        self._renderer = (EnvRenderer(render_mode, show_all_hands, self.metadata["render_fps"], plain, lang)
                          if render_mode else None)
        self.observation_space = _observation_space(rules, scaled)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._scale = observation_scale(rules)
        self._over = True

    @property
    def core_state(self):
        """The core's one-game state (read it; changing it bypasses the env's bookkeeping)."""
        return self._games.state

    def _obs(self) -> np.ndarray:
        obs = self._games.encode()[0]
        return (obs * self._scale).astype(np.float32) if self.scaled else obs

    def action_masks(self) -> np.ndarray:
        """(47,) bool: the learner's legal actions now (all False once the episode is over)."""
        if self._over:
            return np.zeros(NUM_ACTIONS, bool)
        return self._games.game.legal_action_mask(self._games.state)[0]

    def _result(self, reward: np.ndarray, terminated: np.ndarray, infos: dict, extra=None):
        self._over = bool(terminated[0])
        info = hand_info(infos, 0) if "_points" in infos and infos["_points"][0] else {}
        info.update(extra or {})
        info["action_mask"] = self.action_masks()
        if self.render_mode == "human":
            self.render()
        return self._obs(), float(reward[0]), self._over, False, info

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._games.reseed(int(self.np_random.integers(2**63)), opponents=seed is not None)
        infos = self._games.start(options, 1)
        obs, _, _, _, info = self._result(np.zeros(1), np.zeros(1, bool), infos)
        return obs, info

    def step(self, action):
        if self._over:
            raise ValueError("step() after the episode is over: call reset()")
        actions = np.array([as_action(action)])
        if actions[0] < 0 and self.illegal_action == "raise":
            raise ValueError(f"bad action {action!r}: expected an integer action id 0..{NUM_ACTIONS - 1}")
        legal = self._games.check_actions(actions, self.illegal_action)
        if not legal[0]:  # penalty: the episode ends, nothing is played
            return self._result(np.full(1, -1.0), np.ones(1, bool), {}, {"illegal_action": True})
        reward, terminated, infos = np.zeros(1), np.zeros(1, bool), {}
        self._games.seating.step(self._games.state, actions)
        self._games.settle(reward, terminated, infos)
        return self._result(reward, terminated, infos)

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        return self._renderer.render(self.rules, self._games.state, self._games.scoring)

    def close(self):
        if self._renderer is not None:
            self._renderer.close()


class TuteVectorEnv(VectorEnv):
    """N games of Tute stepped together by the batched rules core; learner seats and opponents as in
    :class:`TuteEnv`. Autoreset mode: same-step (see the module doc)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 8, preset: str | Rules = "partnership", *, seat: int = 0,
                 control_partner: bool = False, opponents="random", episode: str = "hand", reward: str = "win",
                 point_weight: float = 0.0, illegal_action: str = "penalty", scaled: bool = False,
                 render_mode: str | None = None, **rule_options):
        where = "TuteVectorEnv"
        if not is_int(num_envs, 1):
            raise ValueError(f"bad argument num_envs={num_envs!r} for {where}: expected a positive integer")
        rules = parse_env_args(preset, episode, reward, render_mode, rule_options, render_modes=(), where=where)
        _check_common(illegal_action, scaled, where)
        self.rules = rules
        self.seat, self.control_partner = int(seat), control_partner
        self.num_envs = int(num_envs)
        self._games = _LearnerGames(rules, self.num_envs, _learner_seats(rules, seat, control_partner, where),
                                    opponents, episode, reward, point_weight, autoreset=True, where=where)
        self.game, self.opponents = self._games.game, self._games.opponents
        self.illegal_action, self.scaled = illegal_action, scaled
        self.episode, self.reward_kind = episode, reward
        self.render_mode = None
        self.single_observation_space = _observation_space(rules, scaled)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self._scale = observation_scale(rules)
        self._seeded = False

    @property
    def state(self):
        """The core state of the N games (read it)."""
        return self._games.state

    def _scaled(self, obs: np.ndarray) -> np.ndarray:
        return (obs * self._scale).astype(np.float32) if self.scaled else obs

    def action_masks(self) -> np.ndarray:
        """(N, 47) bool: each game's legal actions for the learner to act."""
        return self.game.legal_action_mask(self.state)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None or not self._seeded:
            self._games.reseed(seed, opponents=seed is not None)
            self._seeded = True
        infos = self._games.start(options, self.num_envs)
        if "final_obs" in infos:
            infos["final_obs"] = self._scaled(infos["final_obs"])
        infos["action_mask"] = self.action_masks()
        return self._scaled(self._games.encode()), infos

    def step(self, actions):
        if self.state is None:
            raise ValueError("step() before reset()")
        g, b = self._games, self.num_envs
        legal = g.check_actions(actions, self.illegal_action)
        rewards, terminated, infos = np.zeros(b), np.zeros(b, bool), {}
        illegal = np.flatnonzero(~legal)
        if illegal.size:  # penalty: the episode ends, nothing is played
            rewards[illegal] = -1.0
            terminated[illegal] = True
            _put_info(infos, "final_obs", illegal, g.encode(illegal, self.state.current[illegal]), b)
            _put_info(infos, "illegal_action", illegal, np.ones(illegal.size, bool), b)
            g.scoring.reset(illegal)
            g.game.reset_done(self.state, g.rng, lanes=illegal)
        g.seating.step(self.state, np.where(legal, np.asarray(actions), 0).astype(np.int64), active=legal)
        g.settle(rewards, terminated, infos)
        if "final_obs" in infos:
            infos["final_obs"] = self._scaled(infos["final_obs"])
        infos["action_mask"] = self.action_masks()
        return self._scaled(g.encode()), rewards, terminated, np.zeros(b, bool), infos

    def close_extras(self, **kwargs):
        # gymnasium 1.2.2 (which ray[rllib] 2.60 pins), unlike 1.4, also closes from __del__ an env whose
        # __init__ raised before the games existed.
        if hasattr(self, "_games"):
            self._games.state = None


def _put_info(infos: dict, key: str, lanes: np.ndarray, values: np.ndarray, num_envs: int) -> None:
    """Gymnasium's vector info convention: ``infos[key]`` an array over games, ``infos["_" + key]``
    the games it is set for."""
    values = np.asarray(values)
    if key not in infos:
        infos[key] = np.zeros((num_envs, *values.shape[1:]), values.dtype)
        infos["_" + key] = np.zeros(num_envs, bool)
    infos[key][lanes] = values
    infos["_" + key][lanes] = True


def _register() -> None:
    if "tute_env/Tute-v0" not in gymnasium.registry:
        gymnasium.register(
            id="tute_env/Tute-v0",
            entry_point="tute_env.envs.gym_env:TuteEnv",
            vector_entry_point="tute_env.envs.gym_env:TuteVectorEnv",
        )


_register()
