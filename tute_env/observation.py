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

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .cards import CARD_POINTS, NUM_CARDS
from .core import ALL_CARDS, BIT, STRONGER, State, beating_cards, pack_sets, unpack_sets
from .rules import Rules


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


def _one_hot(index: np.ndarray, width: int) -> np.ndarray:
    """int8 (B, width) one-hot rows; a negative index gives a zero row."""
    out = np.zeros((len(index), width), np.int8)
    ok = index >= 0
    out[np.flatnonzero(ok), index[ok]] = 1
    return out


def encode_observation(rules: Rules, state: State, players) -> np.ndarray:
    """int8 (B, layout.size): each game's observation for ``players[b]`` (a seat per game)."""
    return _encode(rules, state, players, perfect=False)


def encode_perfect_information(rules: Rules, state: State, players) -> np.ndarray:
    """int8 (B, perfect layout size): the observation plus all hands and the stock, for critics."""
    return _encode(rules, state, players, perfect=True)


def _encode(rules: Rules, s: State, players, perfect: bool) -> np.ndarray:
    n, sides = rules.num_players, rules.num_sides
    b = s.batch_size
    lanes = np.arange(b)[:, None]
    players = np.broadcast_to(np.asarray(players, dtype=np.intp), (b,))
    if ((players < 0) | (players >= n)).any():
        raise ValueError(f"observer seats must be in 0..{n - 1}")
    rel_seats = (players[:, None] + np.arange(n)) % n  # (B, n): absolute seat of relative seat k
    trick_bits = np.where(s.trick >= 0, BIT[s.trick.astype(np.intp)], np.uint64(0))
    shown = np.where(s.turned_card >= 0, BIT[s.turned_card.astype(np.intp)], np.uint64(0))
    hand = s.hands[lanes[:, 0], players]
    # Derived features (from what the observer knows) that a network would otherwise have to learn.
    dead = shown if rules.has_stock and not rules.turned_card_drawn else np.uint64(0)
    out = ALL_CARDS & ~hand & ~np.bitwise_or.reduce(s.played, axis=1) & ~dead
    stronger_out = (STRONGER[None, :] & out[:, None]) != 0  # (B, 40): some card out beats card c
    sets = [
        hand[:, None],
        shown[:, None],
        trick_bits[lanes, rel_seats],
        s.played[lanes, rel_seats],
        s.known[lanes, rel_seats],
        s.cannot_hold[lanes, rel_seats],
        (hand & beating_cards(s.best_card, s.trump))[:, None],
        (hand & ~pack_sets(stronger_out))[:, None],
    ]
    if perfect:
        sets.append(s.hands[lanes, rel_seats])
        stock_left = np.arange(rules.stock_size) >= s.stock_next[:, None]
        stock_bits = np.where(stock_left, BIT[np.maximum(s.stock, 0).astype(np.intp)], np.uint64(0))
        sets.append(np.bitwise_or.reduce(stock_bits, axis=1)[:, None] if rules.stock_size else np.zeros((b, 1), np.uint64))
    cards = unpack_sets(np.concatenate(sets, axis=1)).reshape(b, -1).view(np.int8)

    # Cantes by relative seat: cantes[k, suit] = 1 if relative seat k sang that suit.
    rel_singer = np.where(s.sung_by >= 0, (s.sung_by - players[:, None]) % n, -1)  # (B, 4)
    cantes = (rel_singer[:, None, :] == np.arange(n)[None, :, None]).astype(np.int8).reshape(b, n * 4)
    own_side = players % 2 if rules.partnerships else players
    rel_sides = (own_side[:, None] + np.arange(sides)) % sides
    strict = s.to_draw == 0 if rules.stock_duty != "strict" else np.ones(b, bool)
    rel = lambda seat: np.where(seat >= 0, (seat - players) % n, -1)  # noqa: E731

    parts = [
        cards[:, :NUM_CARDS],
        _one_hot(s.trump.astype(np.intp), 4),
        cards[:, NUM_CARDS:],  # shown card ... suit_masters (+ hands, stock)
        cantes,
        s.card_points[lanes, rel_sides].astype(np.int8),
        s.cante_points[lanes, rel_sides].astype(np.int8),
        s.last_won[lanes, rel_sides] + 1,
        s.tricks_played[:, None],
        s.to_draw[:, None],
        strict[:, None].astype(np.int8),
        s.exchanged[:, None].astype(np.int8),
        CARD_POINTS[s.trick].sum(axis=1, where=s.trick >= 0, dtype=np.int8)[:, None],
        unpack_sets(out).reshape(b, 4, 10).sum(axis=2, dtype=np.int8),
        # Only the observer's own decision: whether another seat has a declaration turn depends
        # on its hidden cards (R8), and the observation must not carry that.
        _one_hot(np.where(s.current == players, s.decision, -1).astype(np.intp), 3),
        _one_hot(rel(s.trick_leader.astype(np.intp)), n),
        _one_hot(rel(s.best_seat.astype(np.intp)), n),
        _one_hot(rel(s.dealer.astype(np.intp)), n),
    ]
    if perfect:
        # The extra card pieces sit inside `cards`; move them to the end to match the layout.
        extra = (n + 1) * NUM_CARDS
        parts[2] = cards[:, NUM_CARDS:-extra]
        parts.append(cards[:, -extra:])
    return np.concatenate(parts, axis=1)
