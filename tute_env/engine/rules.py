"""Rule options of Tute (docs/rules.md) as one frozen, validated dataclass, and the named presets.

>>> rules = make_rules("two_player", stock_duty="strict")
>>> rules.num_players, rules.hand_size, rules.stock_size
(2, 8, 23)

Everything a variant changes is a field here; the engines read nothing else. Quantities that
follow from the fields (stock size, number of tricks, sides) are properties, so they can never
disagree with the fields.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from .cards import NUM_CARDS, is_int

StockDuty = Literal["free", "trump_led", "strict"]
Exchange = Literal["seven_on_lead", "after_win", "off"]
Singers = Literal["side", "winner"]
TuteOption = Literal["two_games", "wins_hand", "off"]
MatchKind = Literal["target_games", "target_points"]

_CHOICES = {
    "stock_duty": ("free", "trump_led", "strict"),
    "exchange": ("seven_on_lead", "after_win", "off"),
    "singers": ("side", "winner"),
    "tute": ("two_games", "wins_hand", "off"),
    "match": ("target_games", "target_points"),
}


@dataclass(frozen=True)
class Rules:
    """One combination of Tute's rule options. Invalid combinations raise ``ValueError``."""

    num_players: int = 4
    """Players: 4 (two partnerships, seats 0+2 vs 1+3, whole deck dealt), 2 or 3 (each for
    themselves, with a stock). R2, R3."""
    hand_size: int = 10
    """Cards dealt to each player (10 with four players; 8, 10 or 6 with two; 10 with three). R3."""
    stock_duty: StockDuty = "strict"
    """What you must play while cards remain to draw: ``free``, ``trump_led`` (answer a trump
    lead with a trump) or ``strict`` (R5 throughout). R6. No effect without a stock."""
    exchange: Exchange = "off"
    """Exchanging the turned trump (two players only): ``seven_on_lead``, ``after_win`` or ``off``. R7."""
    singers: Singers = "side"
    """Who may sing after a trick: the winner and partner (``side``) or the winner only. R8."""
    forty_before_twenty: bool = True
    """A player who could sing 40 and 20 must sing the 40 first; no 40 after one's own 20. R8."""
    tute: TuteOption = "two_games"
    """Declaring all four kings or knights: ``two_games``, ``wins_hand`` (one game) or ``off``. R8b."""
    double_over_100: bool = True
    """A hand won with more than 100 points credits two games. R9."""
    must_beat_partner: bool = True
    """The duty to beat holds against the partner's winning card too (off: the Manita setting). R5."""
    undertrump_when_overtrumped: bool = False
    """Void and unable to overtrump: must still play a (lower) trump if holding one. R5."""
    match: MatchKind = "target_games"
    """How a match is won: first side to ``target_games`` games, or to ``target_points``. R10."""
    target_games: int = 4
    """Games needed to win a match with ``match="target_games"``. R10."""
    target_points: int = 101
    """Points needed to win a match with ``match="target_points"``. R10."""

    def __post_init__(self):
        for name, choices in _CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                raise ValueError(f"bad rules option {name}={value!r}: expected one of {choices}")
        for name in ("forty_before_twenty", "double_over_100", "must_beat_partner", "undertrump_when_overtrumped"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"bad rules option {name}={getattr(self, name)!r}: expected True or False")
        for name in ("num_players", "hand_size", "target_games", "target_points"):
            value = getattr(self, name)
            if not is_int(value):
                raise ValueError(f"bad rules option {name}={value!r}: expected an integer")
        if self.num_players not in (2, 3, 4):
            raise ValueError(f"bad rules option num_players={self.num_players}: expected 2, 3 or 4")
        if self.num_players == 4 and self.hand_size != 10:
            raise ValueError(
                f"bad rules option hand_size={self.hand_size}: four players are dealt the whole deck, 10 each"
            )
        if self.num_players < 4:
            # Hands, one turned card and a stock the players can draw in equal rounds.
            most = (NUM_CARDS - 1) // self.num_players
            if not 1 <= self.hand_size <= most:
                raise ValueError(
                    f"bad rules option hand_size={self.hand_size}: with {self.num_players} players "
                    f"it must be 1..{most} (hands plus a turned card must fit in 40 cards)"
                )
        if self.exchange != "off" and self.num_players != 2:
            raise ValueError(
                f"bad rules option exchange={self.exchange!r}: exchanging the turned trump (R7) "
                f"needs two players, not {self.num_players}"
            )
        if self.target_games < 1:
            raise ValueError(f"bad rules option target_games={self.target_games}: expected at least 1")
        if self.target_points < 1:
            raise ValueError(f"bad rules option target_points={self.target_points}: expected at least 1")

    # Derived quantities -----------------------------------------------------------------------
    @property
    def partnerships(self) -> bool:
        """Four players in two fixed partnerships (R2)."""
        return self.num_players == 4

    @property
    def num_sides(self) -> int:
        """Scoring sides: 2 partnerships, or one per player."""
        return 2 if self.partnerships else self.num_players

    @property
    def has_stock(self) -> bool:
        """A turned card and a face-down stock to draw from (2 or 3 players, R3)."""
        return not self.partnerships

    @property
    def turned_card_drawn(self) -> bool:
        """The turned card is the last card drawn (two players) rather than out of play (three). R3."""
        return self.num_players == 2

    @property
    def stock_size(self) -> int:
        """Face-down stock after the deal, without the turned card."""
        return 0 if self.partnerships else NUM_CARDS - self.num_players * self.hand_size - 1

    @property
    def num_tricks(self) -> int:
        """Tricks in a hand played to the end (three players: 13, the turned card is out)."""
        cards_in_play = NUM_CARDS - (0 if self.partnerships or self.turned_card_drawn else 1)
        return cards_in_play // self.num_players

    def side_of(self, seat: int) -> int:
        """Side index of a seat: ``seat % 2`` with partnerships, else the seat."""
        return seat % 2 if self.partnerships else seat

    def replace(self, **overrides) -> Rules:
        """A copy with some options changed (validated again)."""
        unknown = sorted(set(overrides) - {f.name for f in dataclasses.fields(self)})
        if unknown:
            raise ValueError(f"unknown rules option(s) {unknown}: known options are {option_names()}")
        return dataclasses.replace(self, **overrides)


