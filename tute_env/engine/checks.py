"""Why a state does not fit its game, in words: the error path of :func:`.kernel.check_state`.

The compiled check answers with a code; these functions find the array, value and lane, in
numpy, only once it has found a problem (so that nothing more is compiled). :func:`state_misfit`
explains the states numba's dispatcher refuses (not a State, another dtype, shape or layout,
read-only arrays).
"""

from __future__ import annotations

import numpy as np

from .cards import FOLLOW, NUM_ACTIONS, NUM_CARDS, U64
from .kernel import (
    ACTION_SET_OVERFLOW,
    CARD_SET_OVERFLOW,
    ERR_BAD_SHAPE,
    LANE_CHECKS,
    LEVEL_ALL,
    LEVEL_RULES,
    RANGE_FIELDS,
    SET_FIELDS,
    state_value_bounds,
)
from .rules import Rules
from .state import State, StateArrays, blank_state

__all__ = ["state_error", "state_misfit", "writeable"]


def _expected_shapes(r: Rules, lanes: int) -> dict[str, tuple[int, ...]]:
    return {name: (lanes, *a.shape[1:]) for name, a in zip(StateArrays._fields, blank_state(r, 0).arrays())}


def _first_problem(r: Rules, s: State, level: int) -> tuple[int, int] | None:
    """(lane, check) of the first value check of check_state (numbered as state_error reads
    them) that ``s`` fails, at the first lane that fails it; None if none. The same checks as
    the compiled pass, in numpy: run only once that pass has found a problem."""
    lanes = len(s.current)
    for k, (name, (lo, hi)) in enumerate(state_value_bounds(r).items()):
        a = getattr(s, name).reshape(lanes, -1)
        bad = ((a < lo) | (a > hi)).any(axis=1)
        if bad.any():
            return int(np.argmax(bad)), k
    for k, name in enumerate(SET_FIELDS):
        if name in ("played", "known", "cannot_hold") and level != LEVEL_ALL:
            continue
        overflow = ACTION_SET_OVERFLOW if name == "legal" else CARD_SET_OVERFLOW
        bad = (getattr(s, name).reshape(lanes, -1) & overflow).any(axis=1)
        if bad.any():
            return int(np.argmax(bad)), len(RANGE_FIELDS) + k
    over = s.current < 0
    turned = (s.turned_card >= 0) & r.turned_card_drawn
    lane_checks = (
        (over & ~s.done) | (over ^ (s.decision < 0)),
        (s.decision == FOLLOW) & (s.trick_size == 0),
        (s.trick_size > 0) & ((s.best_card < 0) | (s.best_seat < 0)),
        s.to_draw.astype(int) + s.stock_next > r.stock_size + turned,
    )
    for k, bad in enumerate(lane_checks):
        if bad.any():
            return int(np.argmax(bad)), len(RANGE_FIELDS) + len(SET_FIELDS) + k
    return None


def state_error(r: Rules, s: State, error: int, level: int = LEVEL_RULES) -> str:
    """What check_state's ``error`` means for state ``s`` (checked at ``level``), in words."""
    if error == ERR_BAD_SHAPE:
        return state_misfit(r, s, writeable=False) or "an array of the wrong shape (not found again)"
    found = _first_problem(r, s, level)
    if found is None:  # not expected: the compiled check and this one disagree
        return "a value out of range (not found again)"
    lane, what = found
    if what < len(RANGE_FIELDS):
        name = RANGE_FIELDS[what]
        lo, hi = state_value_bounds(r)[name]
        row = getattr(s, name)[lane]
        if np.ndim(row):
            j = int(np.flatnonzero((row < lo) | (row > hi))[0])
            return f"{name}[{lane}, {j}] is {row[j]}, expected {lo}..{hi}"
        return f"{name}[{lane}] is {row}, expected {lo}..{hi}"
    what -= len(RANGE_FIELDS)
    if what < len(SET_FIELDS):
        name = SET_FIELDS[what]
        width, kind = (NUM_ACTIONS, "actions") if name == "legal" else (NUM_CARDS, "cards")
        row = np.atleast_1d(getattr(s, name)[lane])
        j = int(np.flatnonzero(row >> U64(width))[0])
        bits = [x for x in range(width, 64) if int(row[j]) >> x & 1]
        where = f"{name}[{lane}, {j}]" if np.ndim(getattr(s, name)) == 2 else f"{name}[{lane}]"
        return f"{where} has bit(s) {bits} set, expected a set of {kind} 0..{width - 1}"
    description, fields = LANE_CHECKS[what - len(SET_FIELDS)]
    values = ", ".join(f"{f}[{lane}] = {getattr(s, f)[lane]}" for f in fields)
    return f"{description} ({values})"


def state_misfit(r: Rules, s, writeable: bool) -> str | None:
    """Why ``s`` cannot be handed to the compiled code (not a State, an array of the wrong
    type, shape or layout, read-only when ``writeable``), or None."""
    if not isinstance(s, State):
        return f"expected a State, got {type(s).__name__}"
    current = s.current
    if not isinstance(current, np.ndarray) or current.ndim != 1:
        return f"current must be a 1-D array (one entry per game), got {type(current).__name__} {np.shape(current)}"
    blank = blank_state(r, 0)
    shapes = _expected_shapes(r, len(current))
    for name in StateArrays._fields:
        a, want = getattr(s, name), getattr(blank, name)
        if not isinstance(a, np.ndarray):
            return f"{name} is a {type(a).__name__}, expected a numpy array"
        if a.dtype != want.dtype:
            return f"{name} has dtype {a.dtype}, expected {want.dtype}"
        if a.shape != shapes[name]:
            return f"{name} has shape {a.shape}, expected {shapes[name]}"
        if not a.flags.c_contiguous:
            return f"{name} is not C-contiguous (a strided view?); state.copy() has contiguous arrays"
        if not a.flags.aligned:
            return f"{name} is not aligned"
        if writeable and not a.flags.writeable:
            return f"{name} is read-only"
    return None


def writeable(s: State) -> bool:
    return all(a.flags.writeable for a in s.arrays())

