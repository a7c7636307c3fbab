"""The heuristic bot (level "medium"): a rule-based player that counts cards, vectorised.

Declarations come first, in this order: declare Tute when it may; exchange the 7 (or 2) of
trumps for a stronger turned card (R7); sing the best cante on offer, the 40 before a 20 (R8);
pass a declaration turn with nothing to sing.

Every card is then scored by its expected value in points for the player's side, and the best
legal card is played. The rules behind the score:

1. **Card counting.** The cards whose place is unknown are the deck minus its hand, every card
   played and the turned card. A card shown (the partnership's shown card, a sung king and
   knight, an exchanged or last-drawn turned card) is known to be in that hand; a seat that
   failed to follow suit or to beat (the public inferences of the follow duties) cannot hold
   those cards. From these it estimates, per later seat, the chance that the seat holds a card
   that beats a given card: a higher card of the suit, or, when void in the suit led, a trump
   (which R5 forces it to play; in the free stock phase it is assumed to trump when the trick
   is worth it). A card is "safe" when no later opponent is likely to beat it.
2. **A trick's worth.** Playing card c when the side wins the trick with chance p is worth
   ``(2p - 1) * (points on the table + points of c + expected points of the later cards
   + 10 on the last trick)``: what the side takes counts for it, what it gives counts against it.
   Winning with a cante to sing (a king and knight of an unsung suit in hand, not broken by the
   card played; in a partnership with ``singers=side``, also when the partner wins) adds that
   cante's points (all four kings or knights, with Tute on: the hand).
3. **Keeping cards when it pays.** Playing c costs what c is worth in the hand later:
   most of its points times how likely it is to win them (a card likely to be captured later
   is worth giving now), plus a value per step of strength (large while the R5 duties hold,
   where high cards control the tricks; small in the free stock phase), plus for trumps a
   value that grows steeply with their strength (they win tricks), plus for each half of an
   unsung cante pair most of the cante (never split a pair that may still be sung), plus the
   four kings or knights while Tute may still be declared, plus a bonus for the highest trump
   in the last tricks (it takes the last trick's +10). So it trumps only a trick worth a trump,
   throws its weakest cards on tricks it cannot win, and keeps its winners and pairs.
   (The weights are module constants, tuned by duplicate matches against ``greedy`` on a
   seed range apart from the evaluation's.)
4. **The partner.** When the partner is winning and no later opponent is likely to beat it,
   every point added to the trick is the side's, so it loads the trick with its counting cards
   ("cargar"); it does not overtake the partner (where the rules allow a choice: ``manita``, and
   the stock phase) unless its own card is safer and the trick pays for it. When the partner is
   still to play, a lost-looking trick keeps some chance of being rescued.
5. **Leading.** It leads its sure winners (a side-suit card no one can beat or trump) to cash
   them before the suits run out; when long in trumps with the top trump it leads trumps to draw
   the opponents'; it leads low in a suit in which the partner is known to be void (so the
   partner trumps) or holds a known master; otherwise it leads its cheapest card.
6. **The last tricks.** The last trick's +10 counts in the trick's worth, and the top trump is
   kept for it.

It reads only the information set (:func:`agents.infoset.decode_infoset`). All of it is numpy
over the batch: (B, 40) arrays of per-card values.
"""

from __future__ import annotations

import numpy as np

from tute_env.cards import (
    ALL_CARDS,
    BIT,
    CARD_POINTS,
    CARD_STRENGTH,
    CARD_SUIT,
    FOLLOW,
    KING,
    KINGS,
    KNIGHT,
    KNIGHTS,
    LEAD,
    NUM_CARDS,
    NUM_FACES,
    PAIR_SET,
    STRONGER,
    SUIT_SET,
    U64,
    popcount,
    unpack_sets,
)
from tute_env.rules import Rules

from .base import Agent
from .greedy import VALUE_KEY, declaration_actions
from .infoset import InfoSet, decode_infoset

_POINTS = CARD_POINTS.astype(np.float64)
_STRENGTH = CARD_STRENGTH.astype(np.float64)
#: ``_BREAKS[c, s]``: card c is the king or knight of suit s (playing it breaks that pair).
_BREAKS = np.zeros((NUM_CARDS, 4), bool)
for _s in range(4):
    _BREAKS[_s * NUM_FACES + KING, _s] = _BREAKS[_s * NUM_FACES + KNIGHT, _s] = True
_SUIT_OF = CARD_SUIT.astype(np.intp)

