"""The Spanish 40-card deck (docs/rules.md, R1) and the public action ids.

Both are public contracts that other code, saved data and users rely on:

* card id = ``suit * 10 + face_index``; suits ``o c e b`` (oros, copas, espadas, bastos),
  faces ``A 2 3 4 5 6 7 S C R``; a card string is face then suit: ``card_id("Ao") == 0``,
  ``card_str(39) == "Rb"``.
* 47 actions: ``0..39`` play that card, ``40..43`` sing the cante of suit o, c, e, b,
  ``44`` declare Tute, ``45`` exchange the turned trump (R7), ``46`` pass (decline a
  declaration turn). Action strings: the card string, ``sing-o`` .. ``sing-b``, ``tute``,
  ``exchange``, ``pass``.

A set of cards is a 40-bit integer (bit ``card_id`` set), stored as ``uint64`` by the batched
core. This module holds the one vocabulary of such sets (the bit of each card, each suit's
cards, the kings, the knights, the cante pairs, the stronger cards of a suit, the cards that
beat a trick, :func:`popcount` (:func:`card_count` compiled), packing to and from bool arrays)
that the core, the observations and the bots share.
"""

from __future__ import annotations

from collections.abc import Iterable

import numba
import numpy as np

SUITS = "oceb"
SUIT_NAMES = ("oros", "copas", "espadas", "bastos")
FACES = "A234567SCR"
NUM_SUITS = 4
NUM_FACES = 10
NUM_CARDS = 40

# Face indices of the named faces (index into FACES).
ACE, TWO, THREE, FOUR, FIVE, SIX, SEVEN, JACK, KNIGHT, KING = range(10)

# Strength within a suit, high to low: A 3 R C S 7 6 5 4 2 (R1). Higher value = stronger.
_STRENGTH_BY_FACE = {"A": 9, "3": 8, "R": 7, "C": 6, "S": 5, "7": 4, "6": 3, "5": 2, "4": 1, "2": 0}
_POINTS_BY_FACE = {"A": 11, "3": 10, "R": 4, "C": 3, "S": 2}

#: ``CARD_SUIT[c]``: suit index of card c, shape (40,), int8.
CARD_SUIT = np.repeat(np.arange(NUM_SUITS, dtype=np.int8), NUM_FACES)
#: ``CARD_FACE[c]``: face index of card c, shape (40,), int8.
CARD_FACE = np.tile(np.arange(NUM_FACES, dtype=np.int8), NUM_SUITS)
#: ``CARD_STRENGTH[c]``: rank within its suit, 0 (the 2) .. 9 (the ace), shape (40,), int8.
CARD_STRENGTH = np.array([_STRENGTH_BY_FACE[FACES[f]] for f in CARD_FACE], dtype=np.int8)
#: ``CARD_POINTS[c]``: card points (A 11, 3 10, R 4, C 3, S 2, else 0), shape (40,), int8.
CARD_POINTS = np.array([_POINTS_BY_FACE.get(FACES[f], 0) for f in CARD_FACE], dtype=np.int8)
LAST_TRICK_BONUS = 10

# Actions (public ids).
NUM_ACTIONS = 47
SING_BASE = 40  # 40 + suit
TUTE = 44
EXCHANGE = 45
PASS = 46
DECLARATIONS = (40, 41, 42, 43, TUTE)


def card_id(text: str) -> int:
    """Card id of a card string such as ``"Ao"``, ``"3c"`` or ``"Rb"``."""
    if not isinstance(text, str) or len(text) != 2 or text[0] not in FACES or text[1] not in SUITS:
        raise ValueError(
            f"bad card string {text!r}: expected a face from {FACES!r} then a suit from {SUITS!r}, "
            "e.g. 'Ao', '3c', 'Rb'"
        )
    return SUITS.index(text[1]) * NUM_FACES + FACES.index(text[0])


