"""Deals (docs/rules.md, R3): who deals, the hands, the trump card and the stock; random or given.

A :class:`Deal` is one game's deal; :class:`Deals` is a batch of them as arrays. Both engines
start games from these, so a deal means the same to the core, the reference engine and users.

* ``partnership`` (no stock): the whole deck is dealt; ``trump_card`` is the dealer's last card,
  shown face up, and it is in the dealer's hand.
* stock games: ``trump_card`` is the turned card (not in any hand); ``stock`` is the face-down
  stock in drawing order (``stock[0]`` is drawn first) without the turned card.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .cards import NUM_CARDS, card_str, cards_str, is_int, to_card, to_cards
from .rules import Rules


@dataclass(frozen=True)
class Deal:
    """One game's deal. Cards are ids; build from strings with :meth:`from_dict`."""

    dealer: int
    hands: tuple[tuple[int, ...], ...]
    trump_card: int
    stock: tuple[int, ...] = ()

    @classmethod
    def from_dict(cls, spec: Mapping, rules: Rules) -> Deal:
        """A validated deal from ``{"dealer", "hands", "trump_card", "stock"}`` (card strings or ids)."""
        unknown = sorted(set(spec) - {"dealer", "hands", "trump_card", "stock"})
        if unknown:
            raise ValueError(f"malformed deal: unknown key(s) {unknown}; expected dealer, hands, trump_card, stock")
        for key in ("dealer", "hands", "trump_card"):
            if key not in spec:
                raise ValueError(f"malformed deal: missing {key!r}")
        hands = spec["hands"]
        if isinstance(hands, str) or not isinstance(hands, Sequence):
            raise ValueError("malformed deal: 'hands' must be a list with one list of cards per player")
        stock = spec.get("stock", ())
        if not isinstance(stock, (str, Sequence)):
            raise ValueError(f"malformed deal: 'stock' must be a list of cards, got {stock!r}")
        deal = cls(
            dealer=spec["dealer"],
            hands=tuple(_field(f"hands[{seat}]", to_cards, hand) for seat, hand in enumerate(hands)),
            trump_card=_field("trump_card", to_card, spec["trump_card"]),
            stock=_field("stock", to_cards, stock),
        )
        deal.validate(rules)
        return deal

    def validate(self, rules: Rules) -> None:
        """Raise ``ValueError`` saying what is wrong if this deal is impossible under ``rules``."""
        n = rules.num_players
        if not is_int(self.dealer, 0, n - 1):
            raise ValueError(f"malformed deal: dealer {self.dealer!r} is not a seat 0..{n - 1}")
        if len(self.hands) != n:
            raise ValueError(f"malformed deal: {len(self.hands)} hands given, {n} players")
        for seat, hand in enumerate(self.hands):
            if len(hand) != rules.hand_size:
                raise ValueError(
                    f"malformed deal: hand of seat {seat} has {len(hand)} cards, expected {rules.hand_size}"
                )
        if rules.partnerships:
            if self.stock:
                raise ValueError("malformed deal: the partnership game has no stock, but a stock was given")
            if self.trump_card not in self.hands[self.dealer]:
                raise ValueError(
                    f"malformed deal: trump card {card_str(self.trump_card)} must be in the dealer's "
                    f"(seat {self.dealer}) hand in the partnership game"
                )
            cards = [c for hand in self.hands for c in hand]
        else:
            if len(self.stock) != rules.stock_size:
                raise ValueError(
                    f"malformed deal: stock has {len(self.stock)} cards, expected {rules.stock_size} "
                    "(without the turned card)"
                )
            for seat, hand in enumerate(self.hands):
                if self.trump_card in hand:
                    raise ValueError(
                        f"malformed deal: turned card {card_str(self.trump_card)} is also in seat {seat}'s hand"
                    )
            cards = [c for hand in self.hands for c in hand] + [self.trump_card, *self.stock]
        counts = np.bincount(np.asarray(cards, dtype=np.int64), minlength=NUM_CARDS)
        if (counts > 1).any():
            raise ValueError(f"malformed deal: duplicate card(s) {cards_str(np.flatnonzero(counts > 1))}")
        if (counts == 0).any():
            raise ValueError(f"malformed deal: missing card(s) {cards_str(np.flatnonzero(counts == 0))}")

    def to_dict(self) -> dict:
        """The deal with card strings, as :meth:`from_dict` reads it."""
        spec = {
            "dealer": int(self.dealer),
            "hands": [[card_str(c) for c in hand] for hand in self.hands],
            "trump_card": card_str(self.trump_card),
        }
        if self.stock:
            spec["stock"] = [card_str(c) for c in self.stock]
        return spec