# Tuning constants (points).
EXTRA_PER_LATER_CARD = 1.5  # expected points each later card adds to a trick (R5 duties in force)
EXTRA_FREE = 0.0  # ... in the free stock phase (a follower that cannot or will not win throws low)
PARTNER_RESCUE = 0.3  # chance the partner, still to play, wins a trick that looks lost
PARTNER_VOID_RESCUE = 0.75  # ... when the partner is known void in the suit led (and may trump)
PARTNER_MASTER_RESCUE = 0.85  # ... when the partner is known to hold the suit's master
KEEP_POINT_SHARE = 0.8  # share of a card's points (times its chance to win them) it is worth kept
STRENGTH_KEEP = 0.8  # per step of strength: the stronger of two cards is kept (R5 duties in force)
STRENGTH_KEEP_FREE = 0.3  # ... in the free stock phase
PAIR_KEEP = 0.6  # share of a cante's points each card of an unsung pair is worth keeping
TUTE_KEEP = 40.0  # each king (knight) of four while Tute may be declared
TRUMP_BASE = 5.0  # keep value of any trump
TRUMP_PER_STRENGTH = 2.0  # ... plus this per step of strength
MASTER_KEEP = 0.0  # a card no one can beat is worth a future trick's extra points
LAST_TRUMP_KEEP = 6.0  # the top trump in the last three tricks
DRAW_TRUMPS_BONUS = 6.0  # leading the top trump when long in trumps
CASH_BONUS = 3.0  # leading a sure winner
SING_NOW = 1.0  # weight of singing right after this trick (the pair could also be sung later)
FREE_TRUMP_WILL = 0.3  # free phase: chance an opponent trumps a trick worth little
FREE_TRUMP_WILL_RICH = 0.85  # ... a trick worth 10 or more


class _Seat:
    """What the observer can tell about one other seat's hand (for all lanes)."""

    def __init__(self, known: np.ndarray, free: np.ndarray, q: np.ndarray):
        self.known = known  # (B,) cards known to be there
        self.free = free  # (B,) unknown-location cards it may hold
        self.q = q  # (B,) chance that a given free card is there
        self._log_miss = np.log1p(-np.minimum(q, 1 - 1e-9))

    def p_any(self, sets: np.ndarray) -> np.ndarray:
        """P(the seat holds at least one card of each set); ``sets`` (B,) or (B, k)."""
        shape = (-1,) + (1,) * (sets.ndim - 1)
        known = (sets & self.known.reshape(shape)) != 0
        m = popcount(sets & self.free.reshape(shape))
        p = 1 - np.exp(m * self._log_miss.reshape(shape))
        return np.where(known, 1.0, p)


class HeuristicAgent(Agent):
    """A rule-based player that counts cards and scores each card by its expected points
    (rules in the module docstring)."""

    name = "heuristic"

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        info = decode_infoset(self.rules, observations, masks)
        return heuristic_actions(self.rules, info)


def heuristic_actions(rules: Rules, info: InfoSet) -> np.ndarray:
    """(B,) the heuristic's actions for a batch of information sets."""
    mask = info.mask
    trump = info.trump.astype(np.intp)
    actions = declaration_actions(mask, trump, info.shown_card, rules)
    legal = mask[:, :NUM_CARDS]
    todo = np.flatnonzero((actions < 0) & legal.any(axis=1))
    if todo.size:
        sub = _take(info, todo)
        value = card_values(rules, sub)
        value = np.where(legal[todo], value, -np.inf)
        # Ties: the cheapest card.
        value -= VALUE_KEY[trump[todo]] * 1e-6
        actions[todo] = value.argmax(axis=1)
    # Rows with nothing legal (a finished game): 0, as the other bots answer.
    return np.maximum(actions, 0).astype(np.int64)


def _take(info: InfoSet, rows: np.ndarray) -> InfoSet:
    if len(rows) == info.batch_size:
        return info
    fields = {k: (v[rows] if isinstance(v, np.ndarray) else v) for k, v in vars(info).items()}
    return InfoSet(**fields)


def card_values(rules: Rules, info: InfoSet) -> np.ndarray:
    """(B, 40) expected value in points of playing each card (meaningful for held cards)."""
    c = _Context(rules, info)
    seats = _count_cards(rules, info, c)
    p_safe, p_lead_safe = _safety(info, c, seats)
    p_side, p_mine = _win_chances(info, c, seats, p_safe)
    value = (2 * p_side - 1) * _trick_worth(info, c)
    cante_value, sing_after, tute_cards = _cantes(rules, info, c)
    p_sing = p_side if (c.partnership and rules.singers == "side") else p_mine
    value += SING_NOW * p_sing * sing_after
    value -= _keep_values(rules, info, c, p_lead_safe, cante_value, tute_cards)
    return _add_lead_bonuses(info, c, value, p_safe)


