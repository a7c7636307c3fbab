"""The state of B games: :class:`State`, one numpy array per field with a leading batch axis.

Each lane is its own game; lanes need not be in step. The compiled rules (:mod:`.kernel`) take a
state's arrays as the named tuple :class:`StateArrays` (``State.arrays()``).
"""

from __future__ import annotations

import dataclasses
import operator
from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from .cards import LEAD, U64
from .rules import Rules

__all__ = ["State", "StateArrays", "blank_state"]


@dataclass
class State:
    """B games. Seats are absolute (0..n-1); sides are ``seat % 2`` with partnerships, else seats.

    Card sets are 40-bit sets in uint64 (bit c = card id c). ``-1`` means "none" in int8 fields.
    """

    hands: np.ndarray
    """(B, n) uint64: each seat's hand."""
    played: np.ndarray
    """(B, n) uint64: cards each seat has played this hand, the trick in progress included."""
    known: np.ndarray
    """(B, n) uint64: cards publicly known to be in each hand (shown card, sung pairs, the
    exchanged or last-drawn turned card), until played."""
    cannot_hold: np.ndarray
    """(B, n) uint64: cards each seat is publicly known not to hold, inferred from the follow
    duties since the last draw."""
    trick: np.ndarray
    """(B, n) int8: the card each seat played to the trick in progress, -1 if none yet."""
    trick_leader: np.ndarray
    """(B,) int8: seat that led the trick in progress (or leads next)."""
    trick_size: np.ndarray
    """(B,) int8: cards in the trick in progress."""
    best_card: np.ndarray
    """(B,) int8: card winning the trick in progress, -1 before the lead."""
    best_seat: np.ndarray
    """(B,) int8: seat winning the trick in progress, -1 before the lead."""
    current: np.ndarray
    """(B,) int8: seat to act, -1 when the game is over."""
    decision: np.ndarray
    """(B,) int8: decision kind of the seat to act: LEAD 0, FOLLOW 1, DECLARE 2; -1 when over."""
    dealer: np.ndarray
    """(B,) int8: the dealer."""
    trump: np.ndarray
    """(B,) int8: the trump suit."""
    turned_card: np.ndarray
    """(B,) int8: the shown card (partnership: until played) or the turned card (until drawn;
    three players: always, it is out of play), else -1."""
    stock: np.ndarray
    """(B, stock_size) int8: the face-down stock in drawing order."""
    stock_next: np.ndarray
    """(B,) int8: index in ``stock`` of the next card to draw."""
    to_draw: np.ndarray
    """(B,) int8: cards left to draw, the turned card included when it will be drawn; > 0 is the
    stock phase of R6."""
    tricks_played: np.ndarray
    """(B,) int8: completed tricks."""
    last_winner: np.ndarray
    """(B,) int8: seat that won the last completed trick, -1 before the first."""
    last_won: np.ndarray
    """(B, num_sides) int8: index of the last trick each side won, -1 if none (R9 tie rule)."""
    card_points: np.ndarray
    """(B, num_sides) int16: card points in the tricks each side took."""
    last_trick_bonus: np.ndarray
    """(B, num_sides) int16: 10 for the side that took the last trick, once the hand is over."""
    cante_points: np.ndarray
    """(B, num_sides) int16: points sung (20, 40 in trumps)."""
    sung_by: np.ndarray
    """(B, 4) int8: seat that sang each suit's cante, -1 if not sung."""
    sang_twenty: np.ndarray
    """(B, n) bool: the seat has sung a 20 this hand (no 40 after it, R8)."""
    declared: np.ndarray
    """(B, n) bool: the seat has made its declaration for the last trick won (one per trick)."""
    exchanged: np.ndarray
    """(B,) bool: the turned trump was exchanged this hand (R7, once per hand)."""
    tute_declarer: np.ndarray
    """(B,) int8: seat that declared Tute, -1 if none."""
    done: np.ndarray
    """(B,) bool: the hand is over."""
    winner: np.ndarray
    """(B,) int8: winning side once over (R9, R8b), else -1."""
    games: np.ndarray
    """(B,) int8: games credited to the winner once over, else 0."""
    legal: np.ndarray
    """(B,) uint64: legal actions of the seat to act as a 47-bit set (bit a = action a)."""

    @property
    def batch_size(self) -> int:
        return len(self.current)

    @property
    def totals(self) -> np.ndarray:
        """(B, num_sides) int16: hand totals, card points + last trick + cantes (R9)."""
        return self.card_points + self.last_trick_bonus + self.cante_points

    def copy(self) -> State:
        return State(*[a.copy() for a in _fields_of(self)])  # positional: the fields in order, fast at B = 1

    def take(self, lanes) -> State:
        """A new state of the given lanes (index array or boolean mask)."""
        return State(**{f.name: getattr(self, f.name)[lanes].copy() for f in dataclasses.fields(self)})

    def put(self, lanes, other: State) -> None:
        """Write ``other``'s games into the given lanes."""
        for f in dataclasses.fields(self):
            getattr(self, f.name)[lanes] = getattr(other, f.name)

    def arrays(self) -> StateArrays:
        """The fields as a named tuple, the form the compiled rules take."""
        return StateArrays._make(_fields_of(self))

    @property
    def nbytes(self) -> int:
        """Bytes of state arrays (divide by B for the cost of one game)."""
        return sum(getattr(self, f.name).nbytes for f in dataclasses.fields(self))


StateArrays = namedtuple("StateArrays", [f.name for f in dataclasses.fields(State)])
_fields_of = operator.attrgetter(*StateArrays._fields)



def blank_state(rules: Rules, b: int) -> State:
    """B blank games of ``rules`` (no cards dealt): a canvas for code that builds states field by
    field (:meth:`Game.empty_state`)."""
    n, sides = rules.num_players, rules.num_sides

    def full(shape, value, dtype):
        return np.full(shape, value, dtype=dtype)

    return State(
        hands=full((b, n), 0, U64),
        played=full((b, n), 0, U64),
        known=full((b, n), 0, U64),
        cannot_hold=full((b, n), 0, U64),
        trick=full((b, n), -1, np.int8),
        trick_leader=full(b, 0, np.int8),
        trick_size=full(b, 0, np.int8),
        best_card=full(b, -1, np.int8),
        best_seat=full(b, -1, np.int8),
        current=full(b, 0, np.int8),
        decision=full(b, LEAD, np.int8),
        dealer=full(b, 0, np.int8),
        trump=full(b, 0, np.int8),
        turned_card=full(b, -1, np.int8),
        stock=full((b, rules.stock_size), -1, np.int8),
        stock_next=full(b, 0, np.int8),
        to_draw=full(b, 0, np.int8),
        tricks_played=full(b, 0, np.int8),
        last_winner=full(b, -1, np.int8),
        last_won=full((b, sides), -1, np.int8),
        card_points=full((b, sides), 0, np.int16),
        last_trick_bonus=full((b, sides), 0, np.int16),
        cante_points=full((b, sides), 0, np.int16),
        sung_by=full((b, 4), -1, np.int8),
        sang_twenty=full((b, n), False, bool),
        declared=full((b, n), False, bool),
        exchanged=full(b, False, bool),
        tute_declarer=full(b, -1, np.int8),
        done=full(b, False, bool),
        winner=full(b, -1, np.int8),
        games=full(b, 0, np.int8),
        legal=full(b, 0, U64),
    )
