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

It reads only the information set (:func:`tute_env.search.infoset.decode_infoset`). The card scores are
compiled (numba), one game at a time over the batch: a call costs a few microseconds a game, not
the dozens of small numpy operations per call a vectorised form costs, which dominated a table
round's time when a few games at a time ask for a move (self-play rollouts, search playouts).
The weights are compiled in: change them here, not at run time.
"""

from __future__ import annotations

import numba
import numpy as np

from tute_env.engine.cards import (
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
    beating_set,
    card_count,
)
from tute_env.engine.rules import Rules
from tute_env.search.infoset import InfoSet, decode_infoset

from .base import Agent
from .greedy import VALUE_KEY, declaration_actions

_POINTS = CARD_POINTS.astype(np.float64)
_STRENGTH = CARD_STRENGTH.astype(np.float64)
_TIE_KEY = VALUE_KEY.astype(np.float64) * 1e-6  # (4, 40): ties go to the cheapest card
#: ``_BREAKS[c, s]``: card c is the king or knight of suit s (playing it breaks that pair).
_BREAKS = np.zeros((NUM_CARDS, 4), np.bool_)
for _s in range(4):
    _BREAKS[_s * NUM_FACES + KING, _s] = _BREAKS[_s * NUM_FACES + KNIGHT, _s] = True
_ZERO = U64(0)

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
    actions = declaration_actions(mask, info.trump.astype(np.intp), info.shown_card, rules)
    legal = mask[:, :NUM_CARDS]
    todo = np.flatnonzero((actions < 0) & legal.any(axis=1))
    if todo.size:
        actions[todo] = card_values(rules, info, todo).argmax(axis=1)
    # Rows with nothing legal (a finished game): 0, as the other bots answer.
    return np.maximum(actions, 0).astype(np.int64)


def card_values(rules: Rules, info: InfoSet, rows: np.ndarray | None = None) -> np.ndarray:
    """(len(rows), 40) expected value in points of playing each legal card (-inf for the others),
    ties broken for the cheapest card, of the information sets ``rows`` (default: all)."""
    rows = np.arange(info.batch_size) if rows is None else np.asarray(rows, np.intp)
    _check(rules, info, rows)
    flags = np.array([rules.num_players, rules.num_tricks, rules.partnerships, rules.has_stock,
                      rules.partnerships and rules.singers == "side", rules.forty_before_twenty,
                      rules.tute != "off"], np.int64)
    c = np.ascontiguousarray
    return _card_values(rows, flags, c(info.mask[:, :NUM_CARDS]), c(info.hand), c(info.trump), c(info.shown_card),
                        c(info.trick), c(info.played), c(info.known), c(info.cannot_hold), c(info.sung_by),
                        c(info.tricks_played), c(info.strict), c(info.decision), c(info.trick_leader),
                        c(info.trick_winner))


def _check(rules: Rules, info: InfoSet, rows: np.ndarray) -> None:
    """The compiled code indexes by these shapes: a misfit raises here, naming the field."""
    b, n = info.batch_size, rules.num_players
    shapes = {"hand": (b,), "trump": (b,), "shown_card": (b,), "trick": (b, n), "played": (b, n), "known": (b, n),
              "cannot_hold": (b, n), "sung_by": (b, 4), "tricks_played": (b,), "strict": (b,), "decision": (b,),
              "trick_leader": (b,), "trick_winner": (b,)}
    for name, shape in shapes.items():
        if getattr(info, name).shape != shape:
            raise ValueError(f"InfoSet.{name} has shape {getattr(info, name).shape}, expected {shape}")
    if info.mask.ndim != 2 or info.mask.shape[0] != b or info.mask.shape[1] < NUM_CARDS:
        raise ValueError(f"InfoSet.mask has shape {info.mask.shape}, expected ({b}, 47)")
    if rows.ndim != 1 or (rows.size and not (0 <= rows.min() and rows.max() < b)):
        raise ValueError(f"rows must be indices of the {b} information sets")
    bad = _out_of_range(rows, n, info.trump, info.shown_card, info.trick, info.trick_leader, info.trick_winner)
    if bad >= 0:
        raise ValueError(f"information set {bad}: trump, shown_card, trick, trick_leader or trick_winner out of range")


@numba.njit(cache=True)
def _out_of_range(rows, n, trump, shown_card, trick, trick_leader, trick_winner):
    """The first row whose card and seat fields index out of their tables, or -1."""
    for r in rows:
        ok = 0 <= trump[r] < 4 and -1 <= shown_card[r] < NUM_CARDS and -1 <= trick_leader[r] < n
        ok = ok and -1 <= trick_winner[r] < n
        for k in range(n):
            ok = ok and -1 <= trick[r, k] < NUM_CARDS
        if not ok:
            return r
    return -1


@numba.njit(cache=True)
def _card_values(rows, flags, legal, hand, trump, shown_card, trick, played, known, cannot_hold, sung_by,
                 tricks_played, strict, decision, trick_leader, trick_winner):
    out = np.empty((len(rows), NUM_CARDS))
    for i in range(len(rows)):
        r = rows[i]
        out[i] = _row_values(flags, legal[r], hand[r], trump[r], shown_card[r], trick[r], played[r], known[r],
                             cannot_hold[r], sung_by[r], tricks_played[r], strict[r], decision[r],
                             trick_leader[r], trick_winner[r])
    return out


@numba.njit(cache=True)
def _row_values(flags, legal, hand, trump, shown_card, trick, played, known, cannot_hold, sung_by,
                tricks_played, strict, decision, trick_leader, trick_winner):
    """One information set's card values: the rules of the module docstring in order."""
    n, num_tricks = flags[0], flags[1]
    partnership, has_stock, side_sings, forty_first, tute_on = (flags[2:] != 0)
    t = np.intp(trump)
    all_played = _ZERO
    for k in range(n):
        all_played |= played[k]
    hidden = ALL_CARDS & ~hand & ~all_played
    if has_stock and shown_card >= 0:
        hidden &= ~BIT[shown_card]  # the turned card lies on the table (drawn last, or out of play)
    tricks_left = num_tricks - tricks_played
    following = decision == FOLLOW
    table_points, n_later = 0.0, 0
    later = np.zeros(n, np.bool_)  # seats still to play this trick (for a lead: everyone)
    for k in range(n):
        if trick[k] >= 0:
            table_points += _POINTS[trick[k]]
        elif k > 0:
            later[k] = True
            n_later += 1
    seat_known, seat_free, log_miss = _count_cards(n, hand, hidden, known, cannot_hold, trick)
    odds = _odds(n, t, seat_known, seat_free, log_miss)
    led_suit = CARD_SUIT[trick[trick_leader]] if following else -1
    best = max(trick[trick_winner], 0) if trick_winner >= 0 else 0  # the card winning the trick
    beats = beating_set(best, t) if following else ALL_CARDS  # the cards that would win it now

    partner_winning = partnership and following and trick_winner == 2
    partner_later = partnership and later[2]
    p_partner_safe = 0.0  # the partner's card against later opponents
    if partner_winning:
        p_partner_safe = _safety(best, n, partnership, t, led_suit, later, table_points, strict,
                                 seat_known, seat_free, log_miss, odds)[0]
    partner = 2 % n  # seat 2, the partner (read only with partnerships)
    lead_rescue = np.zeros(4)  # read only when leading
    if not following:
        lead_rescue = _lead_rescue(partnership, t, hidden, seat_known[partner], seat_free[partner], log_miss[partner])
    cante_value, top, second, top_suit, tute_cards = _cantes(hand, t, sung_by, forty_first, tute_on)
    my_trumps, their_trumps = card_count(hand & SUIT_SET[t]), card_count(hidden & SUIT_SET[t])
    draw = my_trumps >= their_trumps and their_trumps > 0

    extra = (EXTRA_PER_LATER_CARD if strict else EXTRA_FREE) * n_later
    out = np.full(NUM_CARDS, -np.inf)
    for c in range(NUM_CARDS):
        if not legal[c]:
            continue
        # R1, R2, R4: the chances that no later opponent beats c, that the side and the
        # player win the trick with it.
        p_safe, p_lead_safe = _safety(c, n, partnership, t, led_suit, later, table_points, strict,
                                      seat_known, seat_free, log_miss, odds)
        suit = CARD_SUIT[c]
        is_trump = suit == t
        master = (STRONGER[c] & hidden) == _ZERO  # no unknown card beats it
        wins_now = (beats & BIT[c]) != _ZERO
        p_side = p_safe if wins_now else (p_partner_safe if partner_winning else 0.0)
        rescue = (PARTNER_RESCUE if partner_later else 0.0) if following else lead_rescue[suit]
        if not (partner_winning and not wins_now):
            p_side = p_side + (1 - p_side) * rescue
        p_mine = p_safe if wins_now else 0.0
        # R2, R6: the points at stake.
        worth = table_points + _POINTS[c] + extra + (10.0 if tricks_left == 1 else 0.0)
        value = (2 * p_side - 1) * worth
        sing_after = second if _BREAKS[c, top_suit] else top
        if tute_on and tute_cards != _ZERO and (BIT[c] & tute_cards) == _ZERO:
            sing_after = max(sing_after, 100.0)
        if tricks_left == 1:
            sing_after = 0.0
        value += SING_NOW * (p_side if side_sings else p_mine) * sing_after
        value -= _keep(c, is_trump, master, p_lead_safe, strict, tricks_left, cante_value, tute_cards)
        # R5: leading a sure winner, or the top trump when long in trumps.
        if decision == LEAD:
            if p_safe > 0.9 and not is_trump:
                value += CASH_BONUS
            if is_trump and master and draw:
                value += DRAW_TRUMPS_BONUS
        out[c] = value - _TIE_KEY[t, c]
    return out


