"""The workers: the run's games in shards, played in this process or on Ray actors.

Every random draw of worker w in update u comes from the seed sequence (seed, w, u)
(:func:`seeds`), so a run is the same for the same seed and worker count, and a worker's rollout
can be redone from its games alone (resume, a replaced dead worker). docs/scaling.md measures it.
"""

from __future__ import annotations

import sys

import numpy as np
import torch

from agents.ppo import PolicyNet
from tute_env.engine.observation import encode_observation, encode_perfect_information

from ..ray_cluster import connect_ray
from .rollout import Rollout, collect_rollout, mixed_precision
from .selfplay import Pool, SelfPlayGames, frozen_net
from .settings import Args, pool_bots


def seeds(seed: int, *key: int) -> np.random.SeedSequence:
    """The seed sequence of one stream of the run: (worker,) for a worker's first deals, (worker,
    update) for everything drawn in that update's rollout."""
    return np.random.SeedSequence(seed, spawn_key=key)


class RolloutWorker:
    """Worker ``index`` of ``num_workers``: num_envs / num_workers of the games (a shard), its copy
    of the policy network and of the pool. :meth:`collect` plays one rollout with the weights and
    pool it is given; every draw in it (deals, seating, the learner's and the pool's actions)
    comes from ``seeds(seed, index, update)``, so the rollout depends only on the shard's games
    before it (:meth:`state`, :meth:`load`), the weights, the pool and the update. On a Ray actor
    (:class:`RayWorkers`) it runs on the CPU with ``threads`` torch threads."""

    def __init__(self, rules, args: Args, index: int, device: torch.device | str = "cpu", threads: int | None = None):
        if threads:
            torch.set_num_threads(threads)
        self.args, self.index, self.device = args, index, torch.device(device)
        self.net = frozen_net(rules, args.hidden, args.central_critic, self.device)
        self.pool = Pool(rules, pool_bots(args), args.seed, args.pool_size, args.hidden, args.central_critic, self.device)
        lanes = args.num_envs // (args.num_workers or 1)
        self.games = SelfPlayGames(rules, lanes, np.random.default_rng(seeds(args.seed, index)), self.pool, args)
        self.generator = torch.Generator(self.device)
        # The perfect-information encoding starts with the observation: one buffer serves both.
        self.critic_enc = encode_perfect_information if args.central_critic else encode_observation
        self.loaded = None  # games to continue from (load)
        s, seat0 = self.games.state, np.zeros(lanes, np.intp)
        self.buf = Rollout.empty(args, lanes, encode_observation(rules, s, seat0).shape[1],
                                 self.critic_enc(rules, s, seat0).shape[1], self.device)

    def collect(self, update: int, weights: dict, pool: dict) -> Rollout:
        """Update ``update``'s rollout of this shard with the learner's ``weights`` against
        ``pool`` (a :meth:`Pool.state`); its ``games`` hold the shard after it."""
        deal_seq, sample_seq, pool_seq = seeds(self.args.seed, self.index, update).spawn(3)
        self.net.load_state_dict(weights)
        self.pool.load(pool)
        self.pool.reseed(pool_seq)
        if self.loaded is not None:  # the games' seats name entries of this pool
            self.games.load(self.loaded)
            self.loaded = None
        self.games.rng = np.random.default_rng(deal_seq)
        self.generator.manual_seed(int(sample_seq.generate_state(1, np.uint64)[0]))
        with mixed_precision(self.args, self.device):  # the pool's networks too
            self.games.advance()  # a new shard's first deals; else nothing to do
            collect_rollout(self.net, self.games, self.buf, self.critic_enc, self.args, self.generator)
        self.buf.games = [self.state()]
        return self.buf

    def state(self) -> dict:
        return self.games.arrays() if self.loaded is None else self.loaded

    def load(self, games: dict) -> None:
        """Continue from ``games`` (a :meth:`state`) at the next :meth:`collect`, which brings
        the pool they were seated from."""
        self.loaded = games


class RayRolloutWorker(RolloutWorker):
    """A :class:`RolloutWorker` on a Ray actor. The pool's snapshots arrive as object refs
    (:meth:`RayWorkers._by_ref`): it fetches those of entries new to its copy of the pool and
    keeps the rest, so an update brings only the weights and new snapshots."""

    def collect(self, update: int, weights: dict, pool: dict) -> Rollout:
        import ray

        have = dict(zip(self.pool.names, self.pool.snapshots))
        snapshots = [have[name] if name in have else ref if ref is None else ray.get(ref)
                     for name, ref in zip(pool["names"], pool["snapshots"])]
        return super().collect(update, weights, {**pool, "snapshots": snapshots})


