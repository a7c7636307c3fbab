"""The warm start by imitation (tute_lab.training.imitation): the policy learns the teacher's
moves and the critic their outcomes, the same seed gives the same networks, and its settings
are checked before a run starts."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import train
from agents import make_agent
from agents.ppo import PolicyNet, load_checkpoint
from tute_env.engine.core import Game
from tute_env.engine.observation import encode_observation, encode_perfect_information
from tute_env.engine.rules import make_rules
from tute_lab.training.imitation import imitate, teacher_games
from tute_lab.training.settings import parse_args

ROOT = Path(__file__).resolve().parent.parent
SMOKE = str(ROOT / "configs" / "smoke.yaml")


def agreement(net: PolicyNet, rules, seed: int) -> float:
    """The share of the heuristic's decisions in fresh games the policy's most likely action matches."""
    critic, masks, actions, _ = teacher_games(Game(rules), make_agent("heuristic", rules), 256, 0.177,
                                              np.random.default_rng(seed), encode_observation)
    with torch.no_grad():
        logits = net.logits(torch.from_numpy(critic), torch.from_numpy(masks))
    return float((logits.argmax(1).numpy() == actions).mean())


def test_teacher_games_are_whole_hands_with_each_seats_reward():
    rules = make_rules("two_player")
    critic, masks, actions, rewards = teacher_games(Game(rules), make_agent("heuristic", rules), 32, 0.0,
                                                    np.random.default_rng(0), encode_perfect_information)
    assert len(critic) == len(masks) == len(actions) == len(rewards) > 32 * 16  # 16+ card plays a hand
    assert masks[np.arange(len(actions)), actions].all()  # the teacher's moves are legal
    assert set(np.unique(rewards)) <= {-2.0, -1.0, 1.0, 2.0}  # point weight 0: games won or lost


@pytest.mark.slow
def test_imitation_learns_the_teachers_moves_and_is_deterministic():
    args = parse_args(["--config", SMOKE, "--imitate", "heuristic", "--imitate-decisions", "60000",
                       "--num-envs", "256", "--num-steps", "8"])  # minibatches of 256 * 8 / 2 = 1,024 samples
    rules = make_rules(args.preset)
    nets = []
    for _ in range(2):
        torch.manual_seed(args.seed)
        net = PolicyNet(rules, args.hidden, args.central_critic)
        before = agreement(net, rules, seed=99)
        stats = imitate(net, rules, args, torch.device("cpu"))
        nets.append(net)
    after = agreement(nets[0], rules, seed=99)
    assert after > before + 0.2 and after > 0.5, (before, after)
    assert stats["imitation/decisions"] >= 60000 and stats["imitation/agreement"] > 0.45
    for a, b in zip(nets[0].state_dict().values(), nets[1].state_dict().values(), strict=True):
        assert torch.equal(a, b)  # the same seed, the same networks


@pytest.mark.slow
def test_a_run_with_imitation_trains_on_from_the_imitated_networks(tmp_path):
    run = tmp_path / "imitated"
    train.main(["--config", SMOKE, "--run-dir", str(run), "--imitate", "heuristic", "--imitate-decisions", "5000"])
    rules = make_rules("two_player")
    net = PolicyNet(rules, (64, 64), True)
    net.load_state_dict(load_checkpoint(run / "final.pt")["model"])
    assert agreement(net, rules, seed=5) > 0.4  # random play agrees on about one move in four
    assert load_checkpoint(run / "checkpoint.pt")["args"]["imitate"] == "heuristic"


@pytest.mark.slow
@pytest.mark.parametrize("argv, message", [
    (["--imitate", "heuristic"], "imitate and imitate_decisions go together"),
    (["--imitate-decisions", "100"], "imitate and imitate_decisions go together"),
    (["--imitate", "heuristic", "--imitate-decisions", "0"], "imitate and imitate_decisions go together"),
    (["--imitate", "grandmaster", "--imitate-decisions", "100"], "unknown agent 'grandmaster'"),
])
def test_bad_imitation_settings_are_one_message_and_exit_2(tmp_path, argv, message):
    run = tmp_path / "run"
    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), "--config", SMOKE, *argv, "--run-dir", str(run)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not run.exists()
