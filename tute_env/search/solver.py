"""An exact double-dummy solver for Tute: the value of every legal action when all cards are known.

>>> import numpy as np
>>> from tute_env.engine.core import Game
>>> from tute_env.search.solver import Solver
>>> game = Game("partnership")
>>> state = game.random_state(np.random.default_rng(0), batch_size=1)   # a whole deal
>>> solver = Solver("partnership", point_weight=0.0)
>>> values = solver.action_values(state)      # (1, 47) float64, NaN where illegal
>>> solver.value(state)                       # (1,): the best of them, for the seat to act
>>> Solver("two_player", max_seconds=10.0)    # past 10 s a lane: SolverBudgetExceeded
>>> low, high = Solver("partnership", max_seconds=1.0).action_bounds(state)  # or the bounds proven in 1 s

**What it solves.** For each lane of a :class:`tute_env.engine.core.State`, the value of each legal
action of the seat to act when every seat plays optimally and every card is known: the hands,
the stock in its drawing order and the turned card (double dummy). A value is the "win" hand
reward of :mod:`tute_env.engine.scoring` for the seat to act (:func:`tute_env.engine.scoring.hand_rewards`
with ``reward="win"`` and ``point_weight=point_weight``: the games won, or the loser's share
of them, plus ``point_weight`` times the point difference / 230), the same number the reward
of the finished hand gives. The seat's side maximises it and the other side(s) minimise it:
with three players the search is *paranoid* (the seat to act against the other two). Every
preset and rule option is solved, since the solver plays by the core's own compiled rules
(:func:`tute_env.engine.core.legal_set`, :func:`tute_env.engine.core.step_lane`): declarations (R8), Tute
(R8b), the exchange (R7), the last trick's 10 and the ties (R9), draws from the stock (R4, R6).
The match options (R10) play no part: a value is that of the hand.

**The algorithm** (after bridge solvers, e.g. Bo Haglund's DDS):

* alpha-beta search, fail-soft, written as a loop over an explicit stack of one-lane states
  (copy-make: each ply copies the parent's lane into the next lane of a stack ``State`` and
  steps it with the core's rules);
* MTD(f) at the root: the exact value of each root action is found by zero-window tests
  ("is the value at least g?") whose bounds close on it; the next action's test starts from
  the last value. Values are floats, but each is one of the finished hands' rewards, selected
  by max and min without arithmetic, so ``numpy.nextafter`` gives exact zero windows. When
  the guess is off, the tests step away from it by growing steps, then bisect the bounds;
* a transposition table of lower and upper bounds of the positions between tricks (in mid-trick
  few positions recur: they are neither keyed, probed nor stored), keyed by what remains: every
  hand, the trick in progress, the seat and kind of decision, the stock position and turned
  card, cantes sung and the rights to sing, the exchange and the order in which sides last won a
  trick (R9's tie). The points taken and sung so far are not in the key but kept with each
  bound: a value never falls as the side's points so far rise and the others' fall (with a point
  weight >= 0), so a bound found at some totals holds at totals that dominate them (lines of
  play that reach the same cards with other points share entries). The key is by relative rank,
  as in bridge solvers: in each suit the pointless cards still in play are relabelled 7, 6, 5,
  ... from the strongest down (they rank below every card worth points, so points and rank order
  are kept), and positions alike but for which pointless cards are gone share an entry (the
  trumps keep their names while the exchange may still take one). Exact keys (four words), two
  entries a bucket (one kept for the larger position, one always replaced), generations instead
  of clearing; its memory is bounded by ``table_mb``;
* a forced move (one legal action) below the root is played in place, with no key, table
  probe or copy of the lane;
* bounds from the totals each side can still reach (the points now, up to every point left
  in play, its cantes and the last trick's 10; Tute (R8b) wins whatever the points), less
  the sure points (DDS's quick tricks, in points): the side holding the strongest trumps in
  play takes their points, since each wins its trick once played: a position between tricks
  whose outcome is decided, or outside the window, is not searched further;
* move ordering: the table's best move, then declarations, the exchange, and cards by a rule
  of thumb (win a trick cheaply, give points to a partner's winning card, throw cheap cards),
  with a history of the cards that cut off before;
* equivalent cards merged: cards of one suit held by the seat to act, worth no points (7, 6,
  5, 4, 2) with no other card of the suit still in play (hands, stock, turned card, the trick)
  ranked between them, and not the card that could take the turned card (R7), are equivalent:
  swapping them maps every line of play to one with the same legality, the same trick winners
  and the same points. Only one of them is searched; the others get its value.

**Limits.** The search is exact, so its cost grows with what is left: a partnership deal from
the first lead takes a fraction of a second at the median but seconds at the tail (more with a
point weight, whose point difference counts to the last card), a two-player game once the
stock is gone a millisecond or less, and a two-player game from the first lead with its long
free stock phase (R4, R6) is out of reach (docs/solver_speed.md has the figures). ``max_nodes`` and ``max_seconds`` bound one lane's search: past them
:class:`SolverBudgetExceeded` (a ``ValueError``) is raised instead of running on, or, with
:meth:`Solver.action_bounds`, the bounds proven so far are returned (exact for the actions
solved). ``same_deal=True`` keeps the transposition table from one call to the next for positions
of one deal (the decisions of a recorded hand: :mod:`tute_env.search.analysis`). Lanes are
solved one after the other, on one core. A finished lane has no action values and is refused
(``ValueError``), as is anything that is not a State of the solver's rules
(the core's state checks, ``state_misfit`` and ``check_state``).
"""

from __future__ import annotations

import dataclasses
import time

import numba
import numpy as np
from llvmlite import ir as llvm_ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from ..engine.cards import (
    ALL_CARDS,
    BIT,
    CARD_POINTS,
    CARD_STRENGTH,
    CARD_SUIT,
    EXCHANGE,
    KINGS,
    KNIGHTS,
    LAST_TRICK_BONUS,
    NUM_ACTIONS,
    NUM_CARDS,
    PAIR_SET,
    PASS,
    SING_BASE,
    SUIT_SET,
    TUTE,
    U64,
    beating_set,
)
from ..engine.checks import state_error, state_misfit
from ..engine.core import Game, State
from ..engine.kernel import (
    CFG_DOUBLE_OVER_100,
    CFG_EXCHANGE,
    CFG_N,
    CFG_TURNED_DRAWN,
    CFG_TUTE_RULE,
    LEVEL_ALL,
    check_state,
    exchange_gives,
    legal_set,
    side_of,
    step_lane,
)
from ..engine.rules import Rules
from ..engine.scoring import MAX_HAND_POINTS

__all__ = ["Solver", "SolverBudgetExceeded"]

#: Bytes of one transposition-table entry: the key (5 x 8), two bounds (2 x 8), meta (8).
ENTRY_BYTES = 64


class SolverBudgetExceeded(ValueError):
    """A lane's search went past ``max_nodes`` or ``max_seconds`` (:class:`Solver`) unfinished."""


