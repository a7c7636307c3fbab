"""train.py: the smoke config runs and resumes, a killed run resumes with nothing lost, bad
checkpoints give clear errors, and the masked policy never picks an illegal action."""

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

import train
from agents import make_agent
from agents.ppo import PolicyNet, export, load_checkpoint, sample
from tute_env.engine.core import Game
from tute_env.engine.observation import encode_observation
from tute_env.engine.rules import make_rules
from tute_env.play.seating import Seating
from tute_lab.training.runs import widen_checkpoint
from tute_lab.training.selfplay import Pool

ROOT = Path(__file__).resolve().parent.parent
SMOKE = str(ROOT / "configs" / "smoke.yaml")


def log_rows(run_dir):
    with open(Path(run_dir) / "log.csv") as f:
        return list(csv.DictReader(f))


def final_weights(run_dir):
    return load_checkpoint(Path(run_dir) / "final.pt")["model"]


@pytest.mark.slow
def test_smoke_config_runs_and_resumes(tmp_path, capsys):
    run = tmp_path / "smoke"
    train.main(["--config", SMOKE, "--run-dir", str(run)])
    rows = log_rows(run)
    assert [int(r["update"]) for r in rows] == [1, 2]
    # Every column measured in every row (an evaluation after each update): no NaN, no empty cell.
    assert "eval_win_rate_vs_random" in rows[0] and "eval_point_diff_vs_random" in rows[0]
    bad = [(r["update"], k, v) for r in rows for k, v in r.items() if v in ("", None) or not np.isfinite(float(v))]
    assert not bad, bad
    assert all(0 <= float(r["win_rate"]) <= 1 for r in rows)
    data = load_checkpoint(run / "checkpoint.pt")
    assert data["update"] == 2 and data["eval_history"][-1]["update"] == 2
    assert [float(r["eval_win_rate_vs_random"]) for r in rows] == [e["random"] for e in data["eval_history"]]
    assert f"evaluate it with: tute-evaluate {run / 'final.pt'} heuristic" in capsys.readouterr().out
    assert (run / "final.pt").exists() and (run / "curves.png").exists()
    # Resume the finished run for more updates: it continues from update 2.
    train.main(["--config", SMOKE, "--run-dir", str(run), "--resume", "--total-steps", "2048"])
    assert [int(r["update"]) for r in log_rows(run)] == [1, 2, 3, 4]
    assert load_checkpoint(run / "checkpoint.pt")["update"] == 4
    with pytest.raises(ValueError, match="other settings"):
        train.main(["--config", SMOKE, "--run-dir", str(run), "--resume", "--learning-rate", "0.1"])
    # Export the model alone and play it through the agent registry, as evaluate.py does.
    export(run / "checkpoint.pt", tmp_path / "agent.pt")
    rules = make_rules("two_player")
    agent = make_agent(str(tmp_path / "agent.pt"), rules)
    state = Game(rules).random_state(0, 8)
    mask = Game(rules).legal_action_mask(state)
    actions = agent.act_batch(encode_observation(rules, state, state.current), mask)
    assert mask[np.arange(8), actions].all()
    with pytest.raises(ValueError, match=r"trained for other rules: preset 'two_player' \(num_players=2"):
        make_agent(str(tmp_path / "agent.pt"), make_rules("partnership"))


@pytest.mark.slow
def test_killed_run_resumes_with_nothing_lost(tmp_path):
    """Kill -9 between checkpoints, resume: the result equals an uninterrupted run's."""
    common = ["--config", SMOKE, "--total-steps", "3072", "--checkpoint-every", "2", "--eval-every", "0"]
    whole = tmp_path / "whole"
    train.main([*common, "--run-dir", str(whole)])

    killed = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, str(ROOT / "train.py"), *common, "--run-dir", str(killed)], env=env,
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 600  # generous: a loaded machine starts the subprocess slowly
    while time.time() < deadline and proc.poll() is None:  # a run that died early fails below, at once
        if (killed / "log.csv").exists() and len(log_rows(killed)) >= 3:
            break
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    assert load_checkpoint(killed / "checkpoint.pt")["update"] == 2  # update 3 was lost in the kill
    # TensorBoard orders a run's event files by their names, which start with the second the
    # writer opened: resume in a later second than the killed run started, as a person would.
    time.sleep(1.1)
    train.main([*common, "--run-dir", str(killed), "--resume"])
    assert [int(r["update"]) for r in log_rows(killed)] == list(range(1, 7))
    # TensorBoard shows each update once: the killed run's update 3 is replaced, not repeated.
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(killed))
    events.Reload()
    steps = [e.step for e in events.Scalars("losses/entropy")]
    assert steps == [512 * k for k in range(1, 7)]
    for name, tensor in final_weights(whole).items():
        assert torch.equal(tensor, final_weights(killed)[name]), name


