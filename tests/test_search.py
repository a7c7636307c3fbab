"""The search agent: legal on every preset with a shipped network (and rule-option mixes played
with that network), a clear error elsewhere, information-set only (resampled hidden cards
change neither its input nor its search nor its choice), deterministic for a seed whatever the
batching, and its spec parsing."""

from __future__ import annotations

import numpy as np
import pytest

import agents.search as search_module
from agents import make_agent
from agents.base import shipped_presets
from agents.pimc import row_sampler
from agents.search import SearchAgent
from tute_env.engine.core import Game
from tute_env.engine.core import random_legal_actions as random_actions
from tute_env.engine.observation import encode_observation
from tute_env.engine.rules import PRESETS, make_rules
from tute_env.play.seating import Seating
from tute_env.search.infoset import build_states, decode_infoset

SHIPPED = shipped_presets()


def small(rules, seed=0, net=None, **kw):
    """A cheap search agent for tests: few samples, short playouts."""
    return SearchAgent(rules, seed=seed, num_samples=kw.pop("num_samples", 3), depth=kw.pop("depth", 4), net=net, **kw)


def decisions(rules, count, seed):
    """(obs, mask, state) of ``count`` decisions with several legal actions, from random play."""
    game = Game(rules)
    rng = np.random.default_rng(seed)
    state = game.random_state(rng, count)
    for _ in range(int(rng.integers(0, 12))):
        mask = game.legal_action_mask(state)
        game.step(state, random_actions(mask, rng), active=~state.done)
    keep = ~state.done & (game.legal_action_mask(state).sum(axis=1) > 1)
    state = state.take(keep)
    return encode_observation(rules, state, state.current), game.legal_action_mask(state), state


def test_shipped_presets_have_networks():
    assert {"partnership", "two_player"} <= set(SHIPPED)


@pytest.mark.parametrize("preset", SHIPPED)
def test_legal_on_shipped_presets(preset):
    """Whole hands at a table (the table rejects illegal actions), against the heuristic."""
    rules = PRESETS[preset]
    game = Game(rules)
    bots = [small(rules, seed=1), make_agent("heuristic", rules)]
    seats = np.arange(rules.num_players) % 2
    state = game.random_state(np.random.default_rng(4), 3)
    Seating(game, bots, seats).advance(state)
    assert state.done.all()


def test_three_players_each_for_himself_value_leaves_from_the_observers_turn(monkeypatch):
    """With three sides a seat's critic value is not the observer's: the playouts go on until seat 0
    is to act (or the hand ends) before the critic reads a leaf; the search then plays whole hands."""
    import torch

    from agents.ppo import PolicyNet

    rules = PRESETS["three_player"]
    torch.manual_seed(0)
    net = PolicyNet(rules, (32, 32), central_critic=True)
    leaves = []
    original = SearchAgent._leaf_values
    monkeypatch.setattr(SearchAgent, "_leaf_values", lambda self, s: leaves.append(s.copy()) or original(self, s))
    game = Game(rules)
    state = game.random_state(np.random.default_rng(6), 2)
    bots = [small(rules, seed=3, net=net, depth=1), make_agent("heuristic", rules), make_agent("greedy", rules)]
    Seating(game, bots, np.arange(3)).advance(state)
    assert state.done.all() and leaves
    unfinished = [(s.current[~s.done] == 0).all() for s in leaves if (~s.done).any()]
    assert unfinished and all(unfinished)


@pytest.mark.parametrize(
    "preset,options",
    [
        ("partnership", {"must_beat_partner": False, "singers": "winner"}),
        ("partnership", {"undertrump_when_overtrumped": True, "tute": "wins_hand"}),
        ("two_player", {"stock_duty": "strict", "exchange": "seven_on_lead"}),
        ("two_player", {"exchange": "off", "forty_before_twenty": False}),
    ],
)
def test_legal_with_rule_options(preset, options):
    """Other option mixes have no shipped network, but the search plays them legally with the
    network of the preset (the observation has the same layout): every action at a table."""
    rules = make_rules(preset, **options)
    assert rules != PRESETS[preset]
    net = SearchAgent(PRESETS[preset]).net
    game = Game(rules)
    agent = small(rules, seed=2, net=net)
    state = game.random_state(np.random.default_rng(5), 4)
    Seating(game, [agent], np.zeros(rules.num_players, int)).advance(state)
    assert state.done.all()


def test_clear_error_without_a_shipped_network():
    for preset in sorted(set(PRESETS) - set(SHIPPED)):
        with pytest.raises(ValueError, match="shipped") as err:
            make_agent("search", PRESETS[preset])
        assert all(p in str(err.value) for p in SHIPPED)
    with pytest.raises(ValueError, match="shipped"):
        make_agent("search", make_rules("partnership", singers="winner"))


@pytest.mark.parametrize("preset", SHIPPED)
def test_sees_only_its_information_set(preset, monkeypatch):
    """For a fixed information set, other hidden cards (deals resampled consistently with it,
    the observer at seat 0): the same observation and mask, the same sampled deals searched,
    and the same action, for every resampling."""
    rules = PRESETS[preset]
    game = Game(rules)
    obs, mask, _ = decisions(rules, 6, seed=9)
    info = decode_infoset(rules, obs, mask)
    searched = []
    real = search_module.candidate_lanes
    monkeypatch.setattr(search_module, "candidate_lanes",
                        lambda g, i, row, legal, hands, stock: searched.append((hands.copy(), stock.copy()))
                        or real(g, i, row, legal, hands, stock))
    rng = np.random.default_rng(3)
    compared = 0
    for lane in range(len(obs)):
        worlds = build_states(game, info, lane, *row_sampler(info, lane).sample(rng, 4))
        choices, inputs = set(), []
        for k in range(worlds.batch_size):
            world = worlds.take([k])
            w_obs, w_mask = encode_observation(rules, world, [0]), game.legal_action_mask(world)
            assert (w_obs == obs[lane]).all() and (w_mask == mask[lane]).all()
            searched.clear()
            choices.add(int(small(rules, seed=7).act_batch(w_obs, w_mask, keys=np.array([lane], np.uint64))[0]))
            inputs.append(searched[:])
        assert len(choices) == 1
        for other in inputs[1:]:
            assert len(other) == len(inputs[0]) and all((a == b).all() for x, y in zip(other, inputs[0]) for a, b in zip(x, y))
        hidden_differ = len({tuple(worlds.hands[k, 1:]) for k in range(worlds.batch_size)}) > 1
        compared += hidden_differ
    assert compared >= 3  # the resampled worlds really differed in hidden cards


