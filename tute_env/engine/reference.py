"""A plain, one-game-at-a-time reference engine for Tute, written straight from the rules (docs/rules.md).

It exists to check the batched core (``tute_env.engine.core``) by differential testing, so it is
written for clarity first: plain Python sets and lists, one method per rule. It never imports
the core.

>>> from tute_env.engine.rules import make_rules
>>> from tute_env.engine.deal import random_deals
>>> import numpy as np
>>> rules = make_rules("two_player")
>>> game = ReferenceGame(rules, random_deals(rules, np.random.default_rng(0), 1)[0])
>>> while not game.done:
...     game.step(game.legal_actions()[0])
>>> sum(game.card_points) + sum(game.last_trick_bonus)
130

Rule decisions where the rule texts are silent (see the module's tests for each):

* Follow duties: R5 (strict) unless cards remain to draw, where ``stock_duty`` applies (R6).
  With ``must_beat_partner`` off, while your partner holds the trick you only have to follow
  suit (R5).
* Declarations (R8): a player may declare only in a turn that follows a trick won by their
  side (never at the first lead), at most once per trick won. After a trick won by seat w
  (and the drawing), with four players and ``singers="side"``, w's partner gets a DECLARE turn
  if they hold a legal cante or Tute (declare one, or pass); then w's LEAD turn, where w may
  declare once and exchange (R7) before playing a card.
* ``forty_before_twenty``: a player who can sing the trump cante may sing no 20; a player who
  has sung a 20 may no longer sing the 40.
* A Tute ends the hand at once (R8b). Otherwise the hand ends after the last trick (R9).
"""

from __future__ import annotations

from .cards import (
    ACE,
    CARD_FACE,
    CARD_POINTS,
    CARD_STRENGTH,
    CARD_SUIT,
    DECLARE,
    EXCHANGE,
    FOLLOW,
    FOUR,
    JACK,
    KING,
    KNIGHT,
    LAST_TRICK_BONUS,
    LEAD,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_FACES,
    NUM_SUITS,
    PASS,
    SEVEN,
    SING_BASE,
    THREE,
    TUTE,
    TWO,
    action_str,
    cards_str,
)
from .deal import Deal
from .rules import Rules

# Plain-Python copies of the card tables (indexing numpy arrays one card at a time is slow).
SUIT = [int(s) for s in CARD_SUIT]
FACE = [int(f) for f in CARD_FACE]
STRENGTH = [int(s) for s in CARD_STRENGTH]
POINTS = [int(p) for p in CARD_POINTS]

_KINDS = {LEAD: "lead", FOLLOW: "follow", DECLARE: "declare", -1: "none"}


def card_of(suit: int, face: int) -> int:
    """Card id of a suit and face index."""
    return suit * NUM_FACES + face