@pytest.mark.slow
def test_bf16_runs_are_deterministic_and_may_be_resumed_in_float32(tmp_path):
    common = ["--config", SMOKE, "--eval-every", "0", "--bf16"]
    train.main([*common, "--run-dir", str(tmp_path / "a")])
    train.main([*common, "--run-dir", str(tmp_path / "b")])
    for name, tensor in final_weights(tmp_path / "a").items():
        assert tensor.dtype == torch.float32 and torch.isfinite(tensor).all(), name
        assert torch.equal(tensor, final_weights(tmp_path / "b")[name]), name
    rows = log_rows(tmp_path / "a")
    assert all(np.isfinite(float(r["policy_loss"])) and np.isfinite(float(r["value_loss"])) for r in rows)
    # bf16 is a speed setting: the run continues without it.
    train.main([*common[:-1], "--run-dir", str(tmp_path / "a"), "--resume", "--total-steps", "2048"])
    assert [int(r["update"]) for r in log_rows(tmp_path / "a")] == [1, 2, 3, 4]


@pytest.mark.slow
def test_corrupt_and_foreign_checkpoints_give_clear_errors(tmp_path):
    run = tmp_path / "run"
    train.main(["--config", SMOKE, "--run-dir", str(run), "--total-steps", "512"])
    good = (run / "checkpoint.pt").read_bytes()
    (run / "checkpoint.pt").write_bytes(good[: len(good) // 2])
    with pytest.raises(ValueError, match="not a checkpoint torch can load"):
        train.main(["--config", SMOKE, "--run-dir", str(run), "--total-steps", "512", "--resume"])
    torch.save({"weights": torch.zeros(3)}, run / "checkpoint.pt")
    with pytest.raises(ValueError, match="not a tute_env PPO checkpoint"):
        load_checkpoint(run / "checkpoint.pt")
    with pytest.raises(ValueError, match="does not exist"):
        load_checkpoint(run / "missing.pt")


@pytest.mark.slow
def test_masked_policy_never_samples_an_illegal_action():
    rules = make_rules("partnership")
    game = Game(rules)
    rng = np.random.default_rng(0)
    state = game.random_state(rng, 512)
    net = PolicyNet(rules, (32,))
    generator = torch.Generator().manual_seed(0)
    for _ in range(25):
        obs = encode_observation(rules, state, np.maximum(state.current, 0))
        mask = game.legal_action_mask(state)
        running = ~state.done
        logits = net.logits(torch.from_numpy(obs), torch.from_numpy(mask))
        for _ in range(20):
            action = sample(logits[running], generator).numpy()
            assert mask[running][np.arange(running.sum()), action].all()
        actions = np.zeros(512, np.int64)
        actions[running] = action
        game.step(state, actions)


def test_sampling_follows_the_softmax_and_its_generator():
    logits = torch.tensor([[0.0, 1.0, -1e9, 2.0, -0.5]]).repeat(200_000, 1)
    first = sample(logits, torch.Generator().manual_seed(3))
    freq = np.bincount(first.numpy(), minlength=5) / len(first)
    want = torch.softmax(logits[0], 0).numpy()
    assert freq[2] == 0 and np.abs(freq - want).max() < 0.005  # 5 standard errors at most
    assert torch.equal(first, sample(logits, torch.Generator().manual_seed(3)))
    assert not torch.equal(first, sample(logits, torch.Generator().manual_seed(4)))


def test_the_pools_snapshots_play_as_one_stack_kept_up_to_date():
    rules = make_rules("two_player")
    pool = Pool(rules, ["random", "greedy"], seed=0, capacity=3, hidden=(32,), central_critic=False)
    nets = [PolicyNet(rules, (32,)) for _ in range(4)]
    for k in range(3):
        pool.add_snapshot(nets[k], f"snapshot@{k}")
    snapshots = pool.agents[2:]
    assert snapshots[0].stack is not None and snapshots[0].stack.agents == snapshots
    assert all(agent.stack is snapshots[0].stack for agent in snapshots)
    assert getattr(pool.agents[0], "stack", None) is None  # bots act alone
    pool.add_snapshot(nets[3], "snapshot@3")  # full: the oldest snapshot leaves, the stack follows
    assert pool.names == ["random", "greedy", "snapshot@1", "snapshot@2", "snapshot@3"]
    assert pool.agents[2].stack.agents == pool.agents[2:]
    copy = Pool(rules, ["random", "greedy"], seed=0, capacity=3, hidden=(32,), central_critic=False)
    copy.load(pool.state())
    assert copy.agents[2].stack.agents == copy.agents[2:]
    stack = copy.agents[2].stack
    copy.load(pool.state())  # the same entries again: the same stack
    assert copy.agents[2].stack is stack
    game = Game(rules)
    state = game.random_state(np.random.default_rng(0), 64)
    for k in range(2, 5):
        torch.testing.assert_close(stack.layers[torch.float32][0][0][k - 2], copy.agents[k].net.policy_body[0].weight.T)
    seating = Seating(game, copy.agents, np.random.default_rng(1).integers(0, 5, size=(64, 2)))
    assert seating.advance(state) > 64 * 20 and state.done.all()


@pytest.mark.slow
def test_a_run_resumed_with_wider_layers_keeps_its_policy_and_trains_on(tmp_path):
    run = tmp_path / "smoke"
    train.main(["--config", SMOKE, "--run-dir", str(run)])
    data = load_checkpoint(run / "checkpoint.pt")
    rules = make_rules("two_player")
    narrow = PolicyNet(rules, (64, 64), central_critic=True)
    narrow.load_state_dict(data["model"])
    wide = PolicyNet(rules, (96, 80), central_critic=True)
    widen_checkpoint(data, wide, [64, 64])
    wide.load_state_dict(data["model"])
    state = Game(rules).random_state(1, 64)
    obs = torch.from_numpy(encode_observation(rules, state, state.current))
    mask = torch.from_numpy(Game(rules).legal_action_mask(state))
    with torch.no_grad():
        assert torch.allclose(narrow.logits(obs, mask), wide.logits(obs, mask), atol=1e-5)
        assert not torch.equal(wide.policy_body[0].weight[64:], torch.zeros_like(wide.policy_body[0].weight[64:]))
    snapshots = [s for s in data["pool"]["snapshots"] if s is not None]
    assert snapshots and all(s["policy_body.2.weight"].shape == (80, 96) for s in snapshots)

    train.main(["--config", SMOKE, "--run-dir", str(run), "--resume", "--total-steps", "2048", "--hidden", "96", "80"])
    assert [int(r["update"]) for r in log_rows(run)] == [1, 2, 3, 4]
    assert load_checkpoint(run / "checkpoint.pt")["args"]["hidden"] == [96, 80]
    assert final_weights(run)["policy_head.weight"].shape == (47, 80)
    for hidden in (["32", "32"], ["96", "80", "80"]):
        with pytest.raises(ValueError, match="cannot (widen|resume)"):
            train.main(["--config", SMOKE, "--run-dir", str(run), "--resume", "--hidden", *hidden])


@pytest.mark.slow
def test_run_directories_are_never_replaced_by_accident(tmp_path):
    run = tmp_path / "run"
    common = ["--config", SMOKE, "--eval-every", "0", "--total-steps", "512", "--run-dir", str(run)]
    assert train.cli(["--config", SMOKE, "--run-dir", str(run), "--resume"]) == 2  # nothing to resume
    assert not run.exists()  # ... and nothing written
    train.main(common)
    before = (run / "checkpoint.pt").read_bytes()
    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), *common], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 2 and "holds a run" in proc.stderr and "Traceback" not in proc.stderr
    assert (run / "checkpoint.pt").read_bytes() == before
    # config.yaml holds the run's full settings: it reproduces the run from its directory alone.
    again = tmp_path / "again"
    train.main(["--config", str(run / "config.yaml"), "--run-dir", str(again)])
    for name, tensor in final_weights(run).items():
        assert torch.equal(tensor, final_weights(again)[name]), name
    train.main([*common, "--overwrite", "--seed", "2"])
    assert len(list(run.glob("events.out.tfevents.*"))) == 1 and [r["update"] for r in log_rows(run)] == ["1"]


