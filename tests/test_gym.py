"""The Gymnasium views: the single-agent env (check_env, masks, opponents, illegal actions) and
the vector env over the batched core (same-step autoreset), and the MaskablePPO example."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode

from agents import RandomAgent
from tute_env import tute_v0
from tute_env.engine.deal import random_deals
from tute_env.engine.observation import (
    encode_observation,
    observation_layout,
    observation_scale,
)
from tute_env.engine.rules import PRESETS
from tute_env.envs.gym_env import TuteEnv, TuteVectorEnv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRESET_NAMES = sorted(PRESETS)


def lowest_legal(observation, mask):
    return int(np.flatnonzero(mask)[0])


@pytest.fixture(autouse=True)
def fast_human_render(monkeypatch):
    monkeypatch.setitem(tute_v0.raw_env.metadata, "render_fps", 10_000)


# ----------------------------------------------------------------------------------------------
# Single-agent view
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_check_env(preset):
    env = gym.make("tute_env/Tute-v0", preset=preset)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # check_env's warnings count as failures here
        check_env(env.unwrapped)
    env.close()


def test_check_env_variants():
    for kwargs in (dict(control_partner=True, seat=1), dict(scaled=True), dict(episode="match", target_games=2),
                   dict(preset="three_player", seat=2, reward="points")):
        check_env(TuteEnv(**kwargs), skip_render_check=True)


def test_random_masked_play_gives_rewards_and_hand_results():
    env = TuteEnv("partnership", opponents="random")
    rng = np.random.default_rng(0)
    for episode in range(5):
        obs, info = env.reset(seed=episode)
        assert env.observation_space.contains(obs)
        done, steps = False, 0
        while not done:
            mask = env.action_masks()
            np.testing.assert_array_equal(mask, info["action_mask"])
            assert mask.dtype == bool and mask.any()
            obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            assert not truncated
            steps += 1
            if not done:
                assert reward == 0 and "points" not in info
        assert 10 <= steps <= 30  # ten cards, maybe cantes
        assert reward in (-2, -1, 1, 2)
        assert set(info) >= {"points", "winner", "games"}
        assert (reward > 0) == (info["winner"] == 0)
        assert not env.action_masks().any()
        with pytest.raises(ValueError, match="reset"):
            env.step(0)


def test_learner_acts_only_at_its_seats():
    for kwargs, seats in ((dict(seat=1), {1}), (dict(seat=3, control_partner=True), {1, 3})):
        env = TuteEnv("partnership", **kwargs)
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        done, acted = False, set()
        while not done:
            seat = int(env.core_state.current[0])
            acted.add(seat)
            obs = env._obs()
            np.testing.assert_array_equal(obs, encode_observation(env.rules, env.core_state, seat)[0])
            _, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        assert acted == seats


def test_opponent_specs():
    calls = []

    def first_legal(observation, mask):
        calls.append((observation.dtype, observation.shape, mask.dtype, mask.shape))
        return int(np.flatnonzero(mask)[0])

    rules = PRESETS["three_player"]
    for opponents in (first_legal, [None, "random", first_legal], {1: RandomAgent(rules, seed=1), 2: "random"}):
        env = TuteEnv("three_player", opponents=opponents)
        env.reset(seed=0)
        done = False
        while not done:
            _, _, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    size = observation_layout(rules).size
    assert calls and calls[0] == (np.int8, (size,), bool, (47,))
    with pytest.raises(ValueError, match="opponents"):
        TuteEnv("three_player", opponents={1: "random"})
    with pytest.raises(ValueError, match="opponents"):
        TuteEnv("three_player", opponents=[None, "random"])
    with pytest.raises(ValueError, match="opponent"):
        TuteEnv("three_player", opponents=42)
    with pytest.raises(ValueError, match="agents.make_agent"):
        TuteEnv("three_player", opponents="grandmaster")
    bad = TuteEnv("two_player", seat=1, opponents=lambda o, m: int(np.flatnonzero(m == 0)[0]))
    with pytest.raises(ValueError, match="illegal"):  # at reset, or when the opponent first acts
        bad.reset(seed=0)
        while True:
            bad.step(int(np.flatnonzero(bad.action_masks())[0]))


def test_illegal_learner_action_penalty_or_raise():
    env = TuteEnv("two_player")
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs2, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    np.testing.assert_array_equal(obs2, obs)
    with pytest.raises(ValueError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    _, reward, terminated, _, _ = env.step(99)  # outside the action space: the same penalty
    assert reward == -1 and terminated
    strict = TuteEnv("two_player", illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action"):
        strict.step(int(np.flatnonzero(~strict.action_masks())[0]))


def test_seeded_resets_replay_opponents_too():
    def run(env, seed):
        obs, _ = env.reset(seed=seed)
        out, done = [obs], False
        while not done:
            obs, reward, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[-1]))
            out.append(obs)
        return np.concatenate(out), reward

    env = TuteEnv("partnership", opponents="random")
    a, b, c = run(env, 5), run(env, 5), run(env, 6)
    np.testing.assert_array_equal(a[0], b[0])
    assert a[0].shape != c[0].shape or not np.array_equal(a[0], c[0])


def test_scaled_observations():
    env = TuteEnv("two_player", scaled=True)
    obs, _ = env.reset(seed=0)
    assert obs.dtype == np.float32 and 0 <= obs.min() and obs.max() <= 1
    raw = encode_observation(env.rules, env.core_state, 0)[0]
    np.testing.assert_allclose(obs, raw * observation_scale(env.rules))


def test_bad_arguments():
    for kwargs, name in ((dict(seat=4), "seat"), (dict(control_partner=True, preset="two_player"), "control_partner"),
                         (dict(illegal_action="ignore"), "illegal_action"), (dict(scaled=1), "scaled"),
                         (dict(preset="nope"), "preset"), (dict(foo=1), "foo"),
                         (dict(render_mode="x"), "render_mode"), (dict(lang="de"), "lang")):
        with pytest.raises(ValueError, match=name):
            TuteEnv(**kwargs)


def test_render_modes():
    env = TuteEnv("two_player", render_mode="ansi")
    env.reset(seed=0)
    assert "trump" in env.render()
    env = TuteEnv("two_player", render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().shape[2] == 3
    env.close()


def test_match_episode_in_the_single_view():
    env = TuteEnv("two_player", episode="match", target_games=2)
    env.reset(seed=1)
    done, hands, rewards = False, 0, []
    while not done:
        _, reward, done, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        rewards.append(reward)
        hands += "points" in info
    assert hands >= 2 and "match_winner" in info
    assert all(r == 0 for r in rewards[:-1]) and rewards[-1] in (-1, 1)


# ----------------------------------------------------------------------------------------------
# Vector env
# ----------------------------------------------------------------------------------------------
def test_vector_env_metadata_and_spaces():
    envs = gym.make_vec("tute_env/Tute-v0", num_envs=4, vectorization_mode="vector_entry_point", preset="two_player")
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert envs.num_envs == 4 and envs.action_space.shape == (4,)
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (4, envs.single_observation_space.shape[0]) and obs.dtype == np.int8
    assert envs.observation_space.contains(obs)
    assert infos["action_mask"].shape == (4, 47)
    envs.close()


@pytest.mark.parametrize("preset", ["partnership", "two_player", "three_player", "corriente"])
def test_vector_env_random_play(preset):
    envs = TuteVectorEnv(64, preset, opponents="random")
    obs, infos = envs.reset(seed=1)
    rng = np.random.default_rng(1)
    episodes, total = 0, 0.0
    for _ in range(120):
        masks = envs.action_masks()
        np.testing.assert_array_equal(masks, infos["action_mask"])
        assert masks.any(axis=1).all()  # every game waits for the learner
        assert (envs.state.current == envs.seat).all()
        actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        assert not truncated.any()
        assert (rewards[~terminated] == 0).all()
        if terminated.any():
            assert (infos["_final_obs"] == terminated).all()
            assert (infos["_points"] >= terminated).all()
            assert (rewards[terminated] != 0).all()
            winner = infos["winner"][terminated]
            assert ((rewards[terminated] > 0) == (winner == envs.rules.side_of(envs.seat))).all()
        episodes += int(terminated.sum())
        total += float(rewards.sum())
    assert episodes > 64
    assert abs(total / episodes) < 0.5  # random against random


def test_vector_env_matches_the_single_view():
    """Same deal, deterministic opponents and learner: the same observations and rewards."""
    rules = PRESETS["partnership"]
    deal = random_deals(rules, np.random.default_rng(3), 1, dealer=2)[0].to_dict()
    single = TuteEnv("partnership", opponents=lowest_legal)
    vec = TuteVectorEnv(3, "partnership", opponents=lowest_legal)
    obs, _ = single.reset(seed=0, options={"deal": deal})
    vobs, _ = vec.reset(seed=0, options={"deal": deal})
    for row in vobs:
        np.testing.assert_array_equal(row, obs)
    done = False
    while not done:
        action = int(np.flatnonzero(single.action_masks())[-1])
        obs, reward, done, _, info = single.step(action)
        vobs, vrewards, vterm, _, vinfos = vec.step(np.full(3, action))
        assert (vterm == done).all()
        np.testing.assert_allclose(vrewards, reward)
        if not done:
            for row in vobs:
                np.testing.assert_array_equal(row, obs)
        else:
            for row in vinfos["final_obs"]:
                np.testing.assert_array_equal(row, obs)
            assert (vinfos["points"] == info["points"]).all()


def test_vector_env_illegal_actions_and_control_partner():
    envs = TuteVectorEnv(8, "partnership", control_partner=True, seat=0)
    envs.reset(seed=0)
    masks = envs.action_masks()
    actions = np.argmax(masks, axis=1)
    actions[[1, 5]] = [int(np.flatnonzero(~masks[1])[0]), 99]
    _, rewards, terminated, _, infos = envs.step(actions)
    assert terminated.tolist() == [i in (1, 5) for i in range(8)]
    assert rewards[1] == rewards[5] == -1
    assert infos["_illegal_action"].tolist() == terminated.tolist()
    assert np.isin(envs.state.current, [0, 2]).all()
    strict = TuteVectorEnv(2, "two_player", illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="illegal"):
        strict.step(np.array([99, 99]))
    with pytest.raises(ValueError, match="num_envs"):
        TuteVectorEnv(0)


def test_vector_env_match_episodes_and_points():
    envs = TuteVectorEnv(16, "two_player", episode="match", reward="points", target_games=2)
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    ended_matches = 0
    for _ in range(200):
        masks = envs.action_masks()
        _, rewards, terminated, _, infos = envs.step(np.argmax(rng.random(masks.shape) * masks, axis=1))
        if "_points" in infos:
            hand_over = infos["_points"]
            assert (rewards[~hand_over] == 0).all() and (np.abs(rewards) <= 1).all()
            assert (terminated <= hand_over).all()
            if terminated.any():
                assert (infos["match_winner"][terminated] >= 0).all()
                assert (infos["match_games"][terminated].max(axis=1) >= 2).all()
        ended_matches += int(terminated.sum())
    assert ended_matches > 0


# ----------------------------------------------------------------------------------------------
# The MaskablePPO example (a real test: sb3-contrib is a test dependency)
# ----------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_maskable_ppo_example_smoke():
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        import maskable_ppo
    finally:
        sys.path.pop(0)
    result = maskable_ppo.main(["--preset", "two_player", "--timesteps", "256", "--n-steps", "128",
                                "--eval-episodes", "3"])
    assert result["trained"]["episodes"] == 3
    assert -1 <= result["trained"]["mean_reward"] <= 1


@pytest.mark.slow
@pytest.mark.parametrize("argv, message", [(["--timesteps", "0"], "--timesteps must be at least 1"),
                                           (["--opponents", "grandmaster"], "unknown agent 'grandmaster'"),
                                           (["--preset", "nope"], "unknown preset 'nope'")])
def test_maskable_ppo_example_bad_arguments(argv, message):
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "maskable_ppo.py"), *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