@numba.njit(cache=True)
def _count_cards(n, hand, hidden, known, cannot_hold, trick):
    """R1, card counting: per seat (index 0, the observer, unused) the unknown-location cards
    known to be there, those it may hold, and log(1 - q), q the chance a given one is there."""
    hand_count = float(card_count(hand))
    known_any = _ZERO
    for k in range(1, n):
        known_any |= known[k] & hidden
    seat_known = np.zeros(n, U64)
    seat_free = np.zeros(n, U64)
    log_miss = np.zeros(n)
    for k in range(1, n):
        kn = known[k] & hidden
        poss = hidden & ~cannot_hold[k] & ~(known_any & ~kn)
        free = poss & ~kn
        slots = max(hand_count - (1.0 if trick[k] >= 0 else 0.0) - card_count(kn), 0.0)
        q = min(max(slots / max(card_count(free), 1), 0.0), 1.0)
        seat_known[k], seat_free[k], log_miss[k] = kn, free, np.log1p(-min(q, 1 - 1e-9))
    return seat_known, seat_free, log_miss


@numba.njit(cache=True)
def _p_any(known, free, log_miss, cards):
    """P(a seat holds at least one of ``cards``)."""
    if (cards & known) != _ZERO:
        return 1.0
    return 1 - np.exp(card_count(cards & free) * log_miss)


