"""Observations: what one player may know, as a flat int8 vector, batched over games.

The layout is declared once (:func:`observation_layout`) as named pieces with sizes; every
vector is those pieces concatenated. Seats are relative to the observer (0 = the observer,
1 = the next seat in play order, ...); sides too (0 = the observer's side). Card pieces are
40 wide, one entry per card id.

PIECE_TABLE

Nothing here depends on cards hidden from the observer. The perfect-information encoding
(:func:`encode_perfect_information`, for centralised critics) appends every hand by relative
seat and the face-down stock as a set.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from functools import cached_property

import numba
import numpy as np

from .cards import ALL_CARDS, BIT, CARD_POINTS, NUM_CARDS, NUM_FACES, STRONGER, beating_set
from .checks import state_error, state_misfit, writeable
from .kernel import LEVEL_ALL, check_state, compile_only, kernel_config
from .rules import Rules, rules_spec
from .state import State, blank_state

_ZERO, _ONE = np.uint64(0), np.uint64(1)


#: What each observation piece holds, in layout order, with its size (n players, s sides).
PIECE_DOC = {
    "hand": ("40", "the observer's hand"),
    "trump_suit": ("4", "one-hot trump suit (o c e b)"),
    "shown_card": ("40", "the shown (partnership) or turned card while visible"),
    "trick": ("n x 40", "the trick in progress, by relative seat"),
    "played": ("n x 40", "cards each relative seat has played this hand (trick in progress included)"),
    "known_cards": ("n x 40", "cards publicly known to be in each hand (shown, sung, exchanged, last drawn)"),
    "cannot_hold": ("n x 40", "cards each seat is publicly known not to hold (from the follow duties)"),
    "beats_trick": ("40", "own cards that would take the trick in progress now (all of the hand when leading)"),
    "suit_masters": ("40", "own cards that no card still out (not held, not played) beats in their suit"),
    "cantes": ("n x 4", "suits sung (o c e b), by relative seat"),
    "card_points": ("s", "card points taken so far, by relative side (0..120)"),
    "cante_points": ("s", "points sung so far, by relative side (0..100)"),
    "last_won": ("s", "1 + index of the last trick each relative side won, 0 if none (R9 tie rule)"),
    "tricks_played": ("1", "completed tricks"),
    "stock_size": ("1", "cards left to draw (the turned card included when it will be drawn)"),
    "strict_rules": ("1", "1 when the R5 duties are in force for the next play"),
    "exchanged": ("1", "1 once the turned trump has been exchanged this hand (R7)"),
    "trick_points": ("1", "card points in the trick in progress"),
    "cards_out": ("4", "per suit, cards still out: neither held by the observer nor played nor dead"),
    "decision": ("3", "one-hot decision kind of the observer when it is to act: lead, follow, declare"),
    "trick_leader": ("n", "one-hot relative seat that leads the trick in progress (or leads next)"),
    "trick_winner": ("n", "one-hot relative seat winning the trick in progress (none before the lead)"),
    "dealer": ("n", "one-hot relative seat of the dealer"),
}

__doc__ = __doc__.replace(
    "PIECE_TABLE",
    "\n".join(["| piece | size | content |", "|---|---|---|"] + [f"| {k} | {z} | {d} |" for k, (z, d) in PIECE_DOC.items()]),
)


@dataclass(frozen=True)
class Layout:
    """Named pieces of a flat observation vector and their sizes."""

    pieces: tuple[tuple[str, int], ...]

    @cached_property
    def size(self) -> int:
        return sum(size for _, size in self.pieces)

    @cached_property
    def slices(self) -> dict[str, slice]:
        out, start = {}, 0
        for name, size in self.pieces:
            out[name] = slice(start, start + size)
            start += size
        return out

    def decode(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Split a vector (or a (B, size) batch) into its named pieces."""
        vector = np.asarray(vector)
        if vector.shape[-1] != self.size:
            raise ValueError(f"observation of size {vector.shape[-1]} does not match the layout's {self.size}")
        return {name: vector[..., sl] for name, sl in self.slices.items()}


@functools.lru_cache(maxsize=64)
def observation_layout(rules: Rules) -> Layout:
    n, sides = rules.num_players, rules.num_sides
    return Layout(
        (
            ("hand", NUM_CARDS),
            ("trump_suit", 4),
            ("shown_card", NUM_CARDS),
            ("trick", n * NUM_CARDS),
            ("played", n * NUM_CARDS),
            ("known_cards", n * NUM_CARDS),
            ("cannot_hold", n * NUM_CARDS),
            ("beats_trick", NUM_CARDS),
            ("suit_masters", NUM_CARDS),
            ("cantes", n * 4),
            ("card_points", sides),
            ("cante_points", sides),
            ("last_won", sides),
            ("tricks_played", 1),
            ("stock_size", 1),
            ("strict_rules", 1),
            ("exchanged", 1),
            ("trick_points", 1),
            ("cards_out", 4),
            ("decision", 3),
            ("trick_leader", n),
            ("trick_winner", n),
            ("dealer", n),
        )
    )


