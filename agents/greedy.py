"""The greedy bot (level "easy"), and the vectorised card tables and declaration policy
(:func:`declaration_actions`) the rule-based bots share.

:class:`GreedyAgent` is a one-ply player. Per decision, in this order:

1. declares Tute when it may (R8b);
2. exchanges the 7 (or 2) of trumps for the turned card when that brings a stronger trump (R7);
3. sings its best cante: the 40 in trumps if it may, else a 20 (R8); passes a declaration turn
   with nothing to sing;
4. plays a card:

   * following a trick that *holds points* (card points on the table, or the last trick with
     its +10) which an opponent is winning: takes it with its cheapest winning card;
   * otherwise (leading, an empty trick, the partner already winning, or no card wins): throws
     its least valuable legal card.

"Cheapest" and "least valuable" use one order: any non-trump before any trump, then by
strength (A 3 R C S 7 6 5 4 2, which also orders the points). It looks at nothing but the trick
on the table: no card counting, no thought of later players.

It reads only the observation vector and the legal mask, and is vectorised over the batch
(evaluation runs thousands of games at once).
"""

from __future__ import annotations

import numpy as np

from tute_env.engine.cards import (
    CARD_POINTS,
    CARD_STRENGTH,
    CARD_SUIT,
    EXCHANGE,
    NUM_CARDS,
    PASS,
    SEVEN,
    SING_BASE,
    TUTE,
)
from tute_env.engine.observation import observation_layout
from tute_env.engine.rules import Rules

from .base import Agent

_CARDS = np.arange(NUM_CARDS)
#: ``IS_TRUMP[t, c]``: card c is of suit t.
IS_TRUMP = CARD_SUIT[None, :] == np.arange(4)[:, None]
#: ``VALUE_KEY[t, c]``: how much card c is worth keeping with trump suit t (non-trumps first,
#: then by strength): the order of "cheapest" and "least valuable".
VALUE_KEY = (IS_TRUMP * 20 + CARD_STRENGTH[None, :]).astype(np.int16)
#: ``BEATS[t, b, c]``: card c beats card b (b winning the trick so far) with trump suit t.
BEATS = (
    ((CARD_SUIT[None, :] == CARD_SUIT[:, None]) & (CARD_STRENGTH[None, :] > CARD_STRENGTH[:, None]))[None]
    | (IS_TRUMP[:, None, :] & ~IS_TRUMP[:, :, None])
)
_POINTS_F = CARD_POINTS.astype(np.float32)
_NO_CARD = np.int16(1000)


def declaration_actions(masks: np.ndarray, trump: np.ndarray, turned_card: np.ndarray, rules: Rules) -> np.ndarray:
    """(B,) the declaration or exchange to make before playing a card, -1 where none: the one
    declaration policy of the rule-based bots (greedy, heuristic and PIMC's playouts).

    ``masks``: (B, 47) legal actions; ``trump``: (B,) trump suits; ``turned_card``: (B,) the
    turned card, -1 if none. In this order:

    1. Tute (R8b): it ends the hand, won;
    2. the exchange (R7) when it brings a stronger trump: the turned card beats the 7 of trumps
       given for it (with ``exchange="after_win"`` every legal exchange does, the 2 being given
       only for a turned 4..7);
    3. the best cante, the 40 before a 20 (R8);
    4. pass, on a declaration turn with nothing to declare.

    The exchange comes before a cante: it keeps the turn (the seat still leads, and may still
    declare), gives up no king or knight, and the card it takes may complete a pair, so
    exchanging first can only add a cante.
    """
    lanes = np.arange(len(masks))
    sing = masks[:, SING_BASE:TUTE]
    best_cante = SING_BASE + np.where(sing[lanes, trump], trump, sing.argmax(axis=1))
    out = np.where(sing.any(axis=1), best_cante, np.where(masks[:, PASS], PASS, -1))
    stronger = CARD_STRENGTH[np.maximum(turned_card, 0)] > CARD_STRENGTH[SEVEN]
    worth = stronger | (rules.exchange == "after_win")
    out = np.where(masks[:, EXCHANGE] & worth, EXCHANGE, out)
    return np.where(masks[:, TUTE], TUTE, out).astype(np.int64)


class GreedyAgent(Agent):
    """One-ply: takes a trick cheaply when it holds points, else throws its least valuable card;
    always declares Tute and sings its best cante (see the module docstring)."""

    name = "greedy"

    def __init__(self, rules: Rules, seed: int = 0):
        super().__init__(rules, seed)
        sl = observation_layout(rules).slices
        self._trump = sl["trump_suit"]
        self._shown = sl["shown_card"]
        self._trick = sl["trick"]
        self._tricks_played = sl["tricks_played"].start
        self._winner = sl["trick_winner"]

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs = np.asarray(observations)
        masks = np.asarray(masks, dtype=bool)
        r = self.rules
        n = r.num_players
        trump = obs[:, self._trump].argmax(axis=1)
        legal = masks[:, :NUM_CARDS]
        keyed = np.where(legal, VALUE_KEY[trump], _NO_CARD)
        actions = keyed.argmin(axis=1)  # the least valuable legal card

        # Following a trick that holds points, an opponent winning: the cheapest winning card.
        winner_one_hot = obs[:, self._winner]
        f = np.flatnonzero(winner_one_hot.any(axis=1))
        if f.size:
            winner = winner_one_hot[f].argmax(axis=1)
            trick = obs[f, self._trick].reshape(f.size, n, NUM_CARDS)
            best = trick[np.arange(f.size), winner].argmax(axis=1)
            points = trick.any(axis=1).astype(np.float32) @ _POINTS_F
            last = obs[f, self._tricks_played] == r.num_tricks - 1
            winners = legal[f] & BEATS[trump[f], best]
            take = ((points > 0) | last) & winners.any(axis=1)
            if r.partnerships:
                take &= winner != 2
            t = f[take]
            actions[t] = np.where(winners[take], keyed[t], _NO_CARD).argmin(axis=1)

        # Declarations and the exchange come first.
        d = np.flatnonzero(masks[:, SING_BASE:].any(axis=1))
        if d.size:
            shown = obs[d, self._shown]
            turned = np.where(shown.any(axis=1), shown.argmax(axis=1), -1)
            decl = declaration_actions(masks[d], trump[d], turned, r)
            actions[d] = np.where(decl >= 0, decl, actions[d])
        return actions.astype(np.int64)