class Workers:
    """The run's games as ``num_workers`` shards, each a :class:`RolloutWorker`; here one, in
    this process, on the learner's device. :meth:`collect` gathers a rollout of all the games and
    records its results in the pool, worker after worker; ``states`` are the shards' games after
    the last rollout (what a checkpoint keeps)."""

    def __init__(self, rules, args: Args, device: torch.device):
        self.device = device
        self.workers = [RolloutWorker(rules, args, 0, device)]
        self.states = self._map("state")

    def collect(self, update: int, net: PolicyNet, pool: Pool) -> Rollout:
        buf = Rollout.cat(self._collect(update, net.state_dict(), pool.state()), self.device)
        for entry, won in buf.results:
            pool.record(entry, won)
        self.states = buf.games
        return buf

    def _collect(self, update: int, weights: dict, pool: dict) -> list[Rollout]:
        return [worker.collect(update, weights, pool) for worker in self.workers]

    def _map(self, method: str, *per_worker: list) -> list:
        """``method`` of every worker, with its arguments from ``per_worker``; the results."""
        return [getattr(worker, method)(*call) for worker, *call in zip(self.workers, *per_worker)]

    def load(self, states: list[dict]) -> None:
        if len(states) != len(self.workers):
            raise ValueError(f"the checkpoint holds {len(states)} shards of games for {len(self.workers)} workers")
        self._map("load", states)
        self.states = list(states)

    def decisions(self) -> int:
        """All decisions played in the games (the learner's and the pool's)."""
        return sum(games["decisions"] for games in self.states)

    def close(self) -> None:
        pass


class WorkerLost(RuntimeError):
    """A Ray worker died, and so did its replacements."""


class RayWorkers(Workers):
    """The shards on ``num_workers`` Ray actors (one CPU and one torch thread each) of the Ray
    instance ``args.ray`` names (:func:`tute_lab.ray_cluster.connect_ray`). Each update the learner's weights and
    the pool are put in Ray's object store once and every actor reads them from there; a
    snapshot's weights are put once in the run (:meth:`_by_ref`). A worker
    that dies (its process or node lost) is replaced by a new actor that loads the shard's games
    as the last completed rollout left them and redoes this update's rollout: the run goes on as
    if nothing happened. After ``RETRIES`` replacements in one update it stops with
    :class:`WorkerLost` (the run resumes from its last checkpoint)."""

    RETRIES = 3

    def __init__(self, rules, args: Args, device: torch.device):
        num_workers = args.num_workers or 1
        seconds = connect_ray(args.ray, num_cpus=num_workers if args.ray == "local" else None)
        import ray

        cpus = ray.cluster_resources().get("CPU", 0)
        if cpus < num_workers:
            raise ValueError(f"--ray {args.ray}: the cluster has {cpus:g} CPUs for {num_workers} workers")
        print(f"ray: {args.ray}, {num_workers} workers, start-up {seconds:.1f} s", file=sys.stderr)
        self.ray, self.rules, self.args, self.device = ray, rules, args, device
        self.actor = ray.remote(num_cpus=1)(RayRolloutWorker)
        self.snapshot_refs: dict[str, object] = {}  # label -> the snapshot's weights in the object store
        self.workers = [self._start(index) for index in range(num_workers)]
        self.states = self._map("state")

    def _start(self, index: int, games: dict | None = None):
        worker = self.actor.remote(self.rules, self.args, index, threads=1)
        if games is not None:
            worker.load.remote(games)  # an actor runs its calls in order: before any collect
        return worker

    def _collect(self, update: int, weights: dict, pool: dict) -> list[Rollout]:
        call = (update, self.ray.put({k: v.cpu() for k, v in weights.items()}), self.ray.put(self._by_ref(pool)))
        pending = [worker.collect.remote(*call) for worker in self.workers]
        return [self._get(index, ref, call) for index, ref in enumerate(pending)]

    def _by_ref(self, pool: dict) -> dict:
        """``pool`` with each snapshot's weights as an object ref, put once for the whole run: an
        update sends only the snapshots added since the last one (:class:`RayRolloutWorker`)."""
        refs = {name: self.snapshot_refs[name] if name in self.snapshot_refs else self.ray.put(snap)
                for name, snap in zip(pool["names"], pool["snapshots"]) if snap is not None}
        self.snapshot_refs = refs  # the snapshots that left the pool are let go
        return {**pool, "snapshots": [refs.get(name) for name in pool["names"]]}

    def _get(self, index: int, ref, call: tuple) -> Rollout:
        """Worker ``index``'s rollout, redone by a replacement if the worker died."""
        for attempt in range(self.RETRIES + 1):
            try:
                return self.ray.get(ref)
            except self.ray.exceptions.RayActorError as err:
                if attempt == self.RETRIES:
                    raise WorkerLost(f"worker {index} died {attempt + 1} times in update {call[0] + 1} "
                                     f"({type(err).__name__})") from None
                print(f"worker {index} lost in update {call[0] + 1} ({type(err).__name__}): replaced, its rollout "
                      "redone", file=sys.stderr)
                self.workers[index] = self._start(index, self.states[index])
                ref = self.workers[index].collect.remote(*call)

    def _map(self, method: str, *per_worker: list) -> list:
        return self.ray.get([getattr(worker, method).remote(*call) for worker, *call in zip(self.workers, *per_worker)])

    def close(self) -> None:
        for worker in self.workers:
            self.ray.kill(worker)


def start_workers(rules, args: Args, device: torch.device) -> Workers:
    return (RayWorkers if args.ray else Workers)(rules, args, device)