# Search counters and settings (``ctx``, int64) and the float settings (``fctx``).
_MAX_SIDE, _NODES, _NODE_LIMIT, _EXCEEDED, _GEN, _MERGE, _TIMED = range(7)
_POINT_WEIGHT, _DEADLINE = range(2)
# Per-depth search registers: ``fw`` (float64) and ``iw`` (int64).
_ALPHA, _BETA, _ALPHA0, _BETA0, _BEST = range(5)
_NMOVES, _NEXT, _BEST_MOVE, _MAXIMISING = range(4)
_ENTER, _RETURN, _CHOOSE = range(3)
_ZERO, _ONE = U64(0), U64(1)
_M40 = U64((1 << 40) - 1)
_MIX1, _MIX2 = U64(0xBF58476D1CE4E5B9), U64(0x94D049BB133111EB)
_GEN_MASK = U64(0xFFFFFFFF)
# Side totals so far in a key's fifth word: _POINT_BITS a side; an entry keeps two such words
# (where its lower and its upper bound were found) in one.
_POINT_BITS = 10
_POINT_MASK = U64((1 << _POINT_BITS) - 1)
_POINTS_SHIFT = 30
_POINTS_MASK = U64((1 << _POINTS_SHIFT) - 1)
_CLOCK_EVERY = 4096  # nodes between looks at the clock, with max_seconds
# Cards of each suit from the strongest down (A 3 R C S 7 6 5 4 2).
# The index of a one-bit set: _BIT_INDEX[(bit * _DEBRUIJN) >> 58] (a de Bruijn sequence).
_DEBRUIJN = U64(0x03F79D71B4CB0A89)
_BIT_INDEX = np.zeros(64, np.int64)
for _i in range(64):
    _BIT_INDEX[((1 << _i) * 0x03F79D71B4CB0A89 % (1 << 64)) >> 58] = _i
_SUIT_POINTS = np.array([sum(int(CARD_POINTS[c]) for c in range(10) if m >> c & 1) for m in range(1024)], np.int64)
_SUIT_ORDER = np.array(
    [sorted(range(s * 10, s * 10 + 10), key=lambda c: -int(CARD_STRENGTH[c])) for s in range(4)], np.int64
)
# The five cards of each suit worth no points (7 6 5 4 2) rank below the five that are worth
# some (A 3 R C S): relabelling the first, in order, keeps every card's points and rank order.
assert all(CARD_POINTS[c] > 0 for c in _SUIT_ORDER[:, :5].ravel())
assert all(CARD_POINTS[c] == 0 for c in _SUIT_ORDER[:, 5:].ravel())
_POINTLESS = U64(sum(1 << int(c) for c in _SUIT_ORDER[:, 5:].ravel()))


# The search's functions are compiled without numba's reference counting (as the core's rules:
# they allocate nothing, every array is the caller's): a call passing the 32 arrays of a State
# would otherwise count 32 references in and out.
_hot = numba.njit(cache=True, error_model="numpy", _nrt=False)
# Those that take the State's arrays are inlined into the search (as the core's rules are): a call
# passes the 32 arrays' fields one by one.
_inline = numba.njit(cache=True, error_model="numpy", _nrt=False, inline="always")


@numba.njit(cache=True)
def _clock():
    """time.perf_counter(), from compiled code."""
    with numba.objmode(now="float64"):
        now = time.perf_counter()
    return now


# ----------------------------------------------------------------------------------------------
# One lane of the search stack: copy, key, value of a finished hand
# ----------------------------------------------------------------------------------------------
@_inline
def _make_child(cfg, st, buf, d, action):
    """Lane ``d + 1`` of the stack becomes lane ``d`` after ``action`` (copy-make: a lane is a
    row of ``buf``, which every field of the stack's State views), by the core's rules."""
    for j in range(buf.shape[1]):
        buf[d + 1, j] = buf[d, j]
    step_lane(cfg, st, d + 1, action)
    st.legal[d + 1] = legal_set(cfg, st, d + 1)


@_inline
def _load_lane(st, src, lane):
    """Lane 0 of the stack becomes lane ``lane`` of the State arrays ``src``, field by field."""
    for j in range(src.hands.shape[1]):
        st.hands[0, j] = src.hands[lane, j]
    for j in range(src.played.shape[1]):
        st.played[0, j] = src.played[lane, j]
    for j in range(src.known.shape[1]):
        st.known[0, j] = src.known[lane, j]
    for j in range(src.cannot_hold.shape[1]):
        st.cannot_hold[0, j] = src.cannot_hold[lane, j]
    for j in range(src.trick.shape[1]):
        st.trick[0, j] = src.trick[lane, j]
    st.trick_leader[0] = src.trick_leader[lane]
    st.trick_size[0] = src.trick_size[lane]
    st.best_card[0] = src.best_card[lane]
    st.best_seat[0] = src.best_seat[lane]
    st.current[0] = src.current[lane]
    st.decision[0] = src.decision[lane]
    st.dealer[0] = src.dealer[lane]
    st.trump[0] = src.trump[lane]
    st.turned_card[0] = src.turned_card[lane]
    for j in range(src.stock.shape[1]):
        st.stock[0, j] = src.stock[lane, j]
    st.stock_next[0] = src.stock_next[lane]
    st.to_draw[0] = src.to_draw[lane]
    st.tricks_played[0] = src.tricks_played[lane]
    st.last_winner[0] = src.last_winner[lane]
    for j in range(src.last_won.shape[1]):
        st.last_won[0, j] = src.last_won[lane, j]
    for j in range(src.card_points.shape[1]):
        st.card_points[0, j] = src.card_points[lane, j]
    for j in range(src.last_trick_bonus.shape[1]):
        st.last_trick_bonus[0, j] = src.last_trick_bonus[lane, j]
    for j in range(src.cante_points.shape[1]):
        st.cante_points[0, j] = src.cante_points[lane, j]
    for j in range(src.sung_by.shape[1]):
        st.sung_by[0, j] = src.sung_by[lane, j]
    for j in range(src.sang_twenty.shape[1]):
        st.sang_twenty[0, j] = src.sang_twenty[lane, j]
    for j in range(src.declared.shape[1]):
        st.declared[0, j] = src.declared[lane, j]
    st.exchanged[0] = src.exchanged[lane]
    st.tute_declarer[0] = src.tute_declarer[lane]
    st.done[0] = src.done[lane]
    st.winner[0] = src.winner[lane]
    st.games[0] = src.games[lane]
    st.legal[0] = src.legal[lane]


@_hot
def _u(x):
    return U64(np.int64(x))


@_inline
def _relabel(cfg, st, d, canon, inv):
    """Relative ranks: the pointless cards of each suit still in play, strongest first, are
    relabelled the suit's 7, 6, 5, ... (``canon[c]``, and back: ``inv``; identity for the others).
    Positions alike but for which pointless cards are gone play alike (same legality, trick
    winners and points), so they share a key; the trumps are kept as they are while the
    exchange (R7) may still give a trump card for the turned card. Returns the cards relabelled."""
    live = _in_play(st, d)
    kept = -1
    if cfg[CFG_EXCHANGE] != 0 and not st.exchanged[d] and st.turned_card[d] >= 0:
        kept = st.trump[d]
    moved = _ZERO
    for suit in range(4):
        slot = 5
        for k in range(5, 10):
            c = _SUIT_ORDER[suit, k]
            target = c
            if suit != kept and (live & BIT[c]) != _ZERO:
                target = _SUIT_ORDER[suit, slot]
                slot += 1
                if target != c:
                    moved |= BIT[c]
            canon[c] = target
            inv[target] = c
    return moved


@_hot
def _relabel_set(cards, moved, canon):
    """The set ``cards`` relabelled (``_relabel``)."""
    x = cards & moved
    if x == _ZERO:
        return cards
    out = cards & ~moved
    while x != _ZERO:
        low = x & (~x + _ONE)
        x ^= low
        out |= BIT[canon[_BIT_INDEX[(low * _DEBRUIJN) >> U64(58)]]]
    return out


