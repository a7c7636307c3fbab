"""The batched rules core: B games of Tute as numpy arrays, stepped by rules compiled with numba.

This is the one implementation of the rules (docs/rules.md); the env, the bots, evaluation and
training all call it. It imports neither PettingZoo nor torch.

>>> import numpy as np
>>> from tute_env.engine.core import Game
>>> game = Game("partnership")
>>> state = game.random_state(np.random.default_rng(0), batch_size=4096)
>>> mask = game.legal_action_mask(state)            # (4096, 47) bool
>>> actions = ...                                   # one legal action per game
>>> game.step(state, actions)                       # in place; state.current: who acts next

Design:

* The state is a :class:`State` of arrays with a leading batch axis; each lane is its own game
  and lanes need not be in step. B = 1 is the same code path.
* Sets of cards (hands, cards played, ...) are 40-bit sets in ``uint64`` (their tables, such as
  ``BIT``, ``SUIT_SET`` and ``beating_set``, are in :mod:`tute_env.engine.cards`), so legality is a few
  bitwise operations per game. The set of legal actions is kept in the state as a 47-bit set
  (``State.legal``), recomputed after each step: the mask is one unpacking and validating an
  action is one bit test.
* The rules are written once, for one game (one lane), as functions compiled with numba
  (:func:`legal_set`, :func:`step_lane` and their helpers, taking ``(cfg, st, lane)``);
  :meth:`Game.step` and :meth:`Game.legal_sets` run them over the lanes of a batch in one
  compiled loop (``rules_kernel``), and :mod:`tute_env.search.solver` over its search stack. A compiled loop costs the same per game at B = 1 and B = 16384, where a
  numpy formulation pays ~150 array calls per step whatever B is.
* :meth:`Game.step` mutates the state in place (copying every field of thousands of games on
  every decision would cost more than the rules themselves); ``state.copy()`` gives a snapshot.
* Follow duties (R5, R6) are one "priority chain" of candidate sets per game: the legal cards
  are the hand's cards in the first candidate set it meets. The same chain tells what a play
  reveals (a player who played from set k holds nothing of the sets before k), which is how the
  core keeps ``State.cannot_hold``, the public inferences a PIMC bot samples from.
"""

from __future__ import annotations

import functools

import numba
import numpy as np

from .cards import BIT, CARD_SUIT, NUM_ACTIONS, U64, action_str, is_int, unpack_sets
from .checks import state_error, state_misfit, writeable
from .deal import Deals, random_deals
from .kernel import (
    CFG_EXCHANGE,
    CFG_PACKED_WORDS,
    ERR_BAD_SHAPE,
    ERR_FINISHED,
    ERR_OUT_OF_RANGE,
    MODE_CHECK_SHAPES,
    MODE_LEGAL_SETS,
    MODE_STEP,
    NO_ACTIONS,
    NO_LANES,
    NO_SETS,
    ensure_rules_kernel,
    exchange_gives_lanes,
    kernel_config,
    packed_kernel,
    packed_views,
    rules_kernel,
)
from .rules import Rules, make_rules, rules_spec
from .state import State, StateArrays, blank_state

