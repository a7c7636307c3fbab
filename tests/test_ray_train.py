"""Self-play training on Ray actors (train.py --ray ... --num-workers N), on real Ray (no mocks): a
local instance and a two-node cluster on this machine. A distributed run is the same run for the
same seed and worker count (on a local instance or a cluster, killed and resumed, with a worker
killed mid-run); one Ray worker is the local run. Skipped where Ray is not installed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
import torch

ray = pytest.importorskip("ray")
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]  # starts Ray: one Ray test file at a time under xdist

from test_train import ROOT, SMOKE, final_weights, log_rows

import train
from agents.ppo import PolicyNet, load_checkpoint
from tute_env.engine.rules import make_rules
from tute_lab.training.selfplay import Pool
from tute_lab.training.workers import RayWorkers

# Six updates of 512 decisions (16 games x 32 steps: two shards of 8 games), checkpoints every second update.
COMMON = ["--config", SMOKE, "--total-steps", "3072", "--checkpoint-every", "2", "--eval-every", "0"]
RAY2 = ["--ray", "local", "--num-workers", "2"]


def assert_same_run(a, b) -> None:
    """Equal final weights and log.csv numbers (the timings aside)."""
    for name, tensor in final_weights(a).items():
        assert torch.equal(tensor, final_weights(b)[name]), name

    def numbers(run):
        return [{k: v for k, v in row.items() if k not in ("sps", "env_sps")} for row in log_rows(run)]

    assert numbers(a) == numbers(b)


@pytest.fixture(scope="module")
def local_ray():
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def whole(local_ray, tmp_path_factory):
    """An uninterrupted two-worker run, the reference of the tests below."""
    run = tmp_path_factory.mktemp("ray") / "whole"
    train.main([*COMMON, *RAY2, "--run-dir", str(run)])
    return run


def kill_worker_at(monkeypatch, update: int, index: int = 1) -> None:
    """ray.kill worker ``index`` just before the rollout of update ``update`` (0-based) starts."""
    collect = RayWorkers._collect

    def killing(self, u, weights, pool):
        if u == update:
            ray.kill(self.workers[index])
        return collect(self, u, weights, pool)

    monkeypatch.setattr(RayWorkers, "_collect", killing)


def test_two_workers_run_end_to_end_and_again_the_same(whole, tmp_path):
    assert [int(r["update"]) for r in log_rows(whole)] == list(range(1, 7))
    assert (whole / "final.pt").exists() and (whole / "curves.png").exists()
    data = load_checkpoint(whole / "checkpoint.pt")
    assert data["update"] == 6 and len(data["shards"]) == 2
    assert all(len(shard["opponent"]) == 8 for shard in data["shards"])
    again = tmp_path / "again"
    train.main([*COMMON, *RAY2, "--run-dir", str(again)])
    assert_same_run(whole, again)


def test_one_ray_worker_is_the_local_run(local_ray, tmp_path):
    short = [*COMMON, "--total-steps", "1024"]
    train.main([*short, "--run-dir", str(tmp_path / "local")])
    train.main([*short, "--ray", "local", "--num-workers", "1", "--run-dir", str(tmp_path / "ray")])
    assert_same_run(tmp_path / "local", tmp_path / "ray")


def test_a_killed_worker_is_replaced_and_the_run_is_unchanged(whole, tmp_path, monkeypatch, capsys):
    kill_worker_at(monkeypatch, 2)
    train.main([*COMMON, *RAY2, "--run-dir", str(tmp_path / "run")])
    assert "worker 1 lost in update 3" in capsys.readouterr().err
    assert_same_run(whole, tmp_path / "run")


def test_lost_workers_stop_the_run_with_a_checkpoint_to_resume(whole, tmp_path, monkeypatch, capsys):
    run = tmp_path / "run"
    monkeypatch.setattr(RayWorkers, "RETRIES", 0)
    kill_worker_at(monkeypatch, 3)
    assert train.cli([*COMMON, *RAY2, "--run-dir", str(run)]) == 1
    assert "worker 1 died 1 times in update 4" in capsys.readouterr().err
    assert load_checkpoint(run / "checkpoint.pt")["update"] == 3  # the last update done, not the last periodic one
    monkeypatch.undo()
    train.main([*COMMON, *RAY2, "--run-dir", str(run), "--resume"])
    assert_same_run(whole, run)


def test_a_killed_distributed_run_resumes_with_nothing_lost(whole, tmp_path):
    """kill -9 of the driver between checkpoints, then --resume: the uninterrupted run's result."""
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, str(ROOT / "train.py"), *COMMON, *RAY2, "--run-dir", str(killed)],
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 600
    while time.time() < deadline and proc.poll() is None and not (
            (killed / "log.csv").exists() and len(log_rows(killed)) >= 3):
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    assert load_checkpoint(killed / "checkpoint.pt")["update"] == 2
    time.sleep(1.1)  # a later second for the resumed run's TensorBoard file (see test_train)
    train.main([*COMMON, *RAY2, "--run-dir", str(killed), "--resume"])
    assert [int(r["update"]) for r in log_rows(killed)] == list(range(1, 7))
    assert_same_run(whole, killed)