@pytest.mark.slow
@pytest.mark.parametrize("argv, message", [
    (["--config", "no/such/config.yaml"], "No such file"),
    (["--config", str(ROOT / "README.md")], "not a YAML file"),
    (["--config", SMOKE, "--preset", "nope"], "unknown preset 'nope'"),
    (["--config", SMOKE, "--bots", "random", "grandmaster"], "unknown agent 'grandmaster'"),
    (["--config", SMOKE, "--num-envs", "0"], "num_envs must be"),
    (["--config", SMOKE, "--gamma", "2"], "gamma must be"),
    (["--config", SMOKE, "--seed", "-1"], "seed -1 must be"),
])
def test_command_line_bad_input_is_one_message_and_exit_2(tmp_path, argv, message):
    run = tmp_path / "run"
    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), *argv, "--run-dir", str(run)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not run.exists()  # nothing written


@pytest.mark.slow
def test_a_logged_run_has_no_carriage_returns(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), "--config", SMOKE, "--run-dir", str(tmp_path / "r"),
                           "--progress"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and "final evaluation" in proc.stdout
    assert "\r" not in proc.stderr + proc.stdout


def test_devices_are_resolved_and_named():
    from agents.ppo import PPOAgent, resolve_device

    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    for bad in ("tpu", "gpu", ""):
        with pytest.raises(ValueError, match="expected auto, cpu, cuda"):
            resolve_device(bad)
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA"):
            resolve_device("cuda")
        assert train.cli(["--config", SMOKE, "--device", "cuda", "--run-dir", "/nonexistent/run"]) == 2
    # The device code paths, run on the CPU device: an agent's network and inputs go to its device.
    rules = make_rules("two_player")
    agent = PPOAgent(rules, net=PolicyNet(rules, (16,)), device="cpu", greedy=False)
    state = Game(rules).random_state(0, 4)
    mask = Game(rules).legal_action_mask(state)
    actions = agent.act_batch(encode_observation(rules, state, state.current), mask)
    assert isinstance(actions, np.ndarray) and mask[np.arange(4), actions].all()
    assert next(agent.net.parameters()).device == agent.device == torch.device("cpu")


@pytest.mark.slow
def test_an_explicit_cpu_run_is_the_default_run_here(tmp_path):
    if torch.cuda.is_available():
        pytest.skip("auto means cuda on this machine")
    common = ["--config", SMOKE, "--eval-every", "0", "--total-steps", "512"]
    train.main([*common, "--run-dir", str(tmp_path / "auto")])
    train.main([*common, "--run-dir", str(tmp_path / "cpu"), "--device", "cpu"])
    for name, tensor in final_weights(tmp_path / "auto").items():
        assert torch.equal(tensor, final_weights(tmp_path / "cpu")[name]), name


@pytest.mark.parametrize("native, bf16, warned", [(False, True, True), (True, True, False), (False, False, False)])
def test_bf16_on_a_cpu_without_native_bfloat16_is_named(monkeypatch, capsys, native, bf16, warned):
    from tute_lab.training.rollout import warn_slow_bf16
    from tute_lab.training.settings import Args

    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: native)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False)
    warn_slow_bf16(Args(bf16=bf16), torch.device("cpu"))
    assert ("no native bfloat16" in capsys.readouterr().out) == warned
