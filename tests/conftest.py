"""Shared test fixtures and helpers.

``engine`` runs a test once per engine in ``ENGINES``; each entry is a factory
``(rules, deal) -> game`` with the interface of :class:`tute_env.engine.reference.ReferenceGame`
(``legal_actions()``, ``step()``, ``current_player``, ``decision_kind``, ``hands``, ...).
To test another engine, add one line to ``ENGINES``.

Helpers (import them with ``from conftest import ...``):

* :func:`build_deal` -- a validated deal from the cards a test cares about, the rest filled in
  deterministically with low cards (never completing a king-and-knight pair in a hand);
* :func:`play` -- apply a space-separated string of actions, e.g. ``play(game, "Ao 3o sing-c Rb")``;
* :func:`legal` -- the legal actions as a set of action strings;
* :func:`python_files` -- every Python file of the checkout, parsed (for the tests of the layers);
* :func:`without_train_extra` -- an environment for child processes in which the ``[train]``
  extra's modules (torch, ...) cannot be imported, as after a plain ``pip install tute_env``;
  :func:`requirement_name` -- a requirement's distribution name.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pytest

# Make the package importable with a bare ``pytest`` too (``python -m pytest`` adds the cwd).
_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from tute_env.engine.cards import (
    CARD_STRENGTH,
    KING,
    KNIGHT,
    NUM_CARDS,
    SUITS,
    action_id,
    action_str,
    cards_of,
    cards_str,
    to_cards,
)
from tute_env.engine.core import Game
from tute_env.engine.deal import Deal
from tute_env.engine.reference import ReferenceGame
from tute_env.engine.rules import Rules


def make_reference_game(rules: Rules, deal: Deal) -> ReferenceGame:
    return ReferenceGame(rules, deal)


class CoreGame:
    """One lane of the batched core behind the reference engine's interface."""

    def __init__(self, rules: Rules, deal: Deal):
        self.game = Game(rules)
        self.state = self.game.new_state([deal])

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.game.legal_action_mask(self.state)[0])]

    def step(self, action: int) -> None:
        self.game.step(self.state, np.array([action]), active=np.ones(1, bool))

    def _scalar(name):  # a property factory
        return property(lambda self: int(getattr(self.state, name)[0]))

    def _per_side(name):
        return property(lambda self: [int(x) for x in getattr(self.state, name)[0]])

    current_player = _scalar("current")
    decision_kind = _scalar("decision")
    turned_card = _scalar("turned_card")
    stock_left = _scalar("to_draw")
    tricks_played = _scalar("tricks_played")
    winner = _scalar("winner")
    games = _scalar("games")
    tute_declarer = _scalar("tute_declarer")
    card_points = _per_side("card_points")
    last_trick_bonus = _per_side("last_trick_bonus")
    cante_points = _per_side("cante_points")
    totals = _per_side("totals")

    @property
    def done(self) -> bool:
        return bool(self.state.done[0])

    @property
    def hands(self) -> list[set[int]]:
        return [set(cards_of(h)) for h in self.state.hands[0]]

    @property
    def trick(self) -> list[tuple[int, int]]:
        s, n = self.state, self.game.num_players
        seats = [(int(s.trick_leader[0]) + k) % n for k in range(int(s.trick_size[0]))]
        return [(seat, int(s.trick[0, seat])) for seat in seats]

    @property
    def sung(self) -> dict[int, int]:
        return {suit: int(seat) for suit, seat in enumerate(self.state.sung_by[0]) if seat >= 0}


ENGINES = {
    "reference": make_reference_game,
    "core": CoreGame,
}


@pytest.fixture(params=list(ENGINES))
def engine(request):
    """A game factory ``(rules, deal) -> game`` for each engine in ``ENGINES``."""
    return ENGINES[request.param]


# Filler order: the cards nobody asked for are handed out weakest first (all the 2s, then the
# 4s, 5s, ...), so that they rarely matter to a scenario. Suits in order o c e b within a face.
FILL_ORDER = sorted(range(NUM_CARDS), key=lambda c: (int(CARD_STRENGTH[c]), c))


def _cards(spec) -> list[int]:
    if spec is None:
        return []
    return to_cards(spec)


def build_deal(
    rules: Rules,
    hands: Sequence[str | Iterable | None],
    trump_card: str | int,
    stock: str | Iterable | None = None,
    dealer: int | None = None,
    fill_order: Sequence[int] | None = None,
) -> Deal:
    """A validated :class:`Deal` from partial hands and a partial stock.

    ``hands``: per seat, the cards (strings such as ``"Ao 3o Rb"`` or lists) the seat must hold;
    ``stock``: the first cards of the face-down stock in drawing order. Every card not given is
    filled in ``fill_order`` (default :data:`FILL_ORDER`): first the hands in seat order, then the
    rest of the stock; filler never completes a king-and-knight pair (a cante) in a hand where it
    can be avoided, so a hand holds only the cantes a test gives it. ``dealer`` defaults to the
    last seat, so seat 0 leads first. In the partnership game the shown ``trump_card`` is added to
    the dealer's hand if not listed.
    """
    n = rules.num_players
    if dealer is None:
        dealer = n - 1
    hands = list(hands) + [None] * (n - len(hands))
    hand_cards = [_cards(h) for h in hands]
    trump = to_cards([trump_card])[0]
    if rules.partnerships and trump not in hand_cards[dealer]:
        hand_cards[dealer].append(trump)
    stock_cards = _cards(stock)
    used = [c for h in hand_cards for c in h] + stock_cards + ([] if rules.partnerships else [trump])
    if len(set(used)) != len(used):
        twice = sorted({c for c in used if used.count(c) > 1})
        raise ValueError(f"build_deal: card(s) given twice: {cards_str(twice)}")
    rest = [c for c in (fill_order or FILL_ORDER) if c not in set(used)]
    for seat in range(n):
        need = rules.hand_size - len(hand_cards[seat])
        if need < 0:
            raise ValueError(f"build_deal: seat {seat} is given more than {rules.hand_size} cards")
        # Never complete a cante (king and knight of a suit) with filler cards, where avoidable.
        taken, deferred = [], []
        for c in rest:
            if len(taken) == need or _completes_cante(c, hand_cards[seat] + taken):
                deferred.append(c)
            else:
                taken.append(c)
        if len(taken) < need:  # unavoidable: take the deferred cards in order
            taken += deferred[: need - len(taken)]
        hand_cards[seat] += taken
        rest = [c for c in rest if c not in set(taken)]
    stock_cards += rest
    return Deal.from_dict(
        {"dealer": dealer, "hands": hand_cards, "trump_card": trump, "stock": stock_cards}, rules
    )


