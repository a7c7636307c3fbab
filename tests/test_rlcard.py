"""Tute as an RLCard environment (tute_env.envs.rlcard_env): the differential check against the core and
tute_v0, seeding, the RLCard API (state dicts, step_back, config), RLCard's own agents on it (random,
tournament, DQN, NFSP, DMC) and RLCard agents as project agents (agents.rlcard_agent)."""

from __future__ import annotations

import json
import multiprocessing
import re
import sys
from pathlib import Path

import numpy as np
import pytest
import rlcard
from rlcard.agents import RandomAgent
from rlcard.envs import Env
from rlcard.utils import reorganize, tournament

from agents.rlcard_agent import RLCardAgent, load_dmc_agent
from tute_env.engine.cards import NUM_ACTIONS, action_str
from tute_env.engine.core import Game
from tute_env.engine.observation import encode_observation, observation_layout
from tute_env.engine.rules import PRESETS, make_rules
from tute_env.engine.scoring import win_rewards
from tute_env.envs import tute_v0
from tute_env.envs.rlcard_env import TuteRLCardEnv  # registers "tute"
from tute_lab.evaluation import evaluate_pairing

ROOT = Path(__file__).resolve().parent.parent


def make(preset="two_player", **config):
    return rlcard.make("tute", config={"preset": preset, **config})


def differential(preset: str, seed: int, games: int, reward: str = "win") -> int:
    """Random games on the RLCard env, the core and tute_v0 from the same deals and actions: at every
    step the player, legal actions and observation agree; at the end the payoffs are tute_v0's rewards
    (and, for "win", the core's result through scoring). Half the actions go in as raw strings.
    Returns the number of steps checked."""
    env = make(preset, seed=seed, reward=reward)
    rules = env.rules
    core = Game(rules)
    pz = tute_v0.raw_env(preset=preset, reward=reward)
    rng = np.random.default_rng(seed)
    steps = 0
    for _ in range(games):
        state, player = env.reset()
        s = core.new_state([env.game.deal])
        pz.reset(options={"deal": env.game.deal})
        while not env.is_over():
            legal = np.flatnonzero(core.legal_action_mask(s)[0]).tolist()
            observed = pz.observe(pz.agent_selection)
            assert player == env.get_player_id() == int(s.current[0]) == pz.possible_agents.index(pz.agent_selection)
            assert list(state["legal_actions"]) == legal == np.flatnonzero(observed["action_mask"]).tolist()
            assert all(v is None for v in state["legal_actions"].values())
            assert state["raw_legal_actions"] == [action_str(a) for a in legal] == state["raw_obs"]["legal_actions"]
            np.testing.assert_array_equal(state["obs"], observed["observation"])
            assert not env.get_state((player + 1) % rules.num_players)["legal_actions"]  # only the actor has any
            action, actor = int(rng.choice(legal)), player
            raw = steps % 2 == 1
            state, player = env.step(action_str(action) if raw else action, raw_action=raw)
            core.step(s, np.array([action]))
            pz.step(action)
            steps += 1
        assert s.done[0] and pz.terminations[pz.agent_selection]
        assert env.action_recorder[-1] == (actor, action_str(action)) and state["action_record"] is env.action_recorder
        payoffs = env.get_payoffs()
        assert isinstance(payoffs, np.ndarray) and payoffs.shape == (rules.num_players,)
        np.testing.assert_allclose(payoffs, [pz.rewards[a] for a in pz.possible_agents])
        if reward == "win":
            np.testing.assert_allclose(payoffs, win_rewards(rules, s.winner, s.games)[0])
        assert payoffs.sum() == pytest.approx(0.0)
        assert not state["legal_actions"] and not state["raw_legal_actions"]
    return steps


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_legal_actions_observations_and_payoffs_match_the_core_and_tute_v0(preset):
    assert differential(preset, seed=1, games=8) > 8 * 10


