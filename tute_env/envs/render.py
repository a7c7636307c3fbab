"""Rendering one game of a batch: a text table (:func:`render_text`) and a drawn table
(:class:`TableRenderer`, pictures as RGB arrays or in a pygame window).

Both show the trump and the shown or turned card, the trick in progress by seat, the acting
player's hand (every hand with ``show_all``, a debug view), the cantes and the scores, in
English or Spanish (``lang``: every word comes from :mod:`tute_env.envs.words`). The cards are drawn by the code below (no image files); pygame is imported only when a
:class:`TableRenderer` is made.
"""

from __future__ import annotations

import functools

import numpy as np

from ..engine.cards import CARD_STRENGTH, DECISION_KINDS, FACES, NUM_CARDS, NUM_FACES, SUIT_NAMES, SUITS, card_str
from ..engine.core import State
from ..engine.rules import Rules
from .words import games_text, points_word, side_name, who, word

#: Suit symbols: coin, cup, sword, club (Unicode has no Spanish suits).
SUIT_SYMBOLS = ("\N{COIN}", "\N{TROPHY}", "\N{DAGGER KNIFE}", "\N{WOOD}")


def card_label(card: int, symbols: bool = True) -> str:
    """``"A🪙"`` (or ``"Ao"`` without symbols)."""
    if card < 0:
        return "--"
    return FACES[card % NUM_FACES] + SUIT_SYMBOLS[card // NUM_FACES] if symbols else card_str(card)


def hand_label(hand_set: int, symbols: bool = True, lang: str = "en") -> str:
    """Cards of a 40-bit set grouped by suit, strongest first within a suit."""
    groups = []
    for suit in range(4):
        cards = [c for c in range(suit * NUM_FACES, (suit + 1) * NUM_FACES) if hand_set >> c & 1]
        cards.sort(key=lambda c: -CARD_STRENGTH[c])
        if cards:
            groups.append(" ".join(card_label(c, symbols) for c in cards))
    return "  ".join(groups) or word(lang, "tb_empty")


def side_score(rules: Rules, state: State, lane: int, side: int, label: str, lang: str = "en") -> str:
    """``"side 0: 58 (40 cards + 8 cantes + 10 last trick)"``: a side's points so far."""
    return word(lang, "summary_side", label=label, total=int(state.totals[lane, side]),
                cards=int(state.card_points[lane, side]), cantes=int(state.cante_points[lane, side]),
                last=int(state.last_trick_bonus[lane, side]))


def outcome_text(rules: Rules, state: State, lane: int = 0, lang: str = "en") -> str:
    """``"Hand over: side 1 wins, 2 games"``, ``"Hand over by Tute: ..."`` (a finished hand)."""
    over = word(lang, "hand_over_tute" if state.tute_declarer[lane] >= 0 else "hand_over")
    winner = word(lang, "win", who=side_name(lang, rules, int(state.winner[lane])))
    return f"{over}: {winner}, {games_text(lang, int(state.games[lane]))}"


def turned_label(rules: Rules, state: State, lane: int = 0, symbols: bool = True, lang: str = "en") -> str:
    """The shown or turned card, or once gone, ``(played)`` (the shown card) or ``(drawn)`` (the turned card)."""
    turned = int(state.turned_card[lane])
    return card_label(turned, symbols) if turned >= 0 else word(lang, "tb_played" if rules.partnerships else "tb_drawn")


def acting_text(state: State, lane: int = 0, lang: str = "en") -> str:
    """``"to act: lead"``: the mark of the seat to act."""
    return word(lang, "tb_to_act", kind=word(lang, "k_" + DECISION_KINDS[state.decision[lane]]))


def render_text(rules: Rules, state: State, lane: int = 0, viewer: int | None = None, show_all: bool = False,
                symbols: bool = True, lang: str = "en", score: bool = True) -> str:
    """A readable table of game ``lane``. Shows ``viewer``'s hand (default: the seat to act), or
    every hand with ``show_all`` (a debug view that reveals hidden cards); the score and a finished
    hand's outcome unless ``score`` is False (the caller says them); ``lang``: its words
    (:mod:`tute_env.envs.words`)."""
    s, n = state, rules.num_players
    trump = int(s.trump[lane])
    w = functools.partial(word, lang)
    lines = [
        w("tb_players", n=n) + "  |  " + w("tb_trump", suit=SUIT_NAMES[trump])
        + f" {SUIT_SYMBOLS[trump] if symbols else SUITS[trump]}"
        + f"  |  {w('tb_shown' if rules.partnerships else 'tb_turned')}: {turned_label(rules, s, lane, symbols, lang)}"
        + (f"  |  {w('tb_stock', n=int(s.to_draw[lane]))}" if rules.has_stock else "")
        + f"  |  {w('tb_tricks', n=int(s.tricks_played[lane]), total=rules.num_tricks)}",
    ]
    if viewer is None:
        viewer = int(s.current[lane]) if s.current[lane] >= 0 else 0
    for seat in range(n):
        marks = []
        if seat == s.dealer[lane]:
            marks.append(w("tb_dealer"))
        if seat == s.current[lane]:
            marks.append(acting_text(s, lane, lang))
        if seat == s.best_seat[lane]:
            marks.append(w("tb_winning"))
        sung = [SUIT_NAMES[x] for x in range(4) if s.sung_by[lane, x] == seat]
        if sung:
            marks.append(w("tb_sang", suits=", ".join(sung)))
        name = who(lang, seat, None) + (f" ({w('side', side=rules.side_of(seat))})" if rules.partnerships else "")
        played = card_label(int(s.trick[lane, seat]), symbols) if s.trick[lane, seat] >= 0 else "  "
        row = f"  {name} [{played:>4}]  " + "; ".join(marks)
        if show_all or seat == viewer:
            row += "\n      " + w("tb_hand", cards=hand_label(int(s.hands[lane, seat]), symbols, lang))
        lines.append(row)
    if score:
        lines.append("  " + w("tb_score", sides="  ".join(side_score(rules, s, lane, x, side_name(lang, rules, x), lang)
                                                          for x in range(rules.num_sides))))
        if s.done[lane]:
            lines.append("  " + outcome_text(rules, s, lane, lang))
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------
# The drawn table (pygame, imported lazily)
# ------------------------------------------------------------------------------------------------
_FELT = (24, 110, 62)
_FELT_EDGE = (16, 80, 44)
_PAPER = (250, 247, 236)
_INK = (35, 35, 35)
_BACK = (150, 32, 44)
_BACK_LINE = (210, 170, 80)
_HIGHLIGHT = (250, 210, 60)
_TEXT = (240, 240, 230)
#: Colours of the Spanish suits as printed: gold coins, red cups, blue swords, green clubs.
SUIT_COLOURS = ((205, 150, 20), (196, 32, 44), (40, 84, 170), (46, 120, 46))


def _seat_layout(n: int, width: int, height: int) -> list[tuple[str, tuple[int, int], tuple[int, int]]]:
    """Per seat: (side of the table, hand anchor, trick card centre). Seat 0 sits at the bottom
    and play goes counter-clockwise (R2)."""
    cx, cy = width // 2, height // 2
    if n == 4:
        return [
            ("bottom", (cx, height - 70), (cx, cy + 80)),
            ("right", (width - 20, cy), (cx + 95, cy)),
            ("top", (cx, 95), (cx, cy - 80)),
            ("left", (20, cy), (cx - 95, cy)),
        ]
    if n == 3:
        return [
            ("bottom", (cx, height - 70), (cx, cy + 80)),
            ("right", (width - 20, cy - 60), (cx + 85, cy - 40)),
            ("left", (20, cy - 60), (cx - 85, cy - 40)),
        ]
    return [("bottom", (cx, height - 70), (cx, cy + 70)), ("top", (cx, 95), (cx, cy - 70))]


class TableRenderer:
    """Draws the table of one game: ``render(...)`` returns an (H, W, 3) uint8 array, or with
    ``human=True`` shows it in a window and returns None. Call :meth:`close` when done."""

    CARD_W, CARD_H = 56, 84

    def __init__(self, human: bool = False, fps: int = 2, size: tuple[int, int] = (1000, 720), lang: str = "en"):
        try:
            import pygame  # lazily: only the drawn render modes need it
        except ImportError:
            raise ImportError("the drawn render modes (rgb_array, human) need pygame: "
                              "pip install 'tute_env[render]' (the ansi mode needs nothing)") from None

        self.pg = pygame
        pygame.font.init()
        self.human, self.fps, self.size, self.lang = human, fps, size, lang
        self.surface = pygame.Surface(size)
        self.window = None
        self.clock = None
        self.font = pygame.font.Font(None, 22)
        self.small = pygame.font.Font(None, 18)
        self.card_font = pygame.font.Font(None, 24)

    # -- primitives ----------------------------------------------------------------------------
    def _text(self, text: str, pos, colour=_TEXT, font=None, anchor: str = "topleft"):
        img = (font or self.font).render(text, True, colour)
        rect = img.get_rect(**{anchor: pos})
        self.surface.blit(img, rect)
        return rect

    def draw_suit(self, suit: int, cx: float, cy: float, r: float) -> None:
        """The suit's sign, drawn: a coin, a cup, a sword or a club, about 2r high."""
        pg, surf, colour = self.pg.draw, self.surface, SUIT_COLOURS[suit]
        dark = tuple(int(c * 0.6) for c in colour)
        if suit == 0:  # oros: a coin
            pg.circle(surf, colour, (cx, cy), r)
            pg.circle(surf, dark, (cx, cy), r, max(1, int(r / 6)))
            pg.circle(surf, dark, (cx, cy), r * 0.45, max(1, int(r / 8)))
        elif suit == 1:  # copas: a cup
            pg.polygon(surf, colour, [(cx - r, cy - r * 0.9), (cx + r, cy - r * 0.9), (cx + r * 0.5, cy + r * 0.1),
                                      (cx - r * 0.5, cy + r * 0.1)])
            pg.rect(surf, colour, (cx - r * 0.15, cy + r * 0.1, r * 0.3, r * 0.55))
            pg.ellipse(surf, colour, (cx - r * 0.65, cy + r * 0.55, r * 1.3, r * 0.4))
            pg.line(surf, dark, (cx - r, cy - r * 0.9), (cx + r, cy - r * 0.9), max(1, int(r / 6)))
        elif suit == 2:  # espadas: a sword, point up
            pg.polygon(surf, colour, [(cx, cy - r * 1.15), (cx + r * 0.2, cy - r * 0.85), (cx + r * 0.2, cy + r * 0.35),
                                      (cx - r * 0.2, cy + r * 0.35), (cx - r * 0.2, cy - r * 0.85)])
            pg.rect(surf, dark, (cx - r * 0.65, cy + r * 0.35, r * 1.3, r * 0.22))
            pg.rect(surf, dark, (cx - r * 0.12, cy + r * 0.57, r * 0.24, r * 0.4))
            pg.circle(surf, dark, (cx, cy + r * 1.02), r * 0.16)
        else:  # bastos: a knotted club
            pg.line(surf, colour, (cx - r * 0.45, cy + r), (cx + r * 0.35, cy - r * 0.85), max(2, int(r * 0.45)))
            pg.circle(surf, colour, (cx + r * 0.38, cy - r * 0.85), r * 0.34)
            for t in (0.3, 0.6):
                x = cx - r * 0.45 + t * r * 0.8
                y = cy + r - t * r * 1.85
                pg.circle(surf, dark, (x, y), max(1.5, r * 0.13))

    def draw_card(self, card: int, x: float, y: float, face_up: bool = True, highlight: bool = False) -> None:
        """A card with its top-left corner at (x, y): face and suit sign, or its back."""
        pg, w, h = self.pg.draw, self.CARD_W, self.CARD_H
        rect = self.pg.Rect(int(x), int(y), w, h)
        if not face_up:
            pg.rect(self.surface, _BACK, rect, border_radius=6)
            inner = rect.inflate(-10, -10)
            pg.rect(self.surface, _BACK_LINE, inner, 2, border_radius=4)
            self.surface.set_clip(inner)
            for k in range(0, w + h, 10):
                pg.line(self.surface, _BACK_LINE, (inner.left + k, inner.top), (inner.left + k - h, inner.top + h), 1)
            self.surface.set_clip(None)
            pg.rect(self.surface, _INK, rect, 1, border_radius=6)
            return
        pg.rect(self.surface, _PAPER, rect, border_radius=6)
        pg.rect(self.surface, _HIGHLIGHT if highlight else _INK, rect, 3 if highlight else 1, border_radius=6)
        suit, face = divmod(card, NUM_FACES)
        colour = SUIT_COLOURS[suit]
        self._text(FACES[face], (rect.left + 5, rect.top + 4), colour, self.card_font)
        self.draw_suit(suit, rect.left + 10, rect.top + 32, 5)  # the corner index, seen when fanned
        self._text(FACES[face], (rect.right - 5, rect.bottom - 4), colour, self.card_font, anchor="bottomright")
        self.draw_suit(suit, rect.centerx + 4, rect.centery + 2, 13)
        if face >= 7:  # court cards: a frame, as on the printed deck
            pg.rect(self.surface, colour, rect.inflate(-18, -30), 1, border_radius=3)

    # -- the table -----------------------------------------------------------------------------
    def draw(self, rules: Rules, state: State, lane: int = 0, viewer: int | None = None, show_all: bool = False,
             extra=()) -> None:
        """Draw game ``lane`` on :attr:`surface`: the trump, the turned or shown card and the stock
        (top left), the scores and cantes (top right), each seat's hand, label and card in the
        trick, and the status line with the ``extra`` lines under it (bottom left). A hand is face
        up for ``viewer`` (default: the seat to act) or for every seat with ``show_all``; publicly
        known cards are face up in any hand."""
        s = state
        width, height = self.size
        self.surface.fill(_FELT_EDGE)
        self.pg.draw.ellipse(self.surface, _FELT, (40, 60, width - 80, height - 120))
        if viewer is None:
            viewer = int(s.current[lane]) if s.current[lane] >= 0 else -1
        self._draw_trump_corner(rules, s, lane)
        self._draw_scores(rules, s, lane)
        for seat, (where, anchor, spot) in enumerate(_seat_layout(rules.num_players, width, height)):
            label_x, top = self._draw_hand(s, lane, seat, where, anchor, face_up=show_all or seat == viewer)
            self._draw_seat_label(rules, s, lane, seat, (label_x, top - 4))
            card = int(s.trick[lane, seat])
            if card >= 0:
                self.draw_card(card, spot[0] - self.CARD_W / 2, spot[1] - self.CARD_H / 2,
                               highlight=seat == s.best_seat[lane])
        self._draw_status(rules, s, lane, extra)

    def _draw_trump_corner(self, rules: Rules, s: State, lane: int) -> None:
        """Top left: the trump, the shown or turned card, the stock (backs) and the tricks played."""
        trump = int(s.trump[lane])
        w = functools.partial(word, self.lang)
        self._text(w("tb_trump", suit=SUIT_NAMES[trump]), (16, 12))
        self.draw_suit(trump, 160, 20, 9)
        turned = int(s.turned_card[lane])
        self._text(w("tb_shown" if rules.partnerships else "tb_turned"), (16, 36), font=self.small)
        if turned >= 0:
            self.draw_card(turned, 16, 52)
        else:
            self._text(turned_label(rules, s, lane, lang=self.lang), (20, 60), font=self.small)
        if rules.has_stock:
            to_draw = int(s.to_draw[lane]) - (1 if rules.turned_card_drawn and turned >= 0 else 0)
            for k in range(min(max(to_draw, 0), 6)):
                self.draw_card(0, 90 + 2 * k, 52 - 2 * k, face_up=False)
            self._text(w("tb_stock", n=max(to_draw, 0)), (90, 142), font=self.small)
        self._text(w("tb_tricks", n=int(s.tricks_played[lane]), total=rules.num_tricks), (16, 142), font=self.small)

    def _draw_scores(self, rules: Rules, s: State, lane: int) -> None:
        """Top right: each side's score, then the cantes sung."""
        width, lang = self.size[0], self.lang
        y = 12
        for side in range(rules.num_sides):
            self._text(side_score(rules, s, lane, side, side_name(lang, rules, side), lang), (width - 16, y),
                       anchor="topright")
            y += 22
        trump = int(s.trump[lane])
        for suit in range(4):
            singer = int(s.sung_by[lane, suit])
            if singer >= 0:
                points = 40 if suit == trump else 20
                self._text(word(lang, "tb_sang_points", who=who(lang, singer, None), points=points,
                                points_word=points_word(points), suit=SUIT_NAMES[suit]),
                           (width - 16, y), font=self.small, anchor="topright")
                y += 18

    def _draw_hand(self, s: State, lane: int, seat: int, where: str, anchor: tuple[int, int],
                   face_up: bool) -> tuple[float, float]:
        """A seat's hand by suit, strongest first, laid out from ``anchor`` on its side of the
        table (``where``, from :func:`_seat_layout`); a card is face down unless ``face_up`` or
        publicly known. Returns the x of the hand's centre and the y of its top, for the label."""
        hand = [c for c in range(NUM_CARDS) if int(s.hands[lane, seat]) >> c & 1]
        hand.sort(key=lambda c: (c // NUM_FACES, -CARD_STRENGTH[c]))
        known = int(s.known[lane, seat])
        step = (self.CARD_W + 4) if face_up and where in ("bottom", "top") else (26 if face_up else 16)
        span = step * max(len(hand) - 1, 0) + self.CARD_W
        if where in ("bottom", "top"):
            x0 = anchor[0] - span / 2
        elif where == "left":
            x0 = anchor[0]
        else:
            x0 = anchor[0] - span
        y0 = anchor[1] - self.CARD_H / 2
        for k, card in enumerate(hand):
            up = face_up or bool(known >> card & 1)  # shown, sung or drawn cards are public
            self.draw_card(card, x0 + k * step, y0, face_up=up)
        return (anchor[0] if where in ("bottom", "top") else x0 + span / 2), y0

    def _draw_seat_label(self, rules: Rules, s: State, lane: int, seat: int, midbottom: tuple[float, float]) -> None:
        """The seat's name, side and marks (dealer, to act) centred above ``midbottom``; the seat
        to act in a highlighted box."""
        lang = self.lang
        marks = [who(lang, seat, None)] + ([word(lang, "side", side=rules.side_of(seat))] if rules.partnerships else [])
        if seat == s.dealer[lane]:
            marks.append(word(lang, "tb_dealer"))
        acting = seat == s.current[lane]
        if acting:
            marks.append(acting_text(s, lane, lang))
        rect = self._text("  ".join(marks), midbottom, _HIGHLIGHT if acting else _TEXT, anchor="midbottom")
        if acting:
            self.pg.draw.rect(self.surface, _HIGHLIGHT, rect.inflate(8, 4), 1, border_radius=4)

    def _draw_status(self, rules: Rules, s: State, lane: int, extra) -> None:
        """Bottom left: who acts next, or how the hand ended; the ``extra`` lines under it."""
        lang = self.lang
        if s.done[lane]:
            status = outcome_text(rules, s, lane, lang)
        else:
            status = word(lang, "tb_acts", who=who(lang, int(s.current[lane]), None),
                          kind=word(lang, "k_" + DECISION_KINDS[s.decision[lane]]))
        lines = [status, *extra]
        for k, line in enumerate(reversed(lines)):
            self._text(line, (16, self.size[1] - 10 - 20 * k), anchor="bottomleft")

    def render(self, rules: Rules, state: State, lane: int = 0, viewer: int | None = None, show_all: bool = False,
               extra=()):
        """Draw, then return the picture ((H, W, 3) uint8), or show it in the window (human)."""
        self.draw(rules, state, lane, viewer, show_all, extra)
        pg = self.pg
        if not self.human:
            return np.ascontiguousarray(pg.surfarray.array3d(self.surface).transpose(1, 0, 2), dtype=np.uint8)
        if self.window is None:
            pg.display.init()
            pg.display.set_caption("Tute")
            self.window = pg.display.set_mode(self.size)
            self.clock = pg.time.Clock()
        self.window.blit(self.surface, (0, 0))
        pg.event.pump()
        pg.display.flip()
        self.clock.tick(self.fps)
        return None

    def close(self) -> None:
        if self.window is not None:
            self.pg.display.quit()
            self.window = None


class EnvRenderer:
    """What the environments render: ``"ansi"`` text (suit letters instead of symbols with
    ``plain``) or a drawn table (``"rgb_array"``, ``"human"``) of a one-game state, seen by the
    seat to act (every hand with ``show_all``), with the match score of a
    :class:`tute_env.engine.scoring.Scoring` in ``"match"`` episodes, in the words of ``lang``."""

    def __init__(self, mode: str, show_all: bool = False, fps: int = 2, plain: bool = False, lang: str = "en"):
        self.mode, self.show_all, self.fps, self.plain, self.lang = mode, show_all, fps, plain, lang
        self._picture: TableRenderer | None = None

    def render(self, rules: Rules, state: State, scoring=None):
        viewer = int(state.current[0]) if state.current[0] >= 0 else None
        extra, lang = [], self.lang
        if scoring is not None and scoring.episode == "match":
            games, points = scoring.match_games[0], scoring.match_points[0]
            sides = "  ".join(word(lang, "tb_match_side", label=side_name(lang, rules, x),
                                   games=games_text(lang, int(games[x])), points=int(points[x]))
                              for x in range(len(games)))
            extra.append(word(lang, "tb_match", sides=sides, n=int(scoring.hands[0]) + (0 if state.done[0] else 1)))
        if self.mode == "ansi":
            text = render_text(rules, state, viewer=viewer, show_all=self.show_all, symbols=not self.plain, lang=lang)
            return "\n".join([text, *("  " + line for line in extra)])
        if self._picture is None:
            self._picture = TableRenderer(human=self.mode == "human", fps=self.fps, lang=lang)
        return self._picture.render(rules, state, viewer=viewer, show_all=self.show_all, extra=extra)

    def close(self) -> None:
        if self._picture is not None:
            self._picture.close()
            self._picture = None
