"""A second observation encoder, written with whole-batch numpy operations, used only by the
tests to check the compiled encoder of ``tute_env.engine.observation`` piece by piece (the
observation's counterpart of ``tute_env.engine.reference`` for the core)."""

from __future__ import annotations

import numpy as np

from tute_env.engine.cards import (
    ALL_CARDS,
    BIT,
    CARD_POINTS,
    NUM_CARDS,
    STRONGER,
    beating_cards,
    pack_sets,
    unpack_sets,
)
from tute_env.engine.core import State
from tute_env.engine.rules import Rules


def _one_hot(index: np.ndarray, width: int) -> np.ndarray:
    """int8 (B, width) one-hot rows; a negative index gives a zero row."""
    out = np.zeros((len(index), width), np.int8)
    ok = index >= 0
    out[np.flatnonzero(ok), index[ok]] = 1
    return out


def numpy_observation(rules: Rules, s: State, players, perfect: bool = False) -> np.ndarray:
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
    rel = lambda seat: np.where(seat >= 0, (seat - players) % n, -1)

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
