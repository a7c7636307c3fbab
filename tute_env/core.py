"""The batched rules core: B games of Tute stepped at once with numpy.

This is the one implementation of the rules (RULES.md); the env, the bots, evaluation and
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
* Sets of cards (hands, cards played, ...) are 40-bit sets in ``uint64``, so legality is a few
  bitwise operations per game. The set of legal actions is kept in the state as a 47-bit set
  (``State.legal``), recomputed after each step: the mask is one unpacking and validating an
  action is one bit test.
* :meth:`Game.step` mutates the state in place (copying every field of thousands of games on
  every decision would cost more than the rules themselves); ``state.copy()`` gives a snapshot.
* Follow duties (R5, R6) are one "priority chain" of candidate sets per game: the legal cards
  are the hand's cards in the first candidate set it meets. The same chain tells what a play
  reveals (a player who played from set k holds nothing of the sets before k), which is how the
  core keeps ``State.cannot_hold``, the public inferences a PIMC bot samples from.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .cards import (
    CARD_POINTS,
    CARD_STRENGTH,
    CARD_SUIT,
    DECLARE,
    EXCHANGE,
    FOLLOW,
    KING,
    KNIGHT,
    LAST_TRICK_BONUS,
    LEAD,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_FACES,
    PASS,
    SEVEN,
    SING_BASE,
    TUTE,
    TWO,
    action_str,
)
from .deal import Deals, random_deals
from .rules import Rules, make_rules

U64 = np.uint64
_ONE = U64(1)

# Card-set tables, each indexed by card id or suit, as uint64 40-bit sets.
BIT = np.array([1 << c for c in range(NUM_CARDS)], dtype=U64)
SUIT_SET = np.array([((1 << NUM_FACES) - 1) << (NUM_FACES * s) for s in range(4)], dtype=U64)
ALL_CARDS = U64((1 << NUM_CARDS) - 1)
#: Cards of the same suit that beat card c.
STRONGER = np.array(
    [
        sum(1 << d for d in range(NUM_CARDS) if CARD_SUIT[d] == CARD_SUIT[c] and CARD_STRENGTH[d] > CARD_STRENGTH[c])
        for c in range(NUM_CARDS)
    ],
    dtype=U64,
)
#: King and knight of each suit: a cante (R8).
PAIR_SET = np.array([(1 << (s * NUM_FACES + KING)) | (1 << (s * NUM_FACES + KNIGHT)) for s in range(4)], dtype=U64)
KINGS = U64(sum(1 << (s * NUM_FACES + KING) for s in range(4)))
KNIGHTS = U64(sum(1 << (s * NUM_FACES + KNIGHT) for s in range(4)))
_POINTS = CARD_POINTS.astype(np.int16)
# R7 after_win: the 7 of trumps takes a turned A, 3 or court card; the 2 a turned 4..7.
_SEVEN_TAKES_FACE = np.zeros(NUM_FACES, bool)
_SEVEN_TAKES_FACE[[0, 2, 7, 8, 9]] = True
_TWO_TAKES_FACE = np.zeros(NUM_FACES, bool)
_TWO_TAKES_FACE[[3, 4, 5, 6]] = True
_DECLARATION_BITS = U64(sum(1 << a for a in range(SING_BASE, TUTE + 1)))


def beating_cards(best_card: np.ndarray, trump: np.ndarray) -> np.ndarray:
    """(B,) uint64: the cards that beat ``best_card`` (a higher card of its suit, or any trump
    over a non-trump), given the trump suit. ``best_card`` -1 (no trick yet) gives every card."""
    best = best_card.astype(np.intp)
    beats = STRONGER[best] | np.where(CARD_SUIT[best] != trump, SUIT_SET[trump], U64(0))
    return np.where(best_card >= 0, beats, ALL_CARDS)


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

    @property
    def nbytes(self) -> int:
        """Bytes of state arrays (divide by B for the cost of one game)."""
        return sum(getattr(self, f.name).nbytes for f in dataclasses.fields(self))


def unpack_sets(sets: np.ndarray, width: int = NUM_CARDS) -> np.ndarray:
    """Bits of uint64 sets as a bool array with a trailing axis of ``width``."""
    sets = np.ascontiguousarray(sets, dtype=U64)
    bits = np.unpackbits(sets.view(np.uint8).reshape(*sets.shape, 8), axis=-1, bitorder="little")
    return bits[..., :width].view(bool)


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a (B, 47) mask (0 for a row with none)."""
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


