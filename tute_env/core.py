"""The batched rules core: B games of Tute as numpy arrays, stepped by rules compiled with numba.

This is the one implementation of the rules (docs/rules.md); the env, the bots, evaluation and
training all call it. It imports neither PettingZoo nor torch.

>>> import numpy as np
>>> from tute_env.core import Game
>>> game = Game("partnership")
>>> state = game.random_state(np.random.default_rng(0), batch_size=4096)
>>> mask = game.legal_action_mask(state)            # (4096, 47) bool
>>> actions = ...                                   # one legal action per game
>>> game.step(state, actions)                       # in place; state.current: who acts next

Design:

* The state is a :class:`State` of arrays with a leading batch axis; each lane is its own game
  and lanes need not be in step. B = 1 is the same code path.
* Sets of cards (hands, cards played, ...) are 40-bit sets in ``uint64`` (their tables, such as
  ``BIT``, ``SUIT_SET`` and ``beating_set``, are in :mod:`tute_env.cards`), so legality is a few
  bitwise operations per game. The set of legal actions is kept in the state as a 47-bit set
  (``State.legal``), recomputed after each step: the mask is one unpacking and validating an
  action is one bit test.
* The rules are written once, for one game (one lane), as functions compiled with numba
  (:func:`legal_set`, :func:`step_lane` and their helpers, taking ``(cfg, st, lane)``);
  :meth:`Game.step` and :meth:`Game.legal_sets` run them over the lanes of a batch in one
  compiled loop (``_rules_kernel``), and :mod:`tute_env.solver` over its search stack. A compiled loop costs the same per game at B = 1 and B = 16384, where a
  numpy formulation pays ~150 array calls per step whatever B is.
* :meth:`Game.step` mutates the state in place (copying every field of thousands of games on
  every decision would cost more than the rules themselves); ``state.copy()`` gives a snapshot.
* Follow duties (R5, R6) are one "priority chain" of candidate sets per game: the legal cards
  are the hand's cards in the first candidate set it meets. The same chain tells what a play
  reveals (a player who played from set k holds nothing of the sets before k), which is how the
  core keeps ``State.cannot_hold``, the public inferences a PIMC bot samples from.
"""

from __future__ import annotations

import dataclasses
import operator
from collections import namedtuple
from dataclasses import dataclass

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
    action_str,
    beating_set,
    unpack_sets,
)
from .deal import Deals, random_deals
from .rules import Rules, make_rules

# The compiled kernels' modes and error codes, in one place (the kernels are further down).
# _rules_kernel's modes: what one call does.
_LEGAL_SETS = 0  # write every lane's legal set, the state untouched
_STEP = 1  # step the active lanes with their actions
_CHECK_SHAPES = 2  # check the arrays' shapes only
# _check_state's levels: how much of a state it checks.
_SHAPES = 0  # the arrays' shapes and dtypes
_RULES = 1  # and the values the rules read (of the card sets, only hands)
_ALL = 2  # and every card set (played, known, cannot_hold): what the solver relies on
# The kernels' error codes (0: none).
_FINISHED = 1  # an action for a finished game
_OUT_OF_RANGE = 2  # an action id outside 0..46, or an actions, active or out array of the wrong length
_ILLEGAL = 3  # an action the rules do not allow there
_BAD_SHAPE = 4  # an array of the wrong shape or dtype (_check_state)
_BAD_VALUE = 5  # a value out of its range (_check_state)

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


