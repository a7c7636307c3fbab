"""The rules of one game, compiled with numba: the named kernel API.

The one implementation of the rules (docs/rules.md). Each rule is a function of one game, lane
``b`` of a state's arrays ``st`` (:meth:`State.arrays`), under ``cfg``, the rules as integers
(:func:`kernel_config`; ``cfg[CFG_N]`` the number of players, ...):

* :func:`legal_set` (the legal actions as a 47-bit set), :func:`step_lane` (apply one),
  :func:`side_of`, :func:`follow_chain`, :func:`declarations`, :func:`exchange_gives`;
* :func:`rules_kernel` runs them over the lanes of a batch (:class:`tute_env.engine.core.Game`),
  :mod:`tute_env.search.solver` over its search stack;
* :func:`check_state` is the compiled check that a state fits its game, called first by every
  kernel that reads a state (this one, the observation encoder's, the solver's): the compiled
  code indexes arrays with the state's values. :mod:`.checks` says in words what it found.
* :func:`compile_only` compiles a kernel for the one signature of the states a Game makes and
  disables compiling others, so arrays of other types fail to dispatch instead of compiling.

Everything here is for code that runs compiled rules; users call :class:`Game`.
"""

from __future__ import annotations

import threading

import numba
import numpy as np

from .cards import (
    BIT,
    CARD_POINTS,
    CARD_SUIT,
    DECLARE,
    EXCHANGE,
    FOLLOW,
    KINGS,
    KNIGHTS,
    LAST_TRICK_BONUS,
    LEAD,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_FACES,
    PAIR_SET,
    PASS,
    SEVEN,
    SING_BASE,
    SUIT_SET,
    TUTE,
    TWO,
    U64,
    beating_set,
)
from .rules import PRESETS, Rules
from .state import StateArrays, blank_state

# The compiled kernels' modes and error codes, in one place (the kernels are further down).
# rules_kernel's modes: what one call does.
MODE_LEGAL_SETS = 0  # write every lane's legal set, the state untouched
MODE_STEP = 1  # step the active lanes with their actions
MODE_CHECK_SHAPES = 2  # check the arrays' shapes only
# check_state's levels: how much of a state it checks.
LEVEL_SHAPES = 0  # the arrays' shapes and dtypes
LEVEL_RULES = 1  # and the values the rules read (of the card sets, only hands)
LEVEL_ALL = 2  # and every card set (played, known, cannot_hold): what the solver relies on
# The kernels' error codes (0: none).
ERR_FINISHED = 1  # an action for a finished game
ERR_OUT_OF_RANGE = 2  # an action id outside 0..46, or an actions, active or out array of the wrong length
ERR_ILLEGAL = 3  # an action the rules do not allow there
ERR_BAD_SHAPE = 4  # an array of the wrong shape or dtype (check_state)
ERR_BAD_VALUE = 5  # a value out of its range (check_state)

# R7 after_win: the 7 of trumps takes a turned A, 3 or court card; the 2 a turned 4..7.
_SEVEN_TAKES_FACE = np.zeros(NUM_FACES, bool)
_SEVEN_TAKES_FACE[[0, 2, 7, 8, 9]] = True
_TWO_TAKES_FACE = np.zeros(NUM_FACES, bool)
_TWO_TAKES_FACE[[3, 4, 5, 6]] = True


@numba.njit(cache=True, error_model="numpy")
def exchange_gives(exchange_rule, trump, turned):
    """The card an exchange gives up for the ``turned`` card (R7), -1 if none may take it.

    ``exchange_rule``: 0 off (-1), 1 seven_on_lead (the 7 of trumps), 2 after_win (the 7 of
    trumps for a turned A, 3 or court card, the 2 for a turned 4..7, none for a turned 2).
    ``turned`` -1 (no turned card) gives -1. Whether the seat holds that card, and may exchange
    now, is for the caller (the kernel's legality; :meth:`Game.exchange_gives` on a batch).
    Compiled, for one game."""
    if exchange_rule == 0 or turned < 0:
        return -1
    face = turned % NUM_FACES
    if exchange_rule == 2 and _TWO_TAKES_FACE[face]:
        return trump * NUM_FACES + TWO
    if exchange_rule == 2 and not _SEVEN_TAKES_FACE[face]:
        return -1
    return trump * NUM_FACES + SEVEN


# ----------------------------------------------------------------------------------------------
# The rules of one game (one lane of a batch), compiled. ``st`` is a State's arrays
# (State.arrays()), ``b`` a lane, ``cfg`` the Rules as integers (Game._config).
# ----------------------------------------------------------------------------------------------
_ZERO = U64(0)
ACTION_BIT = np.array([1 << a for a in range(NUM_ACTIONS)], dtype=U64)
NO_ACTIONS, NO_LANES = np.zeros(0, np.int64), np.zeros(0, bool)

