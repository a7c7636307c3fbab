"""The table: the one way policies take their seats and act, for B games at once.

Evaluation, training, the Gymnasium views, the terminal play mode and the tests all run the
seats that are not the caller's own through a :class:`Seating`:

>>> seating = Seating(game, [heuristic, greedy], seats)        # seats[b, seat]: a policy index, or LEARNER
>>> seating.advance(state)                                   # the policies act until every game needs
>>> seating.step(state, learner_actions)                     # a learner decision or is over

* A **policy** is anything with ``act_batch(observations, masks) -> actions`` (:class:`Policy`):
  (k, obs_size) int8 observations of :mod:`tute_env.engine.observation` (the acting seat's information
  set, nothing more) and (k, 47) bool masks in, k legal action ids out. The bots of ``agents``
  are policies; :class:`RandomPolicy` is the one built in.
* ``seats`` is a (B, n) int array: the index in ``policies`` of the policy playing each seat of
  each game, or :data:`LEARNER` (-1) for a seat whose decisions the caller makes (a learner, a
  person at the terminal). It may be changed between calls (new seatings for new hands).
* :meth:`Seating.advance` lets the policies act in every game whose seat to act is not a
  learner's, lanes grouped by policy (one ``act_batch`` call per policy and round), until each
  game waits for a learner or is over. With ``on_done`` it also reports finished games, deals
  them anew (the next seat dealing, R2) and plays on: the way to keep B games running.
* :meth:`Seating.step` applies actions chosen outside (a learner's), checked like every other.
* **Stacks**: policies whose ``stack`` attribute is one object (e.g. the opponent pool's
  snapshot networks, :class:`agents.ppo.PolicyStack`) are called together, once a round:
  ``stack.act_many([(policy, observations, masks, keys or None), ...])`` returns each policy's
  actions, what its own ``act_batch`` would choose. Only the number of calls changes.
* **Keyed draws** (:mod:`tute_env.play.streams`): ``Seating(..., streams=ids)`` gives each lane a
  stream id ((B,) integers; evaluation uses ``mix(deal seed, seating)``). A policy whose
  ``takes_keys`` attribute is true is then called as ``act_batch(observations, masks,
  keys=keys)``: ``keys[i] = mix(stream of the row's lane, n)`` for the lane's n-th decision at
  this table (a counter per lane, every action counted, a learner's too). A policy drawing its
  random choices from ``mix(its seed, key)`` plays each game the same whatever the batch it is
  in. Without ``streams``, or for a policy without ``takes_keys``, the call is the plain
  ``act_batch(observations, masks)``: training and the Gymnasium views pass no streams.
* **Hooks** observe every action taken through the table: ``hook(state, lanes, actions)`` is
  called just before the actions are applied, with the state in which they were chosen. Game
  records and the play mode's narration are hooks.

A policy's illegal action raises ``ValueError`` naming the policy, the seat and the game,
before anything is applied.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from ..engine.cards import NUM_ACTIONS, action_str
from ..engine.core import Game, State, is_legal, legal_actions_at, random_legal_actions
from ..engine.observation import encode_observation
from .streams import mix, uniforms

__all__ = ["LEARNER", "ActionHook", "Policy", "RandomPolicy", "Seating"]

#: ``seats`` entry of a seat whose decisions the caller makes.
LEARNER = -1


@runtime_checkable
class Policy(Protocol):
    """Chooses actions for a batch of decisions from observations and legal masks."""

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """(k,) legal action ids for (k, obs_size) int8 observations and (k, 47) bool masks."""
        ...


#: ``hook(state, lanes, actions)``: called before ``actions`` (one per lane in ``lanes``) are
#: applied to ``state``. It must not change the state.
ActionHook = Callable[[State, np.ndarray, np.ndarray], None]


class RandomPolicy:
    """Uniform over the legal actions (one uniform draw per decision from its generator, or from
    ``mix(seed, key)`` when given keys and an int seed)."""

    takes_keys = True

    def __init__(self, seed: int | np.random.Generator | None = 0):
        self.rng = np.random.default_rng(seed)
        self.seed = int(seed) if isinstance(seed, (int, np.integer)) else int(self.rng.integers(2**63))

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, keys: np.ndarray | None = None) -> np.ndarray:
        if keys is not None:
            return legal_actions_at(masks, uniforms(mix(self.seed, keys)))
        return random_legal_actions(np.asarray(masks, dtype=bool), self.rng)

    def __repr__(self) -> str:
        return "random"


class Seating:
    """Policies seated at B games of one :class:`~tute_env.engine.core.Game` (see the module doc).

    ``policies``: the policies; ``seats``: (B, n) int, a policy index or :data:`LEARNER` per
    seat (a row may also be given as (n,) for every game alike); ``hooks``: action hooks;
    ``streams``: (B,) int stream id per lane, for keyed draws (see the module doc).
    """

    def __init__(self, game: Game, policies: Sequence[Policy], seats, hooks: Sequence[ActionHook] = (),
                 streams=None):
        self.game, self.rules = game, game.rules
        self.policies = list(policies)
        self.seats = seats
        self.hooks = list(hooks)
        self.streams = None if streams is None else np.asarray(streams).reshape(-1)
        #: (B,) decisions taken in each lane at this table (with ``streams`` only).
        self.moves = None if streams is None else np.zeros(len(self.streams), np.int64)

    def _keys(self, state: State, rows: np.ndarray) -> np.ndarray:
        if len(self.streams) != state.batch_size:
            raise ValueError(f"streams has {len(self.streams)} entries for a state of {state.batch_size} games")
        return mix(self.streams[rows], self.moves[rows])

    @property
    def seats(self) -> np.ndarray:
        return self._seats

    @seats.setter
    def seats(self, seats) -> None:
        seats = np.asarray(seats, dtype=np.int64)
        n = self.rules.num_players
        if seats.ndim not in (1, 2) or seats.shape[-1] != n:
            raise ValueError(f"seats must have shape (n,) or (B, n) with n = {n} seats, got {seats.shape}")
        if ((seats < LEARNER) | (seats >= len(self.policies))).any():
            raise ValueError(f"seats must hold policy indices 0..{len(self.policies) - 1} or LEARNER (-1)")
        self._seats = seats

    # ------------------------------------------------------------------------------------------
    def waiting(self, state: State) -> np.ndarray:
        """(B,) bool: games whose seat to act is a policy's (not over, not a learner's)."""
        return ~state.done & (self.to_act(state) != LEARNER)

    def learner_to_act(self, state: State) -> np.ndarray:
        """(B,) bool: games waiting for a learner decision."""
        return ~state.done & (self.to_act(state) == LEARNER)

    def to_act(self, state: State) -> np.ndarray:
        """(B,) the policy index (or LEARNER) of each game's seat to act."""
        return self._seat_policy(state, np.maximum(state.current, 0).astype(np.intp))

    def _seat_policy(self, state: State, seat: np.ndarray) -> np.ndarray:
        if self._seats.ndim == 1:
            return self._seats[seat]
        if len(self._seats) != state.batch_size:
            raise ValueError(f"seats has {len(self._seats)} rows for a state of {state.batch_size} games")
        return self._seats[np.arange(state.batch_size), seat]

    def actions(self, state: State, lanes: np.ndarray) -> np.ndarray:
        """(B,) int64: the policies' actions in the bool ``lanes`` (0 elsewhere), each policy
        called once on the rows it plays, in policy order; checked for legality."""
        seat = np.maximum(state.current, 0).astype(np.intp)
        who = np.where(lanes, self._seat_policy(state, seat), LEARNER)
        acting = np.flatnonzero(who != LEARNER)
        # Only the acting lanes are encoded (late in advance() they are few); row i is lane acting[i].
        obs = encode_observation(self.rules, state.take(acting), seat[acting])
        masks = self.game.legal_action_mask(state)
        actions = np.zeros(state.batch_size, np.int64)
        groups: dict[int, list] = {}  # the policies acting this round, those of one stack together
        for k in np.unique(who[acting]):
            policy, rows = self.policies[k], np.flatnonzero(who == k)
            keys = self._keys(state, rows) if self.streams is not None and getattr(policy, "takes_keys", False) else None
            stack = getattr(policy, "stack", None)
            together = stack is not None and all(p is not policy for p, _, _ in groups.get(id(stack), ()))
            groups.setdefault(id(stack) if together else -1 - int(k), []).append((policy, rows, keys))
        for key, group in groups.items():
            if key >= 0:  # a stack's policies (a policy seated twice acts alone the second time)
                stack = group[0][0].stack
                chosen = stack.act_many([(policy, obs[np.searchsorted(acting, rows)], masks[rows], keys)
                                         for policy, rows, keys in group])
            else:
                (policy, rows, keys), = group
                kwargs = {} if keys is None else {"keys": keys}
                chosen = [policy.act_batch(obs[np.searchsorted(acting, rows)], masks[rows], **kwargs)]
            for (policy, rows, _), acts in zip(group, chosen):
                acts = np.asarray(acts)
                if acts.shape != rows.shape or acts.dtype.kind not in "iu":
                    raise ValueError(f"policy {policy!r} returned {acts.shape} {acts.dtype} actions "
                                     f"for {rows.size} decisions; expected {rows.size} integers")
                self._check_legal(state, rows, acts, f"policy {policy!r}")
                actions[rows] = acts
        return actions

    def step(self, state: State, actions, active=None) -> State:
        """Apply the caller's ``actions`` (B,) in the ``active`` games (default: every game not
        over), after the hooks saw them; an illegal action raises ``ValueError`` before any is
        applied (checked here when hooks would see it, else by the core's step)."""
        actions = np.asarray(actions)
        active = ~state.done if active is None else np.asarray(active, dtype=bool)
        if self.hooks:
            if actions.shape != (state.batch_size,) or active.shape != (state.batch_size,):
                raise ValueError(f"actions and active must have shape ({state.batch_size},)")
            lanes = np.flatnonzero(active)
            self._check_legal(state, lanes, actions[lanes], "the caller")
        return self._apply(state, actions, active)

    def _apply(self, state: State, actions: np.ndarray, active: np.ndarray) -> State:
        """Apply checked actions: the hooks see them, then the core steps."""
        if self.hooks:
            lanes = np.flatnonzero(active)
            for hook in self.hooks:
                hook(state, lanes, actions[lanes])
        state = self.game.step(state, actions, active=active)
        if self.moves is not None:
            self.moves[active] += 1
        return state

    def advance(self, state: State, on_done: Callable[[np.ndarray], np.ndarray | None] | None = None,
                rng: np.random.Generator | None = None) -> int:
        """Let the policies act until every game waits for a learner or is over; returns the
        decisions made.

        With ``on_done`` (and ``rng`` for the deals), the games over (whether a learner's action
        or a policy's ended them) are passed to ``on_done(lanes)`` in the round they end, before
        the policies act again; it reads their results (and may re-seat them) and returns the
        lanes to deal anew (None: all of them), which are dealt from ``rng`` and played on in the
        same rounds as the others (a game dealt anew does not wait for the rest to reach a
        learner first: fewer, fuller rounds). A game left over is reported once per call."""
        decisions, reported = 0, np.zeros(state.batch_size, bool)
        while True:
            todo = self.waiting(state)
            acted = bool(todo.any())
            if acted:
                self._apply(state, self.actions(state, todo), todo)  # checked in actions()
                decisions += int(todo.sum())
            ended = np.zeros(0, np.intp) if on_done is None else np.flatnonzero(state.done & ~reported)
            if ended.size:
                reported[ended] = True
                redeal = on_done(ended)
                redeal = ended if redeal is None else np.asarray(redeal, dtype=np.intp)
                if redeal.size:
                    if rng is None:
                        raise ValueError("advance(on_done=...) deals finished games anew: give it rng")
                    self.game.reset_done(state, rng, lanes=redeal)
                    reported[redeal] = False
            elif not acted:
                return decisions

    def _check_legal(self, state: State, lanes: np.ndarray, chosen: np.ndarray, who: str) -> None:
        bad = np.flatnonzero(~is_legal(state.legal[lanes], chosen))
        if bad.size:
            lane, action = int(lanes[bad[0]]), int(chosen[bad[0]])
            shown = action_str(action) if 0 <= action < NUM_ACTIONS else "out of range"
            raise ValueError(f"{who} at seat {int(state.current[lane])} chose the illegal action {action} ({shown}) "
                             f"in game {lane}")