@dataclass
class State:
    """B games. Seats are absolute (0..n-1); sides are ``seat % 2`` with partnerships, else seats.

    Card sets are 40-bit sets in uint64 (bit c = card id c). ``-1`` means "none" in int8 fields.
    """

    hands: np.ndarray
    """(B, n) uint64: each seat's hand."""
    played: np.ndarray
    """(B, n) uint64: cards each seat has played this hand, the trick in progress included."""
    known: np.ndarray
    """(B, n) uint64: cards publicly known to be in each hand (shown card, sung pairs, the
    exchanged or last-drawn turned card), until played."""
    cannot_hold: np.ndarray
    """(B, n) uint64: cards each seat is publicly known not to hold, inferred from the follow
    duties since the last draw."""
    trick: np.ndarray
    """(B, n) int8: the card each seat played to the trick in progress, -1 if none yet."""
    trick_leader: np.ndarray
    """(B,) int8: seat that led the trick in progress (or leads next)."""
    trick_size: np.ndarray
    """(B,) int8: cards in the trick in progress."""
    best_card: np.ndarray
    """(B,) int8: card winning the trick in progress, -1 before the lead."""
    best_seat: np.ndarray
    """(B,) int8: seat winning the trick in progress, -1 before the lead."""
    current: np.ndarray
    """(B,) int8: seat to act, -1 when the game is over."""
    decision: np.ndarray
    """(B,) int8: decision kind of the seat to act: LEAD 0, FOLLOW 1, DECLARE 2; -1 when over."""
    dealer: np.ndarray
    """(B,) int8: the dealer."""
    trump: np.ndarray
    """(B,) int8: the trump suit."""
    turned_card: np.ndarray
    """(B,) int8: the shown card (partnership: until played) or the turned card (until drawn;
    three players: always, it is out of play), else -1."""
    stock: np.ndarray
    """(B, stock_size) int8: the face-down stock in drawing order."""
    stock_next: np.ndarray
    """(B,) int8: index in ``stock`` of the next card to draw."""
    to_draw: np.ndarray
    """(B,) int8: cards left to draw, the turned card included when it will be drawn; > 0 is the
    stock phase of R6."""
    tricks_played: np.ndarray
    """(B,) int8: completed tricks."""
    last_winner: np.ndarray
    """(B,) int8: seat that won the last completed trick, -1 before the first."""
    last_won: np.ndarray
    """(B, num_sides) int8: index of the last trick each side won, -1 if none (R9 tie rule)."""
    card_points: np.ndarray
    """(B, num_sides) int16: card points in the tricks each side took."""
    last_trick_bonus: np.ndarray
    """(B, num_sides) int16: 10 for the side that took the last trick, once the hand is over."""
    cante_points: np.ndarray
    """(B, num_sides) int16: points sung (20, 40 in trumps)."""
    sung_by: np.ndarray
    """(B, 4) int8: seat that sang each suit's cante, -1 if not sung."""
    sang_twenty: np.ndarray
    """(B, n) bool: the seat has sung a 20 this hand (no 40 after it, R8)."""
    declared: np.ndarray
    """(B, n) bool: the seat has made its declaration for the last trick won (one per trick)."""
    exchanged: np.ndarray
    """(B,) bool: the turned trump was exchanged this hand (R7, once per hand)."""
    tute_declarer: np.ndarray
    """(B,) int8: seat that declared Tute, -1 if none."""
    done: np.ndarray
    """(B,) bool: the hand is over."""
    winner: np.ndarray
    """(B,) int8: winning side once over (R9, R8b), else -1."""
    games: np.ndarray
    """(B,) int8: games credited to the winner once over, else 0."""
    legal: np.ndarray
    """(B,) uint64: legal actions of the seat to act as a 47-bit set (bit a = action a)."""

    @property
    def batch_size(self) -> int:
        return len(self.current)

    @property
    def totals(self) -> np.ndarray:
        """(B, num_sides) int16: hand totals, card points + last trick + cantes (R9)."""
        return self.card_points + self.last_trick_bonus + self.cante_points

    def copy(self) -> State:
        return State(**{f.name: getattr(self, f.name).copy() for f in dataclasses.fields(self)})

    def take(self, lanes) -> State:
        """A new state of the given lanes (index array or boolean mask)."""
        return State(**{f.name: getattr(self, f.name)[lanes].copy() for f in dataclasses.fields(self)})

    def put(self, lanes, other: State) -> None:
        """Write ``other``'s games into the given lanes."""
        for f in dataclasses.fields(self):
            getattr(self, f.name)[lanes] = getattr(other, f.name)

    def arrays(self) -> _StateArrays:
        """The fields as a named tuple, the form the compiled rules take."""
        return _StateArrays._make(_get_fields(self))

    @property
    def nbytes(self) -> int:
        """Bytes of state arrays (divide by B for the cost of one game)."""
        return sum(getattr(self, f.name).nbytes for f in dataclasses.fields(self))


_StateArrays = namedtuple("_StateArrays", [f.name for f in dataclasses.fields(State)])
_get_fields = operator.attrgetter(*_StateArrays._fields)


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a (B, 47) mask (0 for a row with none).
    Draws one uniform number per row from ``rng``."""
    return _kth_true(np.asarray(mask, dtype=bool), rng.random(len(mask)))


def is_legal(legal: np.ndarray, actions) -> np.ndarray:
    """Bool per game: its action is an id 0..46 whose bit is set in its 47-bit legal set
    (``State.legal``); any integer array of actions, in range or not."""
    actions = np.asarray(actions)
    bits = np.asarray(legal, dtype=U64) >> np.clip(actions, 0, NUM_ACTIONS - 1).astype(U64)
    return (actions >= 0) & (actions < NUM_ACTIONS) & ((bits & U64(1)) == U64(1))


def legal_actions_at(mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Per row of a (B, 47) mask, its ``floor(u * count)``-th legal action for uniforms ``u`` in
    [0, 1) (0 for a row with none): :func:`random_legal_actions` with the draws given."""
    return _kth_true(np.asarray(mask, dtype=bool), np.asarray(u, dtype=np.float64))


@numba.njit(cache=True)
def _kth_true(mask, u):
    """Per row b, the index of the ``floor(u[b] * count)``-th True entry (0 if none)."""
    out = np.zeros(mask.shape[0], np.int64)
    for b in range(mask.shape[0]):
        count = 0
        for a in range(mask.shape[1]):
            count += mask[b, a]
        k = int(u[b] * count)
        for a in range(mask.shape[1]):
            if mask[b, a]:
                if k == 0:
                    out[b] = a
                    break
                k -= 1
    return out