@numba.njit(cache=True, error_model="numpy")
def exchange_gives_lanes(exchange_rule, trump, turned_card, legal):
    """Game.exchange_gives: exchange_gives of the lanes where the exchange is legal, else -1."""
    out = np.full(len(legal), -1, np.int8)
    for b in range(len(legal)):
        if (legal[b] & ACTION_BIT[EXCHANGE]) != _ZERO:
            out[b] = exchange_gives(exchange_rule, trump[b], turned_card[b])
    return out


# Game._config: the rules options the compiled code reads, by index.
(CFG_N, CFG_PARTNERSHIPS, CFG_HAS_STOCK, CFG_STOCK_SIZE, CFG_NUM_TRICKS, CFG_STOCK_DUTY, CFG_EXCHANGE, CFG_SINGERS_SIDE,
 CFG_FORTY_FIRST, CFG_TUTE_RULE, CFG_MUST_BEAT_PARTNER, CFG_UNDERTRUMP, CFG_DOUBLE_OVER_100) = range(13)
_STOCK_DUTIES = ("strict", "free", "trump_led")
_EXCHANGES = ("off", "seven_on_lead", "after_win")
_TUTE_RULES = ("off", "two_games", "wins_hand")


def _rules_config(r: Rules) -> np.ndarray:
    return np.array(
        [
            r.num_players, r.partnerships, r.has_stock, r.stock_size, r.num_tricks,
            _STOCK_DUTIES.index(r.stock_duty), _EXCHANGES.index(r.exchange), r.singers == "side",
            r.forty_before_twenty, _TUTE_RULES.index(r.tute), r.must_beat_partner,
            r.undertrump_when_overtrumped, r.double_over_100,
        ],
        dtype=np.int64,
    )


# The rules of one game (lane ``b`` of a State's arrays ``st``, State.arrays(); ``cfg`` the
# Rules as integers, Game._config), one function each. rules_kernel runs them over a batch and
# tute_env.search.solver over its search stack: the one implementation of the rules (docs/rules.md).
# Compiled without numba's reference counting (_nrt=False): they allocate nothing, and the
# caller holds the arrays throughout; inlined into their callers (inline="always", as closures
# were: a call passing the 32 arrays of ``st`` by value costs more than most of these bodies).
_lane_rule = numba.njit(cache=True, error_model="numpy", _nrt=False, inline="always")


@_lane_rule
def side_of(cfg, seat):
    """The scoring side of ``seat``: ``seat % 2`` with partnerships, else the seat (R2)."""
    return seat % 2 if cfg[CFG_PARTNERSHIPS] != 0 else seat


@_lane_rule
def follow_chain(cfg, st, b, seat):
    """The follow duty (R5, R6) of ``seat`` as a priority chain of four card sets: the legal
    cards are the hand's cards in the first set the hand meets (else any card)."""
    trump = st.trump[b]
    led_suit = CARD_SUIT[st.trick[b, st.trick_leader[b]]]
    led_set = SUIT_SET[led_suit]
    trump_set = SUIT_SET[trump]
    beats = beating_set(st.best_card[b], trump)
    beat_led = beats & led_set  # R5 1: beat within the suit led (empty once trumped)
    beat_trump = beats & trump_set  # R5 2: trump, or overtrump
    under = trump_set if cfg[CFG_UNDERTRUMP] != 0 else _ZERO
    if cfg[CFG_PARTNERSHIPS] != 0 and cfg[CFG_MUST_BEAT_PARTNER] == 0 and st.best_seat[b] == (seat + 2) % 4:
        # Manita: while the partner holds the trick, only follow suit (R5).
        beat_led = beat_trump = under = _ZERO
    stock_duty = cfg[CFG_STOCK_DUTY]  # 0 strict, 1 free, 2 trump_led
    if cfg[CFG_HAS_STOCK] != 0 and stock_duty != 0 and st.to_draw[b] > 0:
        # R6: while cards remain to draw, a looser duty: none ("free"), or answer a trump
        # lead with a trump ("trump_led").
        beat_led = beat_trump = under = _ZERO
        if stock_duty == 1 or led_suit != trump:
            led_set = _ZERO
    return (beat_led, led_set, beat_trump, under)


@_lane_rule
def declarations(cfg, st, b, seat):
    """Legal declarations (cantes, Tute) of ``seat`` as action bits, given that the seat
    may declare now (R8, R8b)."""
    hand = st.hands[b, seat]
    t = st.trump[b]
    twenty = st.sang_twenty[b, seat]
    can_forty = (hand & PAIR_SET[t]) == PAIR_SET[t] and st.sung_by[b, t] < 0 and not twenty
    bits = _ZERO
    for suit in range(4):
        ok = (hand & PAIR_SET[suit]) == PAIR_SET[suit] and st.sung_by[b, suit] < 0
        if cfg[CFG_FORTY_FIRST] != 0:  # the 40 first, and no 40 after one's own 20
            ok = ok and (not twenty if suit == t else not can_forty)
        if ok:
            bits |= ACTION_BIT[SING_BASE + suit]
    if cfg[CFG_TUTE_RULE] != 0 and ((hand & KINGS) == KINGS or (hand & KNIGHTS) == KNIGHTS):
        bits |= ACTION_BIT[TUTE]
    return bits


