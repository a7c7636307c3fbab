"""The dds agent: PIMC over exact double-dummy solutions late in the hand, pimc before."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.dds import DDSAgent
from tute_env.engine.cards import DECLARE
from tute_env.engine.core import Game, random_legal_actions
from tute_env.engine.observation import encode_observation
from tute_env.engine.rules import make_rules
from tute_env.search.solver import Solver


def positions(preset: str, count: int, tricks_played: int, seed: int):
    """One-lane states of random play after ``tricks_played`` tricks, at a card decision."""
    game = Game(preset)
    rng = np.random.default_rng(seed)
    s = game.random_state(rng, count)
    while True:
        todo = ~s.done & ((s.tricks_played < tricks_played) | (s.decision == DECLARE))
        if not todo.any():
            break
        game.step(s, random_legal_actions(game.legal_action_mask(s), rng), active=todo)
    return [s.take(np.array([lane])) for lane in np.flatnonzero(~s.done)]


def observe(rules, state):
    seat = state.current.astype(np.intp)
    return encode_observation(rules, state, seat), Game(rules).legal_action_mask(state)


def test_spec_and_name():
    rules = make_rules("two_player")
    assert make_agent("dds:4", rules).name == "dds:4" and isinstance(make_agent("dds", rules), DDSAgent)
    with pytest.raises(ValueError, match="dds:128"):
        make_agent("dds:many", rules)


def test_with_every_card_known_it_plays_a_double_dummy_best_move():
    """two_player once the stock is gone: the opponent's hand is known, the sampler gives the true
    deal, and dds's move is worth the best value the solver finds on the true state."""
    rules = make_rules("two_player")
    agent = DDSAgent(rules, num_samples=4, time_budget=None)
    solver = Solver(rules, point_weight=agent.point_weight)
    checked = 0
    for state in positions("two_player", 12, 13, seed=7):
        obs, mask = observe(rules, state)
        if mask[0].sum() < 2:
            continue
        action = int(agent.act_batch(obs, mask)[0])
        assert agent.last_exact and agent.last_samples == 1
        values = solver.action_values(state)[0]
        assert values[action] == pytest.approx(np.nanmax(values), abs=1e-9)
        checked += 1
    assert checked >= 5


def test_early_decisions_are_pimcs_and_a_late_one_is_solved():
    rules = make_rules("partnership")
    agent = DDSAgent(rules, num_samples=3, pimc_samples=16, time_budget=None)  # a cold cache compiles first
    early = positions("partnership", 1, 0, seed=3)[0]
    obs, mask = observe(rules, early)
    assert mask[0, agent.act_batch(obs, mask)[0]] and not agent.last_exact
    late = next(s for s in positions("partnership", 6, 4, seed=3) if observe(rules, s)[1][0].sum() > 1)
    obs, mask = observe(rules, late)
    assert mask[0, agent.act_batch(obs, mask)[0]] and agent.last_exact and agent.last_samples == 3


def test_keyed_draws_make_it_deterministic():
    rules = make_rules("partnership")
    states = positions("partnership", 6, 4, seed=11)
    obs = np.concatenate([observe(rules, s)[0] for s in states])
    mask = np.concatenate([observe(rules, s)[1] for s in states])
    keys = np.arange(len(states), dtype=np.uint64) * 7919
    first = DDSAgent(rules, seed=5, num_samples=3).act_batch(obs, mask, keys=keys)
    again = DDSAgent(rules, seed=5, num_samples=3).act_batch(obs, mask, keys=keys)
    np.testing.assert_array_equal(first, again)
    assert mask[np.arange(len(states)), first].all()


def test_a_budget_too_small_hands_the_decision_to_pimc():
    rules = make_rules("partnership")
    agent = DDSAgent(rules, num_samples=3, time_budget=1e-9, pimc_samples=8)
    late = next(s for s in positions("partnership", 6, 4, seed=3) if observe(rules, s)[1][0].sum() > 1)
    obs, mask = observe(rules, late)
    assert mask[0, agent.act_batch(obs, mask)[0]] and not agent.last_exact


def test_a_solve_past_its_share_of_the_budget_hands_pimc_the_time_left():
    rules = make_rules("partnership")
    late = next(s for s in positions("partnership", 6, 4, seed=3) if observe(rules, s)[1][0].sum() > 1)
    obs, mask = observe(rules, late)
    DDSAgent(rules, num_samples=1, time_budget=None).act_batch(obs, mask)  # compiled before the clock runs
    agent = DDSAgent(rules, num_samples=64, pimc_samples=4096, time_budget=1e-6, solve_share=0.5)
    assert agent.solve_budget == pytest.approx(5e-7)
    assert mask[0, agent.act_batch(obs, mask)[0]]
    assert not agent.last_exact and agent.last_cut  # pimc played it, cut after one batch of samples
    assert 0 < agent.last_samples < 4096 and agent.time_budget == 1e-6  # its own budget restored
    with pytest.raises(ValueError, match="solve_share"):
        DDSAgent(rules, solve_share=0.0)