class Game:
    """The rules of one variant, applied to batches of games. ``Game("two_player", tute="off")``."""

    def __init__(self, rules: Rules | str = "partnership", **overrides):
        self.rules = make_rules(rules, **overrides)
        r = self.rules
        self.num_players = r.num_players
        self.num_sides = r.num_sides
        self._config = _kernel_config(r)

    def __repr__(self) -> str:
        return f"Game({_rules_spec(self.rules)})"

    # ------------------------------------------------------------------------------------------
    # Starting games
    # ------------------------------------------------------------------------------------------
    def new_state(self, deals: Deals | list, validate: bool = True) -> State:
        """Games starting from the given deals (a :class:`Deals` batch, or a list of ``Deal``
        objects or dicts of card strings, each validated). ``validate=False`` skips checking a
        ``Deals`` batch known to be valid (e.g. from :func:`random_deals`)."""
        if not isinstance(deals, Deals):
            deals = Deals.from_deals(deals, self.rules)
        elif validate:
            self._check_deals(deals)
        state = self.empty_state(len(deals))
        self._write_deals(state, np.arange(len(deals)), deals)
        return state

    def random_state(self, rng: np.random.Generator | int | None, batch_size: int, dealer=None) -> State:
        """``batch_size`` games from seeded random deals (``dealer``: a seat, seats, or random)."""
        rng = np.random.default_rng(rng)
        return self.new_state(random_deals(self.rules, rng, batch_size, dealer), validate=False)

    def reset_done(self, state: State, rng: np.random.Generator, lanes=None) -> np.ndarray:
        """Deal new hands in the finished lanes (or in ``lanes``, an index array), the next seat
        dealing (R2); returns those lanes. Read the outcome of finished games before calling this.
        A state with lanes to deal is checked to fit this game first (arrays of its shapes,
        dtypes, writeable; ``ValueError`` if not, nothing written): those lanes are written anew,
        the others are not read."""
        if not isinstance(state, State):
            raise ValueError(f"state does not fit {self!r}: expected a State, got {type(state).__name__}")
        if lanes is None:
            lanes = np.flatnonzero(state.done)
        else:
            lanes = np.asarray(lanes, dtype=np.intp)
            if lanes.ndim != 1 or ((lanes < 0) | (lanes >= state.batch_size)).any():
                raise ValueError(f"lanes must be indices of the state's {state.batch_size} games, got {lanes!r}")
        if lanes.size:
            self._call_kernel(state, _NO_ACTIONS, _NO_LANES, _CHECK_SHAPES, _NO_SETS)
            dealer = (state.dealer[lanes] + 1) % self.num_players
            self._write_deals(state, lanes, random_deals(self.rules, rng, lanes.size, dealer))
        return lanes

    def _check_deals(self, deals: Deals) -> None:
        r = self.rules
        shape = (len(deals), r.num_players, r.hand_size)
        if deals.hands.shape != shape or deals.stock.shape != (len(deals), r.stock_size):
            raise ValueError(
                f"malformed deal: hands {deals.hands.shape} and stock {deals.stock.shape} arrays, "
                f"expected {shape} and {(len(deals), r.stock_size)}"
            )
        for lane in range(len(deals)):
            try:
                deals[lane].validate(r)
            except ValueError as err:
                raise ValueError(f"deal {lane}: {err}") from None

    def empty_state(self, b: int) -> State:
        """B blank games (no cards dealt): a canvas for code that builds states field by field."""
        n, sides = self.num_players, self.num_sides

        def full(shape, value, dtype):
            return np.full(shape, value, dtype=dtype)

        return State(
            hands=full((b, n), 0, U64),
            played=full((b, n), 0, U64),
            known=full((b, n), 0, U64),
            cannot_hold=full((b, n), 0, U64),
            trick=full((b, n), -1, np.int8),
            trick_leader=full(b, 0, np.int8),
            trick_size=full(b, 0, np.int8),
            best_card=full(b, -1, np.int8),
            best_seat=full(b, -1, np.int8),
            current=full(b, 0, np.int8),
            decision=full(b, LEAD, np.int8),
            dealer=full(b, 0, np.int8),
            trump=full(b, 0, np.int8),
            turned_card=full(b, -1, np.int8),
            stock=full((b, self.rules.stock_size), -1, np.int8),
            stock_next=full(b, 0, np.int8),
            to_draw=full(b, 0, np.int8),
            tricks_played=full(b, 0, np.int8),
            last_winner=full(b, -1, np.int8),
            last_won=full((b, sides), -1, np.int8),
            card_points=full((b, sides), 0, np.int16),
            last_trick_bonus=full((b, sides), 0, np.int16),
            cante_points=full((b, sides), 0, np.int16),
            sung_by=full((b, 4), -1, np.int8),
            sang_twenty=full((b, n), False, bool),
            declared=full((b, n), False, bool),
            exchanged=full(b, False, bool),
            tute_declarer=full(b, -1, np.int8),
            done=full(b, False, bool),
            winner=full(b, -1, np.int8),
            games=full(b, 0, np.int8),
            legal=full(b, 0, U64),
        )

    def _write_deals(self, s: State, lanes: np.ndarray, deals: Deals) -> None:
        fresh = self.empty_state(len(lanes))
        r = self.rules
        fresh.hands[:] = np.bitwise_or.reduce(BIT[deals.hands], axis=2)
        fresh.dealer[:] = deals.dealer
        fresh.turned_card[:] = deals.trump_card
        fresh.trump[:] = CARD_SUIT[deals.trump_card]
        fresh.stock[:] = deals.stock
        if r.partnerships:
            # The shown card is in the dealer's hand, known to all until played (R3).
            fresh.known[np.arange(len(lanes)), deals.dealer] = BIT[deals.trump_card]
        else:
            fresh.to_draw[:] = r.stock_size + (1 if r.turned_card_drawn else 0)
        first = (deals.dealer + 1) % self.num_players  # R2: the seat after the dealer leads
        fresh.current[:] = first
        fresh.trick_leader[:] = first
        fresh.legal[:] = self.legal_sets(fresh)
        s.put(lanes, fresh)

    # ------------------------------------------------------------------------------------------
    # Legal actions and stepping: thin wrappers over the compiled rules below
    # ------------------------------------------------------------------------------------------
    def legal_action_mask(self, state: State) -> np.ndarray:
        """(B, 47) bool: legal actions of each game's seat to act (all False when over)."""
        return unpack_sets(state.legal, NUM_ACTIONS)

    def legal_sets(self, s: State) -> np.ndarray:
        """Legal actions of every game as 47-bit sets, computed from the state (``State.legal``
        caches them; recompute after changing a state's fields directly). The state is checked
        to fit this game first (``ValueError`` if not); it may be read-only."""
        try:
            out = np.empty(len(s.current), U64)
        except (AttributeError, TypeError):
            raise ValueError(f"state does not fit {self!r}: {_state_misfit(self.rules, s, False)}") from None
        self._call_kernel(s, _NO_ACTIONS, _NO_LANES, _LEGAL_SETS, out)
        return out

    def exchange_gives(self, state: State) -> np.ndarray:
        """(B,) int8: the card the seat to act gives up for the turned card by exchanging now
        (R7: the 7 of trumps; with ``exchange="after_win"`` the 2 for a turned 4..7); -1 where
        the exchange is not legal (``EXCHANGE`` not in ``State.legal``). The compiled rules
        step an exchange with the same :func:`exchange_gives`."""
        self._call_kernel(state, _NO_ACTIONS, _NO_LANES, _CHECK_SHAPES, _NO_SETS)  # fits this game, or raises
        return _exchange_gives_lanes(self._config[_EXCHANGE], state.trump, state.turned_card, state.legal)

    def step(self, state: State, actions, active=None) -> State:
        """Apply one action per game for its seat to act, in place; returns ``state``.

        Without ``active``, finished games are left as they are (their action is ignored). With
        the optional (B,) bool ``active``, only those games step, and an active finished game
        is an error. An illegal or out-of-range action for a game that steps raises
        ``ValueError`` before anything changes, and so does a state that does not fit this game
        (another variant's state, arrays of the wrong shape, dtype or layout, read-only arrays,
        values out of range): the compiled rules index arrays with the state's values.
        """
        s = state
        try:
            b = len(s.current)
        except (AttributeError, TypeError):
            raise ValueError(f"state does not fit {self!r}: {_state_misfit(self.rules, s, True)}") from None
        actions = np.asarray(actions)
        if actions.shape != (b,):
            raise ValueError(f"actions must have shape ({b},), got {actions.shape}")
        if actions.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, got dtype {actions.dtype}")
        if active is None:
            active = ~s.done
        else:
            active = np.asarray(active, dtype=bool)
            if active.shape != (b,):
                raise ValueError(f"active must have shape ({b},), got {active.shape}")
        if not _kernel_ready:
            _prepare_rules_kernel()
        try:  # the fast path of _call_kernel, inlined: at B = 1 a whole step costs ~6 us
            error, lane = _rules_kernel(
                self._config, s.arrays(), actions.astype(np.int64, copy=False), active, _STEP, s.legal
            )
        except TypeError:  # maybe strided actions or active (else _call_kernel explains the state)
            contiguous = np.ascontiguousarray(actions, dtype=np.int64), np.ascontiguousarray(active)
            error, lane = self._call_kernel(s, *contiguous, _STEP, s.legal)
        if error >= _BAD_SHAPE:
            raise ValueError(f"state does not fit {self!r}: {_state_error(self.rules, s, error)}")
        if error == _FINISHED:
            raise ValueError(f"game {lane} is over: it takes no more actions")
        if error == _OUT_OF_RANGE:
            raise ValueError(f"action {actions[lane]} in game {lane} is out of range 0..{NUM_ACTIONS - 1}")
        if error == _ILLEGAL:
            legal = [action_str(x) for x in range(NUM_ACTIONS) if int(s.legal[lane]) >> x & 1]
            raise ValueError(
                f"illegal action {action_str(int(actions[lane]))} ({actions[lane]}) in game {lane} for seat "
                f"{s.current[lane]}; legal: {' '.join(legal)}"
            )
        return s

    def _call_kernel(self, s: State, actions: np.ndarray, active: np.ndarray, mode: int, out: np.ndarray):
        """``_rules_kernel`` on ``s``; a state that does not fit this game raises ``ValueError``.

        The compiled kernel checks shapes and values itself (:func:`_check_state`). Dtypes,
        layouts and writeable arrays are checked by numba's dispatcher for free: the kernel is
        compiled for one signature, the types of a state this class makes, and compiling others
        is disabled, so any other array type fails to dispatch (``TypeError``) and is explained
        here. A read-only state is copied for the modes that write nothing."""
        if not _kernel_ready:
            _prepare_rules_kernel()
        try:
            result = _rules_kernel(self._config, s.arrays(), actions, active, mode, out)
        except (AttributeError, TypeError):  # not a State, or arrays of other types
            problem = _state_misfit(self.rules, s, writeable=mode != _LEGAL_SETS)
            if problem is None:
                if mode == _LEGAL_SETS and not _writeable(s):
                    return self._call_kernel(s.copy(), actions, active, mode, out)
                raise
            raise ValueError(f"state does not fit {self!r}: {problem}") from None
        if result[0] >= _BAD_SHAPE:
            raise ValueError(f"state does not fit {self!r}: {_state_error(self.rules, s, result[0])}")
        return result