@_lane_rule
def legal_set(cfg, st, b):
    """The legal actions of lane ``b``'s seat to act as a 47-bit set."""
    if st.done[b]:
        return _ZERO
    seat = st.current[b]
    hand = st.hands[b, seat]
    kind = st.decision[b]
    out = _ZERO
    if kind == LEAD:
        out = hand
    elif kind == FOLLOW:
        out = hand
        for candidates in follow_chain(cfg, st, b, seat):
            if hand & candidates:
                out = hand & candidates
                break
    # Declarations: the partner's declaration turn, or the winner's lead turn after a trick.
    if kind == DECLARE or (kind == LEAD and st.tricks_played[b] > 0 and not st.declared[b, seat]):
        out |= declarations(cfg, st, b, seat)
    if kind == DECLARE:
        out |= ACTION_BIT[PASS]
    exchange_rule = cfg[CFG_EXCHANGE]  # 0 off, 1 seven_on_lead, 2 after_win
    if exchange_rule != 0 and kind == LEAD and not st.exchanged[b] and st.to_draw[b] > 0:
        # R7: holding the card that takes the turned one; after_win, only after a trick won.
        give = exchange_gives(exchange_rule, st.trump[b], st.turned_card[b])
        if give >= 0 and (hand & BIT[give]) != _ZERO and (exchange_rule == 1 or st.tricks_played[b] > 0):
            out |= ACTION_BIT[EXCHANGE]
    return out


@_lane_rule
def _finish(st, b):
    st.done[b] = True
    st.current[b] = -1
    st.decision[b] = -1


@_lane_rule
def _draw(cfg, st, b, first):
    """R4: every player draws one card, the trick winner first, then in seat order; with
    two players the turned card is the last card drawn."""
    n, stock_size = cfg[CFG_N], cfg[CFG_STOCK_SIZE]
    for k in range(n):
        drawer = (first + k) % n
        if st.stock_next[b] < stock_size:
            card = st.stock[b, st.stock_next[b]]
            st.stock_next[b] += 1
        else:  # two players: the face-down stock is empty, the turned card is drawn
            card = st.turned_card[b]
            st.known[b, drawer] |= BIT[card]
            st.turned_card[b] = -1
        st.hands[b, drawer] |= BIT[card]
    st.to_draw[b] -= n
    # A draw brings an unknown card: earlier inferences about hands no longer hold.
    st.cannot_hold[b, :] = _ZERO


@_lane_rule
def _end_hand(cfg, st, b):
    """R9: last trick +10, highest total wins, a tie to the side that won a trick last."""
    card_points, last_won = st.card_points, st.last_won
    st.last_trick_bonus[b, side_of(cfg, st.last_winner[b])] = LAST_TRICK_BONUS
    best_side, best_key, best_total = 0, -(1 << 30), 0
    for sd in range(card_points.shape[1]):
        total = np.int64(card_points[b, sd]) + st.last_trick_bonus[b, sd] + st.cante_points[b, sd]
        key = total * 64 + last_won[b, sd] + 1
        if key > best_key:
            best_side, best_key, best_total = sd, key, total
    st.winner[b] = best_side
    st.games[b] = 2 if best_total > 100 and cfg[CFG_DOUBLE_OVER_100] != 0 else 1
    _finish(st, b)


@_lane_rule
def _end_trick(cfg, st, b):
    n = cfg[CFG_N]
    taker = st.best_seat[b]
    points = 0
    for seat in range(n):
        points += CARD_POINTS[st.trick[b, seat]]
    st.card_points[b, side_of(cfg, taker)] += points
    st.last_won[b, side_of(cfg, taker)] = st.tricks_played[b]
    st.tricks_played[b] += 1
    st.last_winner[b] = taker
    st.trick[b, :] = -1
    st.declared[b, :] = False
    st.trick_size[b] = 0
    st.best_card[b] = -1
    st.best_seat[b] = -1
    st.trick_leader[b] = taker
    if cfg[CFG_HAS_STOCK] != 0 and st.to_draw[b] > 0:
        _draw(cfg, st, b, taker)
    if st.tricks_played[b] == cfg[CFG_NUM_TRICKS]:
        _end_hand(cfg, st, b)
        return
    st.current[b] = taker
    st.decision[b] = LEAD
    if cfg[CFG_PARTNERSHIPS] != 0 and cfg[CFG_SINGERS_SIDE] != 0:
        # R8: the winner's partner, holding a legal declaration, declares first.
        partner = (taker + 2) % 4
        if declarations(cfg, st, b, partner) != _ZERO:
            st.current[b] = partner
            st.decision[b] = DECLARE