@functools.lru_cache(maxsize=64)
def perfect_information_layout(rules: Rules) -> Layout:
    n = rules.num_players
    return Layout(observation_layout(rules).pieces + (("hands", n * NUM_CARDS), ("stock", NUM_CARDS)))


def observation_scale(rules: Rules) -> np.ndarray:
    """float32 factors that bring every entry of an observation into [0, 1] (for networks)."""
    layout = observation_layout(rules)
    scale = np.ones(layout.size, np.float32)
    sl = layout.slices
    scale[sl["card_points"]] = 1 / 120
    scale[sl["cante_points"]] = 1 / 100
    scale[sl["last_won"]] = 1 / rules.num_tricks
    scale[sl["tricks_played"]] = 1 / rules.num_tricks
    scale[sl["stock_size"]] = 1 / NUM_CARDS
    scale[sl["trick_points"]] = 1 / 45
    scale[sl["cards_out"]] = 1 / 10
    return scale


def encode_observation(rules: Rules, state: State, players) -> np.ndarray:
    """int8 (B, layout.size): each game's observation for ``players[b]`` (a seat per game)."""
    return _encode(rules, state, players, perfect=False)


def encode_perfect_information(rules: Rules, state: State, players) -> np.ndarray:
    """int8 (B, perfect layout size): the observation plus all hands and the stock, for critics."""
    return _encode(rules, state, players, perfect=True)


def _encode(rules: Rules, s: State, players, perfect: bool) -> np.ndarray:
    """The encoders: the state is checked to fit ``rules`` first (``ValueError`` if not), in the
    compiled kernel as :meth:`tute_env.engine.core.Game.step` does; it may be read-only."""
    try:
        b = len(s.current)
    except (AttributeError, TypeError):
        raise ValueError(f"state does not fit {_rules_name(rules)}: {state_misfit(rules, s, False)}") from None
    players = np.asarray(players, dtype=np.int64)
    players = np.full(b, players) if players.ndim == 0 else np.ascontiguousarray(players)
    if players.shape != (b,):
        raise ValueError(f"players must be one seat or one seat per game ({b}), got shape {players.shape}")
    size, spec = _encoding(rules, perfect)
    out = np.zeros((b, size), np.int8)
    if not _kernel_ready:
        _prepare_encode_kernel()
    try:
        bad = _encode_kernel(spec, s.arrays(), players, out)
    except TypeError:  # arrays of other types than a Game's states (see Game._call_kernel)
        problem = state_misfit(rules, s, writeable=False)
        if problem is None:
            if not writeable(s):  # read-only arrays: encode a copy
                return _encode(rules, s.copy(), players, perfect)
            raise
        raise ValueError(f"state does not fit {_rules_name(rules)}: {problem}") from None
    if bad >= 0:
        error, lane = bad & 0xFFFF, (bad >> 16) - 1
        if error == _BAD_OBSERVER:
            raise ValueError(
                f"observer seats must be in 0..{rules.num_players - 1}, got {players[lane]} in game {lane}"
            )
        problem = state_error(rules, s, error, LEVEL_ALL)
        raise ValueError(f"state does not fit {_rules_name(rules)}: {problem}")
    return out


def _rules_name(rules: Rules) -> str:
    return f"make_rules({rules_spec(rules)})"


_BAD_OBSERVER = 1  # _encode_kernel's error code for an observer that is not a seat
_kernel_ready = False


def _prepare_encode_kernel() -> None:
    """Compile _encode_kernel for the one signature _encode calls it with (see kernel.compile_only)."""
    global _kernel_ready
    rules = Rules()
    size, spec = _encoding(rules, False)
    blank = blank_state(rules, 0)
    compile_only(_encode_kernel, spec, blank.arrays(), np.zeros(0, np.int64), np.zeros((0, size), np.int8))
    _kernel_ready = True


@functools.lru_cache(maxsize=64)
def _encoding(rules: Rules, perfect: bool) -> tuple[int, np.ndarray]:
    """What _encode_kernel needs: the vector size, and one int64 array (cheaper to pass to
    compiled code than tuples) of the start of each piece in the order it unpacks them (hands
    and stock -1 without perfect information), three rule flags, and the rules as the core's
    kernels take them (Game._config, to check the state)."""
    layout = perfect_information_layout(rules) if perfect else observation_layout(rules)
    starts = {name: sl.start for name, sl in layout.slices.items()}
    offsets = [starts.get(name, -1) for name in (*PIECE_DOC, "hands", "stock")]
    assert len(offsets) == _NUM_OFFSETS
    flags = [rules.partnerships, rules.has_stock and not rules.turned_card_drawn, rules.stock_duty == "strict"]
    return layout.size, np.concatenate([np.array(offsets + flags, np.int64), kernel_config(rules)])


_NUM_OFFSETS = len(PIECE_DOC) + 2  # _encoding's spec: offsets, then 3 flags, then Game._config