# ----------------------------------------------------------------------------------------------
# The rules of one game (one lane of a batch), compiled. ``st`` is a State's arrays
# (State.arrays()), ``b`` a lane, ``cfg`` the Rules as integers (Game._config).
# ----------------------------------------------------------------------------------------------
_ZERO = U64(0)
_ACTION_BIT = np.array([1 << a for a in range(NUM_ACTIONS)], dtype=U64)
_NO_ACTIONS, _NO_LANES = np.zeros(0, np.int64), np.zeros(0, bool)

@numba.njit(cache=True, error_model="numpy")
def _exchange_gives_lanes(exchange_rule, trump, turned_card, legal):
    """Game.exchange_gives: exchange_gives of the lanes where the exchange is legal, else -1."""
    out = np.full(len(legal), -1, np.int8)
    for b in range(len(legal)):
        if (legal[b] & _ACTION_BIT[EXCHANGE]) != _ZERO:
            out[b] = exchange_gives(exchange_rule, trump[b], turned_card[b])
    return out


# Game._config: the rules options the compiled code reads, by index.
(_N, _PARTNERSHIPS, _HAS_STOCK, _STOCK_SIZE, _NUM_TRICKS, _STOCK_DUTY, _EXCHANGE, _SINGERS_SIDE,
 _FORTY_FIRST, _TUTE_RULE, _MUST_BEAT_PARTNER, _UNDERTRUMP, _DOUBLE_OVER_100) = range(13)
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
# Rules as integers, Game._config), one function each. _rules_kernel runs them over a batch and
# tute_env.solver over its search stack: the one implementation of the rules (docs/rules.md).
# Compiled without numba's reference counting (_nrt=False): they allocate nothing, and the
# caller holds the arrays throughout; inlined into their callers (inline="always", as closures
# were: a call passing the 32 arrays of ``st`` by value costs more than most of these bodies).
_lane_rule = numba.njit(cache=True, error_model="numpy", _nrt=False, inline="always")