@_lane_rule
def _play(cfg, st, b, card):
    seat = st.current[b]
    bit = BIT[card]
    if st.decision[b] == FOLLOW:
        # What the play reveals: nothing of the duty's sets before the one it came from.
        excluded = _ZERO
        for candidates in follow_chain(cfg, st, b, seat):
            if candidates & bit:
                break
            excluded |= candidates
        st.cannot_hold[b, seat] |= excluded
    st.hands[b, seat] &= ~bit
    st.played[b, seat] |= bit
    st.known[b, seat] &= ~bit
    st.trick[b, seat] = card
    if cfg[CFG_PARTNERSHIPS] != 0 and st.turned_card[b] == card:
        st.turned_card[b] = -1
    leads = st.trick_size[b] == 0
    if leads or (beating_set(st.best_card[b], st.trump[b]) & bit) != _ZERO:
        st.best_card[b] = card
        st.best_seat[b] = seat
    if leads:
        st.trick_leader[b] = seat
    st.trick_size[b] += 1
    st.current[b] = (seat + 1) % cfg[CFG_N]
    st.decision[b] = FOLLOW
    if st.trick_size[b] == cfg[CFG_N]:
        _end_trick(cfg, st, b)


@_lane_rule
def _sing(cfg, st, b, suit):
    seat = st.current[b]
    forty = suit == st.trump[b]
    st.sung_by[b, suit] = seat
    st.cante_points[b, side_of(cfg, seat)] += 40 if forty else 20
    if not forty:
        st.sang_twenty[b, seat] = True
    st.known[b, seat] |= PAIR_SET[suit]
    st.declared[b, seat] = True


@_lane_rule
def _declare_tute(cfg, st, b):
    """R8b: the hand ends at once for the declarer's side; no last-trick bonus."""
    seat = st.current[b]
    st.declared[b, seat] = True
    st.tute_declarer[b] = seat
    st.winner[b] = side_of(cfg, seat)
    st.games[b] = 2 if cfg[CFG_TUTE_RULE] == 1 else 1
    _finish(st, b)


@_lane_rule
def _exchange(cfg, st, b):
    """R7: the 7 (or, after_win with a low turned card, the 2) of trumps takes the turned
    card."""
    seat = st.current[b]
    turned = st.turned_card[b]
    give = exchange_gives(cfg[CFG_EXCHANGE], st.trump[b], turned)
    st.hands[b, seat] = (st.hands[b, seat] & ~BIT[give]) | BIT[turned]
    st.known[b, seat] |= BIT[turned]
    st.cannot_hold[b, seat] &= ~BIT[turned]
    st.turned_card[b] = give
    st.exchanged[b] = True


@_lane_rule
def step_lane(cfg, st, b, action):
    """Apply ``action`` (legal: the caller checks) for lane ``b``'s seat to act, in place;
    ``st.legal[b]`` is left for the caller to recompute (:func:`legal_set`)."""
    declaration_turn = st.decision[b] == DECLARE
    if action < NUM_CARDS:
        _play(cfg, st, b, action)
    elif action < TUTE:
        _sing(cfg, st, b, action - SING_BASE)
    elif action == TUTE:
        _declare_tute(cfg, st, b)
    elif action == EXCHANGE:
        _exchange(cfg, st, b)
    if declaration_turn and not st.done[b]:
        # A declaration turn (R8) ends with one declaration or a pass; the winner leads.
        st.current[b] = st.last_winner[b]
        st.decision[b] = LEAD


# _nrt=False: compiled without numba's reference counting, which the kernel does not need (it
# allocates nothing: the legal sets go to ``out``, given; the state's arrays are held by the
# caller throughout the call); unpacking the 32 arrays cost ~0.3 us a call at B = 1.
@numba.njit(cache=True, error_model="numpy", _nrt=False)
def rules_kernel(cfg, st, actions, active, mode, out):
    """First checks that the state fits the game (:func:`check_state`), then by ``mode``:
    ``MODE_LEGAL_SETS``: writes the legal sets of every lane to ``out``, the state untouched.
    ``MODE_STEP``: steps the ``active`` lanes with ``actions``, every lane checked before any
    changes, and writes their legal sets to ``out`` (State.legal).
    ``MODE_CHECK_SHAPES``: only the shapes.
    Returns (error, lane): 0 or the code of the first problem (a state that does not fit:
    check_state's, lane -1, nothing changed)."""
    error = check_state(cfg, st, LEVEL_SHAPES if mode == MODE_CHECK_SHAPES else LEVEL_RULES)
    if error != 0 or mode == MODE_CHECK_SHAPES:
        return error, -1
    current, done, legal = st.current, st.done, st.legal
    lanes = len(current)
    stepping = mode == MODE_STEP
    if stepping:
        if len(actions) != lanes or len(active) != lanes:
            return ERR_OUT_OF_RANGE, -1
        for b in range(lanes):
            if active[b] and done[b]:
                return ERR_FINISHED, b
        for b in range(lanes):
            if active[b] and (actions[b] < 0 or actions[b] >= NUM_ACTIONS):
                return ERR_OUT_OF_RANGE, b
        for b in range(lanes):
            if active[b] and (legal[b] & ACTION_BIT[actions[b]]) == _ZERO:
                return ERR_ILLEGAL, b
    # One call of legal_set (each call site is a copy of its code to compile).
    if len(out) != lanes:
        return ERR_OUT_OF_RANGE, -1
    for b in range(lanes):
        if stepping:
            if not active[b]:
                continue
            step_lane(cfg, st, b, actions[b])
        out[b] = legal_set(cfg, st, b)
    return 0, 0


