"""Information sets: what a player knows, the constraints it puts on the hidden cards, and an
exact sampler of the deals consistent with them -- what every search agent needs.

Everything here comes from a player's observation vector and legal-action mask (PettingZoo's
``observation`` and ``action_mask``), so whatever is built on it sees only that player's
information set. Seats and sides are relative to the observer (0 = self).

* :func:`decode_infoset`: a batch of observations as card sets and small integers (:class:`InfoSet`);
* :func:`deal_constraints`: what one information set says of the hidden cards
  (:class:`DealConstraints`: hand sizes, cards known to be in a hand, the public inferences of the
  strict rules such as a void in a suit, the face-down stock's size);
* :class:`DealSampler`: **exact** uniform sampling of the consistent deals (a dynamic programme
  counts them; no rejection loop, however tight the constraints); :func:`sample_deals` in one call;
  :class:`InconsistentInfoSet` where none exists;
* :func:`build_states`: core states of sampled deals, the observer at seat 0, ready to search.

>>> from tute_env import tute_v0
>>> from tute_env.engine.core import Game
>>> from tute_env.search.infoset import DealSampler, build_states, deal_constraints, decode_infoset
>>> env = tute_v0.env(preset="two_player"); env.reset(seed=1)
>>> obs = env.observe(env.agent_selection)
>>> info = decode_infoset(env.unwrapped.rules, obs["observation"][None], obs["action_mask"][None])
>>> sampler = DealSampler(deal_constraints(info, 0))
>>> hands, stock = sampler.sample(np.random.default_rng(0), 8)   # 8 deals the player cannot tell apart
>>> states = build_states(Game(env.unwrapped.rules), info, 0, hands, stock)  # 8 lanes, all cards known

``sampler.num_deals`` is how many deals are consistent. The sampler is checked against a full
enumeration of small information sets in the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..engine.cards import ALL_CARDS, BIT, NUM_CARDS, SING_BASE, TUTE, U64, pack_sets, popcount
from ..engine.core import Game, State
from ..engine.observation import observation_layout
from ..engine.rules import Rules

__all__ = ["DealConstraints", "DealSampler", "InconsistentInfoSet", "InfoSet", "build_states", "deal_constraints",
           "decode_infoset", "sample_deals"]

_ZERO = U64(0)


def _index_or_none(one_hot: np.ndarray) -> np.ndarray:
    """Row index of the 1 in each one-hot row, -1 for an all-zero row."""
    return np.where(one_hot.any(axis=1), one_hot.argmax(axis=1), -1).astype(np.int8)


@dataclass
class InfoSet:
    """B information sets. Card sets are 40-bit uint64 sets (bit c = card id c)."""

    rules: Rules
    hand: np.ndarray
    """(B,) uint64: own hand."""
    trump: np.ndarray
    """(B,) int8: trump suit."""
    shown_card: np.ndarray
    """(B,) int8: the shown or turned card while visible, else -1."""
    trick: np.ndarray
    """(B, n) int8: trick in progress by relative seat, -1 where not played."""
    played: np.ndarray
    """(B, n) uint64: cards played by each relative seat this hand (trick included)."""
    known: np.ndarray
    """(B, n) uint64: cards publicly known to be in each relative seat's hand."""
    cannot_hold: np.ndarray
    """(B, n) uint64: cards each relative seat is known not to hold."""
    sung_by: np.ndarray
    """(B, 4) int8: relative seat that sang each suit, -1 if not sung."""
    card_points: np.ndarray
    """(B, sides) int16: card points by relative side."""
    cante_points: np.ndarray
    """(B, sides) int16: cante points by relative side."""
    last_won: np.ndarray
    """(B, sides) int8: index of the last trick each relative side won, -1 if none."""
    tricks_played: np.ndarray
    """(B,) int8."""
    stock_size: np.ndarray
    """(B,) int8: cards left to draw."""
    strict: np.ndarray
    """(B,) bool: R5 duties in force."""
    exchanged: np.ndarray
    """(B,) bool: the turned trump was exchanged this hand."""
    decision: np.ndarray
    """(B,) int8: own decision kind (LEAD, FOLLOW, DECLARE), -1 when not to act."""
    trick_leader: np.ndarray
    """(B,) int8: relative seat leading the trick in progress (or to lead next)."""
    trick_winner: np.ndarray
    """(B,) int8: relative seat winning the trick in progress, -1 before the lead."""
    dealer: np.ndarray
    """(B,) int8: relative seat of the dealer."""
    mask: np.ndarray
    """(B, 47) bool: legal actions."""

    @property
    def batch_size(self) -> int:
        return len(self.hand)

    @property
    def all_played(self) -> np.ndarray:
        """(B,) uint64: every card played this hand."""
        return np.bitwise_or.reduce(self.played, axis=1)

    @property
    def unseen(self) -> np.ndarray:
        """(B,) uint64: cards the observer has not seen, in other hands or the face-down stock:
        the cards a sampler deals out."""
        shown = np.where(self.shown_card >= 0, BIT[np.maximum(self.shown_card, 0)], np.uint64(0))
        return ALL_CARDS & ~(self.hand | self.all_played | shown)

    @property
    def best_card(self) -> np.ndarray:
        """(B,) int8: card winning the trick in progress, -1 before the lead."""
        lanes = np.arange(self.batch_size)
        return np.where(self.trick_winner >= 0, self.trick[lanes, np.maximum(self.trick_winner, 0)], -1).astype(np.int8)


