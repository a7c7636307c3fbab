"""Text rendering of one game of a batch: trump, shown card, trick by seat, hands, cantes, scores."""

from __future__ import annotations

from .cards import CARD_STRENGTH, DECISION_KINDS, FACES, NUM_FACES, SUIT_NAMES, SUITS, card_str
from .core import State
from .rules import Rules

#: Suit symbols: coin, cup, sword, club (Unicode has no Spanish suits).
SUIT_SYMBOLS = ("\N{COIN}", "\N{TROPHY}", "\N{DAGGER KNIFE}", "\N{WOOD}")


def card_label(card: int, symbols: bool = True) -> str:
    """``"A🪙"`` (or ``"Ao"`` without symbols)."""
    if card < 0:
        return "--"
    return FACES[card % NUM_FACES] + SUIT_SYMBOLS[card // NUM_FACES] if symbols else card_str(card)


def hand_label(hand_set: int, symbols: bool = True) -> str:
    """Cards of a 40-bit set grouped by suit, strongest first within a suit."""
    groups = []
    for suit in range(4):
        cards = [c for c in range(suit * NUM_FACES, (suit + 1) * NUM_FACES) if hand_set >> c & 1]
        cards.sort(key=lambda c: -CARD_STRENGTH[c])
        if cards:
            groups.append(" ".join(card_label(c, symbols) for c in cards))
    return "  ".join(groups) or "(empty)"


def render_text(rules: Rules, state: State, lane: int = 0, viewer: int | None = None, show_all: bool = False,
                symbols: bool = True) -> str:
    """A readable table of game ``lane``. Shows ``viewer``'s hand (default: the seat to act), or
    every hand with ``show_all`` (a debug view that reveals hidden cards)."""
    s, n = state, rules.num_players
    trump = int(s.trump[lane])
    lines = [
        f"Tute, {n} players  |  trump: {SUIT_NAMES[trump]} {SUIT_SYMBOLS[trump] if symbols else SUITS[trump]}"
        f"  |  {'shown' if rules.partnerships else 'turned'} card: {card_label(int(s.turned_card[lane]), symbols)}"
        + (f"  |  stock: {int(s.to_draw[lane])}" if rules.has_stock else "")
        + f"  |  tricks: {int(s.tricks_played[lane])}/{rules.num_tricks}",
    ]
    if viewer is None:
        viewer = int(s.current[lane]) if s.current[lane] >= 0 else 0
    for seat in range(n):
        marks = []
        if seat == s.dealer[lane]:
            marks.append("dealer")
        if seat == s.current[lane]:
            marks.append(f"to act: {DECISION_KINDS[s.decision[lane]]}")
        if seat == s.best_seat[lane]:
            marks.append("winning")
        sung = [SUIT_NAMES[x] for x in range(4) if s.sung_by[lane, x] == seat]
        if sung:
            marks.append("sang " + ", ".join(sung))
        side = f"side {rules.side_of(seat)}"
        played = card_label(int(s.trick[lane, seat]), symbols) if s.trick[lane, seat] >= 0 else "  "
        row = f"  player_{seat} ({side}) [{played:>4}]  " + "; ".join(marks)
        if show_all or seat == viewer:
            row += f"\n      hand: {hand_label(int(s.hands[lane, seat]), symbols)}"
        lines.append(row)
    totals = s.totals[lane]
    score = "  ".join(
        f"side {x}: {int(totals[x])} ({int(s.card_points[lane, x])} cards + {int(s.cante_points[lane, x])} cantes"
        + (f" + {int(s.last_trick_bonus[lane, x])} last" if s.last_trick_bonus[lane, x] else "")
        + ")"
        for x in range(rules.num_sides)
    )
    lines.append("  score: " + score)
    if s.done[lane]:
        how = " by Tute" if s.tute_declarer[lane] >= 0 else ""
        lines.append(f"  hand over: side {int(s.winner[lane])} wins{how}, {int(s.games[lane])} game(s)")
    return "\n".join(lines)