# ----------------------------------------------------------------------------------------------
# Does a state fit its game? The compiled rules index arrays with the state's values (a seat,
# a card, a stock position ...) and size their loops by the game's rules, not by the arrays, so
# a state of another variant or with a value out of range would read and write out of bounds.
# Every entry point that hands a state to compiled code checks it first:
# * array types (dtype, dimensions, C layout, writeable): numba's dispatcher, for free, since
#   the kernels are compiled for the one signature of the states Game makes and compiling others
#   is disabled (compile_only); a call with other types fails to dispatch and
#   state_misfit explains it;
# * shapes and values: check_state, compiled, called first by each kernel (branch-free passes
#   over the lanes that LLVM vectorises: ~0.1 us at B = 1, ~5 us at B = 4096, about as long as
#   reading the state's arrays once); the error path finds which value in Python.
# ----------------------------------------------------------------------------------------------
NO_SETS = np.zeros(0, U64)
CARD_SET_OVERFLOW = ~U64((1 << NUM_CARDS) - 1)
ACTION_SET_OVERFLOW = ~U64((1 << NUM_ACTIONS) - 1)

# The fields check_state range-checks, in its order (lo..hi from state_value_bounds, in the kernel's
# config), then the card and action sets, then the checks across fields of one lane.
RANGE_FIELDS = (
    "trick", "trick_leader", "trick_size", "best_card", "best_seat", "current", "decision", "dealer",
    "trump", "turned_card", "stock", "stock_next", "to_draw", "tricks_played", "last_winner",
    "last_won", "sung_by", "tute_declarer", "winner",
)
SET_FIELDS = ("hands", "played", "known", "cannot_hold", "legal")
LANE_CHECKS = (
    ("a game not over has a seat to act and a decision, and current and decision are -1 together",
     ("done", "current", "decision")),
    ("a follow decision needs a trick in progress", ("decision", "trick_size")),
    ("a trick in progress has a winning card and seat", ("trick_size", "best_card", "best_seat")),
    ("to_draw cannot exceed the cards left in the stock (and the turned card, with two players)",
     ("to_draw", "stock_next", "turned_card")),
)
# Game._config (kernel_config): _rules_config, then whether the turned card is drawn, then the
# ranges of RANGE_FIELDS.
CFG_TURNED_DRAWN = CFG_DOUBLE_OVER_100 + 1
CFG_BOUNDS = CFG_TURNED_DRAWN + 1
CFG_PACKED_WORDS = -1  # the last: the length of a packed game's array (packed_words)


def state_value_bounds(r: Rules) -> dict[str, tuple[int, int]]:
    """lo..hi of each of RANGE_FIELDS under rules ``r``."""
    n, last_card = r.num_players, NUM_CARDS - 1
    bounds = {
        "trick": (-1, last_card), "trick_leader": (0, n - 1), "trick_size": (0, n - 1),
        "best_card": (-1, last_card), "best_seat": (-1, n - 1), "current": (-1, n - 1),
        "decision": (-1, DECLARE), "dealer": (0, n - 1), "trump": (0, 3), "turned_card": (-1, last_card),
        "stock": (-1, last_card), "stock_next": (0, r.stock_size),
        "to_draw": (0, r.stock_size + int(r.turned_card_drawn)), "tricks_played": (0, r.num_tricks),
        "last_winner": (-1, n - 1), "last_won": (-1, r.num_tricks - 1), "sung_by": (-1, n - 1),
        "tute_declarer": (-1, n - 1), "winner": (-1, r.num_sides - 1),
    }
    assert tuple(bounds) == RANGE_FIELDS
    return bounds


def kernel_config(r: Rules) -> np.ndarray:
    """Game._config: what the compiled code reads of the rules, as int64: _rules_config, whether
    the turned card is drawn, then lo, hi of each of RANGE_FIELDS as int8, 8 to a word (the
    check compares int8 to int8, 64 lanes at a time, and views them without a copy), then the
    length of a packed game's array (:func:`packed_words`)."""
    bounds = np.array([x for lo_hi in state_value_bounds(r).values() for x in lo_hi], dtype=np.int8)
    bounds = np.concatenate([bounds, np.zeros(-len(bounds) % 8, np.int8)]).view(np.int64)
    base = _rules_config(r)
    return np.concatenate([base, np.array([r.turned_card_drawn], dtype=np.int64), bounds, [packed_words(base)]])


