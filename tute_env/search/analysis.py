"""Double-dummy analysis of recorded hands: the value of every legal action at every decision,
and what the move played lost against the best.

>>> from tute_env.search.analysis import analyze_record
>>> from tute_env.play.records import load_records
>>> decisions = analyze_record(load_records("games.jsonl")[0])
>>> worst = max(decisions, key=lambda d: d.loss)
>>> worst.ply, worst.seat, worst.action_str, worst.best_str, worst.loss, worst.kind, worst.error

A value is the seat to act's "win" hand reward (:mod:`tute_env.engine.scoring`, ``point_weight`` =
``point_weight``): the games its side wins (or its share of the games lost) plus ``point_weight``
times the point difference / 230, so a value and a loss are in games, at that point weight
(default :data:`POINT_WEIGHT`). The loss of a move is the best action's value minus the value of
the action played (0 for the best move, never negative). Every decision gets values, of one of
two **kinds** (``Decision.kind``):

* ``"exact"``: every card known (the hands, the stock in its order) and every seat playing its
  best, by the exact solver (:mod:`tute_env.search.solver`) within ``max_seconds`` (default
  :data:`MAX_SECONDS`: the one time limit of tute-analyze, the terminal review and the web
  review). The decisions are analysed from the last to the first, the solver's transposition
  table kept across them (they are positions of one deal), so a later decision's proofs serve
  the earlier ones.
* ``"estimate"``, where the exact search did not finish within ``max_seconds``, with its
  **error** (``Decision.errors``: each action's; ``Decision.error``: the loss's):

  - while a stock is left (the two-player game's stock phase): the **sampled** estimate
    (:func:`sampled_values`). ``samples`` orders of the face-down stock are drawn (the acting
    seat cannot know it; the hands and the turned card stay as they are); for each order and
    each legal action, the action is played, both seats play on with the ``playout`` policy
    until the stock is gone, and the rest of the hand is solved exactly. A value is the mean
    over the orders, its error the 95% half-width ``1.96 sd / sqrt(samples)``; every action is
    played on the same orders, so the loss's error is that of the paired differences (with the
    runner-up when the move played is the best: how sure it is that it is). It
    estimates the value with the stock's order unknown and the playout policy's play until it is
    gone, not the double-dummy value of the one order dealt: with one face-down card left
    (nothing to sample, no playout) the two are the same. Once one stock-phase decision (from
    the last) has not been solved exactly in time, the earlier ones, whose trees are larger, are
    estimated without trying: that keeps a two-player hand to about one time limit of
    failed exact search.
  - with no stock (a partnership's first leads on a slow machine): the **bounded** estimate.
    The exact search's budget is spent as usual; an action solved is exact (error 0), the action
    whose search the time cut keeps the bounds its finished zero-window tests proved, an action
    not reached those of the totals each side can still reach
    (:meth:`~tute_env.search.solver.Solver.action_bounds`). A value is the middle of its proven
    interval and its error the half-width: a sure bound, not a confidence interval
    (``samples == 0``).

``tute-analyze FILE.jsonl`` is the command line (:mod:`tute_play.analyze`); the web table's and
the terminal's replays show the same figures. The playout policy is given by the caller
(``tute_play`` seats the heuristic bot); without one, :class:`tute_env.play.seating.RandomPolicy`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..engine.cards import action_str
from ..engine.core import Game, State
from ..engine.scoring import hand_rewards
from ..play.records import Record, replay
from ..play.seating import Policy, RandomPolicy, Seating
from .solver import Solver

__all__ = ["ESTIMATE", "EXACT", "MAX_SECONDS", "POINT_WEIGHT", "SAMPLES", "Decision", "analyze_record", "costliest",
           "sampled_values", "seat_losses"]

#: The solver's time per decision before the decision is estimated instead, in seconds: one limit
#: for every tool that analyses hands (tute-analyze, the terminal review, the web review).
MAX_SECONDS = 3.0
#: The point weight of a value: the one the project's agents are trained with (tute_env.engine.scoring).
POINT_WEIGHT = 0.177
#: Stock orders sampled per stock-phase estimate (each legal action played on every one).
SAMPLES = 32
#: The kinds of a decision's values.
EXACT, ESTIMATE = "exact", "estimate"
#: 95% two-sided normal quantile: an estimate's error is Z95 * sd / sqrt(samples).
Z95 = 1.96


@dataclass
class Decision:
    """One decision of a recorded hand and its values."""

    ply: int
    """Index of the action in the record (0 = the first action of the hand)."""
    seat: int
    """The seat that acted."""
    action: int
    """The action played (an action id)."""
    values: dict[int, float] = field(default_factory=dict)
    """Legal action id -> value for ``seat``; empty only for a decision not valued at all."""
    kind: str = EXACT
    """``"exact"`` or ``"estimate"`` (see the module's documentation)."""
    errors: dict[int, float] = field(default_factory=dict)
    """Legal action id -> the error of its value (an estimate's; empty when exact)."""
    error: float = 0.0
    """The error of :attr:`loss` (0 when exact): sampled, the 95% half-width of the paired
    differences; bounded, a sure bound."""
    samples: int = 0
    """Stock orders sampled (a sampled estimate); 0 when exact or bounded."""
    point_weight: float = POINT_WEIGHT
    """The point weight of the values (they are in games, at this weight)."""

    @property
    def solved(self) -> bool:
        """Valued exactly."""
        return self.kind == EXACT and bool(self.values)

    @property
    def best(self) -> int | None:
        """The best action (the lowest id among equals), None when not valued."""
        return min(self.values, key=lambda a: (-self.values[a], a)) if self.values else None

    @property
    def loss(self) -> float | None:
        """Best value minus the played action's (>= 0); None when not valued."""
        return self.values[self.best] - self.values[self.action] if self.values else None

    @property
    def action_str(self) -> str:
        return action_str(self.action)

    @property
    def best_str(self) -> str | None:
        return None if self.best is None else action_str(self.best)

    def to_dict(self) -> dict:
        """``{"ply", "seat", "action", "values", "loss", "best", "kind", "error", "errors",
        "samples"}``, actions as action strings."""
        return {"ply": self.ply, "seat": self.seat, "action": self.action_str,
                "values": {action_str(a): v for a, v in sorted(self.values.items())},
                "loss": self.loss, "best": self.best_str, "kind": self.kind, "error": self.error,
                "errors": {action_str(a): e for a, e in sorted(self.errors.items())}, "samples": self.samples}


def analyze_record(record: Record, point_weight: float = POINT_WEIGHT, max_seconds: float | None = MAX_SECONDS,
                   solver: Solver | None = None, progress=None, playout: Policy | None = None,
                   samples: int = SAMPLES, seed: int = 0) -> list[Decision]:
    """Every decision of ``record`` (replayed through the core) with its values, exact or
    estimated (see the module's documentation), in the record's order.

    ``max_seconds``: the exact solver's budget per decision (None: no limit, every value exact);
    ``solver``: one to reuse (its rules must be the record's; its point weight and budget are then
    its own; its transposition table is taken over); ``progress(done, total)``: called after each
    decision (they are analysed from the last); ``playout``: the policy both seats play a sampled
    estimate's stock phase with (default: uniformly random legal actions); ``samples``: stock
    orders per sampled estimate; ``seed``: of the orders (the same record, seed and policy give
    the same values)."""
    if solver is None:
        solver = Solver(record.rules, point_weight=point_weight, max_seconds=max_seconds)
    elif solver.rules != record.rules:
        raise ValueError("the solver's rules are not the record's")
    if samples < 2:
        raise ValueError(f"samples must be at least 2 (an estimate's error needs two), got {samples}")
    states = replay(record)
    total = len(record.action_ids)
    out: list[Decision | None] = [None] * total
    leaves = None  # the sampled estimates' solver: their deals are not the record's
    kept = False  # its table holds the sampled positions of an earlier decision
    exact_in_stock = True  # no stock-phase decision (from the last) has failed the exact search yet
    for done, ply in enumerate(reversed(range(total))):
        state, action = states[ply], record.action_ids[ply]
        seat = int(state.current[0])
        in_stock = int(state.to_draw[0]) > 0
        decision = None
        if exact_in_stock or not in_stock:
            low, high = solver.action_bounds(state, same_deal=done > 0)
            low, high = low[0], high[0]
            legal = np.flatnonzero(~np.isnan(low))
            if np.array_equal(low[legal], high[legal]):
                decision = Decision(ply, seat, action, {int(a): float(low[a]) for a in legal},
                                    point_weight=solver.point_weight)
            elif not in_stock:
                decision = _bounded(ply, seat, action, legal, low, high, solver.point_weight)
            else:
                exact_in_stock = False
        if decision is None:
            if leaves is None:
                leaves = Solver(record.rules, point_weight=solver.point_weight, table_mb=16.0)
            rng = np.random.default_rng([seed, ply])
            values, errors, error = sampled_values(state, action, leaves, playout, samples, rng, keep_table=kept)
            kept = True
            decision = Decision(ply, seat, action, values, ESTIMATE, errors, error, samples, solver.point_weight)
        out[ply] = decision
        if progress is not None:
            progress(done + 1, total)
    return out


def _bounded(ply, seat, action, legal, low, high, point_weight) -> Decision:
    """A decision's bounded estimate: each value the middle of its proven interval."""
    values = {int(a): float((low[a] + high[a]) / 2) for a in legal}
    errors = {int(a): float((high[a] - low[a]) / 2) for a in legal}
    error = max(errors.values()) + errors[action]  # |loss - true loss| is at most this
    return Decision(ply, seat, action, values, ESTIMATE, errors, error, 0, point_weight)


def sampled_values(state: State, played: int, solver: Solver, playout: Policy | None, samples: int,
                   rng: np.random.Generator, keep_table: bool = False) -> tuple[dict[int, float], dict[int, float], float]:
    """The sampled estimate of lane 0 of ``state`` (a stock-phase position; see the module's
    documentation): ``(values, errors, loss error)``, each legal action's mean value over
    ``samples`` orders of the face-down stock for the seat to act, its 95% half-width, and that
    of the loss of ``played`` (the paired differences to the best action; to the runner-up when
    ``played`` is the best). The stock phase is
    played on by ``playout`` (both seats; default uniformly random, seeded from ``rng``) at a
    :class:`~tute_env.play.seating.Seating`, all actions' and orders' games in one batch; the rest
    is solved exactly by ``solver`` (its rules the state's, no budget needed: no stock is left).

    The solves share the solver's transposition table (``same_deal``): with the stock gone, what
    remains (every hand, the trick, the points) is all of the key, whatever the order the stock
    was drawn in, so the positions of every sample (and, with ``keep_table``, of the previous
    calls: other decisions of the same deal, the same trump) are positions of one deal. The
    searches are made for one side (side 0 with two sides, the values negated for side 1)."""
    rules = solver.rules
    game = Game(rules)
    seat = int(state.current[0])
    side = rules.side_of(seat)
    legal = np.flatnonzero(game.legal_action_mask(state.take([0]))[0])
    lanes = len(legal) * samples
    games = state.take(np.zeros(lanes, np.intp))
    start = int(state.stock_next[0])
    hidden = games.stock[0, start:].copy()
    for k in range(samples):  # order k for sample k of every action: the actions share their orders
        order = rng.permutation(hidden)
        games.stock[k::samples, start:] = order
    game.step(games, np.repeat(legal, samples))
    policy = playout if playout is not None else RandomPolicy(int(rng.integers(2**62)))
    seating = Seating(game, [policy], np.zeros(rules.num_players, np.int64),
                      streams=np.arange(lanes) + int(rng.integers(2**40)))
    while True:
        todo = ~games.done & (games.to_draw > 0)
        if not todo.any():
            break
        seating.step(games, seating.actions(games, todo), active=todo)
    value = np.empty(lanes)
    over = np.flatnonzero(games.done)
    if over.size:
        rewards = hand_rewards(rules, "win", games.winner[over], games.games[over], games.totals[over],
                               games.tute_declarer[over], solver.point_weight)
        value[over] = rewards[:, seat]
    left = np.flatnonzero(~games.done)
    if left.size:
        view = 0 if rules.num_sides == 2 else side  # one view for every search: the table holds
        sign = 1.0 if view == side else -1.0
        rest = games.take(left)
        value[left[0]] = sign * solver.value(rest.take([0]), side=view, same_deal=keep_table)[0]
        if left.size > 1:
            value[left[1:]] = sign * solver.value(rest.take(np.arange(1, left.size)), side=view, same_deal=True)
    table = value.reshape(len(legal), samples)
    mean = table.mean(axis=1)
    errors = Z95 * table.std(axis=1, ddof=1) / np.sqrt(samples)
    values = {int(a): float(m) for a, m in zip(legal, mean)}
    best = min(values, key=lambda a: (-values[a], a))
    rows = {int(a): r for r, a in enumerate(legal)}
    if best == played and len(values) > 1:  # how sure it is the best: against the runner-up
        best = min((a for a in values if a != played), key=lambda a: (-values[a], a))
    diff = table[rows[best]] - table[rows[played]]
    error = float(Z95 * diff.std(ddof=1) / np.sqrt(samples))
    return values, {int(a): float(e) for a, e in zip(legal, errors)}, error


def seat_losses(decisions: Sequence[Decision], num_players: int) -> list[float]:
    """The total loss of each seat over its valued decisions (exact and estimated)."""
    totals = [0.0] * num_players
    for d in decisions:
        if d.values:
            totals[d.seat] += d.loss
    return totals


def costliest(decisions: Sequence[Decision], count: int = 5, seat: int | None = None) -> list[Decision]:
    """The ``count`` valued decisions that lost the most (of ``seat``'s, or of every seat), those
    with a loss above zero only, costliest first (the earlier of equals first)."""
    lost = [d for d in decisions if d.values and d.loss > 1e-12 and (seat is None or d.seat == seat)]
    return sorted(lost, key=lambda d: (-d.loss, d.ply))[:count]
