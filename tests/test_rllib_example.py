"""examples/rllib_ppo.py: RLlib's PPO on tute_v0 through RLlib's PettingZooEnv (skipped without ray[rllib])."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytest.importorskip("ray.rllib")
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]  # starts Ray: one Ray test file at a time under xdist


@pytest.fixture(scope="module")
def rllib_ppo():
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        import rllib_ppo
    finally:
        sys.path.pop(0)
    return rllib_ppo


def test_env_wrapper_is_rllib_multi_agent(rllib_ppo):
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    env = rllib_ppo.TuteRLlibEnv({"preset": "two_player"})
    assert isinstance(env, MultiAgentEnv)
    obs, _ = env.reset(seed=3)
    (agent, o), = obs.items()
    assert env.observation_spaces[agent].contains(o)
    assert set(o) == {"observations", "action_mask"} and o["observations"].shape == (516,)
    rewards = {}
    while True:  # play legal moves to the end of the hand, through RLlib's wrapper
        agent = next(iter(obs))
        obs, rew, term, _, infos = env.step({agent: int(np.flatnonzero(obs[agent]["action_mask"])[0])})
        for a, r in rew.items():
            rewards[a] = rewards.get(a, 0) + r
        if term["__all__"]:
            break
    assert sum(rewards.values()) == 0 and all("winner" in info for info in infos.values())


def test_an_illegal_action_ends_the_hand_without_a_result(rllib_ppo):
    """What the example's illegal_endings and zero-sum return checks look for."""
    env = rllib_ppo.TuteRLlibEnv({"preset": "two_player"})
    obs, _ = env.reset(seed=3)
    (agent, o), = obs.items()
    _, rew, term, _, infos = env.step({agent: int(np.flatnonzero(o["action_mask"] == 0)[0])})
    assert term["__all__"] and sum(rew.values()) == -1
    assert not any("winner" in info for info in infos.values())


def test_rllib_ppo_trains_two_iterations_without_illegal_actions(rllib_ppo):
    result = rllib_ppo.main(["--iterations", "2", "--num-env-runners", "0", "--envs-per-runner", "4",
                             "--batch-size", "512", "--epochs", "2"])
    history = result["history"]
    assert [row["iteration"] for row in history] == [1, 2]
    assert result["env_steps"] >= 1024 and history[-1]["episodes"] > 0
    for row in history:
        assert math.isfinite(row["policy_loss"]) and math.isfinite(row["vf_loss"])
        # Masking held: no hand ended by tute_v0's illegal-action rule, and the zero-sum returns add up to 0.
        assert row["illegal_endings"] == 0
        assert row["episode_return"] == pytest.approx(0.0, abs=1e-6)
        assert 20 <= row["episode_len"] <= 60


@pytest.mark.parametrize("argv, message", [(["--iterations", "0"], "--iterations must be at least 1"),
                                           (["--num-env-runners", "-1"], "--num-env-runners must be at least 0"),
                                           (["--preset", "nope"], "unknown preset 'nope'")])
def test_rllib_ppo_bad_arguments(argv, message):
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "rllib_ppo.py"), *argv], cwd=ROOT,
                          capture_output=True, check=False, text=True, timeout=120)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