def card_str(card: int) -> str:
    """Card string of a card id (0..39)."""
    card = _check_card(card)
    return FACES[card % NUM_FACES] + SUITS[card // NUM_FACES]


def to_card(card: int | str) -> int:
    """A card id from an id or a card string."""
    return card_id(card) if isinstance(card, str) else _check_card(card)


def to_cards(cards: Iterable[int | str]) -> list[int]:
    """Card ids from ids or card strings; also accepts one space-separated string."""
    if isinstance(cards, str):
        cards = cards.split()
    return [to_card(c) for c in cards]


def cards_str(cards: Iterable[int]) -> str:
    """Space-separated card strings."""
    return " ".join(card_str(c) for c in cards)


def is_int(value, lo: int | None = None, hi: int | None = None) -> bool:
    """Whether ``value`` is an integer (Python or numpy; not a bool) in ``lo..hi`` (either bound
    may be None): the one check of an integer given by a user, whose callers word the error."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        return False
    return (lo is None or value >= lo) and (hi is None or value <= hi)


def _check_card(card) -> int:
    if not is_int(card, 0, NUM_CARDS - 1):
        raise ValueError(f"bad card id {card!r}: expected an integer in 0..39")
    return int(card)


def cards_of(mask: int) -> list[int]:
    """Card ids in a 40-bit set, ascending."""
    mask = int(mask)
    return [c for c in range(NUM_CARDS) if mask >> c & 1]


def action_str(action: int) -> str:
    """Action string: the card string, ``sing-o`` .. ``sing-b``, ``tute``, ``exchange``, ``pass``."""
    if not is_int(action, 0, NUM_ACTIONS - 1):
        raise ValueError(f"bad action id {action!r}: expected an integer in 0..{NUM_ACTIONS - 1}")
    action = int(action)
    if action < NUM_CARDS:
        return card_str(action)
    if action < TUTE:
        return "sing-" + SUITS[action - SING_BASE]
    return {TUTE: "tute", EXCHANGE: "exchange", PASS: "pass"}[action]


def as_action(action) -> int:
    """The action id a step was given: a Python or numpy integer (or a 0-d integer array) as an
    int; anything else (a float such as 1.5, a bool, a string, None) is no action: -1. The id may
    still be out of range: check ``0 <= a < NUM_ACTIONS``."""
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        return int(action)
    if not is_int(action):
        return -1
    return int(action)


def action_id(text: str) -> int:
    """Action id of an action string (inverse of :func:`action_str`)."""
    named = {"tute": TUTE, "exchange": EXCHANGE, "pass": PASS}
    named.update({"sing-" + s: SING_BASE + i for i, s in enumerate(SUITS)})
    if text in named:
        return named[text]
    try:
        return card_id(text)
    except ValueError:
        raise ValueError(
            f"bad action string {text!r}: expected a card string like 'Ao', 'sing-o'..'sing-b', "
            "'tute', 'exchange' or 'pass'"
        ) from None

# Decision kinds (whose turn it is to do what).
LEAD, FOLLOW, DECLARE = 0, 1, 2
DECISION_KINDS = ("lead", "follow", "declare")


# ----------------------------------------------------------------------------------------------
# Sets of cards as uint64 (bit c = card id c), the form the core, the observations and the bots
# share. Numba code may read these arrays as globals: they are frozen into the compiled code.
# ----------------------------------------------------------------------------------------------
U64 = np.uint64

#: ``BIT[c]``: the set of card c alone, shape (40,).
BIT = np.array([1 << c for c in range(NUM_CARDS)], dtype=U64)
#: ``SUIT_SET[s]``: the ten cards of suit s, shape (4,).
SUIT_SET = np.array([((1 << NUM_FACES) - 1) << (NUM_FACES * s) for s in range(NUM_SUITS)], dtype=U64)
#: The whole deck.
ALL_CARDS = U64((1 << NUM_CARDS) - 1)
#: ``STRONGER[c]``: the cards of c's suit that beat c, shape (40,).
STRONGER = np.array(
    [
        sum(1 << d for d in range(NUM_CARDS) if CARD_SUIT[d] == CARD_SUIT[c] and CARD_STRENGTH[d] > CARD_STRENGTH[c])
        for c in range(NUM_CARDS)
    ],
    dtype=U64,
)
#: ``PAIR_SET[s]``: the king and knight of suit s, a cante (R8), shape (4,).
PAIR_SET = np.array([(1 << (s * NUM_FACES + KING)) | (1 << (s * NUM_FACES + KNIGHT)) for s in range(NUM_SUITS)], dtype=U64)
#: The four kings, and the four knights: either is a Tute (R8b).
KINGS = U64(sum(1 << (s * NUM_FACES + KING) for s in range(NUM_SUITS)))
KNIGHTS = U64(sum(1 << (s * NUM_FACES + KNIGHT) for s in range(NUM_SUITS)))


@numba.njit(cache=True, error_model="numpy")
def beating_set(best_card, trump):
    """uint64: the cards that beat ``best_card`` (a higher card of its suit, or any trump over a
    non-trump), given the trump suit; ``best_card`` -1 (no trick yet) gives every card. Compiled,
    for one game: call it from numba code, or use :func:`beating_cards` on arrays."""
    if best_card < 0:
        return ALL_CARDS
    beats = STRONGER[best_card]
    if CARD_SUIT[best_card] != trump:
        beats |= SUIT_SET[trump]
    return beats


@numba.njit(cache=True, error_model="numpy")
def _beating_sets(best_card, trump):
    out = np.empty(best_card.shape, U64)
    for i in range(best_card.size):
        out.flat[i] = beating_set(best_card.flat[i], trump.flat[i])
    return out


def beating_cards(best_card: np.ndarray, trump: np.ndarray) -> np.ndarray:
    """uint64 array: :func:`beating_set` of each ``best_card`` and ``trump`` (broadcast)."""
    best_card, trump = np.broadcast_arrays(np.asarray(best_card, np.int64), np.asarray(trump, np.int64))
    return _beating_sets(np.ascontiguousarray(best_card), np.ascontiguousarray(trump))


_ONE = U64(1)


@numba.njit(cache=True)
def card_count(cards):
    """The number of cards in one set (a uint64): :func:`popcount` compiled for one game, to
    call from numba code."""
    n = 0
    while cards:
        cards &= cards - _ONE
        n += 1
    return n


def popcount(sets):
    """The number of cards in sets: bits set, counted in 64 bits.

    * an array or a list (integers, read as uint64): an int64 array of the same shape;
    * a non-negative Python int or a numpy integer scalar: a Python ``int`` (sets held as
      plain Python integers, e.g. the PIMC deal sampler's constraints).
    """
    if isinstance(sets, (int, np.integer)):
        return int(sets).bit_count()
    sets = np.asarray(sets, dtype=U64)
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(sets).astype(np.int64)
    octets = np.ascontiguousarray(sets)[..., None].view(np.uint8)
    return np.unpackbits(octets, axis=-1).sum(axis=-1, dtype=np.int64)


def unpack_sets(sets: np.ndarray, width: int = NUM_CARDS) -> np.ndarray:
    """Bits of uint64 sets as a bool array with a trailing axis of ``width`` (40 cards, or 47
    for the core's sets of legal actions)."""
    sets = np.ascontiguousarray(sets, dtype=U64)
    bits = np.unpackbits(sets.view(np.uint8).reshape(*sets.shape, 8), axis=-1, bitorder="little")
    return bits[..., :width].view(bool)


def pack_sets(bits: np.ndarray) -> np.ndarray:
    """Inverse of :func:`unpack_sets`: bool (..., width <= 64) to uint64 sets."""
    bits = np.asarray(bits, dtype=bool)
    padded = np.zeros((*bits.shape[:-1], 64), dtype=bool)
    padded[..., : bits.shape[-1]] = bits
    return np.packbits(padded, axis=-1, bitorder="little").view(U64)[..., 0]