@pytest.mark.parametrize("preset", SHIPPED)
def test_deterministic_for_a_seed_and_batching(preset):
    """Same seed and keys: the same actions twice, row by row or in one batch, with few or
    many lanes per playout batch; unkeyed: the same actions for the same seed."""
    rules = PRESETS[preset]
    obs, mask, _ = decisions(rules, 8, seed=2)
    keys = np.arange(100, 100 + len(obs), dtype=np.uint64)
    together = small(rules, seed=5).act_batch(obs, mask, keys=keys)
    again = small(rules, seed=5, max_lanes=1).act_batch(obs, mask, keys=keys)
    one_by_one = [small(rules, seed=5).act_batch(obs[i : i + 1], mask[i : i + 1], keys=keys[i : i + 1])[0]
                  for i in range(len(obs))]
    assert mask[np.arange(len(obs)), together].all()
    assert (together == again).all() and (together == np.array(one_by_one)).all()
    assert (small(rules, seed=5).act_batch(obs, mask) == small(rules, seed=5).act_batch(obs, mask)).all()


def test_searches_every_candidate_and_prunes_with_top_k():
    rules = PRESETS["two_player"]
    obs, mask, _ = decisions(rules, 4, seed=1)
    for leaf in ("critic", "rules"):
        agent = small(rules, depth=2, leaf=leaf)
        agent.act_batch(obs[-1:], mask[-1:])
        assert set(agent.last_values) == set(np.flatnonzero(mask[-1]))
        # Values are rewards of the observer: a win or loss of at most 3 games, plus points.
        assert all(abs(v) <= 3.5 for v in agent.last_values.values())
    pruned = small(rules, depth=2, top_k=2)
    action = pruned.act_batch(obs[-1:], mask[-1:])[0]
    assert len(pruned.last_values) == 2 and action in pruned.last_values
    ppo = make_agent("ppo", rules).act_batch(obs[-1:], mask[-1:])[0]
    assert ppo in pruned.last_values  # the network's choice is always among the top 2
    assert small(rules, top_k=1).act_batch(obs, mask).tolist() == make_agent("ppo", rules).act_batch(obs, mask).tolist()


def test_spec_parsing():
    rules = PRESETS["two_player"]
    agent = make_agent("search:24", rules, seed=3)
    assert isinstance(agent, SearchAgent) and agent.num_samples == 24 and agent.name == "search:24"
    assert make_agent("search", rules).num_samples == SearchAgent.DEFAULT_SAMPLES
    assert "search" in __import__("agents").agent_names()
    for bad in ("search:many", "search:0", "search:-2", "search:1.5"):
        with pytest.raises(ValueError):
            make_agent(bad, rules)
    with pytest.raises(ValueError):
        SearchAgent(rules, depth=-1)
    with pytest.raises(ValueError):
        SearchAgent(rules, top_k=0)
    with pytest.raises(ValueError, match="bad leaf"):
        SearchAgent(rules, leaf="oracle")


@pytest.mark.slow
def test_search_then_dds_solves_the_two_player_endgame_and_searches_before():
    """search+dds: once the stock is gone (every card known) each move is worth the solver's best
    value on the true state; while the stock lasts it plays exactly as search does."""
    from agents.search import SearchDDSAgent
    from tute_env.search.solver import Solver

    rules = PRESETS["two_player"]
    agent = make_agent("search+dds:3", rules, seed=5)
    assert isinstance(agent, SearchDDSAgent) and agent.name == "search+dds:3" and agent.num_samples == 3
    plain = SearchAgent(rules, seed=5, num_samples=3)  # keyed draws: its choices do not depend on earlier calls
    solver = Solver(rules, point_weight=agent.endgame.point_weight)
    game = Game(rules)
    rng = np.random.default_rng(4)
    state = game.random_state(rng, 6)
    late_checked = early_checked = 0
    while not state.done.all():
        mask = game.legal_action_mask(state)
        rows = np.flatnonzero(~state.done & (mask.sum(axis=1) > 1))
        if len(rows):
            part = state.take(rows)
            obs = encode_observation(rules, part, part.current)
            keys = np.arange(len(rows), dtype=np.uint64) + 7
            info = decode_infoset(rules, obs, mask[rows])
            for k in range(len(rows)):
                one = part.take(np.array([k]))
                action = agent.act_batch(obs[k : k + 1], mask[rows][k : k + 1], keys=keys[k : k + 1])[0]
                if agent.endgame.is_late(info, k):
                    values = solver.action_values(one)[0]
                    assert values[action] == pytest.approx(np.nanmax(values), abs=1e-9)
                    late_checked += 1
                else:
                    assert action == plain.act_batch(obs[k : k + 1], mask[rows][k : k + 1], keys=keys[k : k + 1])[0]
                    early_checked += 1
        game.step(state, random_actions(mask, rng), active=~state.done)
    assert late_checked >= 12 and early_checked >= 12
