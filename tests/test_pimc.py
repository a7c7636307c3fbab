"""The PIMC bot: the deal sampler agrees with the information set (and can produce the true
deal), states rebuilt from an information set replay the real game, the bot never plays an
illegal action on any preset, is deterministic given its seed, and beats random play."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import make_agent
from agents.base import RandomAgent
from agents.pimc import PIMCAgent, play_out
from tute_env.engine.cards import NUM_ACTIONS, popcount
from tute_env.engine.core import Game
from tute_env.engine.core import random_legal_actions as random_actions
from tute_env.engine.observation import encode_observation
from tute_env.engine.rules import PRESETS, make_rules
from tute_env.play.seating import Seating
from tute_env.search.infoset import (
    DealConstraints,
    DealSampler,
    InconsistentInfoSet,
    build_states,
    deal_constraints,
    decode_infoset,
    sample_deals,
)

PRESET_NAMES = sorted(PRESETS)




def true_deal(rules, state, lane, observer):
    """The hidden deal as the sampler returns it: hands by seat relative to ``observer``, and
    the face-down stock in drawing order."""
    n = rules.num_players
    hands = np.array([state.hands[lane, (observer + k) % n] for k in range(n)], dtype=np.uint64)
    stock = state.stock[lane, state.stock_next[lane] :] if rules.stock_size else np.zeros(0, np.int8)
    return hands, stock


def information_sets(game, state):
    """Observations, masks and decoded information sets of the seats to act."""
    mask = game.legal_action_mask(state)
    players = np.maximum(state.current, 0)
    obs = encode_observation(game.rules, state, players)
    return obs, mask, players, decode_infoset(game.rules, obs, mask)


def check_decision(game, state, lane, obs, mask, players, info, rng, samples=16):
    """Every property of the sampler and the state builder at one decision."""
    rules = game.rules
    cons = deal_constraints(info, lane)
    hands, stock = true_deal(rules, state, lane, int(players[lane]))
    # The true deal is a possible sample: the constraints hold for it.
    assert cons.is_consistent(hands, stock), "the true deal violates the constraints"
    sampled_hands, sampled_stock = sample_deals(info, lane, samples, rng)
    assert sampled_hands.shape == (samples, rules.num_players)
    for h, s in zip(sampled_hands, sampled_stock):
        assert cons.is_consistent(h, s), "a sampled deal disagrees with the information set"
    built = build_states(game, info, lane, sampled_hands, sampled_stock)
    # The rebuilt states show the observer exactly its observation, and the core computes the
    # same legal actions from them.
    assert (encode_observation(rules, built, 0) == obs[lane]).all()
    assert (game.legal_sets(built) == state.legal[lane]).all()


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_sampled_deals_agree_with_the_information_set(preset):
    """At every decision of seeded random games: the true deal satisfies the constraints, every
    sample satisfies them, and the rebuilt states have the real observation and legal set."""
    game = Game(preset)
    rng = np.random.default_rng(11)
    state = game.random_state(rng, 8)
    checked = 0
    while not state.done.all():
        obs, mask, players, info = information_sets(game, state)
        for lane in np.flatnonzero(~state.done):
            check_decision(game, state, lane, obs, mask, players, info, rng, samples=8)
            checked += 1
        game.step(state, random_actions(mask, rng))
    assert checked > 8 * game.rules.num_tricks


@settings(max_examples=40, deadline=None)
@given(
    preset=st.sampled_from(PRESET_NAMES),
    seed=st.integers(0, 2**32 - 1),
    depth=st.integers(0, 60),
    options=st.sampled_from([{}, {"must_beat_partner": False}, {"undertrump_when_overtrumped": True}, {"singers": "winner"}]),
)
def test_sampler_property(preset, seed, depth, options):
    """Property: at a random point of a random game, samples agree with the information set
    and the true deal is one of the consistent deals."""
    options = {k: v for k, v in options.items() if k != "must_beat_partner" or PRESETS[preset].partnerships}
    game = Game(make_rules(preset, **options))
    rng = np.random.default_rng(seed)
    state = game.random_state(rng, 1)
    for _ in range(depth):
        if state.done[0]:
            break
        game.step(state, random_actions(game.legal_action_mask(state), rng))
    if state.done[0]:
        return
    obs, mask, players, info = information_sets(game, state)
    check_decision(game, state, 0, obs, mask, players, info, rng, samples=32)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_rebuilt_state_with_the_true_deal_replays_the_game(preset):
    """States built from an information set and the true hidden cards are the real game: the
    same actions give the same legal sets, the same winner and the same totals."""
    game = Game(preset)
    rules = game.rules
    n, sides = rules.num_players, rules.num_sides
    rng = np.random.default_rng(5)
    state = game.random_state(rng, 6)
    side = (lambda seat: seat % 2) if rules.partnerships else (lambda seat: seat)
    replays = 0
    while not state.done.all():
        _, mask, players, info = information_sets(game, state)
        for lane in np.flatnonzero(~state.done):
            if rng.random() > 0.25:
                continue
            p = int(players[lane])
            hands, stock = true_deal(rules, state, lane, p)
            built = build_states(game, info, lane, hands[None], stock[None])
            real = state.take([lane])
            while not real.done[0]:
                assert real.legal[0] == built.legal[0]
                assert (built.current[0] - (real.current[0] - p)) % n == 0
                action = random_actions(game.legal_action_mask(real), rng)
                game.step(real, action)
                game.step(built, action)
            assert built.done[0] and real.games[0] == built.games[0]
            assert (built.winner[0] - (real.winner[0] - side(p))) % sides == 0
            assert all(built.totals[0, k] == real.totals[0, (side(p) + k) % sides] for k in range(sides))
            replays += 1
        game.step(state, random_actions(mask, rng))
    assert replays > 10


def test_sampler_is_uniform_over_consistent_deals():
    """A small hand-made information set: every consistent deal comes up equally often."""
    cons = DealConstraints(
        num_players=3,
        unseen=0b1111111,  # cards 0..6
        hand_sizes=(3, 3, 2),
        fixed=(0b111 << 10, 0, 0),  # the observer holds 10, 11, 12
        forced=(0, 0b1, 0),  # seat 1 is known to hold card 0
        cannot_hold=(0, 0b110, 0b1000),  # seat 1 lacks 1 and 2, seat 2 lacks 3
        face_down=2,
    )
    free = [1, 2, 3, 4, 5, 6]
    consistent = []
    for one in itertools.combinations(free, 2):
        for two in itertools.combinations([c for c in free if c not in one], 2):
            stock = [c for c in free if c not in one and c not in two]
            hands = [cons.fixed[0], 1 | sum(1 << c for c in one), sum(1 << c for c in two)]
            if cons.is_consistent(hands, stock):
                consistent.append((hands[1], hands[2]))
    # Seat 1 takes two of 3..6; with 3 among them (3 ways) seat 2 takes two of the four left
    # (6 ways), else (3 ways) two of 1, 2 and the sixth (3 ways): 18 + 9.
    assert len(consistent) == 27
    rng = np.random.default_rng(0)
    sampler = DealSampler(cons)
    assert sampler.num_deals == pytest.approx(27 * 2)  # and two orders of the stock
    hands, stock = sampler.sample(rng, 27000)
    counts = {}
    for h, s in zip(hands, stock):
        assert cons.is_consistent(h, s)
        key = (int(h[1]), int(h[2]))
        counts[key] = counts.get(key, 0) + 1
    assert set(counts) == set(consistent)
    expected = 27000 / len(consistent)
    for key, count in counts.items():
        assert abs(count - expected) < 5 * np.sqrt(expected), (key, count, expected)
    # The stock order is shuffled too.
    assert len({tuple(s) for s in stock}) > len(consistent)


def test_sampler_with_a_single_consistent_deal_and_with_none():
    # Seat 1 cannot hold cards 2 and 3, seat 2 cannot hold 0 and 1: one deal only.
    cons = DealConstraints(
        num_players=3, unseen=0b1111, hand_sizes=(1, 2, 2), fixed=(1 << 20, 0, 0), forced=(0, 0, 0),
        cannot_hold=(0, 0b1100, 0b0011), face_down=0,
    )
    sampler = DealSampler(cons)
    assert sampler.num_deals == pytest.approx(1)
    hands, stock = sampler.sample(np.random.default_rng(1), 50)
    assert (hands[:, 1] == 0b0011).all() and (hands[:, 2] == 0b1100).all() and stock.shape == (50, 0)
    impossible = DealConstraints(
        num_players=3, unseen=0b1111, hand_sizes=(1, 2, 2), fixed=(1 << 20, 0, 0), forced=(0, 0, 0),
        cannot_hold=(0, 0b1110, 0b0011), face_down=0,
    )
    with pytest.raises(InconsistentInfoSet):
        DealSampler(impossible)
    wrong_sizes = DealConstraints(
        num_players=3, unseen=0b1111, hand_sizes=(1, 3, 2), fixed=(1 << 20, 0, 0), forced=(0, 0, 0),
        cannot_hold=(0, 0, 0), face_down=0,
    )
    with pytest.raises(InconsistentInfoSet):
        DealSampler(wrong_sizes)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_playout_policy_plays_legal_games(preset):
    game = Game(preset)
    state = game.random_state(np.random.default_rng(2), 500)
    play_out(game, state)  # step() raises on an illegal action
    assert state.done.all() and (state.winner >= 0).all()


def play_hands(game, seat_agents, state):
    """Play the lanes of ``state`` to the end at a table, ``seat_agents[seat]`` choosing for that
    seat (the table checks every action is legal)."""
    Seating(game, seat_agents, np.arange(game.rules.num_players)).advance(state)
    assert state.done.all()
    return state


RULE_VARIANTS = [(name, {}) for name in PRESET_NAMES] + [
    ("partnership", {"singers": "winner", "tute": "wins_hand"}),
    ("partnership", {"undertrump_when_overtrumped": True, "match": "target_points"}),
    ("two_player", {"exchange": "after_win", "stock_duty": "trump_led"}),
    ("two_player", {"tute": "off", "forty_before_twenty": False}),
    ("three_player", {"stock_duty": "free"}),
]


@pytest.mark.parametrize("preset,options", RULE_VARIANTS, ids=[f"{p}-{'-'.join(o) or 'default'}" for p, o in RULE_VARIANTS])
def test_never_illegal(preset, options):
    rules = make_rules(preset, **options)
    game = Game(rules)
    pimc = PIMCAgent(rules, seed=3, num_samples=8)
    other = RandomAgent(rules, seed=4)
    n = rules.num_players
    # PIMC at every seat, then PIMC against random players.
    play_hands(game, [pimc] * n, game.random_state(np.random.default_rng(7), 2))
    play_hands(game, [pimc] + [other] * (n - 1), game.random_state(np.random.default_rng(8), 2))


def test_deterministic_given_the_seed():
    rules = make_rules("two_player")
    game = Game(rules)

    def record(seed):
        state = game.random_state(np.random.default_rng(0), 1)
        agent = PIMCAgent(rules, seed=seed, num_samples=16, time_budget=None)
        actions = []
        while not state.done[0]:
            obs = encode_observation(rules, state, state.current)
            action = agent.act_batch(obs, game.legal_action_mask(state))
            actions.append(int(action[0]))
            game.step(state, action)
        return actions

    assert record(1) == record(1)
    # Batched rows are searched one by one with the same results as single calls.
    state = game.random_state(np.random.default_rng(4), 6)
    obs = encode_observation(rules, state, state.current)
    mask = game.legal_action_mask(state)
    batch = PIMCAgent(rules, seed=9, num_samples=16).act_batch(obs, mask)
    single = PIMCAgent(rules, seed=9, num_samples=16)
    assert [int(single.act_batch(obs[i : i + 1], mask[i : i + 1])[0]) for i in range(6)] == list(batch)


def test_from_spec_and_registry():
    rules = make_rules("partnership")
    agent = make_agent("pimc:128", rules, seed=2)
    assert isinstance(agent, PIMCAgent) and agent.num_samples == 128 and repr(agent) == "pimc:128"
    default = make_agent("pimc", rules)
    assert default.num_samples == PIMCAgent.DEFAULT_SAMPLES and default.time_budget == 1.0
    with pytest.raises(ValueError):
        make_agent("pimc:many", rules)
    with pytest.raises(ValueError):
        PIMCAgent(rules, num_samples=0)


def test_single_legal_action_needs_no_search(monkeypatch):
    rules = make_rules("partnership")
    game = Game(rules)
    agent = PIMCAgent(rules)
    monkeypatch.setattr(agent, "_search", lambda *a: pytest.fail("searched a forced move"))
    state = game.random_state(np.random.default_rng(0), 1)
    obs = encode_observation(rules, state, state.current)
    mask = np.zeros((1, NUM_ACTIONS), bool)
    mask[0, int(np.flatnonzero(game.legal_action_mask(state)[0])[0])] = True
    assert agent.act_batch(obs, mask)[0] == np.flatnonzero(mask[0])[0]


def test_time_budget_stops_adding_samples():
    rules = make_rules("partnership")
    game = Game(rules)
    state = game.random_state(np.random.default_rng(0), 1)
    obs = encode_observation(rules, state, state.current)
    mask = game.legal_action_mask(state)
    agent = PIMCAgent(rules, num_samples=100_000, time_budget=1e-6, chunk_lanes=64)
    action = agent.act_batch(obs, mask)[0]
    assert mask[0, action]
    assert 0 < agent.last_samples < 100_000 and agent.last_cut  # at least one batch, then it stops
    assert set(agent.last_values) == set(np.flatnonzero(mask[0]))


@pytest.mark.slow
def test_beats_random_in_two_player():
    """Duplicate deals: PIMC with few samples wins clearly more than 80% against random."""
    rules = make_rules("two_player")
    game = Game(rules)
    pimc = PIMCAgent(rules, seed=1, num_samples=8)
    rand = RandomAgent(rules, seed=2)
    deals = game.random_state(np.random.default_rng(123), 30)
    wins = []
    for pimc_seat in (0, 1):
        seats = [pimc, rand] if pimc_seat == 0 else [rand, pimc]
        done = play_hands(game, seats, deals.copy())
        wins.append(done.winner == pimc_seat)
    print(f"pimc:8 vs random, two_player, 60 hands: {np.mean(wins):.3f}")
    assert np.mean(wins) >= 0.8


def test_relative_hand_sizes_and_stock():
    """The constraints' sizes add up at a decision of the stock games (unseen = other hands + stock)."""
    for preset in ("two_player", "three_player", "corriente"):
        game = Game(preset)
        rng = np.random.default_rng(1)
        state = game.random_state(rng, 1)
        for _ in range(7):
            game.step(state, random_actions(game.legal_action_mask(state), rng))
        _, _, _, info = information_sets(game, state)
        cons = deal_constraints(info, 0)
        hidden = sum(cons.hand_sizes[1:]) - sum(popcount(f) for f in cons.fixed[1:]) + cons.face_down
        assert hidden == popcount(cons.unseen)


def test_known_deal_searched_once():
    """Two players, stock out: the opponent's hand is known, so one playout per action does."""
    rules = make_rules("two_player")
    game = Game(rules)
    rng = np.random.default_rng(3)
    state = game.random_state(rng, 1)
    agent = PIMCAgent(rules, num_samples=64)
    searched = 0
    while not state.done[0]:
        mask = game.legal_action_mask(state)
        obs = encode_observation(rules, state, state.current)
        action = agent.act_batch(obs, mask)
        if state.to_draw[0] == 0 and mask.sum() > 1:
            assert agent.last_samples == 1
            searched += 1
        game.step(state, action)
    assert searched > 0