@_lane_rule
def side_of(cfg, seat):
    """The scoring side of ``seat``: ``seat % 2`` with partnerships, else the seat (R2)."""
    return seat % 2 if cfg[_PARTNERSHIPS] != 0 else seat


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
    under = trump_set if cfg[_UNDERTRUMP] != 0 else _ZERO
    if cfg[_PARTNERSHIPS] != 0 and cfg[_MUST_BEAT_PARTNER] == 0 and st.best_seat[b] == (seat + 2) % 4:
        # Manita: while the partner holds the trick, only follow suit (R5).
        beat_led = beat_trump = under = _ZERO
    stock_duty = cfg[_STOCK_DUTY]  # 0 strict, 1 free, 2 trump_led
    if cfg[_HAS_STOCK] != 0 and stock_duty != 0 and st.to_draw[b] > 0:
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
        if cfg[_FORTY_FIRST] != 0:  # the 40 first, and no 40 after one's own 20
            ok = ok and (not twenty if suit == t else not can_forty)
        if ok:
            bits |= _ACTION_BIT[SING_BASE + suit]
    if cfg[_TUTE_RULE] != 0 and ((hand & KINGS) == KINGS or (hand & KNIGHTS) == KNIGHTS):
        bits |= _ACTION_BIT[TUTE]
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
        out |= _ACTION_BIT[PASS]
    exchange_rule = cfg[_EXCHANGE]  # 0 off, 1 seven_on_lead, 2 after_win
    if exchange_rule != 0 and kind == LEAD and not st.exchanged[b] and st.to_draw[b] > 0:
        # R7: holding the card that takes the turned one; after_win, only after a trick won.
        give = exchange_gives(exchange_rule, st.trump[b], st.turned_card[b])
        if give >= 0 and (hand & BIT[give]) != _ZERO and (exchange_rule == 1 or st.tricks_played[b] > 0):
            out |= _ACTION_BIT[EXCHANGE]
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
    n, stock_size = cfg[_N], cfg[_STOCK_SIZE]
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
    st.games[b] = 2 if best_total > 100 and cfg[_DOUBLE_OVER_100] != 0 else 1
    _finish(st, b)