@_hot
def _relabel_card(card, canon):
    """A card (or -1, or a non-card action) relabelled (``_relabel``)."""
    if 0 <= card < NUM_CARDS and (_POINTLESS >> U64(card)) & _ONE:
        return np.int64(canon[card])
    return np.int64(card)


@_inline
def _key(cfg, st, d, out, canon, inv):
    """The exact key of lane ``d``: what remains (what decides the rest of the hand, given the
    deal's trump and stock order, fixed during a search) in ``out[0:4]``, its pointless cards
    relabelled by relative rank (``_relabel``, which writes ``canon`` and ``inv``), and each
    side's points so far (cards and cantes, _POINT_BITS each) in ``out[4]``; returns the hash of
    what remains."""
    n = st.hands.shape[1]
    sides = st.card_points.shape[1]
    moved = _relabel(cfg, st, d, canon, inv)
    h0 = _relabel_set(st.hands[d, 0], moved, canon)
    h1 = _relabel_set(st.hands[d, 1], moved, canon)
    t0 = _u(_relabel_card(st.trick[d, 0], canon) + 1)
    t1 = _u(_relabel_card(st.trick[d, 1], canon) + 1)
    h2 = _relabel_set(st.hands[d, 2], moved, canon) if n > 2 else _ZERO
    t2 = _u(_relabel_card(st.trick[d, 2], canon) + 1) if n > 2 else _ZERO
    h3 = _relabel_set(st.hands[d, 3], moved, canon) if n > 3 else _ZERO
    t3 = _u(_relabel_card(st.trick[d, 3], canon) + 1) if n > 3 else _ZERO
    w0 = h0 | (h1 << U64(40))
    w1 = (h1 >> U64(24)) | (h2 << U64(16)) | (t0 << U64(56))
    w2 = h3 | (t1 << U64(40)) | (t2 << U64(46)) | (t3 << U64(52))
    w2 |= (_u(st.current[d] + 1) << U64(58)) | (_u(st.decision[d] + 1) << U64(61))
    turned = _relabel_card(st.turned_card[d], canon) if st.turned_card[d] >= 0 else -1
    w3 = _u(st.trick_leader[d]) | (_u(st.stock_next[d]) << U64(2)) | (_u(turned + 1) << U64(7))
    w3 |= _u(st.exchanged[d]) << U64(13)
    for suit in range(4):
        w3 |= _u(st.sung_by[d, suit] + 1) << U64(14 + 3 * suit)
    for seat in range(n):
        w3 |= (_u(st.sang_twenty[d, seat]) << U64(26 + seat)) | (_u(st.declared[d, seat]) << U64(30 + seat))
    w3 |= (_u(st.last_winner[d] + 1) << U64(34)) | (_u(st.tricks_played[d]) << U64(37))
    points = _ZERO
    for sd in range(sides):
        rank = 0  # R9's tie: only the order of the sides' last tricks won matters
        for other in range(sides):
            rank += st.last_won[d, other] < st.last_won[d, sd]
        w3 |= _u(rank) << U64(42 + 2 * sd)
        points |= _u(st.card_points[d, sd] + st.cante_points[d, sd]) << U64(_POINT_BITS * sd)
    out[0], out[1], out[2], out[3], out[4] = w0, w1, w2, w3, points
    x = w0
    for w in (w1, w2, w3):
        x = _mix(x ^ w)
    return _mix(x)


@_hot
def _mix(x):
    """splitmix64's finaliser."""
    x = (x ^ (x >> U64(30))) * _MIX1
    x = (x ^ (x >> U64(27))) * _MIX2
    return x ^ (x >> U64(31))


@_hot
def _reward(cfg, sides, won, games, own, others_sum, point_weight):
    """The "win" hand reward (tute_env.engine.scoring.hand_rewards) of a seat whose side ``won`` or not
    a hand credited ``games``, its side's total ``own`` and the other sides' ``others_sum``
    (floats): the same formula, term by term in numpy's order (tests/test_solver.py checks it
    equals hand_rewards). Monotone in each number, so bounds on them bound it."""
    n = cfg[CFG_N]
    per_side = n // sides
    value = games if won else -games * per_side / (n - per_side)
    if point_weight != 0.0:
        others = others_sum / (sides - 1)
        value = value + point_weight * ((own - others) / MAX_HAND_POINTS)
    return value


@_inline
def _final_value(cfg, st, d, max_side, point_weight):
    """The reward of the finished lane ``d`` for the seats of ``max_side``."""
    sides = st.card_points.shape[1]
    total_all, own = 0.0, 0.0
    for sd in range(sides):
        total = np.float64(st.card_points[d, sd] + st.last_trick_bonus[d, sd] + st.cante_points[d, sd])
        total_all += total
        if sd == max_side:
            own = total
    return _reward(cfg, sides, st.winner[d] == max_side, np.float64(st.games[d]), own, total_all - own, point_weight)


@_hot
def _points(cards):
    """Card points of a set of cards."""
    return (_SUIT_POINTS[cards & U64(1023)] + _SUIT_POINTS[(cards >> U64(10)) & U64(1023)]
            + _SUIT_POINTS[(cards >> U64(20)) & U64(1023)] + _SUIT_POINTS[(cards >> U64(30)) & U64(1023)])


@_inline
def _sure_trump_points(cfg, st, d, live):
    """(side, points): the side whose seats hold the strongest trumps in play (``live``: the
    hands, the trick, the stock and the turned card) and the points of that run of trumps held
    (-1, 0.0 if a card in the trick, the stock or the turned card is the strongest). Each card of
    the run wins its trick for the side whenever it is played (only a stronger trump beats it,
    and those are the side's own), so once every card is to be played (no Tute may end the
    hand) the side is sure to take those points, and the other sides can no longer take them."""
    trump = st.trump[d]
    held = _ZERO
    for seat in range(st.hands.shape[1]):
        held |= st.hands[d, seat]
    side, points = -1, 0
    for k in range(10):
        c = _SUIT_ORDER[trump, k]
        bit = BIT[c]
        if (live & bit) == _ZERO:
            continue  # played: beats nothing now
        if (held & bit) == _ZERO:
            break  # in the trick, the stock or turned: the run ends
        owner = -1
        for seat in range(st.hands.shape[1]):
            if (st.hands[d, seat] & bit) != _ZERO:
                owner = side_of(cfg, seat)
        if side >= 0 and owner != side:
            break
        side = owner
        points += CARD_POINTS[c]
    return side, np.float64(points)