class _Context:
    """The quantities of a batch of information sets that the rules share."""

    def __init__(self, rules: Rules, info: InfoSet):
        n = rules.num_players
        b = self.b = info.batch_size
        self.lanes = np.arange(b)
        trump = self.trump = info.trump.astype(np.intp)
        self.trump_set = SUIT_SET[trump]  # (B,)
        self.is_trump = CARD_SUIT[None, :] == trump[:, None]  # (B, 40)
        self.tricks_left = rules.num_tricks - info.tricks_played.astype(np.int64)
        self.last_trick = self.tricks_left == 1
        shown_bit = np.where(info.shown_card >= 0, BIT[np.maximum(info.shown_card, 0)], U64(0))
        hidden = ALL_CARDS & ~info.hand & ~info.all_played
        if rules.has_stock:
            hidden &= ~shown_bit  # the turned card lies on the table (drawn last, or out of play)
        self.hidden = hidden  # (B,) the cards whose place is unknown
        self.master = (STRONGER[None, :] & hidden[:, None]) == 0  # (B, 40) no unknown card beats it
        self.partnership = rules.partnerships
        self.opponents = [k for k in range(1, n) if not (self.partnership and k == 2)]
        self.in_trick = info.trick >= 0  # (B, n) the seats that have played to the trick
        self.following = info.decision == FOLLOW
        trick_cards = np.where(self.in_trick, info.trick, 0).astype(np.intp)
        self.table_points = (_POINTS[trick_cards] * self.in_trick).sum(axis=1)
        later = ~self.in_trick  # seats still to play this trick (for a lead: everyone)
        later[:, 0] = False
        self.later = later
        self.n_later = later.sum(axis=1)


def _count_cards(rules: Rules, info: InfoSet, c: _Context) -> list[_Seat | None]:
    """R1, card counting: what the observer can tell about each later seat's hand (index 0,
    the observer itself, is None)."""
    hand_count = popcount(info.hand).astype(np.float64)
    known = info.known & c.hidden[:, None]
    known_any = np.bitwise_or.reduce(known[:, 1:], axis=1)
    seats: list[_Seat | None] = [None]
    for k in range(1, rules.num_players):
        kn = known[:, k]
        poss = c.hidden & ~info.cannot_hold[:, k] & ~(known_any & ~kn)
        free = poss & ~kn
        slots = np.maximum(hand_count - c.in_trick[:, k] - popcount(kn), 0)
        q = np.clip(slots / np.maximum(popcount(free), 1), 0.0, 1.0)
        seats.append(_Seat(kn, free, q))
    return seats


def _p_beat(odds, view, is_trump, will, strict) -> np.ndarray:
    """(B, 40) chance a seat beats card c, were c winning the trick. ``odds``: the seat's
    chances to hold a higher card of c's suit, any trump, no card of each suit; ``view``:
    the suit of the trick, whether it is trumps, and whether c is of it, per card."""
    p_higher, p_trumps, p_void = odds
    suit, suit_trump, of_suit = view
    void_c = np.take_along_axis(p_void, np.maximum(suit, 0), axis=1)
    strict_p = np.where(of_suit, p_higher + np.where(suit_trump, 0.0, void_c * p_trumps),
                        np.where(is_trump, void_c * p_higher, 0.0))
    free_p = np.where(is_trump, p_higher, p_higher + (1 - p_higher) * p_trumps * will)
    return np.clip(np.where(strict, strict_p, free_p), 0.0, 1.0)