class ReferenceGame:
    """One hand of Tute, played one action at a time (docs/rules.md, R1-R9).

    Public state (read-only for callers): ``current_player``, ``decision_kind``, ``done``,
    ``hands``, ``trick``, ``tricks_played``, ``turned_card``, ``stock_left``, ``card_points``,
    ``last_trick_bonus``, ``cante_points``, ``totals``, ``winner``, ``games``,
    ``tute_declarer``, ``sung``. Per-side lists are indexed by side (``rules.side_of(seat)``).
    """

    def __init__(self, rules: Rules, deal: Deal):
        deal.validate(rules)
        self.rules = rules
        self.deal = deal
        n = rules.num_players
        self.num_players = n
        self.num_sides = rules.num_sides
        self.trump_suit = SUIT[deal.trump_card]

        self.hands: list[set[int]] = [set(hand) for hand in deal.hands]
        self.trick: list[tuple[int, int]] = []
        self.last_trick: list[tuple[int, int]] = []
        self.tricks_played = 0
        # Shown card (partnership, in the dealer's hand until played) or turned card (R3).
        self.turned_card = deal.trump_card
        self._facedown = list(deal.stock)  # face-down stock in drawing order
        # Two players: the turned card lies under the stock and is the last card drawn (R3).
        self._turned_to_draw = rules.num_players == 2

        self.card_points = [0] * self.num_sides
        self.last_trick_bonus = [0] * self.num_sides
        self.cante_points = [0] * self.num_sides
        self.sung: dict[int, int] = {}
        self.tute_declarer = -1
        self.winner = -1
        self.games = 0
        self.done = False

        self._sang_twenty = [False] * n  # forty_before_twenty: no 40 after one's own 20
        self._exchanged = False  # R7: at most one exchange per hand
        self._last_won = [0] * self.num_sides  # trick number (1-based) each side last won, 0: none
        self._leader = -1  # seat whose lead turn follows the current DECLARE turn
        self._may_declare = False  # the current turn may declare (R8), not used yet this trick
        self.history: list[int] = []

        # R2: the seat after the dealer leads the first trick; the first lead offers no cante.
        self.current_player = (deal.dealer + 1) % n
        self.decision_kind = LEAD
        self._legal: list[int] | None = None

    # ------------------------------------------------------------------------------------------
    # Derived public state
    @property
    def stock_left(self) -> int:
        """Cards still to draw, including a turned card that will be drawn (two players)."""
        return len(self._facedown) + (1 if self._turned_to_draw else 0)

    @property
    def totals(self) -> list[int]:
        """Per side: card points + last-trick bonus + cantes."""
        return [
            self.card_points[s] + self.last_trick_bonus[s] + self.cante_points[s] for s in range(self.num_sides)
        ]

    def side_of(self, seat: int) -> int:
        return self.rules.side_of(seat)

    # ------------------------------------------------------------------------------------------
    # Legal actions
    def legal_actions(self) -> list[int]:
        """Legal action ids, ascending; ``[]`` when the hand is over."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def _compute_legal(self) -> list[int]:
        if self.done:
            return []
        seat = self.current_player
        if self.decision_kind == DECLARE:
            return self._declarations(seat) + [PASS]
        if self.decision_kind == FOLLOW:
            return sorted(self._follow_cards(seat))
        actions = sorted(self.hands[seat])
        if self._may_declare:
            actions += self._declarations(seat)
        if self._can_exchange(seat):
            actions.append(EXCHANGE)
        return actions

    def _in_stock_phase(self) -> bool:
        """Cards remain to draw (R6)."""
        return self.stock_left > 0

    def _trick_winner(self, trick: list[tuple[int, int]]) -> tuple[int, int]:
        """(seat, card) currently winning ``trick``: highest trump, else highest of the suit led."""
        trump = self.trump_suit
        best_seat, best = trick[0]
        for seat, card in trick[1:]:
            if SUIT[card] == SUIT[best]:
                if STRENGTH[card] > STRENGTH[best]:
                    best_seat, best = seat, card
            elif SUIT[card] == trump:
                best_seat, best = seat, card
        return best_seat, best

    def _follow_cards(self, seat: int) -> list[int]:
        """Cards ``seat`` may play to the trick in progress (R5, R6)."""
        hand = self.hands[seat]
        led_suit = SUIT[self.trick[0][1]]
        trump = self.trump_suit
        of_led = [c for c in hand if SUIT[c] == led_suit]

        if self._in_stock_phase():  # R6
            duty = self.rules.stock_duty
            if duty == "free":
                return list(hand)
            if duty == "trump_led":
                # of_led are trumps here when trumps were led.
                return of_led if led_suit == trump and of_led else list(hand)

        best_seat, best = self._trick_winner(self.trick)
        if (
            self.rules.partnerships
            and not self.rules.must_beat_partner
            and best_seat == (seat + 2) % self.num_players
        ):
            # R5, must_beat_partner off: while the partner holds the trick, only follow suit.
            return of_led or list(hand)
        return self._strict_follow(hand, of_led, led_suit, best)

    def _strict_follow(self, hand: set[int], of_led: list[int], led_suit: int, best: int) -> list[int]:
        """R5, the strict rules."""
        trump = self.trump_suit
        if of_led:  # R5.1
            if SUIT[best] == led_suit:  # nobody trumped, or trumps were led: beat if you can
                beating = [c for c in of_led if STRENGTH[c] > STRENGTH[best]]
                return beating or of_led
            return of_led  # trumped on a non-trump lead: any card of the suit led
        trumps = [c for c in hand if SUIT[c] == trump]  # R5.2, void in the suit led
        if SUIT[best] != trump:  # nobody trumped: trump if you can
            return trumps or list(hand)
        higher = [c for c in trumps if STRENGTH[c] > STRENGTH[best]]  # overtrump if you can
        if higher:
            return higher
        if self.rules.undertrump_when_overtrumped and trumps:
            return trumps
        return list(hand)  # R5.3: no duty to undertrump

    def _cantes(self, seat: int) -> list[int]:
        """Suits ``seat`` may sing now, ignoring whether the turn allows declaring (R8)."""
        hand = self.hands[seat]
        suits = [
            s
            for s in range(NUM_SUITS)
            if s not in self.sung and card_of(s, KING) in hand and card_of(s, KNIGHT) in hand
        ]
        if self.rules.forty_before_twenty:
            trump = self.trump_suit
            if self._sang_twenty[seat]:
                suits = [s for s in suits if s != trump]  # no 40 after one's own 20
            elif trump in suits:
                suits = [trump]  # the 40 first
        return suits

    def _can_declare_tute(self, seat: int) -> bool:
        """R8b: all four kings or all four knights, with the option on."""
        if self.rules.tute == "off":
            return False
        hand = self.hands[seat]
        return any(all(card_of(s, face) in hand for s in range(NUM_SUITS)) for face in (KING, KNIGHT))

    def _declarations(self, seat: int) -> list[int]:
        """Declaration actions (cantes, Tute) open to ``seat`` at a declaration moment."""
        actions = [SING_BASE + s for s in self._cantes(seat)]
        if self._can_declare_tute(seat):
            actions.append(TUTE)
        return actions

    def _exchange_card(self, seat: int) -> int:
        """The card ``seat`` would give for the turned card now (R7), or -1."""
        rules = self.rules
        if rules.exchange == "off" or self._exchanged or not self._turned_to_draw:
            return -1
        hand = self.hands[seat]
        seven = card_of(self.trump_suit, SEVEN)
        if rules.exchange == "seven_on_lead":
            return seven if seven in hand else -1
        # after_win: at a lead after winning a trick, i.e. any lead but the hand's first.
        if self.tricks_played == 0:
            return -1
        face = FACE[self.turned_card]
        if face in (ACE, THREE, KING, KNIGHT, JACK) and seven in hand:
            return seven
        two = card_of(self.trump_suit, TWO)
        if FOUR <= face <= SEVEN and two in hand:
            return two
        return -1

    def _can_exchange(self, seat: int) -> bool:
        return self._exchange_card(seat) >= 0

    # ------------------------------------------------------------------------------------------
    # Playing
    def step(self, action: int) -> None:
        """Apply one action of the current player. Illegal actions raise ``ValueError``."""
        if isinstance(action, bool) or not hasattr(action, "__index__"):
            raise ValueError(f"bad action {action!r}: expected an integer action id 0..{NUM_ACTIONS - 1}")
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"bad action {action}: out of range, action ids are 0..{NUM_ACTIONS - 1}")
        legal = self.legal_actions()
        if action not in legal:
            if self.done:
                raise ValueError(f"illegal action {action_str(action)} ({action}): the hand is over")
            raise ValueError(
                f"illegal action {action_str(action)} ({action}) for seat {self.current_player} "
                f"({_KINDS[self.decision_kind]}); legal: {' '.join(action_str(a) for a in legal)}"
            )
        self._legal = None
        self.history.append(action)
        seat = self.current_player
        if action < NUM_CARDS:
            self._play_card(seat, action)
        elif action < TUTE:
            self._sing(seat, action - SING_BASE)
        elif action == TUTE:
            self._declare_tute(seat)
        elif action == EXCHANGE:
            self._exchange(seat)
        else:  # PASS
            self._end_declare_turn()

    def _play_card(self, seat: int, card: int) -> None:
        if self.decision_kind == LEAD:
            self._may_declare = False  # the cante moment ends with the trick's first card
        self.hands[seat].remove(card)
        if self.rules.partnerships and card == self.turned_card:
            self.turned_card = -1  # the dealer's shown card has been played
        self.trick.append((seat, card))
        if len(self.trick) < self.num_players:
            self.current_player = (seat + 1) % self.num_players
            self.decision_kind = FOLLOW
        else:
            self._finish_trick()

    def _finish_trick(self) -> None:
        winner, _ = self._trick_winner(self.trick)
        side = self.side_of(winner)
        self.card_points[side] += sum(POINTS[c] for _, c in self.trick)
        self.tricks_played += 1
        self._last_won[side] = self.tricks_played
        self.last_trick = self.trick
        self.trick = []
        if self.tricks_played == self.rules.num_tricks:
            self._finish_hand(side)
            return
        self._draw(winner)
        # R8: declaration turns, then the winner's lead.
        self._leader = winner
        partner = (winner + 2) % self.num_players
        if self.rules.partnerships and self.rules.singers == "side" and self._declarations(partner):
            self.current_player = partner
            self.decision_kind = DECLARE
            self._may_declare = True
        else:
            self._start_lead_turn()

    def _draw(self, winner: int) -> None:
        """R4: while cards remain, each player draws one, the trick winner first."""
        if self.stock_left == 0:
            return
        n = self.num_players
        for k in range(n):
            seat = (winner + k) % n
            if self._facedown:
                self.hands[seat].add(self._facedown.pop(0))
            else:  # two players: the turned card is the last card drawn
                assert self._turned_to_draw, "stock ran out in the middle of a drawing round"
                self.hands[seat].add(self.turned_card)
                self.turned_card = -1
                self._turned_to_draw = False

    def _start_lead_turn(self) -> None:
        self.current_player = self._leader
        self.decision_kind = LEAD
        self._may_declare = True

    def _end_declare_turn(self) -> None:
        self._start_lead_turn()

    def _sing(self, seat: int, suit: int) -> None:
        trump = self.trump_suit
        self.sung[suit] = seat
        self.cante_points[self.side_of(seat)] += 40 if suit == trump else 20
        if suit != trump:
            self._sang_twenty[seat] = True
        self._after_declaration()

    def _after_declaration(self) -> None:
        if self.decision_kind == DECLARE:
            self._end_declare_turn()
        else:
            self._may_declare = False  # one declaration per player per trick won

    def _declare_tute(self, seat: int) -> None:
        """R8b: the hand ends at once in favour of the declarer's side."""
        self.tute_declarer = seat
        self.winner = self.side_of(seat)
        self.games = 2 if self.rules.tute == "two_games" else 1
        self._end()

    def _exchange(self, seat: int) -> None:
        """R7: the given card becomes the turned card; the turned card goes to the hand."""
        given = self._exchange_card(seat)
        hand = self.hands[seat]
        hand.remove(given)
        hand.add(self.turned_card)
        self.turned_card = given
        self._exchanged = True

    def _finish_hand(self, last_side: int) -> None:
        """R9: last trick +10; highest total wins; a tie goes to the side that won a trick last."""
        self.last_trick_bonus[last_side] += LAST_TRICK_BONUS
        totals = self.totals
        best = max(totals)
        tied = [s for s in range(self.num_sides) if totals[s] == best]
        self.winner = max(tied, key=lambda s: self._last_won[s])
        over = self.rules.double_over_100 and totals[self.winner] > 100
        self.games = 2 if over else 1
        self._end()

    def _end(self) -> None:
        self.done = True
        self.current_player = -1
        self.decision_kind = -1
        self._may_declare = False
        self._legal = None

    # ------------------------------------------------------------------------------------------
    def __repr__(self) -> str:
        hands = " | ".join(cards_str(sorted(h)) for h in self.hands)
        trick = " ".join(f"{s}:{action_str(c)}" for s, c in self.trick)
        return (
            f"ReferenceGame(tricks={self.tricks_played}, player={self.current_player}, "
            f"kind={_KINDS[self.decision_kind]}, hands=[{hands}], trick=[{trick}], "
            f"turned={action_str(self.turned_card) if self.turned_card >= 0 else '-'}, "
            f"stock_left={self.stock_left}, totals={self.totals})"
        )