@_inline
def _reachable_value_bounds(cfg, st, d, max_side, point_weight):
    """(lo, hi): bounds on lane ``d``'s value, from the totals each side can still reach: now,
    to now + every point left in play (the cards, the last trick's 10, the cantes it may still
    sing); a side that may still declare Tute (R8b) may win whatever the points."""
    sides = st.card_points.shape[1]
    n = cfg[CFG_N]
    drawing = st.to_draw[d] > 0
    pending = _ZERO  # cards not yet played that may still be drawn
    for k in range(st.stock_next[d], st.stock.shape[1]):
        pending |= BIT[st.stock[d, k]]
    if st.turned_card[d] >= 0 and cfg[CFG_TURNED_DRAWN] != 0:
        pending |= BIT[st.turned_card[d]]
    unplayed = pending
    in_trick = _ZERO
    for seat in range(n):
        unplayed |= st.hands[d, seat]
        if st.trick[d, seat] >= 0:
            in_trick |= BIT[st.trick[d, seat]]
    left = np.float64(_points(unplayed | in_trick) + LAST_TRICK_BONUS)
    any_tute = False
    for seat in range(n):
        reach = st.hands[d, seat] | (pending if drawing else _ZERO)
        any_tute |= cfg[CFG_TUTE_RULE] != 0 and ((reach & KINGS) == KINGS or (reach & KNIGHTS) == KNIGHTS)
    sure_side, sure = -1, 0.0  # no Tute may end the hand early: every card is played
    if not any_tute:
        live = unplayed | in_trick | (BIT[st.turned_card[d]] if st.turned_card[d] >= 0 else _ZERO)
        sure_side, sure = _sure_trump_points(cfg, st, d, live)
    own_lo = own_hi = others_lo = others_hi = 0.0
    other_lo_max = other_hi_max = -1.0
    own_tute = other_tute = False
    for sd in range(sides):
        can_sing, tute = 0, False
        for seat in range(sd, n, sides):  # the seats of side sd
            reach = st.hands[d, seat] | (pending if drawing else _ZERO)
            tute |= cfg[CFG_TUTE_RULE] != 0 and ((reach & KINGS) == KINGS or (reach & KNIGHTS) == KNIGHTS)
            for suit in range(4):
                if st.sung_by[d, suit] < 0 and (reach & PAIR_SET[suit]) == PAIR_SET[suit]:
                    can_sing |= 1 << suit
        sung = 0
        for suit in range(4):
            if can_sing >> suit & 1:
                sung += 40 if suit == st.trump[d] else 20
        lo = np.float64(st.card_points[d, sd] + st.cante_points[d, sd])
        hi = lo + left + sung
        if sd == sure_side:
            lo += sure
        elif sure_side >= 0:
            hi -= sure
        if sd == max_side:
            own_lo, own_hi, own_tute = lo, hi, tute
        else:
            others_lo, others_hi = others_lo + lo, others_hi + hi
            other_lo_max, other_hi_max = max(other_lo_max, lo), max(other_hi_max, hi)
            other_tute |= tute
    double = cfg[CFG_DOUBLE_OVER_100] != 0
    tute_games = 2.0 if cfg[CFG_TUTE_RULE] == 1 else 1.0
    win_lo = 2.0 if double and own_lo > 100 and (not own_tute or tute_games == 2.0) else 1.0
    win_hi = 2.0 if (double and own_hi > 100) or (own_tute and tute_games == 2.0) else 1.0
    loss_lo = 2.0 if double and sides == 2 and other_lo_max > 100 and (not other_tute or tute_games == 2.0) else 1.0
    loss_hi = 2.0 if (double and other_hi_max > 100) or (other_tute and tute_games == 2.0) else 1.0
    win_sure = not other_tute and own_lo > other_hi_max
    loss_sure = not own_tute and other_lo_max > own_hi
    if win_sure:
        low_won, low_games, high_won, high_games = True, win_lo, True, win_hi
    elif loss_sure:
        low_won, low_games, high_won, high_games = False, loss_hi, False, loss_lo
    else:
        low_won, low_games, high_won, high_games = False, loss_hi, True, win_hi
    low = min(_reward(cfg, sides, low_won, low_games, own_lo, others_hi, point_weight),
              _reward(cfg, sides, low_won, low_games, own_hi, others_lo, point_weight))
    high = max(_reward(cfg, sides, high_won, high_games, own_lo, others_hi, point_weight),
               _reward(cfg, sides, high_won, high_games, own_hi, others_lo, point_weight))
    return low, high


# ----------------------------------------------------------------------------------------------
# Moves: equivalent cards merged, then ordered
# ----------------------------------------------------------------------------------------------
@_inline
def _in_play(st, d):
    """Cards still in play in lane ``d``: the hands, the trick, the stock left, the turned card."""
    cards = _ZERO
    for seat in range(st.hands.shape[1]):
        cards |= st.hands[d, seat]
        if st.trick[d, seat] >= 0:
            cards |= BIT[st.trick[d, seat]]
    for k in range(st.stock_next[d], st.stock.shape[1]):
        cards |= BIT[st.stock[d, k]]
    if st.turned_card[d] >= 0:
        cards |= BIT[st.turned_card[d]]
    return cards


@_inline
def _merge_cards(cfg, st, d, cards, rep):
    """``cards`` (legal cards of lane ``d``) less the cards equivalent to a stronger one kept:
    runs of the seat's pointless cards of one suit with no other card in play ranked between
    them (the card that may take the turned card, R7, excepted). ``rep[c]``: the kept card each
    dropped card ``c`` stands for (written for the dropped cards only)."""
    hand = st.hands[d, st.current[d]]
    live = _in_play(st, d)
    special = -1
    if cfg[CFG_EXCHANGE] != 0 and not st.exchanged[d] and st.turned_card[d] >= 0:
        special = exchange_gives(cfg[CFG_EXCHANGE], st.trump[d], st.turned_card[d])
    out = cards
    for suit in range(4):
        if not (cards & SUIT_SET[suit]):
            continue
        kept = -1  # the run's card that is searched, -1 outside a run
        in_run = False
        for k in range(10):
            c = _SUIT_ORDER[suit, k]
            bit = BIT[c]
            if not (live & bit):
                continue  # out of play: does not break a run
            if (hand & bit) and CARD_POINTS[c] == 0 and c != special:
                if not in_run:
                    in_run, kept = True, -1
                if cards & bit:
                    if kept < 0:
                        kept = c
                    else:
                        out &= ~bit
                        rep[c] = kept
            else:
                in_run = False
    return out


@_inline
def _gen_moves(cfg, st, d, first, hist, merge, moves, scores, rep):
    """The moves of lane ``d`` into ``moves``, best first by a rule of thumb (``first`` first,
    then Tute, the exchange, cantes; cards: win a trick cheaply, give points to the side's
    winning card, throw cheap cards, lead high; then by the history of cut-offs); returns how
    many (``scores``: scratch). Equivalent cards are merged when ``merge``."""
    legal = st.legal[d]
    cards = legal & ALL_CARDS
    if merge and (cards & (cards - _ONE)) != _ZERO:
        cards = _merge_cards(cfg, st, d, cards, rep)
    count = 0
    for a in range(NUM_CARDS, NUM_ACTIONS):
        if (legal >> U64(a)) & _ONE:
            if a == TUTE:
                score = 1 << 40
            elif a == EXCHANGE:
                score = 1 << 39
            elif a == PASS:
                score = 0
            else:  # a cante, the 40 first
                score = (1 << 38) + (a - SING_BASE == st.trump[d])
            count = _insert(moves, scores, count, a, (1 << 60) if a == first else score)
    trump = st.trump[d]
    following = st.trick_size[d] > 0
    beats, ally = _ZERO, False
    if following:
        beats = beating_set(st.best_card[d], trump)
        ally = side_of(cfg, st.best_seat[d]) == side_of(cfg, st.current[d])
    x = cards
    while x != _ZERO:
        low = x & (~x + _ONE)
        x ^= low
        c = _BIT_INDEX[(low * _DEBRUIJN) >> U64(58)]
        cost = CARD_STRENGTH[c] + (10 if CARD_SUIT[c] == trump else 0)
        if not following:
            base = 200 + CARD_STRENGTH[c]  # lead high
        elif (beats & low) != _ZERO:
            base = (400 - cost) if not ally else (100 - cost)  # win it cheaply
        elif ally:
            base = 300 + CARD_POINTS[c]  # give points to the side's winning card
        else:
            base = 100 - 4 * CARD_POINTS[c] - cost  # throw a cheap card
        score = (1 << 60) if c == first else (np.int64(base) << 24) + min(hist[c], (1 << 23) - 1)
        count = _insert(moves, scores, count, c, score)
    return count