@_lane_rule
def _end_trick(cfg, st, b):
    n = cfg[_N]
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
    if cfg[_HAS_STOCK] != 0 and st.to_draw[b] > 0:
        _draw(cfg, st, b, taker)
    if st.tricks_played[b] == cfg[_NUM_TRICKS]:
        _end_hand(cfg, st, b)
        return
    st.current[b] = taker
    st.decision[b] = LEAD
    if cfg[_PARTNERSHIPS] != 0 and cfg[_SINGERS_SIDE] != 0:
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
    if cfg[_PARTNERSHIPS] != 0 and st.turned_card[b] == card:
        st.turned_card[b] = -1
    leads = st.trick_size[b] == 0
    if leads or (beating_set(st.best_card[b], st.trump[b]) & bit) != _ZERO:
        st.best_card[b] = card
        st.best_seat[b] = seat
    if leads:
        st.trick_leader[b] = seat
    st.trick_size[b] += 1
    st.current[b] = (seat + 1) % cfg[_N]
    st.decision[b] = FOLLOW
    if st.trick_size[b] == cfg[_N]:
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
    st.games[b] = 2 if cfg[_TUTE_RULE] == 1 else 1
    _finish(st, b)


@_lane_rule
def _exchange(cfg, st, b):
    """R7: the 7 (or, after_win with a low turned card, the 2) of trumps takes the turned
    card."""
    seat = st.current[b]
    turned = st.turned_card[b]
    give = exchange_gives(cfg[_EXCHANGE], st.trump[b], turned)
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
def _rules_kernel(cfg, st, actions, active, mode, out):
    """First checks that the state fits the game (:func:`_check_state`), then by ``mode``:
    ``_LEGAL_SETS``: writes the legal sets of every lane to ``out``, the state untouched.
    ``_STEP``: steps the ``active`` lanes with ``actions``, every lane checked before any
    changes, and writes their legal sets to ``out`` (State.legal).
    ``_CHECK_SHAPES``: only the shapes.
    Returns (error, lane): 0 or the code of the first problem (a state that does not fit:
    _check_state's, lane -1, nothing changed)."""
    error = _check_state(cfg, st, _SHAPES if mode == _CHECK_SHAPES else _RULES)
    if error != 0 or mode == _CHECK_SHAPES:
        return error, -1
    current, done, legal = st.current, st.done, st.legal
    lanes = len(current)
    stepping = mode == _STEP
    if stepping:
        if len(actions) != lanes or len(active) != lanes:
            return _OUT_OF_RANGE, -1
        for b in range(lanes):
            if active[b] and done[b]:
                return _FINISHED, b
        for b in range(lanes):
            if active[b] and (actions[b] < 0 or actions[b] >= NUM_ACTIONS):
                return _OUT_OF_RANGE, b
        for b in range(lanes):
            if active[b] and (legal[b] & _ACTION_BIT[actions[b]]) == _ZERO:
                return _ILLEGAL, b
    # One call of legal_set (each call site is a copy of its code to compile).
    if len(out) != lanes:
        return _OUT_OF_RANGE, -1
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
#   is disabled (_compile_only); a call with other types fails to dispatch and
#   _state_misfit explains it;
# * shapes and values: _check_state, compiled, called first by each kernel (branch-free passes
#   over the lanes that LLVM vectorises: ~0.1 us at B = 1, ~5 us at B = 4096, about as long as
#   reading the state's arrays once); the error path finds which value in Python.
# ----------------------------------------------------------------------------------------------
_NO_SETS = np.zeros(0, U64)
_CARD_SET_OVERFLOW = ~U64((1 << NUM_CARDS) - 1)
_ACTION_SET_OVERFLOW = ~U64((1 << NUM_ACTIONS) - 1)

# The fields _check_state range-checks, in its order (lo..hi from _value_bounds, in the kernel's
# config), then the card and action sets, then the checks across fields of one lane.
_RANGE_FIELDS = (
    "trick", "trick_leader", "trick_size", "best_card", "best_seat", "current", "decision", "dealer",
    "trump", "turned_card", "stock", "stock_next", "to_draw", "tricks_played", "last_winner",
    "last_won", "sung_by", "tute_declarer", "winner",
)
_SET_FIELDS = ("hands", "played", "known", "cannot_hold", "legal")
_LANE_CHECKS = (
    ("a game not over has a seat to act and a decision, and current and decision are -1 together",
     ("done", "current", "decision")),
    ("a follow decision needs a trick in progress", ("decision", "trick_size")),
    ("a trick in progress has a winning card and seat", ("trick_size", "best_card", "best_seat")),
    ("to_draw cannot exceed the cards left in the stock (and the turned card, with two players)",
     ("to_draw", "stock_next", "turned_card")),
)
# Game._config (_kernel_config): _rules_config, then whether the turned card is drawn, then the
# ranges of _RANGE_FIELDS.
_TURNED_DRAWN = _DOUBLE_OVER_100 + 1
_BOUNDS = _TURNED_DRAWN + 1


