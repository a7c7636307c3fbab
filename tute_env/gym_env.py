"""Gymnasium views of Tute: one learner against opponent policies.

Importing this module registers ``tute_env/Tute-v0`` with Gymnasium (or name the module in the
id: ``gymnasium.make("tute_env.gym_env:tute_env/Tute-v0")``).

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

Both take the arguments of ``tute_v0.env`` (``variant``, rule options, ``episode``, ``reward``)
and give the learner the rewards ``tute_v0`` gives its seat (see its doc: zero-sum, at the end
of a hand or match). Besides:

``seat`` (default 0): the learner's seat. ``control_partner``: the learner plays ``seat + 2``
as well (partnerships only); the reward is the side's reward, counted once.

``opponents`` (default ``"random"``): the policies of the other seats (the learner's partner
included when not controlled). One spec for all of them, or a list with one per seat (the
learner's entries are ignored), or a dict ``{seat: spec}``. A spec is a name for
``agents.make_agent`` (``"random"``, ``"greedy"``, ``"heuristic"``, ...), an object with
``act_batch(observations, masks) -> actions`` (an ``agents.Agent``), or a callable
``policy(observation, action_mask) -> action`` taking one int8 observation vector and a
(47,) bool mask. Opponents see only their own observation. An opponent's illegal action
raises ``ValueError``. Opponents made from names are reseeded by ``reset(seed=...)``; objects
and callables you pass keep their own randomness.

``illegal_action``: what a learner's illegal action does. ``"penalty"`` (default, as
PettingZoo's ``TerminateIllegalWrapper``): the episode ends (``terminated=True``) with reward
-1 and ``info["illegal_action"] = True``, nothing is played; ``"raise"``: ``ValueError``. With
action masks (``MaskablePPO``) it never happens.

``scaled``: observations as float32 in [0, 1] (the int8 vector times
``tute_env.observation.observation_scale``), handy for networks; default int8 as in ``tute_v0``.

Observations are the learner's ``tute_v0`` observation vector (``observation_space`` a Box) from
the seat to act; ``info["action_mask"]`` repeats ``action_masks()``. When a hand ends, the
info holds the hand result of ``tute_v0`` (``points``, ``winner``, ``games``, ...).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from .cards import NUM_ACTIONS, action_str
from .core import Game
from .deal import Deals, random_deals
from .observation import encode_observation, observation_layout, observation_scale
from .rules import Rules
from .tute_v0 import Scoring, observation_high, parse_env_args, parse_reset_options, raw_env

__all__ = ["OpponentPolicy", "TuteEnv", "TuteVectorEnv"]

ILLEGAL_ACTIONS = ("penalty", "raise")


class OpponentPolicy:
    """One opponent spec made callable both ways: ``act(obs, mask)`` and ``act_batch``."""

    def __init__(self, spec, rules: Rules, seed: int = 0):
        self.spec, self.agent, self.fn, self.owned = spec, None, None, False
        if isinstance(spec, str):
            from agents import make_agent  # the agents package ships with tute_env

            self.agent, self.owned = make_agent(spec, rules, seed=seed), True
        elif hasattr(spec, "act_batch"):
            self.agent = spec
        elif callable(spec):
            self.fn = spec
        else:
            raise ValueError(
                f"bad opponent {spec!r}: expected an agent name such as 'random', an object with "
                "act_batch(observations, masks), or a callable (observation, action_mask) -> action"
            )

    def reseed(self, seed: int) -> None:
        if self.owned and isinstance(getattr(self.agent, "rng", None), np.random.Generator):
            self.agent.rng = np.random.default_rng(seed)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if self.agent is not None:
            return np.asarray(self.agent.act_batch(observations, masks), dtype=np.int64).reshape(len(masks))
        return np.array([int(self.fn(o, m)) for o, m in zip(observations, masks)], dtype=np.int64)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        if self.agent is not None:
            return int(self.agent.act_batch(observation[None], mask[None])[0])
        return int(self.fn(observation, mask))

    def __repr__(self) -> str:
        return f"OpponentPolicy({self.spec!r})"


def _learner_seats(rules: Rules, seat, control_partner, where: str) -> np.ndarray:
    n = rules.num_players
    if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
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


def _opponents(spec, rules: Rules, learner: np.ndarray, where: str, seed: int = 0) -> dict[int, OpponentPolicy]:
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
    out = {}
    shared: dict[int, OpponentPolicy] = {}
    for seat in range(n):
        if learner[seat]:
            continue
        if seat not in specs or specs[seat] is None:
            raise ValueError(f"bad argument opponents for {where}: no policy for seat {seat}")
        s = specs[seat]
        try:
            if isinstance(s, str):
                out[seat] = OpponentPolicy(s, rules, seed=seed + seat)
            else:  # the same object for several seats is one policy
                out[seat] = shared.setdefault(id(s), OpponentPolicy(s, rules))
        except ValueError as err:
            raise ValueError(f"bad argument opponents for {where}: {err}") from None
    return out


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

    def __init__(self, variant: str | Rules = "partnership", *, seat: int = 0, control_partner: bool = False,
                 opponents="random", episode: str = "hand", reward: str = "win", illegal_action: str = "penalty",
                 scaled: bool = False, render_mode: str | None = None, show_all_hands: bool = False, **rule_options):
        where = "TuteEnv"
        rules = parse_env_args(variant, episode, reward, render_mode, rule_options,
                               render_modes=tuple(self.metadata["render_modes"]), where=where)
        _check_common(illegal_action, scaled, where)
        self.rules = rules
        self._learner = _learner_seats(rules, seat, control_partner, where)
        self.seat, self.control_partner = int(seat), control_partner
        self.opponents = _opponents(opponents, rules, self._learner, where)
        self.illegal_action, self.scaled = illegal_action, scaled
        self.render_mode = render_mode
        self.aec = raw_env(rules, episode=episode, reward=reward, render_mode=render_mode,
                           show_all_hands=show_all_hands)
        self._agent = self.aec.possible_agents[self.seat]
        self.observation_space = _observation_space(rules, scaled)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._scale = observation_scale(rules)
        self._over = True

    # -- helpers -------------------------------------------------------------------------------
    def _current(self) -> int:
        return int(self.aec.core_state.current[0])

    def _obs(self) -> np.ndarray:
        seat = self._current()
        if seat < 0 or not self._learner[seat]:
            seat = self.seat
        obs = encode_observation(self.rules, self.aec.core_state, seat)[0]
        return (obs * self._scale).astype(np.float32) if self.scaled else obs

    def action_masks(self) -> np.ndarray:
        """(47,) bool: the learner's legal actions now (all False once the episode is over)."""
        if self._over:
            return np.zeros(NUM_ACTIONS, bool)
        return self.aec._mask().astype(bool)

    def _info(self, hands_before: int, extra=None) -> dict:
        ended = int(self.aec._scoring.hands[0]) != hands_before  # a hand ended during this step
        info = copy.deepcopy(self.aec.infos.get(self._agent, {})) if ended else {}
        if extra:
            info.update(extra)
        info["action_mask"] = self.action_masks()
        return info

    def _play_opponents(self) -> float:
        """Opponents act until a learner seat is to act or the episode is over; returns the
        learner's reward meanwhile."""
        aec, reward = self.aec, 0.0
        while not aec.terminations[self._agent]:
            seat = self._current()
            if self._learner[seat]:
                break
            obs = encode_observation(aec.rules, aec.core_state, seat)[0]
            mask = aec._mask().astype(bool)
            action = self.opponents[seat].act(obs, mask)
            if not (0 <= action < NUM_ACTIONS and mask[action]):
                raise ValueError(f"opponent {self.opponents[seat]!r} at seat {seat} chose the illegal action {action}")
            aec.step(action)
            reward += aec.rewards[self._agent]
        self._over = bool(aec.terminations[self._agent])
        return reward

    # -- the Env API ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            for seat, policy in self.opponents.items():
                policy.reseed(int(self.np_random.integers(2**63)) + seat)
        self._over = False
        self.aec.reset(seed=int(self.np_random.integers(2**63)), options=options)
        self._play_opponents()
        return self._obs(), self._info(0)

    def step(self, action):
        if self._over:
            raise ValueError("step() after the episode is over: call reset()")
        mask = self.aec._mask()
        hands_before = int(self.aec._scoring.hands[0])
        try:
            a = int(action)
        except (TypeError, ValueError):
            a = -1
        if not (0 <= a < NUM_ACTIONS and mask[a]):
            if self.illegal_action == "raise":
                legal = " ".join(action_str(x) for x in np.flatnonzero(mask))
                raise ValueError(f"illegal action {action!r} for seat {self._current()}; legal: {legal}")
            self._over = True
            return self._obs(), -1.0, True, False, self._info(hands_before, {"illegal_action": True})
        self.aec.step(a)
        reward = float(self.aec.rewards[self._agent])
        reward += self._play_opponents()
        return self._obs(), float(reward), self._over, False, self._info(hands_before)

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        return self.aec.render()

    def close(self):
        self.aec.close()


