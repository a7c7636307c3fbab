"""Invariants of the reference engine over many random games with random legal play (seeded).

Runs through the ``engine`` fixture too, so any engine added to ``conftest.ENGINES`` must keep
the same invariants. Two levels: every state of a few hundred games per rules variant is
checked in depth; a few thousand games per preset are played out and their end checked.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import numpy as np
import pytest

from tute_env.engine.cards import (
    CARD_POINTS,
    DECLARATIONS,
    DECLARE,
    EXCHANGE,
    FOLLOW,
    LEAD,
    NUM_ACTIONS,
    NUM_CARDS,
    PASS,
    SING_BASE,
    TUTE,
)
from tute_env.engine.deal import random_deals
from tute_env.engine.rules import PRESETS, make_rules

VARIANTS = {name: make_rules(name) for name in PRESETS}
VARIANTS.update(
    {
        "partnership_singers_winner": make_rules("partnership", singers="winner"),
        "partnership_undertrump_no_forty_first": make_rules(
            "partnership", undertrump_when_overtrumped=True, forty_before_twenty=False, tute="wins_hand"
        ),
        "partnership_tute_off": make_rules("partnership", tute="off"),
        "two_player_trump_led_after_win": make_rules("two_player", stock_duty="trump_led", exchange="after_win"),
        "two_player_strict_tute_two_games": make_rules("two_player", stock_duty="strict", tute="two_games"),
        "corriente_seven_on_lead": make_rules("corriente", exchange="seven_on_lead", double_over_100=True),
        "three_player_free": make_rules("three_player", stock_duty="free", singers="winner"),
        "two_player_19": make_rules("two_player", hand_size=19),
        "three_player_12": make_rules("three_player", hand_size=12),
    }
)

DEEP_GAMES = 250  # per variant, every state checked
END_GAMES = 2500  # per preset, the end of the hand checked


def dead_points(rules, deal) -> int:
    """Points of the three-player dead turned card (0 otherwise)."""
    if rules.has_stock and not rules.turned_card_drawn:
        return int(CARD_POINTS[deal.trump_card])
    return 0


def check_end(game, rules, deal):
    sides = rules.num_sides
    assert game.done and game.current_player == -1 and game.decision_kind == -1
    assert game.legal_actions() == []
    assert game.totals == [game.card_points[s] + game.last_trick_bonus[s] + game.cante_points[s] for s in range(sides)]
    cantes = [0] * sides
    for suit, seat in game.sung.items():
        cantes[rules.side_of(seat)] += 40 if suit == deal.trump_card // 10 else 20
    assert game.cante_points == cantes
    if game.tute_declarer >= 0:
        assert rules.tute != "off"
        assert game.winner == rules.side_of(game.tute_declarer)
        assert game.games == (2 if rules.tute == "two_games" else 1)
        assert game.last_trick_bonus == [0] * sides
        assert sum(game.card_points) <= 120 - dead_points(rules, deal)
    else:
        assert game.tricks_played == rules.num_tricks
        assert sum(game.card_points) + sum(game.last_trick_bonus) == 130 - dead_points(rules, deal)
        assert sorted(game.last_trick_bonus) == [0] * (sides - 1) + [10]
        assert game.totals[game.winner] == max(game.totals)
        over = rules.double_over_100 and game.totals[game.winner] > 100
        assert game.games == (2 if over else 1)
        assert all(len(h) == 0 for h in game.hands) and game.stock_left == 0


def check_state(game, rules, deal, played: set[int]):
    """Every invariant of a state that is not over."""
    n = rules.num_players
    acts = game.legal_actions()
    assert acts, "a state that is not over has no legal action"
    assert acts == sorted(set(acts)) and all(0 <= a < NUM_ACTIONS for a in acts)
    seat, kind = game.current_player, game.decision_kind
    assert 0 <= seat < n
    # Cards: every card is in exactly one place.
    in_hands = [c for h in game.hands for c in h]
    in_trick = [c for _, c in game.trick]
    assert len(set(in_hands)) == len(in_hands)
    assert not (set(in_hands) & played) and not (set(in_trick) & set(in_hands))
    assert set(in_trick) <= played
    dead = 1 if rules.has_stock and not rules.turned_card_drawn else 0
    assert len(in_hands) + len(played) + game.stock_left + dead == NUM_CARDS
    # Hand sizes: hand_size + drawing rounds so far - cards played.
    rounds = (rules.stock_size + (1 if rules.turned_card_drawn else 0)) // n
    trick_seats = {s for s, _ in game.trick}
    for s in range(n):
        expect = rules.hand_size + min(game.tricks_played, rounds) - game.tricks_played - (s in trick_seats)
        assert len(game.hands[s]) == expect, (s, expect, game)
    assert game.stock_left == max(0, (rounds - game.tricks_played) * n)
    # The turned card.
    if rules.partnerships:
        assert game.turned_card == (deal.trump_card if deal.trump_card not in played else -1)
    elif rules.turned_card_drawn:
        assert (game.turned_card == -1) == (game.stock_left == 0)
        if game.turned_card >= 0:
            assert game.turned_card // 10 == deal.trump_card // 10 and game.turned_card not in in_hands
    else:
        assert game.turned_card == deal.trump_card
    # Whose turn to do what.
    cards = [a for a in acts if a < NUM_CARDS]
    assert set(cards) <= game.hands[seat]
    if kind == LEAD:
        assert game.trick == [] and cards == sorted(game.hands[seat])
        assert PASS not in acts
    elif kind == FOLLOW:
        assert game.trick and seat == (game.trick[-1][0] + 1) % n
        assert cards and all(a < NUM_CARDS for a in acts)
    else:
        assert kind == DECLARE
        assert rules.partnerships and rules.singers == "side" and game.trick == []
        assert PASS in acts and len(acts) >= 2 and not cards
        assert all(a in DECLARATIONS or a == PASS for a in acts)
    if game.tricks_played == 0:
        assert not any(a in DECLARATIONS for a in acts)
    if EXCHANGE in acts:
        assert rules.exchange != "off" and kind == LEAD and game.turned_card >= 0
    if TUTE in acts:
        assert rules.tute != "off"
    for a in acts:
        if SING_BASE <= a < TUTE:
            suit = a - SING_BASE
            assert suit not in game.sung
            assert {suit * 10 + 8, suit * 10 + 9} <= game.hands[seat]


def play_random(game, rng: random.Random, rules, deal, deep: bool):
    played: set[int] = set()
    steps = 0
    while not game.done:
        if deep:
            check_state(game, rules, deal, played)
        action = rng.choice(game.legal_actions())
        if action < NUM_CARDS:
            played.add(action)
        game.step(action)
        steps += 1
        assert steps < 200
    check_end(game, rules, deal)


# All the games (slow), and the first tenth of them (the fast path: `bash scripts/test.sh --fast`).
@pytest.mark.parametrize("games", [pytest.param(DEEP_GAMES, marks=pytest.mark.slow, id="all"),
                                   pytest.param(DEEP_GAMES // 10, id="few")])
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_invariants_every_state(engine, variant, games):
    rules = VARIANTS[variant]
    deals = random_deals(rules, np.random.default_rng(1000 + len(variant)), games)
    rng = random.Random(variant)
    for i in range(len(deals)):
        play_random(engine(rules, deals[i]), rng, rules, deals[i], deep=True)


@pytest.mark.parametrize("games", [pytest.param(END_GAMES, marks=pytest.mark.slow, id="all"),
                                   pytest.param(END_GAMES // 10, id="few")])
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_invariants_played_out(engine, preset, games):
    rules = make_rules(preset)
    deals = random_deals(rules, np.random.default_rng(2000 + len(preset)), games)
    rng = random.Random(preset)
    kinds = set()
    for i in range(len(deals)):
        game = engine(rules, deals[i])
        play_random(game, rng, rules, deals[i], deep=False)
        kinds.add("tute" if game.tute_declarer >= 0 else "played out")
    assert "played out" in kinds


def test_no_cards_only_games_end_with_130(engine):
    """Playing always the lowest legal card (no declarations): 130 (or less the dead card)."""
    for preset in sorted(PRESETS):
        rules = make_rules(preset)
        deals = random_deals(rules, np.random.default_rng(5), 200)
        for i in range(len(deals)):
            game = engine(rules, deals[i])
            while not game.done:
                acts = game.legal_actions()
                cards = [a for a in acts if a < NUM_CARDS]
                game.step(cards[0] if cards else PASS)
            assert game.cante_points == [0] * rules.num_sides and game.tute_declarer == -1
            assert sum(game.totals) == 130 - dead_points(rules, deals[i])


def test_replay_is_deterministic(engine):
    rules = make_rules("two_player")
    deal = random_deals(rules, np.random.default_rng(9), 1)[0]
    rng = random.Random(9)
    game = engine(rules, deal)
    actions, states = [], []
    while not game.done:
        a = rng.choice(game.legal_actions())
        actions.append(a)
        game.step(a)
        states.append((game.current_player, game.decision_kind, [sorted(h) for h in game.hands], list(game.totals)))
    again = engine(rules, deal)
    for a, state in zip(actions, states):
        again.step(a)
        assert (again.current_player, again.decision_kind, [sorted(h) for h in again.hands],
                list(again.totals)) == state


def test_reference_does_not_import_core():
    source = Path(__file__).resolve().parent.parent / "tute_env" / "engine" / "reference.py"
    tree = ast.parse(source.read_text())
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names.append(node.module or "")
            names += [a.name for a in node.names]
    assert not any(part in name for name in names for part in ("core", "kernel")), names