def decode_infoset(rules: Rules, observations: np.ndarray, masks: np.ndarray) -> InfoSet:
    """Decode (B, obs_size) observations and (B, 47) masks."""
    n = rules.num_players
    obs = np.asarray(observations)
    b = len(obs)
    p = observation_layout(rules).decode(obs)
    cards = lambda name: pack_sets(p[name].reshape(b, -1, 40).astype(bool))
    trick_one_hot = p["trick"].reshape(b, n, 40)
    trick = np.where(trick_one_hot.any(axis=2), trick_one_hot.argmax(axis=2), -1).astype(np.int8)
    cantes = p["cantes"].reshape(b, n, 4)
    sung_by = np.where(cantes.any(axis=1), cantes.argmax(axis=1), -1).astype(np.int8)
    return InfoSet(
        rules=rules,
        hand=cards("hand")[:, 0],
        trump=p["trump_suit"].argmax(axis=1).astype(np.int8),
        shown_card=_index_or_none(p["shown_card"]),
        trick=trick,
        played=cards("played"),
        known=cards("known_cards"),
        cannot_hold=cards("cannot_hold"),
        sung_by=sung_by,
        card_points=p["card_points"].astype(np.int16),
        cante_points=p["cante_points"].astype(np.int16),
        last_won=(p["last_won"] - 1).astype(np.int8),
        tricks_played=p["tricks_played"][:, 0].astype(np.int8),
        stock_size=p["stock_size"][:, 0].astype(np.int8),
        strict=p["strict_rules"][:, 0].astype(bool),
        exchanged=p["exchanged"][:, 0].astype(bool),
        decision=_index_or_none(p["decision"]),
        trick_leader=_index_or_none(p["trick_leader"]),
        trick_winner=_index_or_none(p["trick_winner"]),
        dealer=_index_or_none(p["dealer"]),
        mask=np.asarray(masks, dtype=bool),
    )


# ----------------------------------------------------------------------------------------------
# Sampling hidden deals
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DealConstraints:
    """What one information set says about the hidden cards. Seats are relative (0 = observer).

    A consistent deal gives every seat ``k`` a hand of exactly ``hand_sizes[k]`` cards made of
    ``fixed[k]`` (cards it holds that are not among the unseen: the observer's own hand, the
    partnership's shown card in the dealer's hand), ``forced[k]`` (unseen cards publicly known
    to be in that hand) and other unseen cards, none of them in ``cannot_hold[k]``; the
    remaining ``face_down`` unseen cards form the face-down stock (any order).
    """

    num_players: int
    unseen: int
    hand_sizes: tuple[int, ...]
    fixed: tuple[int, ...]
    forced: tuple[int, ...]
    cannot_hold: tuple[int, ...]
    face_down: int

    @property
    def free(self) -> int:
        """Unseen cards whose place is not known."""
        forced = 0
        for f in self.forced:
            forced |= f
        return self.unseen & ~forced

    def capacities(self) -> list[int]:
        """Free cards still to place in each other seat's hand (seats 1..n-1), then the stock."""
        caps = [
            self.hand_sizes[k] - popcount(self.fixed[k]) - popcount(self.forced[k]) for k in range(1, self.num_players)
        ]
        return caps + [self.face_down]

    def is_consistent(self, hands, stock) -> bool:
        """Whether a deal (``hands[k]``: 40-bit set per relative seat, ``stock``: card ids of the
        face-down stock) agrees with these constraints."""
        hands = [int(h) for h in hands]
        stock = [int(c) for c in stock]
        stock_set = 0
        for c in stock:
            stock_set |= 1 << c
        if len(stock) != self.face_down or popcount(stock_set) != len(stock):
            return False
        every = stock_set
        for k in range(self.num_players):
            h = hands[k]
            if popcount(h) != self.hand_sizes[k] or h & every:
                return False
            every |= h
            if h & self.fixed[k] != self.fixed[k] or h & self.forced[k] != self.forced[k]:
                return False
            if h & self.cannot_hold[k] and k != 0:
                return False
            if k > 0 and (h & ~self.fixed[k]) & ~self.unseen:
                return False
        return (stock_set | self.unseen) == self.unseen and every & self.unseen == self.unseen