def _safety(info: InfoSet, c: _Context, seats: list[_Seat | None]) -> tuple[np.ndarray, np.ndarray]:
    """R1: (B, 40) chances that no later opponent beats each card in this trick (``p_safe``),
    and were the card led now (``p_lead_safe``, for the keep values)."""
    b = c.b
    led = np.where(c.following, info.led_card, -1)
    led_suit = np.where(c.following, CARD_SUIT[np.maximum(led, 0)], -1).astype(np.intp)
    # Suit of the trick for each candidate card: the led suit, or the card's own when leading.
    suit_c = np.where(c.following[:, None], led_suit[:, None], _SUIT_OF[None, :])  # (B, 40)
    suit_is_trump = suit_c == c.trump[:, None]
    higher = np.broadcast_to(STRONGER, (b, NUM_CARDS))
    rich = (c.table_points[:, None] + _POINTS[None, :]) >= 10
    will = np.where(rich, FREE_TRUMP_WILL_RICH, FREE_TRUMP_WILL)
    strict = info.strict[:, None]
    in_suit = _SUIT_OF[None, :] == suit_c
    suits4 = np.broadcast_to(SUIT_SET, (b, 4))

    own_suit = np.broadcast_to(_SUIT_OF[None, :], (b, NUM_CARDS))
    lead_view = (own_suit, own_suit == c.trump[:, None], np.ones((b, NUM_CARDS), bool))
    trick_view = (suit_c, suit_is_trump, in_suit)

    p_safe = np.ones((b, NUM_CARDS))
    p_lead_safe = np.ones((b, NUM_CARDS))
    for k in c.opponents:
        odds = (seats[k].p_any(higher), seats[k].p_any(c.trump_set)[:, None], 1 - seats[k].p_any(suits4))
        p_safe *= np.where(c.later[:, k, None], 1 - _p_beat(odds, trick_view, c.is_trump, will, strict), 1.0)
        p_lead_safe *= 1 - _p_beat(odds, lead_view, c.is_trump, will, strict)
    return p_safe, p_lead_safe


def _lead_rescue(c: _Context, seats: list[_Seat | None]) -> np.ndarray:
    """R4: (B, 40) chance the partner rescues a lead of each card that looks lost: higher when
    the partner is known void in its suit (and may trump) or holds the suit's known master."""
    b = c.b
    rescue = np.full((b, 4), PARTNER_RESCUE if c.partnership else 0.0)
    if c.partnership:
        partner = seats[2]
        may_trump = partner.p_any(c.trump_set) > 0
        suit_left = (c.hidden[:, None] & SUIT_SET[None, :]) != 0  # (B, 4)
        void_known = (((partner.known | partner.free)[:, None] & SUIT_SET[None, :]) == 0) & suit_left
        rescue = np.where(void_known & may_trump[:, None] & (np.arange(4)[None, :] != c.trump[:, None]),
                          PARTNER_VOID_RESCUE, rescue)
        # A known card of the partner with nothing unknown above it.
        known_bits = unpack_sets(partner.known)  # (B, 40)
        unknown_above = (STRONGER[None, :] & (c.hidden & ~partner.known)[:, None]) == 0
        master = (known_bits & unknown_above).reshape(b, 4, 10).any(axis=2)  # (B, 4)
        rescue = np.where(master, PARTNER_MASTER_RESCUE, rescue)
    return rescue[:, _SUIT_OF]  # (B, 40)