@dataclass
class Deals:
    """A batch of B deals as arrays (see :class:`Deal` for the meaning of each field)."""

    dealer: np.ndarray
    """(B,) int8: the dealing seat."""
    hands: np.ndarray
    """(B, num_players, hand_size) int8: card ids of each seat's hand."""
    trump_card: np.ndarray
    """(B,) int8: the shown (partnership) or turned card."""
    stock: np.ndarray
    """(B, stock_size) int8: the face-down stock in drawing order (empty without a stock)."""

    def __len__(self) -> int:
        return len(self.dealer)

    def __getitem__(self, lane: int) -> Deal:
        return Deal(
            dealer=int(self.dealer[lane]),
            hands=tuple(tuple(int(c) for c in hand) for hand in self.hands[lane]),
            trump_card=int(self.trump_card[lane]),
            stock=tuple(int(c) for c in self.stock[lane]),
        )

    @classmethod
    def from_deals(cls, deals: Sequence[Deal | Mapping], rules: Rules) -> Deals:
        """A batch from single deals (``Deal`` objects or dicts), each validated: the one check of
        a given deal (an error names the deal's index when there are several)."""
        if len(deals) == 0:
            raise ValueError("malformed deal: no deals given")
        checked = []
        for lane, deal in enumerate(deals):
            try:
                if isinstance(deal, Deal):
                    deal.validate(rules)
                else:
                    deal = Deal.from_dict(deal, rules)
            except ValueError as err:
                raise ValueError(f"deal {lane}: {err}" if len(deals) > 1 else str(err)) from None
            checked.append(deal)
        return cls.stack(checked, rules)

    @classmethod
    def stack(cls, deals: Sequence[Deal], rules: Rules) -> Deals:
        """A batch of deals already checked (:meth:`from_deals`, a record's deal), as they are."""
        return cls(
            dealer=np.array([d.dealer for d in deals], dtype=np.int8),
            hands=np.array([d.hands for d in deals], dtype=np.int8).reshape(len(deals), rules.num_players, rules.hand_size),
            trump_card=np.array([d.trump_card for d in deals], dtype=np.int8),
            stock=np.array([d.stock for d in deals], dtype=np.int8).reshape(len(deals), rules.stock_size),
        )

    def repeat(self, num: int) -> Deals:
        """Each deal ``num`` times over, in a row."""
        return Deals(*(np.repeat(getattr(self, f.name), num, axis=0) for f in dataclasses.fields(self)))


def _field(name: str, convert, value):
    """``convert(value)`` (cards from strings or ids), a ``ValueError`` naming the deal's field."""
    try:
        out = convert(value)
    except (ValueError, TypeError) as err:
        raise ValueError(f"malformed deal: {name!r}: {err}") from None
    return tuple(out) if isinstance(out, list) else out


def random_deals(rules: Rules, rng: np.random.Generator, size: int, dealer=None) -> Deals:
    """``size`` shuffled deals. ``dealer``: a seat, an array of seats, or None for random seats."""
    decks = rng.random((size, NUM_CARDS)).argsort(axis=1).astype(np.int8)
    if dealer is None:
        dealer = rng.integers(0, rules.num_players, size=size)
    return _deals_of_decks(rules, decks, dealer)


def seeded_deals(rules: Rules, seed_start: int, size: int) -> Deals:
    """Deals ``seed_start .. seed_start + size - 1``: deal i is the one
    ``random_deals(rules, np.random.default_rng(seed_start + i), 1)`` gives (a random dealer), so
    a deal set is reproducible and a prefix of a longer one."""
    if size < 1:
        raise ValueError(f"a deal set needs at least one deal, got {size}")
    decks = np.empty((size, NUM_CARDS), np.int8)
    dealer = np.empty(size, np.int64)
    for i in range(size):
        rng = np.random.default_rng(seed_start + i)
        decks[i] = rng.random((1, NUM_CARDS)).argsort(axis=1)[0]
        dealer[i] = rng.integers(0, rules.num_players, size=1)[0]
    return _deals_of_decks(rules, decks, dealer)


def _deals_of_decks(rules: Rules, decks: np.ndarray, dealer) -> Deals:
    """Deals from shuffled decks (B, 40): hands dealt in order, then the turned card and stock."""
    n, h, size = rules.num_players, rules.hand_size, len(decks)
    dealer = np.broadcast_to(np.asarray(dealer), (size,)).astype(np.int8)
    if ((dealer < 0) | (dealer >= n)).any():
        raise ValueError(f"bad dealer {dealer!r}: expected seats 0..{n - 1}")
    hands = decks[:, : n * h].reshape(size, n, h)
    if rules.partnerships:
        # The dealer's last card is shown (R3).
        trump_card = hands[np.arange(size), dealer, -1]
        stock = decks[:, :0]
    else:
        trump_card = decks[:, n * h]
        stock = decks[:, n * h + 1 :]
    return Deals(dealer=dealer, hands=hands.copy(), trump_card=trump_card.copy(), stock=stock.copy())