def deal_constraints(info: InfoSet, lane: int) -> DealConstraints:
    """The :class:`DealConstraints` of row ``lane`` of an information-set batch.

    Hand sizes: the observer is to act, so it has not played to the trick in progress; every seat
    held as many cards as the observer at the start of the trick (cards are dealt and drawn
    evenly, R3 R4), one fewer for the seats that have played to it since.
    """
    r = info.rules
    n = r.num_players
    unseen = int(info.unseen[lane])
    hand = int(info.hand[lane])
    h = popcount(hand)
    trick = info.trick[lane]
    sizes = tuple(h if k == 0 else h - int(trick[k] >= 0) for k in range(n))
    known = [int(x) for x in info.known[lane]]
    fixed = [hand] + [known[k] & ~unseen for k in range(1, n)]
    forced = [0] + [known[k] & unseen for k in range(1, n)]
    stock_left = int(info.stock_size[lane])
    if r.has_stock and r.turned_card_drawn and stock_left > 0:
        stock_left -= 1  # the turned card is the last card drawn, and it is visible
    return DealConstraints(
        num_players=n,
        unseen=unseen,
        hand_sizes=sizes,
        fixed=tuple(fixed),
        forced=tuple(forced),
        cannot_hold=tuple(int(x) for x in info.cannot_hold[lane]),
        face_down=stock_left if r.has_stock else 0,
    )


class InconsistentInfoSet(ValueError):
    """No deal of the hidden cards agrees with the information set."""


class DealSampler:
    """Uniform sampling of the deals that agree with :class:`DealConstraints`.

    The free unseen cards are placed one at a time into "bins" (the other seats' hands, then the
    stock). ``ways[k][c]`` counts the ways to place cards ``k..`` into bins with remaining
    capacities ``c`` (a dense array indexed by the capacity vector), respecting each card's
    allowed bins; card ``k`` goes to bin ``b`` with probability ``ways[k+1][c - e_b] /
    ways[k][c]``, which makes the whole deal uniform over the consistent deals. Samples are
    drawn vectorised over a batch. The stock's order is a uniform shuffle of its cards.
    """

    def __init__(self, cons: DealConstraints, relax: bool = False):
        self.cons = cons
        n = cons.num_players
        self.caps = np.array(cons.capacities(), dtype=np.intp)
        if (self.caps < 0).any() or self.caps.sum() != popcount(cons.free):
            raise InconsistentInfoSet(
                f"hand sizes {cons.hand_sizes} and stock {cons.face_down} do not add up to the "
                f"{popcount(cons.unseen)} unseen cards"
            )
        for k in range(1, n):
            if cons.forced[k] & cons.cannot_hold[k] and not relax:
                raise InconsistentInfoSet(f"seat {k} is known to hold a card it cannot hold")
        self.cards = np.array([c for c in range(NUM_CARDS) if cons.free >> c & 1], dtype=np.intp)
        m = n  # n - 1 seats and the stock
        self.num_bins = m
        allowed = np.ones((len(self.cards), m), dtype=bool)
        if not relax:
            for k in range(1, n):
                allowed[:, k - 1] = [(cons.cannot_hold[k] >> int(c) & 1) == 0 for c in self.cards]
        self.allowed = allowed
        shape = tuple(int(c) + 1 for c in self.caps)
        num = len(self.cards)
        ways = [None] * (num + 1)
        last = np.zeros(shape)
        last[(0,) * m] = 1.0
        ways[num] = last
        log_scale = 0.0
        for k in range(num - 1, -1, -1):
            nxt = ways[k + 1]
            cur = np.zeros(shape)
            for b in np.flatnonzero(allowed[k]):
                dst = [slice(None)] * m
                src = [slice(None)] * m
                dst[b] = slice(1, None)
                src[b] = slice(0, -1)
                cur[tuple(dst)] += nxt[tuple(src)]
            # Scale to keep the counts in range (only ratios matter).
            top = cur.max()
            if top > 0:
                cur /= top
                log_scale += np.log(top)
            ways[k] = cur
        self.ways = ways
        if ways[0][tuple(self.caps)] <= 0:
            raise InconsistentInfoSet("no deal of the unseen cards agrees with the information set")
        #: Number of consistent deals: placements of the free cards times orders of the stock.
        self.num_deals = float(np.exp(np.log(ways[0][tuple(self.caps)]) + log_scale)) * math.factorial(cons.face_down)

    def sample(self, rng: np.random.Generator, num: int) -> tuple[np.ndarray, np.ndarray]:
        """``num`` deals: hands ``(num, n)`` uint64 by relative seat (seat 0 = the observer's own
        hand) and the face-down stock ``(num, face_down)`` int8 in drawing order."""
        cons, m = self.cons, self.num_bins
        caps = np.tile(self.caps, (num, 1))
        rows = np.arange(num)
        where = np.empty((num, len(self.cards)), dtype=np.intp)
        for k in range(len(self.cards)):
            weight = np.zeros((num, m))
            for b in np.flatnonzero(self.allowed[k]):
                ok = caps[:, b] > 0
                idx = caps.copy()
                idx[:, b] = np.maximum(idx[:, b] - 1, 0)
                weight[:, b] = np.where(ok, self.ways[k + 1][tuple(idx.T)], 0.0)
            cum = weight.cumsum(axis=1)
            u = rng.random(num) * cum[:, -1]
            choice = (cum > u[:, None]).argmax(axis=1)
            where[:, k] = choice
            caps[rows, choice] -= 1
        bits = BIT[self.cards]
        hands = np.zeros((num, cons.num_players), dtype=U64)
        hands[:, 0] = cons.fixed[0]
        for k in range(1, cons.num_players):
            placed = np.bitwise_or.reduce(np.where(where == k - 1, bits, _ZERO), axis=1) if len(bits) else _ZERO
            hands[:, k] = placed | U64(cons.fixed[k] | cons.forced[k])
        if cons.face_down:
            keys = np.where(where == m - 1, rng.random(where.shape), np.inf)
            order = np.argsort(keys, axis=1, kind="stable")[:, : cons.face_down]
            stock = self.cards[order].astype(np.int8)
        else:
            stock = np.zeros((num, 0), dtype=np.int8)
        return hands, stock


