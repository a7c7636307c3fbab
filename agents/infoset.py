"""A batch of observations decoded into card sets and small integers, for rule-based bots.

Everything here comes from the observation vector (and the mask), so a bot built on it sees
only its player's information set. Seats and sides are relative to the observer (0 = self).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tute_env.cards import ALL_CARDS, BIT, pack_sets
from tute_env.observation import observation_layout
from tute_env.rules import Rules


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

    @property
    def led_card(self) -> np.ndarray:
        """(B,) int8: card that led the trick in progress, -1 before the lead."""
        lanes = np.arange(self.batch_size)
        return self.trick[lanes, self.trick_leader]


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