@numba.njit(cache=True)
def _odds(n, t, seat_known, seat_free, log_miss):
    """(n, 5) per seat: the chance to hold any trump (column 4) and to be void in each suit."""
    odds = np.zeros((n, 5))
    for k in range(1, n):
        odds[k, 4] = _p_any(seat_known[k], seat_free[k], log_miss[k], SUIT_SET[t])
        for s in range(4):
            odds[k, s] = 1 - _p_any(seat_known[k], seat_free[k], log_miss[k], SUIT_SET[s])
    return odds


@numba.njit(cache=True)
def _p_beat(p_higher, p_trumps, p_void, suit, of_suit, is_trump, t, will, strict):
    """The chance a seat beats card c, were c winning the trick: ``p_higher``, its chance to
    hold a higher card of c's suit; ``suit``, the trick's suit; ``of_suit``, c is of it."""
    if strict:
        if of_suit:
            p = p_higher + (0.0 if suit == t else p_void[suit] * p_trumps)
        else:
            p = p_void[suit] * p_higher if is_trump else 0.0
    else:
        p = p_higher if is_trump else p_higher + (1 - p_higher) * p_trumps * will
    return min(max(p, 0.0), 1.0)


@numba.njit(cache=True)
def _safety(c, n, partnership, t, led_suit, later, table_points, strict, seat_known, seat_free, log_miss, odds):
    """R1: the chances that no later opponent beats card c in this trick, and were c led now."""
    own = CARD_SUIT[c]
    suit = led_suit if led_suit >= 0 else own
    is_trump = own == t
    will = FREE_TRUMP_WILL_RICH if table_points + _POINTS[c] >= 10 else FREE_TRUMP_WILL
    p_safe, p_lead_safe = 1.0, 1.0
    for k in range(1, n):
        if partnership and k == 2:
            continue
        p_higher = _p_any(seat_known[k], seat_free[k], log_miss[k], STRONGER[c])
        if later[k]:
            p_safe *= 1 - _p_beat(p_higher, odds[k, 4], odds[k], suit, own == suit, is_trump, t, will, strict)
        p_lead_safe *= 1 - _p_beat(p_higher, odds[k, 4], odds[k], own, True, is_trump, t, will, strict)
    return p_safe, p_lead_safe