__all__ = ["Game", "State", "is_legal", "legal_actions_at", "random_legal_actions"]


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
        self._config = kernel_config(r)

    def __repr__(self) -> str:
        return f"Game({rules_spec(self.rules)})"

    # ------------------------------------------------------------------------------------------
    # Starting games
    # ------------------------------------------------------------------------------------------
    def new_state(self, deals: Deals | list, validate: bool = True) -> State:
        """Games starting from the given deals (a :class:`Deals` batch, or a list of ``Deal``
        objects or dicts of card strings, each validated). ``validate=False`` skips checking a
        ``Deals`` batch known to be valid (e.g. from :func:`random_deals`)."""
        deals = self._checked_deals(deals, validate)
        state = self.empty_state(len(deals))
        self._deal_into(state, deals)
        state.legal[:] = self.legal_sets(state)
        return state

    def new_packed(self, deals: Deals | list, validate: bool = True) -> PackedGame:
        """One game starting from the given deal (a batch of one, as :meth:`new_state` takes),
        packed in one array: :class:`PackedGame`."""
        deals = self._checked_deals(deals, validate)
        if len(deals) != 1:
            raise ValueError(f"a packed game is one game, got {len(deals)} deals")
        words = self._packed_blank.copy()
        self._deal_into(State(*packed_views(self._config, words)), deals)
        return PackedGame(self, words)

    def _checked_deals(self, deals: Deals | list, validate: bool) -> Deals:
        if not isinstance(deals, Deals):
            return Deals.from_deals(deals, self.rules)
        if validate:
            self._check_deals(deals)
        return deals

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
            self._call_kernel(state, NO_ACTIONS, NO_LANES, MODE_CHECK_SHAPES, NO_SETS)
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
        return blank_state(self.rules, b)

    @functools.cached_property
    def _packed_blank(self) -> np.ndarray:
        """A blank game (:meth:`empty_state`) packed: what new packed games are copied from."""
        words = np.zeros(self._config[CFG_PACKED_WORDS], U64)
        views = State(*packed_views(self._config, words))
        views.put(slice(None), self.empty_state(1))
        return words

    @functools.cached_property
    def _packed_fields(self) -> dict[str, tuple[tuple, np.dtype, int]]:
        """Each field's shape, dtype and byte offset in a packed game (read off its views)."""
        words = self._packed_blank
        views = State(*packed_views(self._config, words))
        base = words.ctypes.data
        return {name: (a.shape, a.dtype, a.ctypes.data - base) for name, a in zip(StateArrays._fields, views.arrays())}

    def _write_deals(self, s: State, lanes: np.ndarray, deals: Deals) -> None:
        fresh = self.empty_state(len(lanes))
        self._deal_into(fresh, deals)
        fresh.legal[:] = self.legal_sets(fresh)
        s.put(lanes, fresh)

    def _deal_into(self, fresh: State, deals: Deals) -> None:
        """Write ``deals`` into ``fresh``, blank games (one per deal); their legal sets are left
        for the caller to compute."""
        r = self.rules
        fresh.hands[:] = np.bitwise_or.reduce(BIT[deals.hands], axis=2)
        fresh.dealer[:] = deals.dealer
        fresh.turned_card[:] = deals.trump_card
        fresh.trump[:] = CARD_SUIT[deals.trump_card]
        fresh.stock[:] = deals.stock
        if r.partnerships:
            # The shown card is in the dealer's hand, known to all until played (R3).
            fresh.known[np.arange(len(deals)), deals.dealer] = BIT[deals.trump_card]
        else:
            fresh.to_draw[:] = r.stock_size + (1 if r.turned_card_drawn else 0)
        first = (deals.dealer + 1) % self.num_players  # R2: the seat after the dealer leads
        fresh.current[:] = first
        fresh.trick_leader[:] = first

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
            raise ValueError(f"state does not fit {self!r}: {state_misfit(self.rules, s, False)}") from None
        self._call_kernel(s, NO_ACTIONS, NO_LANES, MODE_LEGAL_SETS, out)
        return out

    def exchange_gives(self, state: State) -> np.ndarray:
        """(B,) int8: the card the seat to act gives up for the turned card by exchanging now
        (R7: the 7 of trumps; with ``exchange="after_win"`` the 2 for a turned 4..7); -1 where
        the exchange is not legal (``EXCHANGE`` not in ``State.legal``). The compiled rules
        step an exchange with the same :func:`exchange_gives`."""
        self._call_kernel(state, NO_ACTIONS, NO_LANES, MODE_CHECK_SHAPES, NO_SETS)  # fits this game, or raises
        return exchange_gives_lanes(self._config[CFG_EXCHANGE], state.trump, state.turned_card, state.legal)

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
            raise ValueError(f"state does not fit {self!r}: {state_misfit(self.rules, s, True)}") from None
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
        ensure_rules_kernel()
        try:  # the fast path of _call_kernel, inlined: at B = 1 a whole step costs ~6 us
            error, lane = rules_kernel(
                self._config, s.arrays(), actions.astype(np.int64, copy=False), active, MODE_STEP, s.legal
            )
        except TypeError:  # maybe strided actions or active (else _call_kernel explains the state)
            contiguous = np.ascontiguousarray(actions, dtype=np.int64), np.ascontiguousarray(active)
            error, lane = self._call_kernel(s, *contiguous, MODE_STEP, s.legal)
        if error:
            raise self._step_error(s, error, lane, int(actions[lane]))
        return s

    def _step_error(self, s: State, error: int, lane: int, action: int) -> ValueError:
        """The error of a step the compiled rules refused (their error code)."""
        if error >= ERR_BAD_SHAPE:
            return ValueError(f"state does not fit {self!r}: {state_error(self.rules, s, error)}")
        if error == ERR_FINISHED:
            return ValueError(f"game {lane} is over: it takes no more actions")
        if error == ERR_OUT_OF_RANGE:
            return ValueError(f"action {action} in game {lane} is out of range 0..{NUM_ACTIONS - 1}")
        legal = [action_str(x) for x in range(NUM_ACTIONS) if int(s.legal[lane]) >> x & 1]
        return ValueError(
            f"illegal action {action_str(action)} ({action}) in game {lane} for seat "
            f"{s.current[lane]}; legal: {' '.join(legal)}"
        )

    def _call_kernel(self, s: State, actions: np.ndarray, active: np.ndarray, mode: int, out: np.ndarray):
        """``rules_kernel`` on ``s``; a state that does not fit this game raises ``ValueError``.

        The compiled kernel checks shapes and values itself (:func:`check_state`). Dtypes,
        layouts and writeable arrays are checked by numba's dispatcher for free: the kernel is
        compiled for one signature, the types of a state this class makes, and compiling others
        is disabled, so any other array type fails to dispatch (``TypeError``) and is explained
        here. A read-only state is copied for the modes that write nothing."""
        ensure_rules_kernel()
        try:
            result = rules_kernel(self._config, s.arrays(), actions, active, mode, out)
        except (AttributeError, TypeError):  # not a State, or arrays of other types
            problem = state_misfit(self.rules, s, writeable=mode != MODE_LEGAL_SETS)
            if problem is None:
                if mode == MODE_LEGAL_SETS and not writeable(s):
                    return self._call_kernel(s.copy(), actions, active, mode, out)
                raise
            raise ValueError(f"state does not fit {self!r}: {problem}") from None
        if result[0] >= ERR_BAD_SHAPE:
            raise ValueError(f"state does not fit {self!r}: {state_error(self.rules, s, result[0])}")
        return result