@numba.njit(cache=True, error_model="numpy", _nrt=False)
def check_state(cfg, st, level):
    """Whether the state's arrays ``st`` (State.arrays()) fit the game of ``cfg`` (Game._config):
    0 if so, ERR_BAD_SHAPE if an array has the wrong shape, ERR_BAD_VALUE if a value fails a check
    (the ranges of RANGE_FIELDS, SET_FIELDS without bits past the cards or actions, the
    LANE_CHECKS). Which array, value and lane is found in Python, on the error path only
    (state_error), so that nothing more is compiled.

    ``level``: LEVEL_SHAPES only; LEVEL_RULES, the values too, of the card sets only ``hands`` (whose bits
    the rules make actions of); LEVEL_ALL, ``played``, ``known`` and ``cannot_hold`` too (the rules
    only write those, the observation reads them; each kernel checks the sets it reads: reading
    them all is half the cost of the check at B = 4096). An int64, never a constant: numba would
    compile a copy of this function for each constant.

    The checks are branch-free passes over the arrays, which LLVM vectorises (~0.1 us at B = 1,
    ~5 us at B = 4096), written out in full: as closures they compiled ten times slower (numba
    inlines each closure call at a cost of its own). Compiled without reference counting
    (``_nrt=False``, as the kernels): it allocates nothing and its views live within the call."""
    (hands, played, known, cannot_hold, trick, trick_leader, trick_size, best_card, best_seat,
     current, decision, dealer, trump, turned_card, stock, stock_next, to_draw, tricks_played,
     last_winner, last_won, card_points, last_trick_bonus, cante_points, sung_by, sang_twenty,
     declared, exchanged, tute_declarer, done, winner, games, legal) = st
    n = cfg[CFG_N]
    sides = 2 if cfg[CFG_PARTNERSHIPS] != 0 else n
    stock_size = cfg[CFG_STOCK_SIZE]
    lanes = len(current)
    fits = (  # & rather than and: no branches
        (hands.shape == (lanes, n)) & (played.shape == (lanes, n)) & (known.shape == (lanes, n))
        & (cannot_hold.shape == (lanes, n)) & (trick.shape == (lanes, n)) & (len(trick_leader) == lanes)
        & (len(trick_size) == lanes) & (len(best_card) == lanes) & (len(best_seat) == lanes)
        & (len(decision) == lanes) & (len(dealer) == lanes) & (len(trump) == lanes) & (len(turned_card) == lanes)
        & (stock.shape == (lanes, stock_size)) & (len(stock_next) == lanes) & (len(to_draw) == lanes)
        & (len(tricks_played) == lanes) & (len(last_winner) == lanes) & (last_won.shape == (lanes, sides))
        & (card_points.shape == (lanes, sides)) & (last_trick_bonus.shape == (lanes, sides))
        & (cante_points.shape == (lanes, sides)) & (sung_by.shape == (lanes, 4)) & (sang_twenty.shape == (lanes, n))
        & (declared.shape == (lanes, n)) & (len(exchanged) == lanes) & (len(tute_declarer) == lanes)
        & (len(done) == lanes) & (len(winner) == lanes) & (len(games) == lanes) & (len(legal) == lanes)
    )
    if not fits:
        return ERR_BAD_SHAPE
    if lanes == 0 or level == LEVEL_SHAPES:
        return 0
    bounds = cfg[CFG_BOUNDS:].view(np.int8)  # the range of RANGE_FIELDS[k]: lo[k]..hi[k]
    lo, hi = bounds[0::2], bounds[1::2]
    bad = False
    for i in range(trick.size):  # x.flat[i] of a C array: a plain loop
        bad |= (trick.flat[i] < lo[0]) | (trick.flat[i] > hi[0])
    for i in range(stock.size):
        bad |= (stock.flat[i] < lo[10]) | (stock.flat[i] > hi[10])
    for i in range(last_won.size):
        bad |= (last_won.flat[i] < lo[15]) | (last_won.flat[i] > hi[15])
    for i in range(sung_by.size):
        bad |= (sung_by.flat[i] < lo[16]) | (sung_by.flat[i] > hi[16])
    seen = _ZERO
    if level == LEVEL_ALL:
        for i in range(hands.size):
            seen |= hands.flat[i] | played.flat[i] | known.flat[i] | cannot_hold.flat[i]
    else:
        for i in range(hands.size):
            seen |= hands.flat[i]
    bad |= (seen & CARD_SET_OVERFLOW) != _ZERO
    seen = _ZERO
    for b in range(lanes):
        seen |= legal[b]
    bad |= (seen & ACTION_SET_OVERFLOW) != _ZERO
    # The 1-D fields and LANE_CHECKS, one pass over the lanes.
    last, turned_drawn = np.int8(stock_size), np.int8(cfg[CFG_TURNED_DRAWN])
    for b in range(lanes):
        over = current[b] < 0
        bad |= (
            (trick_leader[b] < lo[1]) | (trick_leader[b] > hi[1]) | (trick_size[b] < lo[2]) | (trick_size[b] > hi[2])
            | (best_card[b] < lo[3]) | (best_card[b] > hi[3]) | (best_seat[b] < lo[4]) | (best_seat[b] > hi[4])
            | (current[b] < lo[5]) | (current[b] > hi[5]) | (decision[b] < lo[6]) | (decision[b] > hi[6])
            | (dealer[b] < lo[7]) | (dealer[b] > hi[7]) | (trump[b] < lo[8]) | (trump[b] > hi[8])
            | (turned_card[b] < lo[9]) | (turned_card[b] > hi[9]) | (stock_next[b] < lo[11])
            | (stock_next[b] > hi[11]) | (to_draw[b] < lo[12]) | (to_draw[b] > hi[12])
            | (tricks_played[b] < lo[13]) | (tricks_played[b] > hi[13]) | (last_winner[b] < lo[14])
            | (last_winner[b] > hi[14]) | (tute_declarer[b] < lo[17]) | (tute_declarer[b] > hi[17])
            | (winner[b] < lo[18]) | (winner[b] > hi[18])
            | (over & ~done[b]) | (over ^ (decision[b] < 0))
            | ((decision[b] == FOLLOW) & (trick_size[b] == 0))
            | ((trick_size[b] > 0) & ((best_card[b] < 0) | (best_seat[b] < 0)))
            # to_draw <= the cards left: stock_size - stock_next (+ the turned card, with two players)
            | (to_draw[b] + stock_next[b] > last + (turned_drawn & (turned_card[b] >= 0)))
        )
    return ERR_BAD_VALUE if bad else 0