def _win_chances(info: InfoSet, c: _Context, seats: list[_Seat | None],
                 p_safe: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R2, R4: (B, 40) chances that the side (``p_side``) and the player itself (``p_mine``)
    win the trick, were each card played."""
    b = c.b
    best = info.best_card.astype(np.intp)
    best_is_trump = CARD_SUIT[np.maximum(best, 0)] == c.trump
    best0 = np.maximum(best, 0)
    same_suit = _SUIT_OF[None, :] == CARD_SUIT[best0][:, None]
    same_suit_higher = same_suit & (_STRENGTH[None, :] > _STRENGTH[best0][:, None])
    beats_best = np.where(c.following[:, None],
                          same_suit_higher | (c.is_trump & ~best_is_trump[:, None]), True)
    partner_winning = c.following & (info.trick_winner == 2) if c.partnership else np.zeros(b, bool)
    partner_later = c.later[:, 2] if c.partnership else np.zeros(b, bool)
    p_partner_safe = p_safe[c.lanes, np.maximum(best, 0)]  # the partner's card against later opponents
    lead_rescue = _lead_rescue(c, seats)

    wins_now = beats_best
    p_side = np.where(
        wins_now,
        p_safe,
        np.where(partner_winning[:, None], p_partner_safe[:, None], 0.0),
    )
    rescue_c = np.where(c.following[:, None], np.where(partner_later, PARTNER_RESCUE, 0.0)[:, None],
                        lead_rescue)
    p_side = p_side + (1 - p_side) * rescue_c * (~(partner_winning[:, None] & ~wins_now))
    p_mine = np.where(wins_now, p_safe, 0.0)
    return p_side, p_mine


def _trick_worth(info: InfoSet, c: _Context) -> np.ndarray:
    """R2, R6: (B, 40) points at stake in the trick, were each card played: the table, the
    card, the later cards' expected points, and the last trick's 10."""
    extra = np.where(info.strict, EXTRA_PER_LATER_CARD, EXTRA_FREE) * c.n_later
    return (c.table_points[:, None] + _POINTS[None, :] + extra[:, None]
            + np.where(c.last_trick, 10.0, 0.0)[:, None])


def _cantes(rules: Rules, info: InfoSet, c: _Context) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """R2: the cantes in hand. Returns ``cante_value`` (B, 4), the points of each suit's
    singable pair; ``sing_after`` (B, 40), the best cante (or Tute) to sing after a won trick,
    not broken by the card played; ``tute_cards`` (B,), the four kings and/or knights held
    (None with Tute off)."""
    hand = info.hand
    lanes, trump = c.lanes, c.trump
    pair_in_hand = (hand[:, None] & PAIR_SET[None, :]) == PAIR_SET[None, :]  # (B, 4)
    sung = info.sung_by >= 0
    singable = pair_in_hand & ~sung
    if rules.forty_before_twenty:
        sang_twenty = ((info.sung_by == 0) & (np.arange(4)[None, :] != trump[:, None])).any(axis=1)
        singable[lanes, trump] &= ~sang_twenty
    cante_value = np.where(np.arange(4)[None, :] == trump[:, None], 40.0, 20.0) * singable  # (B, 4)
    order = np.argsort(-cante_value, axis=1)
    top, second = cante_value[lanes, order[:, 0]], cante_value[lanes, order[:, 1]]
    sing_after = np.where(_BREAKS[:, order[:, 0]].T, second[:, None], top[:, None])  # (B, 40)
    tute_cards = None
    if rules.tute != "off":
        tute_hand = ((hand & KINGS) == KINGS) | ((hand & KNIGHTS) == KNIGHTS)
        tute_cards = np.where((hand & KINGS) == KINGS, KINGS, U64(0)) | np.where(
            (hand & KNIGHTS) == KNIGHTS, KNIGHTS, U64(0))
        tute_after = np.where(tute_hand[:, None] & ((BIT[None, :] & tute_cards[:, None]) == 0), 100.0, 0.0)
        sing_after = np.maximum(sing_after, tute_after)
    sing_after = np.where(c.last_trick[:, None], 0.0, sing_after)
    return cante_value, sing_after, tute_cards


def _keep_values(rules: Rules, info: InfoSet, c: _Context, p_lead_safe: np.ndarray,
                 cante_value: np.ndarray, tute_cards: np.ndarray | None) -> np.ndarray:
    """R3, R6: (B, 40) what each card is worth kept in the hand."""
    keep = KEEP_POINT_SHARE * _POINTS[None, :] * (2 * p_lead_safe - 1)
    keep += np.where(info.strict, STRENGTH_KEEP, STRENGTH_KEEP_FREE)[:, None] * _STRENGTH[None, :]
    keep += np.where(c.master & (p_lead_safe > 0.7), MASTER_KEEP, 0.0)
    keep += np.where(c.is_trump, TRUMP_BASE + TRUMP_PER_STRENGTH * _STRENGTH[None, :], 0.0)
    top_trump = c.is_trump & c.master
    keep += np.where(top_trump & (c.tricks_left <= 3)[:, None], LAST_TRUMP_KEEP, 0.0)
    pair_keep = (cante_value * PAIR_KEEP)[:, _SUIT_OF] * _BREAKS[None, np.arange(NUM_CARDS), _SUIT_OF]
    keep += np.where((c.tricks_left >= 2)[:, None], pair_keep, 0.0)
    if rules.tute != "off":
        keep += np.where((BIT[None, :] & tute_cards[:, None]) != 0, TUTE_KEEP, 0.0)
    return keep


def _add_lead_bonuses(info: InfoSet, c: _Context, value: np.ndarray, p_safe: np.ndarray) -> np.ndarray:
    """R5: adds to ``value`` (in place; returned) the bonuses for leading a sure winner and,
    when long in trumps, the top trump."""
    leading = (info.decision == LEAD)[:, None]
    sure = p_safe > 0.9
    cash = leading & sure & ~c.is_trump
    value += np.where(cash, CASH_BONUS, 0.0)
    my_trumps = popcount(info.hand & c.trump_set)
    their_trumps = popcount(c.hidden & c.trump_set)
    draw = (my_trumps >= their_trumps) & (their_trumps > 0)
    value += np.where(leading & c.is_trump & c.master & draw[:, None], DRAW_TRUMPS_BONUS, 0.0)
    return value