PRESETS: dict[str, Rules] = {
    "partnership": Rules(),
    "two_player": Rules(
        num_players=2, hand_size=8, stock_duty="free", exchange="seven_on_lead", tute="wins_hand",
        double_over_100=False, target_games=5,
    ),
    "two_player_10": Rules(
        num_players=2, hand_size=10, stock_duty="strict", tute="wins_hand", double_over_100=False
    ),
    "three_player": Rules(
        num_players=3, hand_size=10, stock_duty="strict", tute="wins_hand", double_over_100=False
    ),
    "corriente": Rules(num_players=2, hand_size=6, stock_duty="free", tute="wins_hand", double_over_100=False),
    "manita": Rules(must_beat_partner=False),
}
"""Named presets (docs/rules.md, Presets). ``partnership`` is the default."""


def option_names() -> list[str]:
    """Names of all rule options."""
    return [f.name for f in dataclasses.fields(Rules)]


class UnknownPreset(ValueError):
    """:func:`make_rules` was given neither a preset's name nor a :class:`Rules`."""


def make_rules(preset: str | Rules = "partnership", **overrides) -> Rules:
    """Rules of a named preset (or a given :class:`Rules`), with options overridden."""
    if isinstance(preset, Rules):
        base = preset
    elif isinstance(preset, str) and preset in PRESETS:
        base = PRESETS[preset]
    else:
        raise UnknownPreset(f"unknown preset {preset!r}: expected one of {sorted(PRESETS)} or a Rules")
    return base.replace(**overrides) if overrides else base


def option_differences(rules: Rules, base: Rules) -> dict:
    """The options of ``rules`` that differ from ``base``, by name, with ``rules``' values."""
    return {name: getattr(rules, name) for name in option_names() if getattr(rules, name) != getattr(base, name)}


def nearest_preset(rules: Rules) -> str:
    """The preset ``rules`` are closest to: the one with the same players and hand size and the
    fewest options changed (the first such in :data:`PRESETS` on a tie); a preset equal to
    ``rules`` is its own nearest. Records name it as their ``variant``; :func:`rules_spec` builds on it."""
    def distance(name):
        base = PRESETS[name]
        shape = (base.num_players, base.hand_size) != (rules.num_players, rules.hand_size)
        return shape, len(option_differences(rules, base))

    return min(PRESETS, key=distance)


def rules_spec(rules: Rules) -> str:
    """The arguments of :func:`make_rules` that give ``rules``: the nearest preset and the options
    that differ from it, e.g. ``'two_player', tute='off'``."""
    name = nearest_preset(rules)
    return ", ".join([repr(name)] + [f"{k}={v!r}" for k, v in option_differences(rules, PRESETS[name]).items()])


def parse_overrides(items) -> dict:
    """Rule overrides from command-line ``OPTION=VALUE`` strings, typed: ``["must_beat_partner=false",
    "target_games=5", "tute=off"]`` -> ``{"must_beat_partner": False, "target_games": 5, "tute": "off"}``
    (``true/on/yes`` and ``false/off/no`` are booleans except for the options whose values are
    words). The values are checked when the rules are made (:func:`make_rules`)."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise ValueError(f"bad --set {item!r}: expected OPTION=VALUE, options: {option_names()}")
        low = value.lower()
        if low in ("true", "on", "yes"):
            out[key] = True
        elif low in ("false", "off", "no") and key not in ("exchange", "tute", "stock_duty"):
            out[key] = False
        else:
            try:
                out[key] = int(value)
            except ValueError:
                out[key] = value
    return out
