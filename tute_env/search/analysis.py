"""Double-dummy analysis of recorded hands: the value of every legal action at every decision,
all cards known (:mod:`tute_env.search.solver`), and what the move played lost against the best.

>>> from tute_env.search.analysis import analyze_record
>>> from tute_env.play.records import load_records
>>> decisions = analyze_record(load_records("games.jsonl")[0])
>>> worst = max((d for d in decisions if d.solved), key=lambda d: d.loss)
>>> worst.ply, worst.seat, worst.action_str, worst.best_str, worst.loss

A value is the seat to act's "win" hand reward (:mod:`tute_env.engine.scoring`, ``point_weight`` =
``point_weight``) under optimal play by every seat with every card known: the games its side
wins (or its share of the games lost) plus ``point_weight`` times the point difference / 230,
so a value and a loss are in games, at that point weight (default :data:`POINT_WEIGHT`).
The loss of a move is the best action's value minus the value of the action played (0 for the
best move, never negative). A decision the solver cannot finish within ``max_seconds`` (default
:data:`MAX_SECONDS`: the one time limit of tute-analyze, the terminal review and the web review;
the two-player game early in a long stock) is kept with ``solved = False`` and no values.

``tute-analyze FILE.jsonl`` is the command line (:mod:`tute_play.analyze`); the web table's and
the terminal's replays show the same figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..engine.cards import action_str
from ..play.records import Record, replay
from .solver import Solver, SolverBudgetExceeded

__all__ = ["MAX_SECONDS", "POINT_WEIGHT", "Decision", "analyze_record", "costliest", "seat_losses"]

#: The solver's time per decision before it is reported as not solved, in seconds: one limit for
#: every tool that analyses hands (tute-analyze, the terminal review, the web review).
MAX_SECONDS = 3.0
#: The point weight of a value: the one the project's agents are trained with (tute_env.engine.scoring).
POINT_WEIGHT = 0.177


@dataclass
class Decision:
    """One decision of a recorded hand and its double-dummy values."""

    ply: int
    """Index of the action in the record (0 = the first action of the hand)."""
    seat: int
    """The seat that acted."""
    action: int
    """The action played (an action id)."""
    values: dict[int, float] = field(default_factory=dict)
    """Legal action id -> value for ``seat``; empty when not solved."""
    solved: bool = True
    """False when the solver's time budget ran out on this decision."""
    point_weight: float = POINT_WEIGHT
    """The point weight of the values (they are in games, at this weight)."""

    @property
    def best(self) -> int | None:
        """The best action (the lowest id among equals), None when not solved."""
        return min(self.values, key=lambda a: (-self.values[a], a)) if self.values else None

    @property
    def loss(self) -> float | None:
        """Best value minus the played action's (>= 0); None when not solved."""
        return self.values[self.best] - self.values[self.action] if self.values else None

    @property
    def action_str(self) -> str:
        return action_str(self.action)

    @property
    def best_str(self) -> str | None:
        return None if self.best is None else action_str(self.best)

    def to_dict(self) -> dict:
        """``{"ply", "seat", "action", "values", "loss", "best"}``, actions as action strings."""
        return {"ply": self.ply, "seat": self.seat, "action": self.action_str,
                "values": {action_str(a): v for a, v in sorted(self.values.items())},
                "loss": self.loss, "best": self.best_str}


def analyze_record(record: Record, point_weight: float = POINT_WEIGHT, max_seconds: float | None = MAX_SECONDS,
                   solver: Solver | None = None, progress=None) -> list[Decision]:
    """Every decision of ``record`` (replayed through the core) with its double-dummy values.

    ``max_seconds``: the solver's budget per decision (None: no limit); ``solver``: one to reuse
    (its rules must be the record's; its point weight and budget are then its own);
    ``progress(done, total)``: called after each decision."""
    if solver is None:
        solver = Solver(record.rules, point_weight=point_weight, max_seconds=max_seconds)
    elif solver.rules != record.rules:
        raise ValueError("the solver's rules are not the record's")
    states = replay(record)
    out = []
    for ply, action in enumerate(record.action_ids):
        state = states[ply]
        seat = int(state.current[0])
        try:
            row = solver.action_values(state)[0]
        except SolverBudgetExceeded:
            out.append(Decision(ply, seat, action, solved=False, point_weight=solver.point_weight))
        else:
            legal = np.flatnonzero(~np.isnan(row))
            out.append(Decision(ply, seat, action, {int(a): float(row[a]) for a in legal},
                                point_weight=solver.point_weight))
        if progress is not None:
            progress(ply + 1, len(record.action_ids))
    return out


def seat_losses(decisions: Sequence[Decision], num_players: int) -> list[float]:
    """The total loss of each seat over its solved decisions."""
    totals = [0.0] * num_players
    for d in decisions:
        if d.solved:
            totals[d.seat] += d.loss
    return totals


def costliest(decisions: Sequence[Decision], count: int = 5, seat: int | None = None) -> list[Decision]:
    """The ``count`` solved decisions that lost the most (of ``seat``'s, or of every seat), those
    with a loss above zero only, costliest first (the earlier of equals first)."""
    lost = [d for d in decisions if d.solved and d.loss > 1e-12 and (seat is None or d.seat == seat)]
    return sorted(lost, key=lambda d: (-d.loss, d.ply))[:count]
