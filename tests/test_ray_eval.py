"""Distributed evaluation on real Ray (no mocks): a local instance and a two-node cluster on this
machine give exactly the local results. Skipped where Ray is not installed (pip install -e '.[ray]')."""

from __future__ import annotations

import subprocess
import sys

import pytest

ray = pytest.importorskip("ray")
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]  # starts Ray: one Ray test file at a time under xdist

from tute_lab.evaluation import HELD_OUT_SEED_START, evaluate_pairing, evaluate_teams, shard_bounds  # noqa: E402


def _same(a, b) -> bool:
    da, db = a.to_dict(with_deals=True), b.to_dict(with_deals=True)
    for d in (da, db):
        del d["seconds"], d["hands_per_second"]
    return da == db


@pytest.fixture(scope="module")
def local_ray():
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.mark.parametrize("agent, deals", [("random", 40), ("greedy", 40), ("heuristic", 40), ("pimc:16", 6),
                                          ("ppo", 30), ("ppo:sample", 30)])
def test_two_workers_equal_local(local_ray, agent, deals):
    local = evaluate_pairing("two_player", agent, "random", num_deals=deals, batch_deals=4)
    remote = evaluate_pairing("two_player", agent, "random", num_deals=deals, workers=2)
    assert _same(local, remote)
    assert remote.num_deals == deals and len(remote.deal_scores) == deals


def test_workers_and_shards_do_not_matter(local_ray):
    local = evaluate_teams("partnership", ("random", "heuristic"), ("greedy", "random"), num_deals=12)
    for workers in (1, 3, 5):
        assert _same(local, evaluate_teams("partnership", ("random", "heuristic"), ("greedy", "random"),
                                           num_deals=12, batch_deals=2, workers=workers))


def test_shard_bounds():
    assert shard_bounds(10, 3) == [(0, 3), (3, 3), (6, 4)]
    assert shard_bounds(2, 5) == [(0, 1), (1, 1)]
    assert sum(c for _, c in shard_bounds(200, 7)) == 200


def test_two_node_cluster():
    from ray.cluster_utils import Cluster

    if ray.is_initialized():
        ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        cluster.add_node(num_cpus=1)
        ray.init(address=cluster.address, log_to_driver=False, configure_logging=False)
        cluster.wait_for_nodes()
        assert len([n for n in ray.nodes() if n["Alive"]]) == 2
        local = evaluate_pairing("two_player", "random", "pimc:16", num_deals=4, seed_start=HELD_OUT_SEED_START + 7)
        remote = evaluate_pairing("two_player", "random", "pimc:16", num_deals=4, seed_start=HELD_OUT_SEED_START + 7,
                                  workers=2)
        assert _same(local, remote)
    finally:
        ray.shutdown()
        cluster.shutdown()


def _cli(*args):
    return subprocess.run([sys.executable, "evaluate.py", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args, message", [
    (["--ray", "local", "--num-workers", "0"], "--num-workers must be at least 1"),
    (["--num-workers", "2"], "--num-workers needs --ray"),
    (["--ray", "127.0.0.1:1"], "no Ray cluster reachable"),
    (["--ray", "nonsense"], "expected local, auto or HOST:PORT"),
    (["--ray", "local", "--record", "x.jsonl"], "--record writes locally only"),
])
def test_cli_bad_input(args, message):
    out = _cli("greedy", "random", "--preset", "two_player", "--deals", "4", *args)
    assert out.returncode == 2
    assert message in out.stderr
    assert "Traceback" not in out.stderr


def test_cli_ray_local_runs():
    out = _cli("greedy", "random", "--preset", "two_player", "--deals", "6", "--ray", "local", "--num-workers", "2",
               "--no-progress")
    assert out.returncode == 0, out.stderr
    local = _cli("greedy", "random", "--preset", "two_player", "--deals", "6", "--no-progress")
    strip = [line.split("(")[0] for line in out.stdout.splitlines()]
    assert strip == [line.split("(")[0] for line in local.stdout.splitlines()]
    assert "start-up" in out.stderr


def test_cli_ray_local_is_private_beside_a_running_cluster():
    """`--ray local` starts its own instance even where a cluster runs on the machine (as after
    `ray start --head`), which a plain `ray.init(num_cpus=...)` would try to join and refuse."""
    from ray.cluster_utils import Cluster

    if ray.is_initialized():
        ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        out = _cli("greedy", "random", "--preset", "two_player", "--deals", "4", "--ray", "local",
                   "--num-workers", "2", "--no-progress")
        assert out.returncode == 0, out.stderr
        assert "ray: local, 2 workers" in out.stderr
    finally:
        cluster.shutdown()