def compile_only(dispatcher, *args) -> None:
    """Compile ``dispatcher`` (or load it from numba's cache) for the types of ``args``, and
    disable compiling for any other types: a call with other types then raises ``TypeError``
    instead of compiling a version for them. One compilation, whatever the first call passes."""
    sig = tuple(numba.typeof(a) for a in args)
    with _compile_lock:  # two threads' first calls: compiling stays disabled once either is done
        if sig not in dispatcher.overloads:
            dispatcher.disable_compile(False)
            dispatcher.compile(sig)
        dispatcher.disable_compile()


_compile_lock = threading.Lock()
_rules_kernel_ready = False


def ensure_rules_kernel() -> None:
    """Compile :func:`rules_kernel` and :func:`packed_kernel` (or load them from numba's cache)
    for the states a Game makes, once; a no-op after the first call."""
    global _rules_kernel_ready
    if _rules_kernel_ready:
        return
    rules = PRESETS["partnership"]
    blank = blank_state(rules, 0)
    cfg = kernel_config(rules)
    compile_only(rules_kernel, cfg, blank.arrays(), NO_ACTIONS, NO_LANES, MODE_STEP, blank.legal)
    compile_only(packed_kernel, cfg, np.zeros(cfg[CFG_PACKED_WORDS], U64), 0, MODE_STEP)
    _rules_kernel_ready = True


# ----------------------------------------------------------------------------------------------
# One game packed in one array: the State of B = 1 as views of a uint64 array ``words``, each
# field at an offset aligned to 8 bytes, in State's order, then two scratch words (the action
# and whether the game steps, rules_kernel's ``actions`` and ``active``) and the hands before a
# step (to tell the cards drawn). A call passing one
# array instead of State.arrays()'s 32 costs ~0.2 us instead of ~4 (numba unboxes each array):
# what one-game loops use (tute_env.engine.core.PackedGame). The layout is computed here only.
# ----------------------------------------------------------------------------------------------
_MAX_PACKED_WORDS = 256  # more than any rules' packed game takes (4 players: 49 words)
@_lane_rule
def _rows_u64(o, at, k):
    return o[at:at + 8 * k].view(U64).reshape((1, k)), at + 8 * k


@_lane_rule
def _rows_i8(o, at, k):
    return o[at:at + k].view(np.int8).reshape((1, k)), at + (k + 7) // 8 * 8


@_lane_rule
def _rows_i16(o, at, k):
    return o[at:at + 2 * k].view(np.int16).reshape((1, k)), at + (2 * k + 7) // 8 * 8


@_lane_rule
def _rows_bool(o, at, k):
    return o[at:at + k].view(np.bool_).reshape((1, k)), at + (k + 7) // 8 * 8


@_lane_rule
def _one_i8(o, at):
    return o[at:at + 1].view(np.int8), at + 8