def _value_bounds(r: Rules) -> dict[str, tuple[int, int]]:
    """lo..hi of each of _RANGE_FIELDS under rules ``r``."""
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
    assert tuple(bounds) == _RANGE_FIELDS
    return bounds


def _kernel_config(r: Rules) -> np.ndarray:
    """Game._config: what the compiled code reads of the rules, as int64: _rules_config, whether
    the turned card is drawn, then lo, hi of each of _RANGE_FIELDS as int8, 8 to a word (the
    check compares int8 to int8, 64 lanes at a time, and views them without a copy)."""
    bounds = np.array([x for lo_hi in _value_bounds(r).values() for x in lo_hi], dtype=np.int8)
    bounds = np.concatenate([bounds, np.zeros(-len(bounds) % 8, np.int8)]).view(np.int64)
    return np.concatenate([_rules_config(r), np.array([r.turned_card_drawn], dtype=np.int64), bounds])


@numba.njit(cache=True, error_model="numpy", _nrt=False)
def _check_state(cfg, st, level):
    """Whether the state's arrays ``st`` (State.arrays()) fit the game of ``cfg`` (Game._config):
    0 if so, _BAD_SHAPE if an array has the wrong shape, _BAD_VALUE if a value fails a check
    (the ranges of _RANGE_FIELDS, _SET_FIELDS without bits past the cards or actions, the
    _LANE_CHECKS). Which array, value and lane is found in Python, on the error path only
    (_state_error), so that nothing more is compiled.

    ``level``: _SHAPES only; _RULES, the values too, of the card sets only ``hands`` (whose bits
    the rules make actions of); _ALL, ``played``, ``known`` and ``cannot_hold`` too (the rules
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
    n = cfg[_N]
    sides = 2 if cfg[_PARTNERSHIPS] != 0 else n
    stock_size = cfg[_STOCK_SIZE]
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
        return _BAD_SHAPE
    if lanes == 0 or level == _SHAPES:
        return 0
    bounds = cfg[_BOUNDS:].view(np.int8)  # the range of _RANGE_FIELDS[k]: lo[k]..hi[k]
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
    if level == _ALL:
        for i in range(hands.size):
            seen |= hands.flat[i] | played.flat[i] | known.flat[i] | cannot_hold.flat[i]
    else:
        for i in range(hands.size):
            seen |= hands.flat[i]
    bad |= (seen & _CARD_SET_OVERFLOW) != _ZERO
    seen = _ZERO
    for b in range(lanes):
        seen |= legal[b]
    bad |= (seen & _ACTION_SET_OVERFLOW) != _ZERO
    # The 1-D fields and _LANE_CHECKS, one pass over the lanes.
    last, turned_drawn = np.int8(stock_size), np.int8(cfg[_TURNED_DRAWN])
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
    return _BAD_VALUE if bad else 0


def _expected_shapes(r: Rules, lanes: int) -> dict[str, tuple[int, ...]]:
    return {name: (lanes, *a.shape[1:]) for name, a in zip(_StateArrays._fields, Game(r).empty_state(0).arrays())}


def _first_problem(r: Rules, s: State, level: int) -> tuple[int, int] | None:
    """(lane, check) of the first value check of _check_state (numbered as _state_error reads
    them) that ``s`` fails, at the first lane that fails it; None if none. The same checks as
    the compiled pass, in numpy: run only once that pass has found a problem."""
    lanes = len(s.current)
    for k, (name, (lo, hi)) in enumerate(_value_bounds(r).items()):
        a = getattr(s, name).reshape(lanes, -1)
        bad = ((a < lo) | (a > hi)).any(axis=1)
        if bad.any():
            return int(np.argmax(bad)), k
    for k, name in enumerate(_SET_FIELDS):
        if name in ("played", "known", "cannot_hold") and level != _ALL:
            continue
        overflow = _ACTION_SET_OVERFLOW if name == "legal" else _CARD_SET_OVERFLOW
        bad = (getattr(s, name).reshape(lanes, -1) & overflow).any(axis=1)
        if bad.any():
            return int(np.argmax(bad)), len(_RANGE_FIELDS) + k
    over = s.current < 0
    turned = (s.turned_card >= 0) & r.turned_card_drawn
    lane_checks = (
        (over & ~s.done) | (over ^ (s.decision < 0)),
        (s.decision == FOLLOW) & (s.trick_size == 0),
        (s.trick_size > 0) & ((s.best_card < 0) | (s.best_seat < 0)),
        s.to_draw.astype(int) + s.stock_next > r.stock_size + turned,
    )
    for k, bad in enumerate(lane_checks):
        if bad.any():
            return int(np.argmax(bad)), len(_RANGE_FIELDS) + len(_SET_FIELDS) + k
    return None


def _state_error(r: Rules, s: State, error: int, level: int = _RULES) -> str:
    """What _check_state's ``error`` means for state ``s`` (checked at ``level``), in words."""
    if error == _BAD_SHAPE:
        return _state_misfit(r, s, writeable=False) or "an array of the wrong shape (not found again)"
    found = _first_problem(r, s, level)
    if found is None:  # not expected: the compiled check and this one disagree
        return "a value out of range (not found again)"
    lane, what = found
    if what < len(_RANGE_FIELDS):
        name = _RANGE_FIELDS[what]
        lo, hi = _value_bounds(r)[name]
        row = getattr(s, name)[lane]
        if np.ndim(row):
            j = int(np.flatnonzero((row < lo) | (row > hi))[0])
            return f"{name}[{lane}, {j}] is {row[j]}, expected {lo}..{hi}"
        return f"{name}[{lane}] is {row}, expected {lo}..{hi}"
    what -= len(_RANGE_FIELDS)
    if what < len(_SET_FIELDS):
        name = _SET_FIELDS[what]
        width, kind = (NUM_ACTIONS, "actions") if name == "legal" else (NUM_CARDS, "cards")
        row = np.atleast_1d(getattr(s, name)[lane])
        j = int(np.flatnonzero(row >> U64(width))[0])
        bits = [x for x in range(width, 64) if int(row[j]) >> x & 1]
        where = f"{name}[{lane}, {j}]" if np.ndim(getattr(s, name)) == 2 else f"{name}[{lane}]"
        return f"{where} has bit(s) {bits} set, expected a set of {kind} 0..{width - 1}"
    description, fields = _LANE_CHECKS[what - len(_SET_FIELDS)]
    values = ", ".join(f"{f}[{lane}] = {getattr(s, f)[lane]}" for f in fields)
    return f"{description} ({values})"