@numba.njit(cache=True)
def _lead_rescue(partnership, t, hidden, known, free, log_miss):
    """R4: (4,) per suit, the chance the partner rescues a lead that looks lost: higher when the
    partner is known void in it (and may trump) or holds its known master."""
    rescue = np.full(4, PARTNER_RESCUE if partnership else 0.0)
    if not partnership:
        return rescue
    may_trump = _p_any(known, free, log_miss, SUIT_SET[t]) > 0
    unknown = hidden & ~known
    for s in range(4):
        if s != t and may_trump and (hidden & SUIT_SET[s]) != _ZERO and ((known | free) & SUIT_SET[s]) == _ZERO:
            rescue[s] = PARTNER_VOID_RESCUE
        for c in range(s * NUM_FACES, (s + 1) * NUM_FACES):  # a known card with nothing unknown above
            if (known & BIT[c]) != _ZERO and (STRONGER[c] & unknown) == _ZERO:
                rescue[s] = PARTNER_MASTER_RESCUE
    return rescue


@numba.njit(cache=True)
def _cantes(hand, t, sung_by, forty_first, tute_on):
    """R2: the cantes in hand: each suit's singable pair's points, the best and second best of
    them and the best one's suit (a card that breaks it leaves the second to sing), and the four
    kings and/or knights held (0 with Tute off)."""
    sang_twenty = False
    for s in range(4):
        sang_twenty |= sung_by[s] == 0 and s != t
    cante_value = np.zeros(4)
    for s in range(4):
        singable = (hand & PAIR_SET[s]) == PAIR_SET[s] and sung_by[s] < 0
        if forty_first and s == t and sang_twenty:
            singable = False
        if singable:
            cante_value[s] = 40.0 if s == t else 20.0
    top_suit = np.argmax(cante_value)
    top, second = cante_value[top_suit], 0.0
    for s in range(4):
        if s != top_suit:
            second = max(second, cante_value[s])
    tute_cards = _ZERO
    if tute_on:
        if (hand & KINGS) == KINGS:
            tute_cards |= KINGS
        if (hand & KNIGHTS) == KNIGHTS:
            tute_cards |= KNIGHTS
    return cante_value, top, second, top_suit, tute_cards


@numba.njit(cache=True)
def _keep(c, is_trump, master, p_lead_safe, strict, tricks_left, cante_value, tute_cards):
    """R3, R6: what card c is worth kept in the hand."""
    keep = KEEP_POINT_SHARE * _POINTS[c] * (2 * p_lead_safe - 1)
    keep += (STRENGTH_KEEP if strict else STRENGTH_KEEP_FREE) * _STRENGTH[c]
    if master and p_lead_safe > 0.7:
        keep += MASTER_KEEP
    if is_trump:
        keep += TRUMP_BASE + TRUMP_PER_STRENGTH * _STRENGTH[c]
        if master and tricks_left <= 3:
            keep += LAST_TRUMP_KEEP
    suit = CARD_SUIT[c]
    if tricks_left >= 2 and _BREAKS[c, suit]:
        keep += cante_value[suit] * PAIR_KEEP
    if (BIT[c] & tute_cards) != _ZERO:
        keep += TUTE_KEEP
    return keep