def _completes_cante(card: int, hand: list[int]) -> bool:
    """``card`` is a king or knight whose partner (knight or king of its suit) is in ``hand``."""
    suit, face = divmod(card, 10)
    if face == KING:
        return suit * 10 + KNIGHT in hand
    if face == KNIGHT:
        return suit * 10 + KING in hand
    return False


def play(game, actions: str | Iterable) -> object:
    """Apply actions (a space-separated string of action strings, or a list) to ``game``.

    The token ``?`` plays the current player's lowest legal card (for seats whose card does
    not matter to a scenario); it fails where no card may be played (a declaration turn).
    """
    if isinstance(actions, str):
        actions = actions.split()
    for i, act in enumerate(actions):
        if act == "?":
            cards = [a for a in game.legal_actions() if a < NUM_CARDS]
            if not cards:
                raise ValueError(f"play: action #{i} '?': no card is legal ({legal(game)})")
            a = cards[0]
        else:
            a = action_id(act) if isinstance(act, str) else int(act)
        try:
            game.step(a)
        except ValueError as err:
            raise ValueError(f"play: action #{i} {action_str(a)} failed: {err}") from None
    return game


def python_files():
    """Every Python file of the checkout (not .venv, build/ or hidden folders), sorted: its path
    relative to the checkout and its syntax tree."""
    for path in sorted(Path(_ROOT).rglob("*.py")):
        rel = path.relative_to(_ROOT)
        if rel.parts[0] in (".venv", "build") or rel.parts[0].startswith("."):
            continue
        yield rel, ast.parse(path.read_text(), str(rel))


def legal(game) -> set[str]:
    """The legal actions of ``game`` as a set of action strings."""
    return {action_str(a) for a in game.legal_actions()}


def hand(game, seat: int) -> set[str]:
    """A seat's hand as a set of card strings."""
    return {action_str(c) for c in game.hands[seat]}


def suit_cards(cards: str, suit: str) -> set[str]:
    """The cards of one suit (``'o'``, ``'c'``, ``'e'``, ``'b'``) in a space-separated string."""
    assert suit in SUITS
    return {c for c in cards.split() if c[1] == suit}


def play_out(game, choose=None) -> object:
    """Play ``game`` to the end; ``choose(legal_actions) -> action`` (default: the lowest id)."""
    while not game.done:
        acts = game.legal_actions()
        assert acts, "a state that is not over has no legal action"
        game.step(choose(acts) if choose else acts[0])
    return game


@pytest.fixture(autouse=True)
def _private_data_home(tmp_path_factory, monkeypatch):
    """The play mode keeps its history under $XDG_DATA_HOME: never the user's in a test (the
    subprocesses the tests start inherit it too)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data_home")))


def record_file_paths(tmp_path: Path, good: list[dict], no_dir_name: str) -> dict[str, Path]:
    """Files for the bad-input tests of the commands that read records: "GOOD" (the records
    ``good``, JSON objects of tute-record/1 lines), "BAD" (its first line, then the second with
    its first action replaced by its second: line 2's field 'actions' is wrong), "MISSING" (no
    such file) and "NODIR" (``no_dir_name`` in a folder that does not exist)."""
    import json

    bad = json.loads(json.dumps(good[1]))
    bad["actions"][0] = bad["actions"][1]
    (tmp_path / "good.jsonl").write_text("".join(json.dumps(d) + "\n" for d in good))
    (tmp_path / "bad.jsonl").write_text(json.dumps(good[0]) + "\n" + json.dumps(bad) + "\n")
    return {"BAD": tmp_path / "bad.jsonl", "GOOD": tmp_path / "good.jsonl", "MISSING": tmp_path / "none.jsonl",
            "NODIR": tmp_path / "no" / no_dir_name}


def requirement_name(requirement: str) -> str:
    """A requirement's distribution name, normalised: ``'PyYAML>=6; extra == "train"'`` -> ``"pyyaml"``."""
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


_BLOCKER = """import sys


class NoTrainExtra:  # refuses the [train] extra's modules as if they were not installed
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {modules!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, NoTrainExtra())
"""


def without_train_extra(folder: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (default ``os.environ``) for child processes that cannot import the ``[train]``
    extra's modules (``agents.base.TRAIN_MODULES``): a sitecustomize.py written to ``folder``, first
    on PYTHONPATH, refuses them, so no environment without torch need be built."""
    from agents.base import TRAIN_MODULES

    (folder / "sitecustomize.py").write_text(_BLOCKER.format(modules=tuple(TRAIN_MODULES)))
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join([str(folder)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env
