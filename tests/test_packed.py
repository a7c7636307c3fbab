"""PackedGame: one game in one array, stepped by the same compiled rules as Game.step.

It must play exactly as the batched core does (every field, every step, every preset), report
the cards each step drew, and refuse what the batched core refuses, changing nothing.
"""

import re

import numpy as np
import pytest
from test_core_safety import BAD_VALUES, mid_game  # tests/test_core_safety.py

from tute_env.engine.cards import NUM_ACTIONS, U64
from tute_env.engine.core import Game, PackedGame
from tute_env.engine.deal import random_deals
from tute_env.engine.rules import PRESETS
from tute_env.engine.state import StateArrays

PRESET_NAMES = sorted(PRESETS)


def legal_list(legal: int) -> list[int]:
    return [a for a in range(NUM_ACTIONS) if legal >> a & 1]


def fields(packed: PackedGame) -> dict[str, np.ndarray]:
    """A copy of the game's fields (the packed array also holds the compiled call's scratch)."""
    return {name: getattr(packed.state, name).copy() for name in StateArrays._fields}


def assert_same_fields(packed: PackedGame, before: dict[str, np.ndarray]) -> None:
    for name, values in before.items():
        assert np.array_equal(getattr(packed.state, name), values), f"{name} changed"


def drawn_by_hands(before: np.ndarray, after: np.ndarray, turned: int) -> int:
    """The ``drawn`` code from the hands before and after a step."""
    code = 0
    for seat, gained in enumerate((after & ~before).tolist()):
        if gained:
            card = gained.bit_length() - 1
            code |= (card + 1 + (128 if card == turned else 0)) << 8 * seat
    return code


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_a_packed_game_plays_as_the_batched_core_field_by_field(preset):
    game = Game(preset)
    rng = np.random.default_rng(7)
    draws = 0
    for _ in range(30):
        deals = random_deals(game.rules, rng, 1)
        state = game.new_state(deals, validate=False)
        packed = game.new_packed(deals, validate=False)
        while True:
            for name in StateArrays._fields:
                assert np.array_equal(getattr(packed.state, name), getattr(state, name)), name
            assert (packed.current, packed.legal) == (int(state.current[0]), int(state.legal[0]))
            if state.done[0]:
                break
            action = int(rng.choice(legal_list(packed.legal)))
            before, turned, left = state.hands[0].copy(), int(state.turned_card[0]), int(state.to_draw[0])
            game.step(state, np.array([action]))
            packed.step(action)
            expected = drawn_by_hands(before, state.hands[0], turned) if state.to_draw[0] < left else 0
            assert packed.drawn == expected
            draws += expected != 0
        assert packed.done
    assert draws > 0 or not game.rules.has_stock


def test_copies_are_independent_and_fields_read_without_the_state():
    game = Game("two_player")
    packed = game.new_packed(random_deals(game.rules, np.random.default_rng(0), 1), validate=False)
    twin = packed.copy()
    packed.step(legal_list(packed.legal)[0])
    assert twin.field("trick_size")[0] == 0 and packed.field("trick_size")[0] == 1
    assert np.array_equal(packed.field("hands"), packed.state.hands)
    with pytest.raises(ValueError, match="no field 'hand'"):
        packed.field("hand")


def test_from_state_copies_a_game_of_these_rules_only():
    game, state = mid_game("two_player", batch=2, steps=3)
    packed = PackedGame.from_state(game, state.take([1]))
    assert packed.current == state.current[1] and packed.legal == int(state.legal[1])
    packed.step(legal_list(packed.legal)[0])
    assert state.trick_size[1] != packed.field("trick_size")[0]  # a copy: the state is untouched
    with pytest.raises(ValueError, match="one game"):
        PackedGame.from_state(game, state)
    with pytest.raises(ValueError, match="does not fit"):
        PackedGame.from_state(Game("partnership"), state.take([0]))


@pytest.mark.parametrize("words", [np.zeros(3, U64), np.zeros(42, np.int64), np.zeros((1, 42), U64), "words"])
def test_a_wrong_array_is_refused(words):
    with pytest.raises(ValueError, match="writeable contiguous uint64 array of 42 words"):
        PackedGame(Game("two_player"), words)


def test_a_read_only_array_is_refused():
    game = Game("two_player")
    words = game.new_packed(random_deals(game.rules, np.random.default_rng(0), 1), validate=False).words
    words.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        PackedGame(Game("two_player"), words)


@pytest.mark.parametrize(
    ("action", "message"),
    [(46, "illegal action pass"), (47, "out of range"), (-1, "out of range"), (2.0, "integer"), (True, "integer")],
)
def test_bad_actions_raise_and_change_nothing(action, message):
    game = Game("two_player")
    packed = game.new_packed(random_deals(game.rules, np.random.default_rng(3), 1), validate=False)
    before = fields(packed)
    with pytest.raises(ValueError, match=message):
        packed.step(action)
    assert_same_fields(packed, before)


def test_a_finished_game_takes_no_action():
    game = Game("two_player")
    packed = game.new_packed(random_deals(game.rules, np.random.default_rng(4), 1), validate=False)
    while not packed.done:
        packed.step(legal_list(packed.legal)[-1])
    with pytest.raises(ValueError, match="is over"):
        packed.step(0)


@pytest.mark.parametrize("case", list(BAD_VALUES))
def test_a_spoiled_game_is_refused_and_nothing_changes(case):
    game, state = mid_game("two_player", steps=3)
    spoil, expected = BAD_VALUES[case]
    spoiled = state.copy()
    spoil(spoiled)
    lane = next(b for b in range(state.batch_size)
                if any(not np.array_equal(getattr(state, f)[b], getattr(spoiled, f)[b]) for f in StateArrays._fields))
    packed = PackedGame.from_state(game, state.take([lane]))
    packed.state.put(slice(None), spoiled.take([lane]))
    before = fields(packed)
    expected = re.escape(re.sub(r"(\w)\[\d+", r"\1[0", expected))
    with pytest.raises(ValueError, match=expected):
        packed.refresh()
    action = legal_list(int(state.legal[lane]))[0]
    with pytest.raises(ValueError, match=expected):
        packed.step(action)
    assert_same_fields(packed, before)