@pytest.mark.parametrize("argv, message", [
    (["--ray", "local", "--num-workers", "0"], "--num-workers must be at least 1"),
    (["--num-workers", "2"], "--num-workers needs --ray"),
    (["--ray", "127.0.0.1:1", "--num-workers", "2"], "no Ray cluster reachable"),
    (["--ray", "local", "--num-workers", "3"], "num_envs (16) must split into num_workers (3)"),
    (["--ray", "local", "--without-ray"], "--ray needs Ray installed"),
])
def test_command_line_bad_input_is_one_message_and_exit_2(tmp_path, argv, message):
    run = tmp_path / "run"
    if "--without-ray" in argv:  # a Python where `import ray` fails
        argv.remove("--without-ray")
        start = ["-c", ("import runpy, sys; sys.modules['ray'] = None; sys.argv = sys.argv[1:]; "
                        "runpy.run_path('train.py', run_name='__main__')"), "train.py"]
    else:
        start = [str(ROOT / "train.py")]
    proc = subprocess.run([sys.executable, *start, "--config", SMOKE, *argv, "--run-dir", str(run)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not run.exists()  # nothing written


def test_two_node_cluster_is_the_same_run(whole, tmp_path):
    """The same run on two nodes (one worker each), reached by address. Last: it ends the
    module's local instance."""
    from ray.cluster_utils import Cluster

    ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        train.main([*COMMON, "--ray", cluster.address, "--num-workers", "2", "--run-dir", str(tmp_path / "run")])
        assert len([n for n in ray.nodes() if n["Alive"]]) == 2
        assert_same_run(whole, tmp_path / "run")
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_exploit_on_ray_workers_plays_that_agent_alone(local_ray, tmp_path):
    """--exploit on two actors: every shard's pool and seats hold the exploited agent and the learner only."""
    from test_exploit import EXPLOIT

    from tute_env.play.seating import LEARNER

    run = tmp_path / "br"
    train.main([*EXPLOIT, *RAY2, "--total-steps", "1024", "--eval-every", "0", "--run-dir", str(run)])
    data = load_checkpoint(run / "checkpoint.pt")
    assert data["pool"]["names"] == ["heuristic"] and len(data["shards"]) == 2
    for shard in data["shards"]:
        seats = shard["seats"].numpy()
        assert set(seats.ravel().tolist()) == {0, LEARNER}
        assert ((seats == LEARNER).sum(axis=1) == 1).all()


def test_each_snapshot_goes_to_the_object_store_once(local_ray):
    args = train.parse_args([*COMMON, *RAY2])
    rules = make_rules(args.preset, **args.rule_overrides)
    net = PolicyNet(rules, args.hidden, args.central_critic)
    pool = Pool(rules, args.bots, args.seed, args.pool_size, args.hidden, args.central_critic)
    workers = RayWorkers(rules, args, torch.device("cpu"))
    try:
        pool.add_snapshot(net, "snapshot@0")
        first = workers.collect(0, net, pool)
        refs = dict(workers.snapshot_refs)
        pool.add_snapshot(net, "snapshot@1")
        pool.add_snapshot(net, "snapshot@2")  # pool_size 2: snapshot@0 leaves
        sent = workers._by_ref(pool.state())
        assert list(workers.snapshot_refs) == ["snapshot@1", "snapshot@2"]
        assert sent["snapshots"][: len(args.bots)] == [None] * len(args.bots)
        again = workers._by_ref(pool.state())
        assert again["snapshots"] == sent["snapshots"]  # the same refs: nothing put again
        assert refs["snapshot@0"] not in again["snapshots"]
        second = workers.collect(1, net, pool)  # the actors fetch the new snapshots and play them
        assert first.actions.shape == second.actions.shape
        assert {int(e) for entry, _ in second.results for e in entry} <= set(range(len(pool.names)))
    finally:
        workers.close()