def _state_misfit(r: Rules, s, writeable: bool) -> str | None:
    """Why ``s`` cannot be handed to the compiled code (not a State, an array of the wrong
    type, shape or layout, read-only when ``writeable``), or None."""
    if not isinstance(s, State):
        return f"expected a State, got {type(s).__name__}"
    current = s.current
    if not isinstance(current, np.ndarray) or current.ndim != 1:
        return f"current must be a 1-D array (one entry per game), got {type(current).__name__} {np.shape(current)}"
    blank = Game(r).empty_state(0)
    shapes = _expected_shapes(r, len(current))
    for name in _StateArrays._fields:
        a, want = getattr(s, name), getattr(blank, name)
        if not isinstance(a, np.ndarray):
            return f"{name} is a {type(a).__name__}, expected a numpy array"
        if a.dtype != want.dtype:
            return f"{name} has dtype {a.dtype}, expected {want.dtype}"
        if a.shape != shapes[name]:
            return f"{name} has shape {a.shape}, expected {shapes[name]}"
        if not a.flags.c_contiguous:
            return f"{name} is not C-contiguous (a strided view?); state.copy() has contiguous arrays"
        if not a.flags.aligned:
            return f"{name} is not aligned"
        if writeable and not a.flags.writeable:
            return f"{name} is read-only"
    return None


def _writeable(s: State) -> bool:
    return all(a.flags.writeable for a in s.arrays())


def _rules_spec(r: Rules) -> str:
    """Arguments that make rules ``r``: the nearest preset and the options that differ from it,
    e.g. ``'two_player', tute='off'``."""
    from .rules import PRESETS

    def differences(name):
        base = PRESETS[name]
        fields = (f.name for f in dataclasses.fields(r))
        return {name: getattr(r, name) for name in fields if getattr(r, name) != getattr(base, name)}

    name = min(PRESETS, key=lambda p: len(differences(p)))
    return ", ".join([repr(name)] + [f"{k}={v!r}" for k, v in differences(name).items()])


def _compile_only(dispatcher, *args) -> None:
    """Compile ``dispatcher`` (or load it from numba's cache) for the types of ``args``, and
    disable compiling for any other types: a call with other types then raises ``TypeError``
    instead of compiling a version for them. One compilation, whatever the first call passes."""
    sig = tuple(numba.typeof(a) for a in args)
    with _compile_lock:  # two threads' first calls: compiling stays disabled once either is done
        if sig not in dispatcher.overloads:
            dispatcher.disable_compile(False)
            dispatcher.compile(sig)
        dispatcher.disable_compile()


def _new_lock():
    import threading  # here, not at the top: the imports there are shared with other branches' work

    return threading.Lock()


_compile_lock = _new_lock()


_kernel_ready = False


def _prepare_rules_kernel() -> None:
    global _kernel_ready
    game = Game("partnership")
    blank = game.empty_state(0)
    _compile_only(_rules_kernel, game._config, blank.arrays(), _NO_ACTIONS, _NO_LANES, _STEP, blank.legal)
    _kernel_ready = True