@_lane_rule
def _one_bool(o, at):
    return o[at:at + 1].view(np.bool_), at + 8


@_lane_rule
def _carve(cfg, words):
    """The fields of the game packed in ``words`` (StateArrays of B = 1), the action slot, the
    active slot, the hands before a step, and the number of words the layout takes (the caller
    checks it against ``len(words)`` before touching the views)."""
    n, sides, stock = cfg[CFG_N], 2 if cfg[CFG_PARTNERSHIPS] else cfg[CFG_N], cfg[CFG_STOCK_SIZE]
    o = words.view(np.uint8)
    hands, at = _rows_u64(o, 0, n)
    played, at = _rows_u64(o, at, n)
    known, at = _rows_u64(o, at, n)
    cannot_hold, at = _rows_u64(o, at, n)
    trick, at = _rows_i8(o, at, n)
    trick_leader, at = _one_i8(o, at)
    trick_size, at = _one_i8(o, at)
    best_card, at = _one_i8(o, at)
    best_seat, at = _one_i8(o, at)
    current, at = _one_i8(o, at)
    decision, at = _one_i8(o, at)
    dealer, at = _one_i8(o, at)
    trump, at = _one_i8(o, at)
    turned_card, at = _one_i8(o, at)
    stock_cards, at = _rows_i8(o, at, stock)
    stock_next, at = _one_i8(o, at)
    to_draw, at = _one_i8(o, at)
    tricks_played, at = _one_i8(o, at)
    last_winner, at = _one_i8(o, at)
    last_won, at = _rows_i8(o, at, sides)
    card_points, at = _rows_i16(o, at, sides)
    last_trick_bonus, at = _rows_i16(o, at, sides)
    cante_points, at = _rows_i16(o, at, sides)
    sung_by, at = _rows_i8(o, at, 4)
    sang_twenty, at = _rows_bool(o, at, n)
    declared, at = _rows_bool(o, at, n)
    exchanged, at = _one_bool(o, at)
    tute_declarer, at = _one_i8(o, at)
    done, at = _one_bool(o, at)
    winner, at = _one_i8(o, at)
    games, at = _one_i8(o, at)
    legal = o[at:at + 8].view(U64)
    action = o[at + 8:at + 16].view(np.int64)
    active = o[at + 16:at + 17].view(np.bool_)
    before = o[at + 24:at + 24 + 8 * n].view(U64)
    st = StateArrays(
        hands, played, known, cannot_hold, trick, trick_leader, trick_size, best_card, best_seat, current,
        decision, dealer, trump, turned_card, stock_cards, stock_next, to_draw, tricks_played, last_winner,
        last_won, card_points, last_trick_bonus, cante_points, sung_by, sang_twenty, declared, exchanged,
        tute_declarer, done, winner, games, legal,
    )
    return st, action, active, before, at // 8 + 3 + n


@numba.njit(cache=True, error_model="numpy")
def packed_words(cfg):
    """The length of the uint64 array one game of ``cfg``'s rules is packed in (kernel_config
    keeps it as ``cfg[CFG_PACKED_WORDS]``)."""
    return _carve(cfg, np.zeros(_MAX_PACKED_WORDS, U64))[4]


@numba.njit(cache=True, error_model="numpy")
def packed_views(cfg, words):
    """The State fields (StateArrays, B = 1) as views of ``words``, a packed game of
    ``cfg[CFG_PACKED_WORDS]`` words (the caller checks the length)."""
    return _carve(cfg, words)[0]


@numba.njit(cache=True, error_model="numpy", _nrt=False)
def packed_kernel(cfg, words, action, mode):
    """rules_kernel on the one game packed in ``words`` (``mode``: MODE_STEP with ``action``, or
    MODE_LEGAL_SETS). Returns (error, lane, seat to act, legal set, cards drawn) after the call;
    the cards drawn by the step are a byte per seat: card id + 1, plus 128 for the face-up
    turned card (0: none)."""
    if len(words) != cfg[CFG_PACKED_WORDS]:
        return ERR_BAD_SHAPE, -1, -1, _ZERO, 0
    st, action_slot, active_slot, before, _ = _carve(cfg, words)
    action_slot[0] = action
    active_slot[0] = True
    n, left, turned = cfg[CFG_N], st.to_draw[0], st.turned_card[0]
    for seat in range(n):
        before[seat] = st.hands[0, seat]
    error, lane = rules_kernel(cfg, st, action_slot, active_slot, mode, st.legal)
    drawn = 0
    if error == 0 and mode == MODE_STEP and st.to_draw[0] < left:
        for seat in range(n):
            gained = st.hands[0, seat] & ~before[seat]
            card = 0
            while gained != _ZERO and (gained >> U64(card)) & U64(1) == _ZERO:
                card += 1
            if gained != _ZERO:
                drawn |= (card + 1 + (128 if card == turned else 0)) << (8 * seat)
    return error, lane, st.current[0], st.legal[0], drawn
