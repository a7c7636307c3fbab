"""The Spanish 40-card deck (docs/rules.md, R1) and the public action ids.

Both are public contracts that other code, saved data and users rely on:

* card id = ``suit * 10 + face_index``; suits ``o c e b`` (oros, copas, espadas, bastos),
  faces ``A 2 3 4 5 6 7 S C R``; a card string is face then suit: ``card_id("Ao") == 0``,
  ``card_str(39) == "Rb"``.
* 47 actions: ``0..39`` play that card, ``40..43`` sing the cante of suit o, c, e, b,
  ``44`` declare Tute, ``45`` exchange the turned trump (R7), ``46`` pass (decline a
  declaration turn). Action strings: the card string, ``sing-o`` .. ``sing-b``, ``tute``,
  ``exchange``, ``pass``.

A set of cards is often held as a 40-bit integer (bit ``card_id`` set), which the batched core
stores as ``uint64``.
"""

from __future__ import annotations

from collections.abc import Iterable

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
TOTAL_CARD_POINTS = 120
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


def _check_card(card) -> int:
    if isinstance(card, (bool, np.bool_)) or not isinstance(card, (int, np.integer)) or not 0 <= card < NUM_CARDS:
        raise ValueError(f"bad card id {card!r}: expected an integer in 0..39")
    return int(card)


def mask_of(cards: Iterable[int | str]) -> int:
    """40-bit set of the given cards (ids or strings)."""
    bits = 0
    for c in to_cards(cards):
        bits |= 1 << c
    return bits


def cards_of(mask: int) -> list[int]:
    """Card ids in a 40-bit set, ascending."""
    mask = int(mask)
    return [c for c in range(NUM_CARDS) if mask >> c & 1]


def suit_mask(suit: int) -> int:
    """40-bit set of one suit's ten cards."""
    return ((1 << NUM_FACES) - 1) << (suit * NUM_FACES)


def action_str(action: int) -> str:
    """Action string: the card string, ``sing-o`` .. ``sing-b``, ``tute``, ``exchange``, ``pass``."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"bad action id {action!r}: expected an integer in 0..{NUM_ACTIONS - 1}")
    action = int(action)
    if action < NUM_CARDS:
        return card_str(action)
    if action < TUTE:
        return "sing-" + SUITS[action - SING_BASE]
    return {TUTE: "tute", EXCHANGE: "exchange", PASS: "pass"}[action]


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