@_hot
def _insert(moves, scores, count, move, score):
    """Insertion sort of ``move`` into the first ``count`` moves, high scores first."""
    k = count
    while k > 0 and scores[k - 1] < score:
        scores[k] = scores[k - 1]
        moves[k] = moves[k - 1]
        k -= 1
    scores[k] = score
    moves[k] = move
    return count + 1


@intrinsic
def _prefetch_row(typingctx, table, row):
    """Asks the CPU to start loading the cache line of ``table[row, 0]`` (LLVM's prefetch, a hint
    with no effect on what the program computes): the table's probes miss the cache."""

    def codegen(context, builder, signature, args):
        table_type = signature.args[0]
        array = context.make_array(table_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer2(
            context, builder, array.data, cgutils.unpack_tuple(builder, array.shape),
            cgutils.unpack_tuple(builder, array.strides), table_type.layout,
            [args[1], context.get_constant(types.intp, 0)])
        i32 = llvm_ir.IntType(32)
        name = "llvm.prefetch.p0"  # the intrinsic's name with LLVM's opaque pointers (llvmlite >= 0.45)
        if not getattr(pointer.type, "is_opaque", False):  # typed pointers: an i8* argument
            pointer, name = builder.bitcast(pointer, llvm_ir.IntType(8).as_pointer()), "llvm.prefetch.p0i8"
        hint = llvm_ir.FunctionType(llvm_ir.VoidType(), [pointer.type, i32, i32, i32])
        prefetch = cgutils.get_or_insert_function(builder.module, hint, name)
        # a read (0), kept in every cache level (3), of data (1)
        builder.call(prefetch, [pointer, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return types.void(table, row), codegen


# ----------------------------------------------------------------------------------------------
# The transposition table: ``tt_key`` (E, 5) uint64, ``tt_bound`` (E, 2) lower and upper bound,
# ``tt_meta`` (E,) uint64: generation (32 bits), best move + 1 (8 bits), cards left (8 bits); the
# three are columns of one (E, 8) buffer (_table_views), so that an entry is one cache line.
# Buckets of two entries: slot 0 kept for the larger position, slot 1 always replaced.
# ----------------------------------------------------------------------------------------------
@_hot
def _dominates(points, than, max_side, sides, monotone):
    """Whether the side totals ``points`` are as good for ``max_side`` as ``than``: its own as
    high or higher, every other side's as low or lower (packed, _POINT_BITS a side). Not
    ``monotone`` (a negative point weight), only equal totals are."""
    if not monotone:
        return points == than
    for sd in range(sides):
        shift = U64(_POINT_BITS * sd)
        mine, theirs = (points >> shift) & _POINT_MASK, (than >> shift) & _POINT_MASK
        if (mine < theirs) if sd == max_side else (mine > theirs):
            return False
    return True


@_hot
def _bucket(tt_meta, hash_):
    """The first entry of ``hash_``'s bucket."""
    return np.int64(hash_ & U64(len(tt_meta) // 2 - 1)) * 2


@_hot
def _tt_lookup(tt_key, tt_meta, gen, hash_, key):
    """Index of the entry of what remains (``key[0:4]``) in this generation, or -1."""
    base = _bucket(tt_meta, hash_)
    for slot in range(base, base + 2):
        if (tt_meta[slot] & _GEN_MASK) == gen:
            same = True
            for j in range(4):
                same = same and tt_key[slot, j] == key[j]
            if same:
                return slot
    return -1


@_hot
def _bounds_at(tt_key, tt_bound, slot, points, max_side, sides, monotone):
    """The entry's bounds that hold at side totals ``points``. A value is monotone in the
    totals so far (more for ``max_side``, less for the others: never less for it, whatever the
    play), so a lower bound found at totals that ``points`` dominate holds, and an upper bound
    found at totals that dominate ``points``; so with a point weight >= 0 (``monotone``), else
    only at equal totals."""
    lo_points, hi_points = tt_key[slot, 4] & _POINTS_MASK, tt_key[slot, 4] >> U64(_POINTS_SHIFT)
    lo = tt_bound[slot, 0] if _dominates(points, lo_points, max_side, sides, monotone) else -np.inf
    hi = tt_bound[slot, 1] if _dominates(hi_points, points, max_side, sides, monotone) else np.inf
    return lo, hi


@_hot
def _store(tt_key, tt_bound, tt_meta, gen, hash_, key, lo, hi, move, size, max_side, sides, monotone):
    """Records bounds ``lo`` <= value <= ``hi`` of ``key`` (what remains, at the side totals
    ``key[4]``): into its entry if there is one (looked up again: the search below may have
    replaced the one found before), each bound replacing the entry's unless that one holds
    here already and is as tight; else into a new entry."""
    points = key[4]
    found = _tt_lookup(tt_key, tt_meta, gen, hash_, key)
    if found < 0:
        base = _bucket(tt_meta, hash_)
        found = base + 1
        old = tt_meta[base]
        if (old & _GEN_MASK) != gen or np.int64((old >> U64(40)) & U64(0xFF)) <= size:
            found = base
        for j in range(4):
            tt_key[found, j] = key[j]
        tt_key[found, 4] = points | (points << U64(_POINTS_SHIFT))
        tt_bound[found, 0], tt_bound[found, 1] = lo, hi
    else:
        old_lo, old_hi = _bounds_at(tt_key, tt_bound, found, points, max_side, sides, monotone)
        lo_points, hi_points = tt_key[found, 4] & _POINTS_MASK, tt_key[found, 4] >> U64(_POINTS_SHIFT)
        if lo > old_lo:
            tt_bound[found, 0], lo_points = lo, points
        if hi < old_hi:
            tt_bound[found, 1], hi_points = hi, points
        tt_key[found, 4] = lo_points | (hi_points << U64(_POINTS_SHIFT))
    tt_meta[found] = gen | (_u(move + 1) << U64(32)) | (_u(size) << U64(40))


@_inline
def _cards_left(st, d):
    count = 0
    for seat in range(st.hands.shape[1]):
        x = st.hands[d, seat]
        while x:
            x &= x - _ONE
            count += 1
    return count


# ----------------------------------------------------------------------------------------------
# The search
# ----------------------------------------------------------------------------------------------
@_hot
def _out_of_budget(ctx, fctx):
    """Counts a node; True (and ``ctx[_EXCEEDED]`` set) once past the node or time budget."""
    ctx[_NODES] += 1
    nodes = ctx[_NODES]
    if ctx[_NODE_LIMIT] > 0 and nodes > ctx[_NODE_LIMIT]:
        ctx[_EXCEEDED] = 1
    elif ctx[_TIMED] != 0 and nodes % _CLOCK_EVERY == 0 and _clock() > fctx[_DEADLINE]:
        ctx[_EXCEEDED] = 2
    return ctx[_EXCEEDED] != 0


@_hot
def _search(cfg, st, buf, root, alpha, beta, ctx, fctx, tt_key, tt_bound, tt_meta, hist, moves, scores, rep, fw, iw, keys, hashes, labels):
    """Fail-soft alpha-beta value of lane ``root`` of the stack, for ``ctx[_MAX_SIDE]``, within
    the window (``alpha``, ``beta``): exact inside it, a bound outside. Lanes below ``root``
    are its line of play. Returns 0.0 with ``ctx[_EXCEEDED]`` set when out of budget."""
    max_side, gen, merge = ctx[_MAX_SIDE], U64(ctx[_GEN]), ctx[_MERGE] != 0
    sides = st.card_points.shape[1]
    point_weight = fctx[_POINT_WEIGHT]
    monotone = point_weight >= 0.0  # a value never falls as the side's points so far rise
    d = root
    fw[d, _ALPHA], fw[d, _BETA] = alpha, beta
    phase = _ENTER
    value = 0.0
    while True:
        if phase == _ENTER:
            if st.done[d]:
                value = _final_value(cfg, st, d, max_side, point_weight)
                phase = _RETURN
                continue
            if _out_of_budget(ctx, fctx):
                return 0.0
            legal = st.legal[d]
            if d > root and (legal & (legal - _ONE)) == _ZERO:  # a forced move: played in place
                step_lane(cfg, st, d, _BIT_INDEX[(legal * _DEBRUIJN) >> U64(58)])
                st.legal[d] = legal_set(cfg, st, d)
                continue
            tabled = st.trick_size[d] == 0  # the table holds the positions between tricks only
            if tabled:
                hashes[d] = _key(cfg, st, d, keys[d], labels[d, 0], labels[d, 1])
                _prefetch_row(tt_key, _bucket(tt_meta, hashes[d]))  # loads while the bounds are worked out
            if tabled or d == root:
                low, high = _reachable_value_bounds(cfg, st, d, max_side, point_weight)
                if low >= fw[d, _BETA] or low == high:
                    value, phase = low, _RETURN
                    continue
                if high <= fw[d, _ALPHA]:
                    value, phase = high, _RETURN
                    continue
            a, b = fw[d, _ALPHA], fw[d, _BETA]
            found = _tt_lookup(tt_key, tt_meta, gen, hashes[d], keys[d]) if tabled else -1
            first = -1
            if found >= 0:
                lo, hi = _bounds_at(tt_key, tt_bound, found, keys[d, 4], max_side, sides, monotone)
                if lo >= b or lo == hi:
                    value, phase = lo, _RETURN
                    continue
                if hi <= a:
                    value, phase = hi, _RETURN
                    continue
                a, b = max(a, lo), min(b, hi)
                first = _relabel_card(np.int64((tt_meta[found] >> U64(32)) & U64(0xFF)) - 1, labels[d, 1])
            maximising = side_of(cfg, st.current[d]) == max_side
            iw[d, _MAXIMISING] = maximising
            fw[d, _ALPHA], fw[d, _BETA], fw[d, _ALPHA0], fw[d, _BETA0] = a, b, a, b
            fw[d, _BEST] = -np.inf if maximising else np.inf
            iw[d, _NMOVES] = _gen_moves(cfg, st, d, first, hist, merge, moves[d], scores[d], rep)
            iw[d, _NEXT] = 0
            iw[d, _BEST_MOVE] = -1
            phase = _CHOOSE
        elif phase == _RETURN:
            if d == root:
                return value
            d -= 1
            move = moves[d, iw[d, _NEXT] - 1]
            if iw[d, _MAXIMISING]:
                if value > fw[d, _BEST]:
                    fw[d, _BEST], iw[d, _BEST_MOVE] = value, move
                    fw[d, _ALPHA] = max(fw[d, _ALPHA], value)
            elif value < fw[d, _BEST]:
                fw[d, _BEST], iw[d, _BEST_MOVE] = value, move
                fw[d, _BETA] = min(fw[d, _BETA], value)
            if fw[d, _ALPHA] >= fw[d, _BETA]:  # cut off
                if move < NUM_CARDS:
                    hist[move] += max(1, 128 - d)
                iw[d, _NEXT] = iw[d, _NMOVES]
            phase = _CHOOSE
        else:  # _CHOOSE: the next child, or the node's value
            k = iw[d, _NEXT]
            if k < iw[d, _NMOVES]:
                iw[d, _NEXT] = k + 1
                _make_child(cfg, st, buf, d, moves[d, k])
                fw[d + 1, _ALPHA], fw[d + 1, _BETA] = fw[d, _ALPHA], fw[d, _BETA]
                d += 1
                phase = _ENTER
            else:
                value = fw[d, _BEST]
                lo, hi = -np.inf, np.inf
                if value <= fw[d, _ALPHA0]:
                    hi = value
                elif value >= fw[d, _BETA0]:
                    lo = value
                else:
                    lo = hi = value
                if st.trick_size[d] == 0:  # tabled (lane d as entered: its children are below it)
                    _store(tt_key, tt_bound, tt_meta, gen, hashes[d], keys[d], lo, hi,
                           _relabel_card(iw[d, _BEST_MOVE], labels[d, 0]), _cards_left(st, d), max_side, sides, monotone)
                phase = _RETURN


@_hot
def _mtdf(cfg, st, buf, root, guess, ctx, fctx, tt_key, tt_bound, tt_meta, hist, moves, scores, rep, fw, iw, keys, hashes, labels,
          proven):
    """The exact value of lane ``root`` by zero-window tests from ``guess`` (MTD(f)'s, with
    growing steps and bisection): between the bounds of the totals left (lo, hi), each test "is
    the value >= t?" raises lo or lowers hi to the fail-soft result; the next test is ``guess``'s
    own first (is the bound found the value?), then steps of growing size (one point's worth,
    doubled each time) in the direction of the last result, and once the value is bracketed (a
    result each way) the middle of the bounds. Plain MTD(f) (always test the last result) creeps
    a point at a time when the guess is far off. ``proven`` (2,): the bounds proved (both the
    value when it is found; those of the finished tests when out of budget)."""
    point_weight = fctx[_POINT_WEIGHT]
    lo, hi = _reachable_value_bounds(cfg, st, root, ctx[_MAX_SIDE], point_weight)
    base = max(abs(point_weight) / MAX_HAND_POINTS, 1e-9)
    g = min(max(guess, lo), hi)
    test = g if g > lo else np.nextafter(g, np.inf)
    step, last, bracketed = 0.0, 0, False
    while lo < hi:
        g = _search(cfg, st, buf, root, np.nextafter(test, -np.inf), test, ctx, fctx,
                    tt_key, tt_bound, tt_meta, hist, moves, scores, rep, fw, iw, keys, hashes, labels)
        if ctx[_EXCEEDED] != 0:
            break
        up = 1 if g >= test else -1  # fail-soft: the value is >= g, or <= g
        if up > 0:
            lo = max(lo, g)
        else:
            hi = min(hi, g)
        if lo >= hi:
            break
        if last != 0 and up != last:
            bracketed = True
        step = (base if step == 0.0 else 2.0 * step) if up == last or last == 0 else 0.0
        last = up
        if bracketed:
            test = lo + (hi - lo) / 2.0
        elif up > 0:
            test = lo + step
        else:
            test = hi - step if step > 0.0 else hi
        test = min(max(test, np.nextafter(lo, np.inf)), hi)
    proven[0], proven[1] = lo, hi
    return 0.0 if ctx[_EXCEEDED] != 0 else lo


@numba.njit(cache=True, error_model="numpy")  # allocates: reference counted
def _solve_lane(cfg, st, buf, src, lane, want_actions, out, bounds, ctx, fctx, tt_key, tt_bound, tt_meta, hist, moves,
                scores, rep, fw, iw, keys, hashes, labels):
    """Lane ``lane`` of the State arrays ``src``, copied into lane 0 of the stack: with
    ``want_actions``, the value of each legal action into ``out`` (47,), else the position's
    value into ``out[0]``; values for the side ``ctx[_MAX_SIDE]`` (-1: the seat to act's).
    ``bounds`` (2, 47): the lower and upper bounds proven on the same values (equal once
    found; out of budget, the tests finished and, for an action not searched, the totals its
    sides can still reach)."""
    _load_lane(st, src, lane)
    st.legal[0] = legal_set(cfg, st, 0)
    if ctx[_MAX_SIDE] < 0:  # the values are the seat to act's unless the caller said whose
        ctx[_MAX_SIDE] = side_of(cfg, st.current[0])
    hist[:] = 0
    proven = np.empty(2, np.float64)
    max_side, point_weight = ctx[_MAX_SIDE], fctx[_POINT_WEIGHT]
    if not want_actions:
        out[0] = _mtdf(cfg, st, buf, 0, 0.0, ctx, fctx, tt_key, tt_bound, tt_meta, hist, moves, scores, rep, fw, iw, keys, hashes,
                       labels, proven)
        low, high = _reachable_value_bounds(cfg, st, 0, max_side, point_weight)
        bounds[0, 0], bounds[1, 0] = max(low, proven[0]), min(high, proven[1])
        return
    root_moves = np.empty(NUM_ACTIONS, np.int8)
    root_rep = np.full(NUM_ACTIONS, -1, np.int64)
    count = _gen_moves(cfg, st, 0, -1, hist, ctx[_MERGE] != 0, root_moves, scores[0], root_rep)
    guess = 0.0
    for k in range(count):
        action = root_moves[k]
        _make_child(cfg, st, buf, 0, action)
        if st.done[1]:
            low = high = _final_value(cfg, st, 1, max_side, point_weight)
        else:
            low, high = _reachable_value_bounds(cfg, st, 1, max_side, point_weight)
        bounds[0, action], bounds[1, action] = low, high
        if ctx[_EXCEEDED] != 0:  # out of budget: the bounds of the totals left
            continue
        guess = _mtdf(cfg, st, buf, 1, guess, ctx, fctx, tt_key, tt_bound, tt_meta, hist, moves, scores, rep, fw, iw, keys,
                      hashes, labels, proven)
        bounds[0, action], bounds[1, action] = max(low, proven[0]), min(high, proven[1])
        if ctx[_EXCEEDED] == 0:
            out[action] = guess
    for c in range(NUM_CARDS):
        if root_rep[c] >= 0 and (st.legal[0] >> U64(c)) & _ONE:
            out[c] = out[root_rep[c]]
            bounds[0, c], bounds[1, c] = bounds[0, root_rep[c]], bounds[1, root_rep[c]]


# ----------------------------------------------------------------------------------------------
# The Python side
# ----------------------------------------------------------------------------------------------
class Solver:
    """Exact double-dummy values of Tute positions (see the module's documentation).

    ``Solver("partnership", point_weight=1.15).action_values(state)``.
    """

    def __init__(
        self,
        rules: Rules | str = "partnership",
        point_weight: float = 0.0,  # weight of the point difference in a value (scoring.hand_rewards)
        table_mb: float = 64.0,  # memory of the transposition table, at most (MiB; rounded down to 2^k entries)
        max_nodes: int | None = None,  # positions searched per lane before SolverBudgetExceeded
        max_seconds: float | None = None,  # seconds per lane before SolverBudgetExceeded
        merge_equivalent: bool = True,  # search one of each run of equivalent cards (exact either way)
    ):
        self.game = Game(rules)
        self.rules = self.game.rules
        self.point_weight = float(point_weight)
        if not np.isfinite(self.point_weight):
            raise ValueError(f"point_weight must be a finite number, got {point_weight!r}")
        entries = int(table_mb * 2**20) // ENTRY_BYTES
        if entries < 2:
            raise ValueError(f"table_mb={table_mb} is too small for a transposition table (2 entries of 64 bytes)")
        self.table_entries = 1 << (entries.bit_length() - 1)
        if max_nodes is not None and max_nodes < 1:
            raise ValueError(f"max_nodes must be at least 1, got {max_nodes}")
        if max_seconds is not None and not max_seconds > 0:
            raise ValueError(f"max_seconds must be positive, got {max_seconds}")
        self.max_nodes, self.max_seconds = max_nodes, max_seconds
        self.merge_equivalent = bool(merge_equivalent)
        self.nodes = 0
        """Positions searched by the last call, all lanes."""
        r = self.rules
        self._depth = r.num_tricks * (r.num_players + 3) + 2  # plies left at most, and the root
        self._stack, self._buf = _stack_state(self.game, self._depth + 1)
        blank = self.game.empty_state(0)
        self._layout = {f.name: (getattr(blank, f.name).dtype, getattr(blank, f.name).shape[1:])
                        for f in dataclasses.fields(State)}
        self._table = None
        self._gen = 0
        self._table_view = -1  # the side whose values the table's entries are (same_deal)
        self._ready = False  # the compiled search has run once (its compilation is not budgeted)

    def __repr__(self) -> str:
        return f"Solver({self.game!r}, point_weight={self.point_weight})"

    # ------------------------------------------------------------------------------------------
    def action_values(self, state: State, same_deal: bool = False) -> np.ndarray:
        """(B, 47) float64: each legal action's value for each lane's seat to act; NaN where illegal.

        ``same_deal``: every lane is a position of the deal of the previous call (the same
        trump, stock order and point weight: e.g. the decisions of one recorded hand), so the
        transposition table's entries are kept from call to call instead of forgotten (a later
        position's proven bounds serve an earlier one's search). With two sides the searches are
        then all made for side 0 and the values negated for side 1 (the game is zero-sum, bit for
        bit), so the entries hold whoever is to act; with three, the table is kept while the
        side to act stays the same."""
        return self._solve(state, want_actions=True, same_deal=same_deal)[0]

    def action_bounds(self, state: State, same_deal: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)``, each (B, 47) float64, NaN where illegal: bounds on each legal
        action's value (as :meth:`action_values`) proven within the budget (``max_nodes``,
        ``max_seconds``), never :class:`SolverBudgetExceeded`: ``low == high``, the exact value,
        for every action solved; for the action whose search the budget cut, the bounds its
        finished zero-window tests proved; for those not searched, the totals each side can
        still reach. Without a budget it is :meth:`action_values` twice over."""
        _, low, high = self._solve(state, want_actions=True, same_deal=same_deal, bounded=True)
        return low, high

    def value(self, state: State, side=None, same_deal: bool = False) -> np.ndarray:
        """(B,) float64: each lane's value for its seat to act (its best action's value), or
        for ``side`` (an int, or (B,) ints: the side whose value, whoever is to act; three
        players: that side against the other two). ``same_deal``: as :meth:`action_values`."""
        return self._solve(state, want_actions=False, side=side, same_deal=same_deal)[0][:, 0]

    # ------------------------------------------------------------------------------------------
    def _check(self, state: State) -> None:
        r = self.rules
        problem = None if self._fits(state) else state_misfit(r, state, writeable=False)
        if problem is None:
            error = check_state(self.game._config, state.arrays(), LEVEL_ALL)
            if error:
                problem = state_error(r, state, error, LEVEL_ALL)
        if problem is None:
            problem = _lane_problem(r, state)
        if problem is not None:
            raise ValueError(f"state does not fit {self!r}: {problem}")

    def _fits(self, state) -> bool:
        """The quick form of the core's state_misfit (which explains a misfit): a State whose
        arrays have this game's dtypes and shapes, C-contiguous and aligned."""
        if not isinstance(state, State) or not isinstance(state.current, np.ndarray) or state.current.ndim != 1:
            return False
        b = len(state.current)
        for name, (dtype, shape) in self._layout.items():
            a = getattr(state, name)
            if not (isinstance(a, np.ndarray) and a.dtype == dtype and a.shape == (b, *shape)
                    and a.flags.c_contiguous and a.flags.aligned):
                return False
        return True

    def _solve(self, state: State, want_actions: bool, side=None, same_deal: bool = False, bounded: bool = False):
        """(values, low, high), each (B, 47): the values (``want_actions``; else in column 0),
        and the bounds proven on them; ``bounded``: a lane out of budget keeps its bounds
        (NaN values) instead of raising SolverBudgetExceeded."""
        self._check(state)
        over = np.flatnonzero(state.done)
        if over.size:
            raise ValueError(f"game {over[0]} is over: a finished hand has no action to value")
        b = state.batch_size
        sides = self.rules.num_sides
        if side is not None:
            side = np.broadcast_to(np.asarray(side), (b,))
            if side.dtype.kind not in "iu" or ((side < 0) | (side >= sides)).any():
                raise ValueError(f"side must be a side 0..{sides - 1} (or (B,) of them), got {side!r}")
        to_act = self.rules.side_of(state.current.astype(np.int64))
        flip = None
        if same_deal and sides == 2 and side is None:  # one side's view for every search: the table holds
            side, flip = np.zeros(b, np.int64), to_act != 0  # across seats; side 1's values are negated
        out = np.full((b, NUM_ACTIONS), np.nan)
        bounds = np.full((b, 2, NUM_ACTIONS), np.nan)
        self.nodes = 0
        tables = self._tables()
        source = state.arrays()
        if not self._ready:  # compile (or load from numba's cache) outside any time budget
            ctx, fctx = self._context()
            ctx[_NODE_LIMIT], ctx[_TIMED] = 1, 0
            _solve_lane(self.game._config, self._stack.arrays(), self._buf, source, 0, want_actions,
                        np.full(NUM_ACTIONS, np.nan), np.full((2, NUM_ACTIONS), np.nan), ctx, fctx, *tables)
            self._ready = True
        for lane in range(b):
            whose = int(to_act[lane] if side is None else side[lane])
            ctx, fctx = self._context(keep=same_deal and self._table_view == whose)
            self._table_view = ctx[_MAX_SIDE] = whose
            _solve_lane(self.game._config, self._stack.arrays(), self._buf, source, lane, want_actions, out[lane],
                        bounds[lane], ctx, fctx, *tables)
            self.nodes += int(ctx[_NODES])
            if ctx[_EXCEEDED] and not want_actions:
                out[lane, 0] = np.nan
            if ctx[_EXCEEDED] and not bounded:
                budget = f"max_nodes={self.max_nodes}" if ctx[_EXCEEDED] == 1 else f"max_seconds={self.max_seconds}"
                raise SolverBudgetExceeded(
                    f"budget exceeded: game {lane} not solved within {budget} ({int(ctx[_NODES])} positions searched)"
                )
        low, high = bounds[:, 0], bounds[:, 1]
        if flip is not None:
            out[flip] = -out[flip]
            low[flip], high[flip] = -high[flip], -low[flip]
        return out, low, high

    def _context(self, keep: bool = False):
        """A search's counters and settings: a new generation of the table (its entries
        forgotten) unless ``keep``; the side of the values left to the search (-1)."""
        if not keep:
            self._gen += 1
        if self._gen >= 1 << 32:  # generations wrap: forget the table
            self._table = None
            self._gen = 1
        ctx = np.zeros(7, np.int64)
        ctx[_MAX_SIDE] = -1
        ctx[_GEN] = self._gen
        ctx[_NODE_LIMIT] = self.max_nodes or 0
        ctx[_MERGE] = self.merge_equivalent
        fctx = np.zeros(2, np.float64)
        fctx[_POINT_WEIGHT] = self.point_weight
        if self.max_seconds is not None:
            ctx[_TIMED] = 1
            fctx[_DEADLINE] = time.perf_counter() + self.max_seconds
        return ctx, fctx

    def _tables(self):
        """The transposition table (allocated at first use) and the search's registers."""
        if self._table is None:
            self._table = _table_views(self.table_entries)
            self._gen = max(self._gen, 1)
        depth = self._depth + 1
        registers = (
            np.zeros(NUM_CARDS, np.int64),  # history of cut-offs
            np.zeros((depth, NUM_ACTIONS), np.int8),  # moves
            np.zeros((depth, NUM_ACTIONS), np.int64),  # their scores
            np.full(NUM_ACTIONS, -1, np.int64),  # rep (unused below the root)
            np.zeros((depth, 5), np.float64),
            np.zeros((depth, 5), np.int64),
            np.zeros((depth, 5), np.uint64),  # keys
            np.zeros(depth, np.uint64),  # hashes
            np.zeros((depth, 2, NUM_CARDS), np.int64),  # relative-rank labels and back
        )
        return (*self._table, *registers)


def _table_views(entries: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The transposition table's arrays (``tt_key``, ``tt_bound``, ``tt_meta``) as views of one
    buffer of ``entries`` rows of 64 bytes, a bucket (two rows) on one 128-byte boundary: a probe
    reads one bucket's memory, not three arrays' (the cache misses are most of a probe's cost).
    Written once through (np.zeros would leave the pages to be faulted in during searches)."""
    raw = np.empty(entries * 8 + 16, np.uint64)
    raw.fill(0)
    skip = (-raw.ctypes.data % 128) // 8
    rows = raw[skip:skip + entries * 8].reshape(entries, 8)
    return rows[:, :5], rows.view(np.float64)[:, 5:7], rows[:, 7]


def _stack_state(game: Game, depth: int) -> tuple[State, np.ndarray]:
    """A State of ``depth`` lanes whose fields are views of one (depth, words) uint64 array,
    a lane to a row (each field at an offset aligned to 8 bytes): copying a lane is copying a row."""
    blank = game.empty_state(1)
    fields = [f.name for f in dataclasses.fields(State)]
    sizes = [getattr(blank, name).nbytes for name in fields]
    offsets = np.concatenate([[0], np.cumsum([-(-size // 8) * 8 for size in sizes])])
    buf = np.zeros((depth, offsets[-1] // 8), np.uint64)
    octets = buf.view(np.uint8)
    views = {}
    for name, size, offset in zip(fields, sizes, offsets):
        a = getattr(blank, name)
        view = octets[:, offset:offset + size].view(a.dtype)
        views[name] = view[:, 0] if a.ndim == 1 else view
        views[name][:] = a
    return State(**views), buf


def _lane_problem(r: Rules, s: State) -> str | None:
    """What the core's checks leave that the solver relies on: each card in one place at most,
    and points within the hand's (the keys hold them in 8 bits)."""
    places = np.concatenate([s.hands, s.played], axis=1)
    union = np.bitwise_or.reduce(places, axis=1)
    twice = np.bitwise_count(union) != np.bitwise_count(places).sum(axis=1)
    if twice.any():
        return f"game {np.argmax(twice)}: a card is in two hands (or held and played)"
    if (s.card_points < 0).any() or (s.card_points > 120).any():
        return "card_points out of 0..120"
    if (s.cante_points < 0).any() or (s.cante_points > 100).any():
        return "cante_points out of 0..100"
    return None