class PackedGame:
    """One game of a :class:`Game`'s rules packed in one uint64 array, ``words`` (the layout is
    the compiled rules', :func:`~tute_env.engine.kernel.packed_kernel`), stepped by one compiled
    call: ~1 us a step where :meth:`Game.step` at B = 1, passing a state's 32 arrays, takes ~6.
    What one-game loops use (OpenSpiel's ``python_tute``). Make one with :meth:`Game.new_packed`
    or from a State of one game.

    ``current`` (the seat to act, -1 when over), ``legal`` (its legal actions as a 47-bit set)
    and ``drawn`` (the cards the last step drew from the stock: a byte per seat, card id + 1,
    plus 128 for the face-up turned card; 0 when none) are plain ints, kept after each step.
    ``state`` is the game as a :class:`State` of B = 1 whose arrays are views of ``words``:
    read it, or change it and call :meth:`refresh`.
    """

    __slots__ = ("_state", "current", "drawn", "game", "legal", "words")

    def __init__(self, game: Game, words: np.ndarray):
        """The game packed in ``words`` (checked: a writeable, contiguous uint64 array of the
        rules' length, its values checked by :meth:`refresh`, which this calls)."""
        size = int(game._config[CFG_PACKED_WORDS])
        if not (isinstance(words, np.ndarray) and words.dtype == U64 and words.shape == (size,)
                and words.flags.c_contiguous and words.flags.writeable):
            raise ValueError(f"a packed game of {game!r} is a writeable contiguous uint64 array of {size} words, "
                             f"got {words!r:.80}")
        self._set(game, words, -1, 0, 0)
        self.refresh()

    def _set(self, game: Game, words: np.ndarray, current: int, legal: int, drawn: int) -> None:
        self.game, self.words, self._state = game, words, None
        self.current, self.legal, self.drawn = current, legal, drawn

    @classmethod
    def from_state(cls, game: Game, state: State) -> PackedGame:
        """``state`` (one game of ``game``'s rules, checked: ``ValueError`` if it does not fit)
        packed, a copy."""
        if not isinstance(state, State) or state.batch_size != 1:
            raise ValueError(f"a packed game is one game: expected a State of B = 1, got {state!r:.80}")
        game.legal_sets(state)  # the state fits these rules, or ValueError
        words = game._packed_blank.copy()
        State(*packed_views(game._config, words)).put(slice(None), state)
        return cls(game, words)

    @property
    def state(self) -> State:
        """The game as a State of B = 1, views of ``words``."""
        if self._state is None:
            self._state = State(*packed_views(self.game._config, self.words))
        return self._state

    @property
    def done(self) -> bool:
        return self.current < 0

    def field(self, name: str) -> np.ndarray:
        """The array of State field ``name`` (B = 1), a view of ``words``, without making
        ``state``: ~0.5 us."""
        try:
            shape, dtype, offset = self.game._packed_fields[name]
        except KeyError:
            raise ValueError(f"State has no field {name!r}") from None
        return np.ndarray(shape, dtype, self.words, offset)

    def copy(self) -> PackedGame:
        new = PackedGame.__new__(PackedGame)  # checked once, when made
        new._set(self.game, self.words.copy(), self.current, self.legal, self.drawn)
        return new

    def step(self, action: int) -> None:
        """Apply ``action`` for the seat to act, in place; an illegal one raises ``ValueError``
        before anything changes, as :meth:`Game.step` does."""
        if type(action) is not int and not is_int(action):  # a Python int: the one test
            raise ValueError(f"an action is an integer, got {action!r}")
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action {action} in game 0 is out of range 0..{NUM_ACTIONS - 1}")
        self._call(int(action), MODE_STEP)

    def refresh(self) -> None:
        """Recompute ``legal`` and ``current`` after changing ``state``'s arrays (the game is
        checked to fit its rules first: ``ValueError`` if not)."""
        self._call(0, MODE_LEGAL_SETS)

    def _call(self, action: int, mode: int) -> None:
        ensure_rules_kernel()
        error, lane, current, legal, drawn = packed_kernel(self.game._config, self.words, action, mode)
        if error:
            raise self.game._step_error(self.state, error, lane, action)
        self.current, self.legal, self.drawn = int(current), int(legal), drawn