@numba.njit(cache=True, error_model="numpy", _nrt=False)
def _encode_kernel(spec, st, players, out):
    """Writes each lane's observation for ``players[b]`` into the zeroed ``out`` (int8 (B, size));
    ``spec`` from :func:`_encoding`. Returns -1; or _BAD_OBSERVER | (lane + 1) << 16 for the first
    lane whose observer is not a seat; or the error code of :func:`tute_env.engine.kernel.check_state`
    for a state that does not fit the rules."""
    error = check_state(spec[_NUM_OFFSETS + 3 :], st, np.int64(LEVEL_ALL))
    if error != 0:
        return error
    if len(players) != len(out) or len(players) != len(st.current):
        return _BAD_OBSERVER
    (hands, played, known, cannot_hold, trick, trick_leader, trick_size, best_card, best_seat,
     current, decision, dealer, trump, turned_card, stock, stock_next, to_draw, tricks_played,
     last_winner, last_won, card_points, last_trick_bonus, cante_points, sung_by, sang_twenty,
     declared, exchanged, tute_declarer, done, winner, games, legal) = st
    (o_hand, o_trump_suit, o_shown, o_trick, o_played, o_known, o_cannot_hold, o_beats_trick,
     o_suit_masters, o_cantes, o_card_points, o_cante_points, o_last_won, o_tricks_played,
     o_stock_size, o_strict, o_exchanged, o_trick_points, o_cards_out, o_decision, o_trick_leader,
     o_trick_winner, o_dealer, o_hands, o_stock) = spec[:_NUM_OFFSETS]
    partnerships, turned_card_dead, strict_always = (
        spec[_NUM_OFFSETS] != 0, spec[_NUM_OFFSETS + 1] != 0, spec[_NUM_OFFSETS + 2] != 0
    )
    n = hands.shape[1]
    sides = card_points.shape[1]

    def put_set(b, start, cards):
        for c in range(NUM_CARDS):  # branch-free, so LLVM vectorises it
            out[b, start + c] = (cards >> np.uint64(c)) & _ONE

    def put_seat(b, start, seat, p):
        """One-hot relative seat (nothing for -1)."""
        if seat >= 0:
            out[b, start + (seat - p) % n] = 1

    for b in range(len(players)):
        if players[b] < 0 or players[b] >= n:
            return _BAD_OBSERVER | (b + 1) << 16
    for b in range(len(players)):
        p = players[b]
        hand = hands[b, p]
        shown = BIT[turned_card[b]] if turned_card[b] >= 0 else _ZERO
        put_set(b, o_hand, hand)
        out[b, o_trump_suit + trump[b]] = 1
        put_set(b, o_shown, shown)
        gone = hand | (shown if turned_card_dead else _ZERO)
        trick_points = 0
        for k in range(n):
            seat = (p + k) % n
            if trick[b, seat] >= 0:
                out[b, o_trick + k * NUM_CARDS + trick[b, seat]] = 1
                trick_points += CARD_POINTS[trick[b, seat]]
            put_set(b, o_played + k * NUM_CARDS, played[b, seat])
            put_set(b, o_known + k * NUM_CARDS, known[b, seat])
            put_set(b, o_cannot_hold + k * NUM_CARDS, cannot_hold[b, seat])
            if o_hands >= 0:
                put_set(b, o_hands + k * NUM_CARDS, hands[b, seat])
            gone |= played[b, seat]
        # Derived features (from what the observer knows) that a network would otherwise learn.
        put_set(b, o_beats_trick, hand & beating_set(best_card[b], trump[b]))
        out_cards = ALL_CARDS & ~gone  # cards still out: not held, not played, not dead
        masters = _ZERO
        for c in range(NUM_CARDS):
            if (STRONGER[c] & out_cards) == _ZERO:
                masters |= BIT[c]
        put_set(b, o_suit_masters, hand & masters)
        for suit in range(4):
            if sung_by[b, suit] >= 0:
                out[b, o_cantes + ((sung_by[b, suit] - p) % n) * 4 + suit] = 1
            for c in range(NUM_FACES * suit, NUM_FACES * (suit + 1)):
                out[b, o_cards_out + suit] += (out_cards & BIT[c]) != _ZERO
        own_side = p % 2 if partnerships else p
        for k in range(sides):
            side = (own_side + k) % sides
            out[b, o_card_points + k] = card_points[b, side]
            out[b, o_cante_points + k] = cante_points[b, side]
            out[b, o_last_won + k] = last_won[b, side] + 1
        out[b, o_tricks_played] = tricks_played[b]
        out[b, o_stock_size] = to_draw[b]
        out[b, o_strict] = strict_always or to_draw[b] == 0
        out[b, o_exchanged] = exchanged[b]
        out[b, o_trick_points] = trick_points
        # Only the observer's own decision: whether another seat has a declaration turn depends
        # on its hidden cards (R8), and the observation must not carry that.
        if current[b] == p:
            out[b, o_decision + decision[b]] = 1
        put_seat(b, o_trick_leader, trick_leader[b], p)
        put_seat(b, o_trick_winner, best_seat[b], p)
        put_seat(b, o_dealer, dealer[b], p)
        if o_stock >= 0:
            left = _ZERO
            for k in range(stock_next[b], stock.shape[1]):
                left |= BIT[stock[b, k]]
            put_set(b, o_stock, left)
    return -1
