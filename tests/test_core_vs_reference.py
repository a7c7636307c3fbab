"""Differential test: the batched core against the one-game reference engine (RULES.md, all rules).

Every lane of a core batch is checked against its own reference game: the legal actions, the
seat and decision kind to act, the hands, the visible card and stock after every step, and the
outcome. TUTE_DIFF_GAMES sets the games per preset (CI: 20,000; bench runs more). The full run is
marked slow; ``bash scripts/test.sh --fast`` plays FEW_GAMES other games of every variant instead.
"""

import os
import random

import numpy as np
import pytest

from tute_env.engine.core import Game
from tute_env.engine.deal import random_deals
from tute_env.engine.reference import ReferenceGame
from tute_env.engine.rules import PRESETS, make_rules

GAMES = int(os.environ.get("TUTE_DIFF_GAMES", "20000"))
BATCH = 2000
FEW_GAMES = 100

# Presets, plus option combinations no preset uses, so every option value is exercised.
VARIANTS = {name: {} for name in PRESETS} | {
    "partnership-winner-singers-undertrump": dict(preset="partnership", singers="winner", undertrump_when_overtrumped=True, forty_before_twenty=False, tute="wins_hand"),
    "two_player-after_win-trump_led": dict(preset="two_player", exchange="after_win", stock_duty="trump_led", tute="two_games", double_over_100=True),
    "two_player-strict-no-tute": dict(preset="two_player", stock_duty="strict", tute="off", forty_before_twenty=False),
    "three_player-free": dict(preset="three_player", stock_duty="free", undertrump_when_overtrumped=True),
    "manita-winner": dict(preset="manita", singers="winner"),
}


def variant_rules(name):
    options = dict(VARIANTS[name])
    return make_rules(options.pop("preset", name), **options)


def set_bits(cards) -> int:
    bits = 0
    for c in cards:
        bits |= 1 << c
    return bits


def play_and_compare(rules, seed, games):
    game = Game(rules)
    rng = np.random.default_rng(seed)
    pick = random.Random(seed)
    deals = random_deals(rules, rng, games)
    state = game.new_state(deals)
    refs = [ReferenceGame(rules, deals[lane]) for lane in range(games)]
    n = rules.num_players
    steps = 0
    while not state.done.all():
        actions = np.zeros(games, np.int64)
        for lane in np.flatnonzero(~state.done):
            ref = refs[lane]
            legal = ref.legal_actions()
            where = f"lane {lane} step {steps}"
            assert int(state.legal[lane]) == set_bits(legal), where
            assert state.current[lane] == ref.current_player, where
            assert state.decision[lane] == ref.decision_kind, where
            for seat in range(n):
                assert int(state.hands[lane, seat]) == set_bits(ref.hands[seat]), where
            assert state.turned_card[lane] == ref.turned_card, where
            assert state.to_draw[lane] == ref.stock_left, where
            action = pick.choice(legal)
            actions[lane] = action
            ref.step(action)
        game.step(state, actions)
        steps += 1
    for lane, ref in enumerate(refs):
        assert ref.done and ref.legal_actions() == []
        assert list(state.card_points[lane]) == list(ref.card_points), lane
        assert list(state.last_trick_bonus[lane]) == list(ref.last_trick_bonus), lane
        assert list(state.cante_points[lane]) == list(ref.cante_points), lane
        assert state.winner[lane] == ref.winner, lane
        assert state.games[lane] == ref.games, lane
        assert state.tute_declarer[lane] == ref.tute_declarer, lane
        assert {int(x): int(state.sung_by[lane, x]) for x in range(4) if state.sung_by[lane, x] >= 0} == ref.sung
    return state


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_core_agrees_with_reference(variant):
    rules = variant_rules(variant)
    games = GAMES if variant in PRESETS else max(GAMES // 4, 1)
    for start in range(0, games, BATCH):
        play_and_compare(rules, seed=start, games=min(BATCH, games - start))


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_core_agrees_with_reference_on_a_few_games(variant):
    """The fast path's differential test: fewer games, seeds the full run does not use."""
    play_and_compare(variant_rules(variant), seed=10**6, games=FEW_GAMES)