def pack_sets(bits: np.ndarray) -> np.ndarray:
    """Inverse of :func:`unpack_sets`: bool (..., width <= 64) to uint64 sets."""
    bits = np.asarray(bits, dtype=bool)
    padded = np.zeros((*bits.shape[:-1], 64), dtype=bool)
    padded[..., : bits.shape[-1]] = bits
    return np.packbits(padded, axis=-1, bitorder="little").view(U64)[..., 0]


class Game:
    """The rules of one variant, applied to batches of games. ``Game("two_player", tute="off")``."""

    def __init__(self, rules: Rules | str = "partnership", **overrides):
        self.rules = make_rules(rules, **overrides)
        r = self.rules
        self.num_players = r.num_players
        self.num_sides = r.num_sides
        seats = np.arange(r.num_players)
        #: SIDE[seat]: side index of each seat.
        self.side_of_seat = (seats % 2 if r.partnerships else seats).astype(np.int8)

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

    def reset_done(self, state: State, rng: np.random.Generator) -> np.ndarray:
        """Deal new hands in the finished lanes, the next seat dealing (R2); returns those lanes.
        Read the outcome of finished games before calling this."""
        lanes = np.flatnonzero(state.done)
        if lanes.size:
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
    # Legal actions
    # ------------------------------------------------------------------------------------------
    def legal_action_mask(self, state: State) -> np.ndarray:
        """(B, 47) bool: legal actions of each game's seat to act (all False when over)."""
        return unpack_sets(state.legal, NUM_ACTIONS)

    def _follow_chain(self, s: State, seat: np.ndarray, i: np.ndarray) -> list[np.ndarray]:
        """The follow duty (R5, R6) of ``seat`` in lanes ``i`` as a priority chain of card sets:
        the legal cards are the hand's cards in the first set the hand meets. Lanes must have a
        trick in progress."""
        r = self.rules
        led_suit = CARD_SUIT[s.trick[i, s.trick_leader[i]]]
        led_set = SUIT_SET[led_suit]
        trump = s.trump[i]
        trump_set = SUIT_SET[trump]
        beats = beating_cards(s.best_card[i], trump)
        beat_led = beats & led_set  # R5 1: beat within the suit led (empty once trumped)
        beat_trump = beats & trump_set  # R5 2: trump, or overtrump
        under = trump_set if r.undertrump_when_overtrumped else np.zeros_like(trump_set)
        if r.partnerships and not r.must_beat_partner:
            # Manita: while the partner holds the trick, only follow suit (R5).
            partner_holds = s.best_seat[i] == (seat + 2) % 4
            zero = U64(0)
            beat_led = np.where(partner_holds, zero, beat_led)
            beat_trump = np.where(partner_holds, zero, beat_trump)
            under = np.where(partner_holds, zero, under)
        if r.has_stock and r.stock_duty != "strict":
            # R6: while cards remain to draw, a looser duty.
            stock_phase = s.to_draw[i] > 0
            zero = U64(0)
            beat_led = np.where(stock_phase, zero, beat_led)
            beat_trump = np.where(stock_phase, zero, beat_trump)
            under = np.where(stock_phase, zero, under)
            if r.stock_duty == "free":
                led_set = np.where(stock_phase, zero, led_set)
            else:  # trump_led: answer a trump lead with a trump
                led_set = np.where(stock_phase & (led_suit != trump), zero, led_set)
        return [beat_led, led_set, beat_trump, under]

    def _declaration_sets(self, s: State, seat: np.ndarray, i: np.ndarray) -> np.ndarray:
        """Legal declarations (cantes, Tute) of ``seat`` in lanes ``i`` as action bits, given that
        the seat may declare now (R8, R8b)."""
        r = self.rules
        hand = s.hands[i, seat]
        trump = s.trump[i].astype(np.intp)
        has_pair = ((hand[:, None] & PAIR_SET) == PAIR_SET) & (s.sung_by[i] < 0)  # (b, 4)
        lanes = np.arange(len(seat))
        sang_twenty = s.sang_twenty[i, seat]
        is_trump = np.arange(4) == trump[:, None]
        if r.forty_before_twenty:
            can_forty = has_pair[lanes, trump] & ~sang_twenty
            has_pair &= ~(is_trump & sang_twenty[:, None])  # no 40 after one's own 20
            has_pair &= ~(can_forty[:, None] & ~is_trump)  # the 40 first
        bits = pack_sets(has_pair) << U64(SING_BASE)
        if r.tute != "off":
            tute = ((hand & KINGS) == KINGS) | ((hand & KNIGHTS) == KNIGHTS)
            bits |= np.where(tute, _ONE << U64(TUTE), U64(0))
        return bits

    def legal_sets(self, s: State) -> np.ndarray:
        """Legal actions of every game as 47-bit sets, computed from the state (``State.legal``
        caches them; recompute after changing a state's fields directly)."""
        r = self.rules
        b = s.batch_size
        lanes = np.arange(b)
        seat = np.maximum(s.current, 0).astype(np.intp)
        hand = s.hands[lanes, seat]
        legal = np.zeros(b, U64)

        lead = s.decision == LEAD
        legal[lead] = hand[lead]

        follow = np.flatnonzero(s.decision == FOLLOW)
        if follow.size:
            fhand = hand[follow]
            cards = fhand.copy()
            chosen = np.zeros(follow.size, bool)
            for candidates in self._follow_chain(s, seat[follow], follow):
                meet = fhand & candidates
                take = ~chosen & (meet != 0)
                cards[take] = meet[take]
                chosen |= take
            legal[follow] = cards

        # Declarations: the partner's declaration turn, or the winner's lead turn after a trick.
        may = (lead & (s.tricks_played > 0) & ~s.declared[lanes, seat]) | (s.decision == DECLARE)
        dec = np.flatnonzero(may)
        if dec.size:
            legal[dec] |= self._declaration_sets(s, seat[dec], dec)
        legal |= np.where(s.decision == DECLARE, _ONE << U64(PASS), U64(0))

        if r.exchange != "off":
            trump = s.trump.astype(np.intp)
            turned = s.turned_card.astype(np.intp)
            seven = BIT[trump * NUM_FACES + SEVEN]
            can = lead & ~s.exchanged & (turned >= 0) & (s.to_draw > 0)
            if r.exchange == "seven_on_lead":
                can &= (hand & seven) != 0
            else:  # after_win
                two = BIT[trump * NUM_FACES + TWO]
                face = turned % NUM_FACES
                can &= (s.tricks_played > 0) & (
                    (((hand & seven) != 0) & _SEVEN_TAKES_FACE[face]) | (((hand & two) != 0) & _TWO_TAKES_FACE[face])
                )
            legal |= np.where(can, _ONE << U64(EXCHANGE), U64(0))
        legal[s.done] = 0
        return legal

    # ------------------------------------------------------------------------------------------
    # Stepping
    # ------------------------------------------------------------------------------------------
    def step(self, state: State, actions, active=None) -> State:
        """Apply one action per game for its seat to act, in place; returns ``state``.

        Without ``active``, finished games are left as they are (their action is ignored). With
        the optional (B,) bool ``active``, only those games step, and an active finished game
        is an error. An illegal or out-of-range action for a game that steps raises
        ``ValueError`` before anything changes.
        """
        s = state
        actions = np.asarray(actions)
        if actions.shape != (s.batch_size,):
            raise ValueError(f"actions must have shape ({s.batch_size},), got {actions.shape}")
        if not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be integers, got dtype {actions.dtype}")
        running = ~s.done
        if active is not None:
            active = np.asarray(active, dtype=bool)
            if (active & s.done).any():
                lane = int(np.flatnonzero(active & s.done)[0])
                raise ValueError(f"game {lane} is over: it takes no more actions")
            running &= active
        out_of_range = running & ((actions < 0) | (actions >= NUM_ACTIONS))
        if out_of_range.any():
            lane = int(np.flatnonzero(out_of_range)[0])
            raise ValueError(f"action {actions[lane]} in game {lane} is out of range 0..{NUM_ACTIONS - 1}")
        a = np.where(running, actions, 0).astype(np.int64)
        illegal = running & (((s.legal >> a.astype(U64)) & _ONE) == 0)
        if illegal.any():
            lane = int(np.flatnonzero(illegal)[0])
            legal = [action_str(x) for x in range(NUM_ACTIONS) if int(s.legal[lane]) >> x & 1]
            raise ValueError(
                f"illegal action {action_str(int(a[lane]))} ({a[lane]}) in game {lane} for seat "
                f"{s.current[lane]}; legal: {' '.join(legal)}"
            )

        plays = np.flatnonzero(running & (a < NUM_CARDS))
        if plays.size:
            self._play_cards(s, plays, a[plays])
        sings = np.flatnonzero(running & (a >= SING_BASE) & (a < TUTE))
        if sings.size:
            self._sing(s, sings, a[sings] - SING_BASE)
        tutes = np.flatnonzero(running & (a == TUTE))
        if tutes.size:
            self._declare_tute(s, tutes)
        exchanges = np.flatnonzero(running & (a == EXCHANGE))
        if exchanges.size:
            self._exchange(s, exchanges)
        # A declaration turn (R8) ends with one declaration or a pass; the winner leads next.
        ends_turn = running & ~s.done & (s.decision == DECLARE) & (a >= SING_BASE)
        s.current[ends_turn] = s.last_winner[ends_turn]
        s.decision[ends_turn] = LEAD

        s.legal = self.legal_sets(s)
        return s

    def _play_cards(self, s: State, i: np.ndarray, card: np.ndarray) -> None:
        n = self.num_players
        seat = s.current[i].astype(np.intp)
        bit = BIT[card]
        follow = s.decision[i] == FOLLOW
        if follow.any():
            # What the play reveals: nothing of the duty's sets before the one it came from.
            f = i[follow]
            fbit = bit[follow]
            excluded = np.zeros(f.size, U64)
            found = np.zeros(f.size, bool)
            for candidates in self._follow_chain(s, seat[follow], f):
                hit = (candidates & fbit) != 0
                excluded |= np.where(found | hit, U64(0), candidates)
                found |= hit
            s.cannot_hold[f, seat[follow]] |= excluded
        s.hands[i, seat] &= ~bit
        s.played[i, seat] |= bit
        s.known[i, seat] &= ~bit
        s.trick[i, seat] = card
        if self.rules.partnerships:
            s.turned_card[i] = np.where(s.turned_card[i] == card, -1, s.turned_card[i])

        leads = s.trick_size[i] == 0
        wins = leads | ((beating_cards(s.best_card[i], s.trump[i]) & bit) != 0)
        s.best_card[i] = np.where(wins, card, s.best_card[i])
        s.best_seat[i] = np.where(wins, seat, s.best_seat[i])
        s.trick_leader[i] = np.where(leads, seat, s.trick_leader[i])
        s.trick_size[i] += 1
        s.current[i] = (seat + 1) % n
        s.decision[i] = FOLLOW

        complete = s.trick_size[i] == n
        if complete.any():
            self._end_trick(s, i[complete])

    def _end_trick(self, s: State, i: np.ndarray) -> None:
        r = self.rules
        n = self.num_players
        winner = s.best_seat[i].astype(np.intp)
        side = self.side_of_seat[winner]
        s.card_points[i, side] += _POINTS[s.trick[i]].sum(axis=1, dtype=np.int16)
        s.last_won[i, side] = s.tricks_played[i]
        s.tricks_played[i] += 1
        s.last_winner[i] = winner
        s.trick[i] = -1
        s.trick_size[i] = 0
        s.best_card[i] = -1
        s.best_seat[i] = -1
        s.trick_leader[i] = winner
        s.declared[i] = False

        if r.has_stock:
            draw = s.to_draw[i] > 0
            if draw.any():
                self._draw(s, i[draw], winner[draw])

        over = s.tricks_played[i] == r.num_tricks
        if over.any():
            self._end_hand(s, i[over])
        going = ~over
        i, winner = i[going], winner[going]
        s.current[i] = winner
        s.decision[i] = LEAD
        if r.partnerships and r.singers == "side" and i.size:
            # R8: the winner's partner, holding a legal declaration, declares first.
            partner = (winner + 2) % 4
            has = self._declaration_sets(s, partner, i) != 0
            s.current[i[has]] = partner[has]
            s.decision[i[has]] = DECLARE

    def _draw(self, s: State, i: np.ndarray, winner: np.ndarray) -> None:
        """R4: every player draws one card, the trick winner first, then in seat order; with two
        players the turned card is the last card drawn."""
        r = self.rules
        size = r.stock_size
        for k in range(self.num_players):
            drawer = (winner + k) % self.num_players
            nxt = s.stock_next[i].astype(np.intp)
            from_stock = nxt < size
            if size:
                card = np.where(from_stock, s.stock[i, np.minimum(nxt, size - 1)], s.turned_card[i])
            else:
                card = s.turned_card[i]
            bit = BIT[card.astype(np.intp)]
            s.hands[i, drawer] |= bit
            turned = ~from_stock  # only with two players: the face-down stock is empty
            s.known[i[turned], drawer[turned]] |= bit[turned]
            s.turned_card[i[turned]] = -1
            s.stock_next[i] += from_stock
        s.to_draw[i] -= self.num_players
        # A draw brings an unknown card: earlier inferences about hands no longer hold.
        s.cannot_hold[i] = 0

    def _end_hand(self, s: State, i: np.ndarray) -> None:
        """R9: last trick +10, highest total wins, a tie to the side that won a trick last."""
        s.last_trick_bonus[i, self.side_of_seat[s.last_winner[i]]] = LAST_TRICK_BONUS
        totals = s.totals[i].astype(np.int32)
        key = totals * 64 + s.last_won[i] + 1
        winner = key.argmax(axis=1)
        s.winner[i] = winner
        over_100 = totals[np.arange(i.size), winner] > 100
        s.games[i] = np.where(over_100 & self.rules.double_over_100, 2, 1)
        self._finish(s, i)

    def _finish(self, s: State, i: np.ndarray) -> None:
        s.done[i] = True
        s.current[i] = -1
        s.decision[i] = -1

    def _sing(self, s: State, i: np.ndarray, suit: np.ndarray) -> None:
        seat = s.current[i].astype(np.intp)
        side = self.side_of_seat[seat]
        forty = suit == s.trump[i]
        s.sung_by[i, suit] = seat
        s.cante_points[i, side] += np.where(forty, 40, 20).astype(np.int16)
        s.sang_twenty[i[~forty], seat[~forty]] = True
        s.known[i, seat] |= PAIR_SET[suit]
        s.declared[i, seat] = True

    def _declare_tute(self, s: State, i: np.ndarray) -> None:
        """R8b: the hand ends at once for the declarer's side; no last-trick bonus."""
        seat = s.current[i].astype(np.intp)
        s.declared[i, seat] = True
        s.tute_declarer[i] = seat
        s.winner[i] = self.side_of_seat[seat]
        s.games[i] = 2 if self.rules.tute == "two_games" else 1
        self._finish(s, i)

    def _exchange(self, s: State, i: np.ndarray) -> None:
        """R7: the 7 (or, after_win with a low turned card, the 2) of trumps takes the turned card."""
        seat = s.current[i].astype(np.intp)
        trump = s.trump[i].astype(np.intp)
        turned = s.turned_card[i].astype(np.intp)
        give = trump * NUM_FACES + SEVEN
        if self.rules.exchange == "after_win":
            give = np.where(_TWO_TAKES_FACE[turned % NUM_FACES], trump * NUM_FACES + TWO, give)
        s.hands[i, seat] = (s.hands[i, seat] & ~BIT[give]) | BIT[turned]
        s.known[i, seat] |= BIT[turned]
        s.cannot_hold[i, seat] &= ~BIT[turned]
        s.turned_card[i] = give
        s.exchanged[i] = True