@pytest.mark.parametrize("preset", ["partnership", "three_player"])
def test_points_payoffs_match_tute_v0(preset):
    differential(preset, seed=2, games=5, reward="points")


@pytest.mark.slow
def test_a_thousand_random_games_match_the_core_and_tute_v0():
    presets = sorted(PRESETS)
    games = -(-1000 // len(presets))
    steps = sum(differential(preset, seed=100 + k, games=games) for k, preset in enumerate(presets))
    assert games * len(presets) >= 1000 and steps > 1000 * 10


def test_registered_env_has_rlcards_shapes():
    for preset, rules in PRESETS.items():
        env = make(preset)
        assert isinstance(env, TuteRLCardEnv) and isinstance(env, Env) and env.name == "tute"
        n = rules.num_players
        assert env.num_players == n and env.num_actions == NUM_ACTIONS == 47
        assert env.state_shape == [[observation_layout(rules).size]] * n and env.action_shape == [None] * n
        state, player = env.reset()
        assert state["obs"].shape == tuple(env.state_shape[player]) and state["obs"].dtype == np.int8
        assert set(state) == {"obs", "legal_actions", "raw_obs", "raw_legal_actions", "action_record"}
        assert state["raw_obs"]["player"] == player and len(state["raw_obs"]["hand"]) == rules.hand_size


def test_config_names_rule_options_as_the_rules_do():
    env = make("two_player", stock_duty="strict", tute="off")
    assert env.rules == make_rules("two_player", stock_duty="strict", tute="off") == env.game.core.rules
    assert make().rules == PRESETS["two_player"] and rlcard.make("tute").rules == PRESETS["partnership"]
    for config, message in [({"preset": "nope"}, "bad argument preset='nope'"),
                            ({"tute": "maybe"}, "bad rules option tute='maybe'"),
                            ({"game_num_players": 2}, "unknown rules option(s) ['game_num_players']"),
                            ({"reward": "money"}, "bad argument reward='money'")]:
        with pytest.raises(ValueError, match=re.escape(message)):
            rlcard.make("tute", config=config)


def test_same_seed_same_games_and_env_seed_restarts_them():
    def games(env, count=4):
        rng = np.random.default_rng(0)
        out = []
        for _ in range(count):
            state, _ = env.reset()
            actions = []
            while not env.is_over():
                actions.append(int(rng.choice(list(state["legal_actions"]))))
                state, _ = env.step(actions[-1])
            out.append((env.game.deal, actions, env.get_payoffs().tolist()))
        return out

    first = games(make(seed=3))
    assert first == games(make(seed=3))
    assert [g[0] for g in first] != [g[0] for g in games(make(seed=4))]
    env = make(seed=5)
    games(env)
    env.seed(3)  # as DMC's actors do
    assert games(env) == first


def test_step_back_restores_the_state_when_allowed():
    env = make("two_player", seed=0, allow_step_back=True)
    state, player = env.reset()
    assert env.step_back() is False  # nothing to undo at the start
    states = [(state, player)]
    while not env.is_over():
        state, player = env.step(next(iter(state["legal_actions"])))
        states.append((state, player))
    np.testing.assert_array_equal(env.get_payoffs() != 0, True)
    for before, who in reversed(states[:-1]):
        back, back_player = env.step_back()
        assert back_player == who and list(back["legal_actions"]) == list(before["legal_actions"])
        np.testing.assert_array_equal(back["obs"], before["obs"])
        assert not env.is_over() and not env.get_payoffs().any()
    assert env.step_back() is False
    off = make("two_player", seed=0)
    off.reset()
    off.step(next(iter(off.reset()[0]["legal_actions"])))
    with pytest.raises(Exception, match="Step back is off"):
        off.step_back()


def test_illegal_and_malformed_actions_raise():
    env = make("two_player", seed=0)
    state, _ = env.reset()
    illegal = next(a for a in range(NUM_ACTIONS) if a not in state["legal_actions"])
    with pytest.raises(ValueError, match="illegal action"):
        env.step(illegal)
    with pytest.raises(ValueError, match="bad action id 47"):
        env.step(47)
    with pytest.raises(ValueError, match="bad action 'nope'"):
        env.step("nope", raw_action=True)
    assert env.action_recorder == [] and env.timestep == 0  # the failed steps left no trace
    env.step(next(iter(state["legal_actions"])))
    assert len(env.action_recorder) == 1 and env.timestep == 1


def test_perfect_information_holds_every_hand():
    env = make("three_player", seed=0)
    env.reset()
    info = env.get_perfect_information()
    deal = env.game.deal
    assert info["deal"] == deal.to_dict() and len(info["hands"]) == 3
    assert sorted(info["hands"][0]) == sorted(deal.to_dict()["hands"][0])
    assert info["stock"] == deal.to_dict()["stock"] and info["legal_actions"] == env.game.get_legal_actions()


def test_random_agents_and_tournament():
    env = make("three_player", seed=0)
    env.set_agents([RandomAgent(env.num_actions) for _ in range(env.num_players)])
    np.random.seed(0)  # RLCard's RandomAgent draws from numpy's global generator
    trajectories, payoffs = env.run(is_training=False)
    assert len(trajectories) == 3 and payoffs.sum() == pytest.approx(0)
    for player, trajectory in enumerate(trajectories):
        for state, action in zip(trajectory[:-1:2], trajectory[1::2]):
            assert action in state["legal_actions"] and state["raw_obs"]["player"] == player
    averages = tournament(env, 30)
    assert len(averages) == 3 and sum(averages) == pytest.approx(0) and all(-2 <= x <= 2 for x in averages)


def test_rlcard_agent_plays_as_a_project_agent():
    rules = PRESETS["two_player"]
    wrapped = RLCardAgent(rules, agent=RandomAgent(NUM_ACTIONS))
    game = Game(rules)
    state = game.random_state(0, 16)
    masks = game.legal_action_mask(state)
    actions = wrapped.act_batch(encode_observation(rules, state, state.current), masks)
    assert masks[np.arange(16), actions].all()
    result = evaluate_pairing(rules, wrapped, "random", num_deals=10)  # the core raises on an illegal action
    assert result.hands == 20 and 0 <= result.win_rate <= 1
    with pytest.raises(ValueError, match="needs an RLCard agent"):
        RLCardAgent(rules)


def test_rlcard_agent_spec_errors(tmp_path):
    rules = PRESETS["two_player"]
    with pytest.raises(ValueError, match="no DMC checkpoint"):
        RLCardAgent.from_spec(str(tmp_path / "model.tar"), rules)
    (tmp_path / "junk.tar").write_text("not torch")
    with pytest.raises(ValueError, match="not a DMCTrainer checkpoint"):
        RLCardAgent.from_spec(str(tmp_path / "junk.tar"), rules)
    with pytest.raises(ValueError, match="PATH@POSITION"):
        RLCardAgent.from_spec(str(tmp_path / "junk.tar@x"), rules)


def test_the_docs_snippet_runs():
    text = (ROOT / "docs" / "rlcard.md").read_text()
    snippet = re.search(r"```python\n(.*?)```", text, re.DOTALL).group(1)
    scope = {}
    exec(compile(snippet, "docs/rlcard.md", "exec"), scope)
    assert len(scope["payoffs"]) == 2 and sum(scope["payoffs"]) == pytest.approx(0)


@pytest.fixture(scope="module")
def rlcard_dmc():
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import rlcard_dmc
    finally:
        sys.path.pop(0)
    return rlcard_dmc


@pytest.mark.parametrize("argv, message", [(["--deals", "0"], "--deals must be at least 1"),
                                           (["--preset", "nope"], "unknown preset 'nope'"),
                                           (["--opponents", "nobody"], "unknown agent 'nobody'"),
                                           (["--model", "no/such/model.tar"], "no DMC checkpoint")])
def test_example_bad_arguments(rlcard_dmc, capsys, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        rlcard_dmc.main(argv)
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------
# RLCard's learning agents (torch): slow
# ------------------------------------------------------------------------------------------------
@pytest.fixture
def one_torch_thread():
    """Small networks: one thread is fastest, and a busy machine's cores are not oversubscribed."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.slow
def test_dqn_trains_and_plays_legal_actions(one_torch_thread):
    import torch
    from rlcard.agents import DQNAgent

    torch.manual_seed(0)
    np.random.seed(0)
    env = make("two_player", seed=0)
    agent = DQNAgent(num_actions=env.num_actions, state_shape=env.state_shape[0], mlp_layers=[64, 64],
                     replay_memory_init_size=100, update_target_estimator_every=100, batch_size=32,
                     epsilon_decay_steps=300, device=torch.device("cpu"))
    before = [p.detach().clone() for p in agent.q_estimator.qnet.parameters()]
    env.set_agents([agent, RandomAgent(env.num_actions)])
    while agent.total_t < 400:
        trajectories, payoffs = env.run(is_training=True)
        for transition in reorganize(trajectories, payoffs)[0]:
            agent.feed(transition)
    assert agent.train_t > 200
    assert any(not torch.equal(a, b) for a, b in zip(before, agent.q_estimator.qnet.parameters()))
    for _ in range(3):  # greedy play: every action legal
        trajectories, _ = env.run(is_training=False)
        for state, action in zip(trajectories[0][:-1:2], trajectories[0][1::2]):
            assert action in state["legal_actions"]
    assert len(tournament(env, 5)) == 2


@pytest.mark.slow
def test_nfsp_runs_a_few_episodes(one_torch_thread):
    import torch
    from rlcard.agents import NFSPAgent

    torch.manual_seed(0)
    np.random.seed(0)
    env = make("three_player", seed=0)
    agents = [NFSPAgent(num_actions=env.num_actions, state_shape=env.state_shape[p], hidden_layers_sizes=[32],
                        q_mlp_layers=[32], min_buffer_size_to_learn=16, batch_size=16, q_replay_memory_init_size=16,
                        q_batch_size=16, anticipatory_param=0.5, device=torch.device("cpu"))
              for p in range(env.num_players)]
    env.set_agents(agents)
    for _ in range(6):
        for agent in agents:
            agent.sample_episode_policy()
        trajectories, payoffs = env.run(is_training=True)
        for agent, transitions in zip(agents, reorganize(trajectories, payoffs)):
            for transition in transitions:
                agent.feed(transition)
    assert all(agent.total_t > 30 for agent in agents)
    assert any(agent._rl_agent.train_t > 0 for agent in agents)
    assert len(tournament(env, 3)) == 3


@pytest.mark.slow
def test_dmc_trains_briefly_and_its_model_plays_as_a_project_agent(rlcard_dmc, tmp_path, one_torch_thread):
    model = rlcard_dmc.train("two_player", tmp_path, frames=64, num_actors=1, batch_size=2, unroll_length=16,
                             num_buffers=4)
    assert model == tmp_path / "tute" / "model.tar" and model.is_file()
    assert not multiprocessing.active_children()  # the actors were ended
    assert "env" not in json.loads((tmp_path / "tute" / "meta.json").read_text())
    import torch

    assert torch.load(model, weights_only=True)["frames"] >= 64
    rules = PRESETS["two_player"]
    agent = load_dmc_agent(model, rules, position=1)
    assert agent.exp_epsilon == 0
    results = rlcard_dmc.evaluate("two_player", model, ["random"], num_deals=5)
    assert results["random"].hands == 10
    with pytest.raises(ValueError, match="trained for other rules"):
        load_dmc_agent(model, PRESETS["partnership"])
    with pytest.raises(ValueError, match="positions 0..1, not 2"):
        load_dmc_agent(model, rules, position=2)