class TuteVectorEnv(VectorEnv):
    """N games of Tute stepped together by the batched core; learner seats and opponents as in
    :class:`TuteEnv`. Autoreset mode: same-step (see the module doc)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 8, variant: str | Rules = "partnership", *, seat: int = 0,
                 control_partner: bool = False, opponents="random", episode: str = "hand", reward: str = "win",
                 illegal_action: str = "penalty", scaled: bool = False, render_mode: str | None = None,
                 **rule_options):
        where = "TuteVectorEnv"
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"bad argument num_envs={num_envs!r} for {where}: expected a positive integer")
        rules = parse_env_args(variant, episode, reward, render_mode, rule_options, render_modes=(), where=where)
        _check_common(illegal_action, scaled, where)
        self.rules, self.game = rules, Game(rules)
        self._learner = _learner_seats(rules, seat, control_partner, where)
        self.seat, self.control_partner = int(seat), control_partner
        self.opponents = _opponents(opponents, rules, self._learner, where)
        self.illegal_action, self.scaled = illegal_action, scaled
        self.episode, self.reward_kind = episode, reward
        self.num_envs = int(num_envs)
        self.render_mode = None
        self.single_observation_space = _observation_space(rules, scaled)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self._scale = observation_scale(rules)
        self._scoring = Scoring(rules, episode, reward, self.num_envs)
        self._rng: np.random.Generator | None = None
        self.state = None

    # -- helpers -------------------------------------------------------------------------------
    def _encode(self, players) -> np.ndarray:
        obs = encode_observation(self.rules, self.state, players)
        return (obs * self._scale).astype(np.float32) if self.scaled else obs

    def _encode_lanes(self, lanes: np.ndarray, players) -> np.ndarray:
        obs = encode_observation(self.rules, self.state.take(lanes), players)
        return (obs * self._scale).astype(np.float32) if self.scaled else obs

    def action_masks(self) -> np.ndarray:
        """(N, 47) bool: each game's legal actions for the learner to act."""
        return self.game.legal_action_mask(self.state)

    def _redeal(self, lanes: np.ndarray) -> None:
        """New hands in ``lanes``, the next seat dealing (R2)."""
        if lanes.size:
            dealer = (self.state.dealer[lanes] + 1) % self.rules.num_players
            self.state.put(lanes, self.game.new_state(random_deals(self.rules, self._rng, lanes.size, dealer)))

    def _settle(self, rewards, terminated, infos) -> None:
        """Score finished hands and let opponents act until a learner is to act in every game."""
        s = self.state
        while True:
            done = np.flatnonzero(s.done)
            if done.size:
                res = self._scoring.hand_over(s, done)
                rewards[done] += res["rewards"][:, self.seat]
                for key in ("points", "winner", "games", "tute", "hand"):
                    _put_info(infos, key, done, res[key], self.num_envs)
                over = done[res["episode_over"]]
                if self.episode == "match":
                    for key in ("match_games", "match_points", "match_winner"):
                        _put_info(infos, key, done, res[key], self.num_envs)
                if over.size:
                    terminated[over] = True
                    _put_info(infos, "final_obs", over, self._encode_lanes(over, self.seat), self.num_envs)
                    self._scoring.reset(over)
                self._redeal(done)
            current = s.current.astype(np.intp)
            need = ~self._learner[current]
            if not need.any():
                return
            obs = encode_observation(self.rules, s, current)
            masks = self.game.legal_action_mask(s)
            actions = np.zeros(self.num_envs, np.int64)
            for seat, policy in self.opponents.items():
                lanes = np.flatnonzero(need & (current == seat))
                if lanes.size:
                    actions[lanes] = policy.act_batch(obs[lanes], masks[lanes])
            bad = need & ~masks[np.arange(self.num_envs), np.clip(actions, 0, NUM_ACTIONS - 1)]
            bad |= need & ((actions < 0) | (actions >= NUM_ACTIONS))
            if bad.any():
                lane = int(np.flatnonzero(bad)[0])
                seat = int(current[lane])
                raise ValueError(
                    f"opponent {self.opponents[seat]!r} at seat {seat} chose the illegal action {actions[lane]} "
                    f"in game {lane}"
                )
            self.game.step(s, actions, active=need)

    # -- the VectorEnv API ---------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
            if seed is not None:
                for seat, policy in self.opponents.items():
                    policy.reseed(int(self._rng.integers(2**63)) + seat)
        deal, dealer = parse_reset_options(options, self.rules)
        if deal is not None:
            deals = Deals.from_deals([deal] * self.num_envs, self.rules)
        else:
            deals = random_deals(self.rules, self._rng, self.num_envs, dealer)
        self.state = self.game.new_state(deals)
        self._scoring.reset()
        infos: dict = {}
        self._settle(np.zeros(self.num_envs), np.zeros(self.num_envs, bool), infos)
        infos["action_mask"] = self.action_masks()
        return self._encode(self.state.current), infos

    def step(self, actions):
        if self.state is None:
            raise ValueError("step() before reset()")
        s, b = self.state, self.num_envs
        actions = np.asarray(actions)
        if actions.shape != (b,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {b} integers, got {actions!r}")
        actions = actions.astype(np.int64)
        in_range = (actions >= 0) & (actions < NUM_ACTIONS)
        bit = (s.legal >> np.clip(actions, 0, NUM_ACTIONS - 1).astype(np.uint64)) & np.uint64(1)
        legal = in_range & (bit == 1)
        rewards = np.zeros(b)
        terminated = np.zeros(b, bool)
        infos: dict = {}
        illegal = np.flatnonzero(~legal)
        if illegal.size:
            if self.illegal_action == "raise":
                lane = int(illegal[0])
                raise ValueError(f"illegal action {actions[lane]} in game {lane} for seat {int(s.current[lane])}")
            # Penalty: the episode ends, nothing is played.
            rewards[illegal] = -1.0
            terminated[illegal] = True
            _put_info(infos, "final_obs", illegal, self._encode_lanes(illegal, s.current[illegal]), b)
            _put_info(infos, "illegal_action", illegal, np.ones(illegal.size, bool), b)
            self._scoring.reset(illegal)
            self._redeal(illegal)
            actions = np.where(legal, actions, 0)
        self.game.step(s, actions, active=legal)
        self._settle(rewards, terminated, infos)
        infos["action_mask"] = self.action_masks()
        return self._encode(s.current), rewards, terminated, np.zeros(b, bool), infos

    def close_extras(self, **kwargs):
        self.state = None


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
            entry_point="tute_env.gym_env:TuteEnv",
            vector_entry_point="tute_env.gym_env:TuteVectorEnv",
        )


_register()