def sample_deals(info: InfoSet, lane: int, num: int, rng: np.random.Generator):
    """``num`` uniform consistent deals for row ``lane``: ``(hands, stock)`` as
    :meth:`DealSampler.sample` returns them."""
    return DealSampler(deal_constraints(info, lane)).sample(rng, num)


# ----------------------------------------------------------------------------------------------
# Core states from an information set and sampled hidden cards
# ----------------------------------------------------------------------------------------------
def build_states(game: Game, info: InfoSet, lane: int, hands: np.ndarray, stock: np.ndarray) -> State:
    """Core states (one lane per sampled deal) of row ``lane``'s information set with the
    sampled ``hands`` (``(S, n)`` by relative seat) and face-down ``stock`` (``(S, face_down)``).

    The observer sits at absolute seat 0, so relative seats and sides are absolute. The state's
    ``legal`` is the observer's real legal set (the mask), so the first action is checked
    against it; ``step`` recomputes legality afterwards.
    """
    r = game.rules
    S = len(hands)
    st = game.empty_state(S)
    st.hands[:] = hands
    st.played[:] = info.played[lane]
    st.known[:] = info.known[lane]
    st.cannot_hold[:] = info.cannot_hold[lane]
    trick = info.trick[lane]
    st.trick[:] = trick
    leader = int(info.trick_leader[lane])
    st.trick_leader[:] = leader
    st.trick_size[:] = int((trick >= 0).sum())
    st.best_card[:] = info.best_card[lane]
    st.best_seat[:] = info.trick_winner[lane]
    st.current[:] = 0
    st.decision[:] = info.decision[lane]
    st.dealer[:] = info.dealer[lane]
    st.trump[:] = info.trump[lane]
    st.turned_card[:] = info.shown_card[lane]
    face_down = stock.shape[1]
    if r.stock_size:
        st.stock[:, r.stock_size - face_down :] = stock
        st.stock_next[:] = r.stock_size - face_down
    st.to_draw[:] = info.stock_size[lane]
    tricks = int(info.tricks_played[lane])
    st.tricks_played[:] = tricks
    st.last_winner[:] = leader if tricks > 0 else -1
    st.last_won[:] = info.last_won[lane]
    st.card_points[:] = info.card_points[lane]
    st.cante_points[:] = info.cante_points[lane]
    sung_by = info.sung_by[lane]
    st.sung_by[:] = sung_by
    for suit in range(4):
        if sung_by[suit] >= 0 and suit != info.trump[lane]:
            st.sang_twenty[:, sung_by[suit]] = True
    st.exchanged[:] = info.exchanged[lane]
    mask_bits = pack_sets(info.mask[lane][None])[0]
    # Whether the observer has already declared for the last trick won is not in the
    # observation; declarations the core would allow but the mask does not say it has.
    dec_bits = U64(sum(1 << a for a in range(SING_BASE, TUTE + 1)))
    if S and int(game.legal_sets(st.take([0]))[0] & dec_bits & ~mask_bits):
        st.declared[:, 0] = True
    st.legal[:] = mask_bits
    return st
