"""PPO self-play for Tute on the batched core, in the CleanRL manner: one file, top to bottom.

    python train.py --config configs/partnership.yaml            # a preset's committed config
    python train.py --config configs/smoke.yaml --total-steps 4096
    python train.py --config configs/partnership.yaml --resume   # continue a killed run
    python train.py --config configs/partnership.yaml --ray local --num-workers 2   # games on Ray actors
    python train.py --config configs/exploit.yaml --exploit heuristic   # a best response to one agent

Each of ``num_envs`` games on the core has learner seats (one seat, or with partnerships its
whole side or one seat beside a partner from the pool) and opponent seats played by a pool of
rule-based bots and the learner's own past snapshots. Opponents are drawn with prioritised
fictitious self-play: the worse the learner does against an entry, the more often it meets it.
From the learner's side a game is a single-agent episode: after its action the opponents play
until the learner is to act again or the hand ends, so the rollout buffer is the usual
(num_steps, num_envs) one. The reward comes at the hand's end (``tute_env.scoring``: zero-sum, +g for a win
credited g games, -g for a loss, shared among losers with three players), plus a small zero-sum
point-difference term: the reward ``TuteVectorEnv(reward="win", points_weight=...)`` gives.
The seats are run by the table layer (``tute_env.table``): the learner's seats are its LEARNER
seats.

The games are played by :class:`RolloutWorker` s, each owning a shard of them: one in this process,
or with ``--ray`` ``num_workers`` Ray actors (:class:`RayWorkers`, docs/scaling.md) while the PPO
update stays here (on ``--device``). Every random draw of worker w in update u comes from the seed
sequence (seed, w, u), so a run is the same for the same seed and worker count, and a worker's
rollout can be redone from its games alone (resume, a replaced dead worker).

Logs: TensorBoard (``charts/``, ``losses/``, ``eval/``) and ``log.csv`` in ``run_dir``; a
progress bar; ``checkpoint.pt`` written atomically every ``checkpoint_every`` updates (model,
optimiser, RNG states, opponent pool, games in progress, counters) and ``--resume`` continues
from it exactly; ``final.pt`` (model only) and ``curves.png`` at the end. Periodic evaluation
uses ``evaluate.py``'s duplicate-deal evaluation on its held-out deals; with ``record_games``
it keeps game records of a few of those hands in ``run_dir/records.jsonl`` (docs/records.md).
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import tyro
import yaml
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

import evaluate
from agents import make_agent
from agents.ppo import (FORMAT, PolicyNet, PolicyStack, PPOAgent, atomic_save, load_checkpoint, resolve_device, sample,
                        save_policy, widen)
from tute_env.cards import U64
from tute_env.core import Game, State
from tute_env.observation import encode_observation, encode_perfect_information
from tute_env.records import RecordWriter
from tute_env.rules import make_rules
from tute_env.scoring import hand_rewards
from tute_env.table import LEARNER, Table


@dataclass
class Args:
    """Training configuration. YAML files in configs/ set these; the command line overrides."""

    config: str | None = None
    """YAML file with values for the fields below (read first; command-line flags override)."""
    preset: str = "partnership"
    """Rules preset (tute_env.rules.PRESETS)."""
    rule_overrides: dict[str, str | int | bool] = field(default_factory=dict)
    """Rule options changed on top of the preset, e.g. {must_beat_partner: false}."""
    seed: int = 1
    """Seeds deals, opponents, sampling and network initialisation. Training deals come from
    this generator, far below evaluate.py's held-out seed range."""
    total_steps: int = 20_000_000
    """Learner decisions to train for."""
    num_envs: int = 1024
    """Games played at once on the core."""
    num_steps: int = 16
    """Learner decisions per game per rollout (rollout = num_envs * num_steps decisions)."""
    learning_rate: float = 3e-4
    """Adam step size."""
    anneal_lr: bool = True
    """Decay the learning rate linearly to 0 over the run."""
    gamma: float = 1.0
    """Discount (a hand is short and only its result counts)."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    update_epochs: int = 4
    """Passes over each rollout."""
    num_minibatches: int = 4
    """Minibatches per pass."""
    clip_coef: float = 0.2
    """PPO ratio clip."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    vf_coef: float = 0.5
    """Value loss weight."""
    max_grad_norm: float = 0.5
    """Gradient clipping norm."""
    hidden: tuple[int, ...] = (256, 256)
    """Widths of the policy and value MLPs. A resumed run may widen them (same number of layers):
    the trained networks grow without changing what they compute."""
    central_critic: bool = True
    """Value function reads the perfect-information state (training only)."""
    points_weight: float = 0.177
    """Weight of the zero-sum point-difference term added to the win reward: the reward is
    ``tute_env.scoring.hand_rewards(reward="win", points_weight=...)``, the one
    ``TuteVectorEnv(reward="win", points_weight=...)`` gives (the term is the point difference
    / 230; 0.177 keeps the weight the shipped agents were trained with, 0.1 / 130)."""
    bots: tuple[str, ...] = ("random", "greedy", "heuristic")
    """Rule-based bots in the opponent pool."""
    pool_size: int = 8
    """Past snapshots kept in the opponent pool."""
    snapshot_every: int = 20
    """Updates between snapshots of the learner added to the pool."""
    partner_mix: float = 0.3
    """Partnerships: fraction of games where the learner plays one seat beside a pool partner."""
    exploit: str | None = None
    """Train a best response to this agent (an ``agents.make_agent`` spec: heuristic, pimc:64, ppo,
    a checkpoint path): the pool is that agent alone, frozen, so ``bots`` must be empty and
    ``snapshot_every`` and ``partner_mix`` 0 (with partnerships the learner plays both seats of its
    side); every evaluation includes it. The win rate reached is a lower bound of how exploitable
    the agent is (docs/strength.md, Exploitability)."""
    init: str | None = None
    """Start the learner's networks from this checkpoint's (a policy file such as
    agents/checkpoints/partnership.pt, or a training checkpoint; same rules, ``hidden`` and
    ``central_critic``) instead of at random; the optimiser starts afresh."""
    pfsp_power: float = 2.0
    """Opponent weight = (1 - learner score against it) ** power + 0.05 (prioritised self-play)."""
    eval_every: int = 50
    """Updates between evaluations (0: only at the end)."""
    eval_deals: int = 300
    """Held-out deals per evaluation pairing (each played with the sides swapped)."""
    eval_opponents: tuple[str, ...] = ("random", "greedy", "heuristic")
    """Bots the learner is evaluated against."""
    record_games: int = 0
    """Game records (docs/records.md) of this many hands of each evaluation pairing, appended to
    run_dir/records.jsonl (the learner's seats labelled ``learner@UPDATE``); 0: none."""
    run_dir: str = "runs/partnership"
    """Where logs and checkpoints go."""
    checkpoint_every: int = 10
    """Updates between checkpoints."""
    resume: bool = False
    """Continue from run_dir/checkpoint.pt (which may have been moved there from another run_dir);
    an error where there is none."""
    overwrite: bool = False
    """Start afresh in a run_dir that holds a run, deleting its logs and checkpoints (without it,
    or --resume, train.py refuses: a run is never replaced by accident)."""
    threads: int = 2
    """Torch CPU threads (the core and the bots always run on the CPU)."""
    device: str = "auto"
    """Where the networks, the rollout tensors and the update run: auto (CUDA when torch has it),
    cpu, cuda or cuda:N. A hardware setting: a run may be resumed on another device."""
    bf16: bool = False
    """Run the networks' matrix products in bfloat16 (torch.autocast; weights, optimiser state and
    losses stay float32): ~3x faster on CPUs with native bfloat16 (AVX512-BF16, AMX), slower on
    others. A speed setting: a run may be resumed with it changed."""
    ray: str | None = None
    """Play the self-play games on Ray actors: ``local`` (a private Ray instance with num_workers
    CPUs), ``auto`` (the cluster started on this machine by ``ray start``) or a cluster head's
    HOST:PORT. The update stays in this process, on ``device``. A hardware setting: a run may be
    resumed with or without it, the same run as long as num_workers is the same."""
    num_workers: int | None = None
    """Ray actors (one CPU each) sharing the games, num_envs / num_workers each (needs --ray;
    default 1). The run depends on it: a resumed run keeps it."""
    progress: bool = True
    """Show a progress bar (on a terminal only: a log file gets no carriage returns)."""


def parse_args(argv=None) -> Args:
    """Command line over YAML over defaults (tyro reads the dataclass; YAML gives defaults)."""
    args = tyro.cli(Args, args=argv)
    if args.config:
        with open(args.config) as f:
            try:
                values = yaml.safe_load(f) or {}
            except yaml.YAMLError as err:
                raise ValueError(f"{args.config} is not a YAML file: {str(err).splitlines()[0]}") from None
        if not isinstance(values, dict):
            raise ValueError(f"{args.config}: expected a mapping of training options, got {type(values).__name__}")
        unknown = sorted(set(values) - {f.name for f in dataclasses.fields(Args)})
        if unknown:
            raise ValueError(f"{args.config}: unknown training option(s) {unknown}")
        for key in ("hidden", "bots", "eval_opponents"):
            if key in values:
                values[key] = tuple(values[key])
        args = tyro.cli(Args, args=argv, default=dataclasses.replace(Args(), **values, config=args.config))
    check_args(args)
    return args


def check_args(args: Args) -> None:
    """Numbers out of range are named before anything runs."""
    at_least = {"total_steps": 1, "num_envs": 1, "num_steps": 1, "update_epochs": 1, "num_minibatches": 1,
                "pool_size": 0, "snapshot_every": 0, "eval_every": 0, "eval_deals": 1, "checkpoint_every": 1,
                "threads": 1, "record_games": 0}
    for name, low in at_least.items():
        value = getattr(args, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{name} must be an integer of at least {low}, got {value!r}")
    if (args.num_envs * args.num_steps) % args.num_minibatches:
        raise ValueError(f"num_minibatches ({args.num_minibatches}) must divide num_envs x num_steps "
                         f"({args.num_envs * args.num_steps})")
    for name, low, high in (("learning_rate", 0, None), ("clip_coef", 0, None), ("gamma", 0, 1),
                            ("gae_lambda", 0, 1), ("partner_mix", 0, 1), ("points_weight", 0, None)):
        value = getattr(args, name)
        if not low <= value or (high is not None and value > high) or (name in ("learning_rate", "clip_coef")
                                                                        and value == 0):
            raise ValueError(f"{name} must be in {'(' if value == 0 else '['}{low}, {high or 'inf'}], got {value!r}")
    resolve_device(args.device)  # an unknown device, or CUDA where torch has none, is named now
    evaluate.check_ray_options(args.ray, args.num_workers)
    if args.num_envs % (args.num_workers or 1):
        raise ValueError(f"num_envs ({args.num_envs}) must split into num_workers ({args.num_workers}) equal shards")
    if not args.hidden or min(args.hidden) < 1:
        raise ValueError(f"hidden must be one or more positive layer widths, got {args.hidden}")
    if args.exploit is None and not args.bots:
        raise ValueError("bots is empty: the opponent pool needs a bot to start with (or --exploit AGENT)")
    if args.exploit is not None:
        pooled = {"bots": list(args.bots), "snapshot_every": args.snapshot_every, "partner_mix": args.partner_mix}
        if any(pooled.values()):
            raise ValueError(f"--exploit {args.exploit}: the learner faces that agent alone, so set "
                             + ", ".join(f"{k} to {type(v)()} (not {v})" for k, v in pooled.items() if v))


def pool_bots(args: Args) -> tuple[str, ...]:
    """The agents the opponent pool starts with: ``bots``, or the exploited agent alone."""
    return args.bots if args.exploit is None else (args.exploit,)


# ------------------------------------------------------------------------------------------------
# The opponent pool
# ------------------------------------------------------------------------------------------------
class Pool:
    """Rule-based bots and frozen snapshots of the learner, with the learner's running score
    against each (1 = always wins). The driver's pool is the run's; each :class:`RolloutWorker`
    plays a copy, loaded (:meth:`load`) and reseeded (:meth:`reseed`) at every rollout."""

    def __init__(self, rules, bots, seed, capacity, hidden, central_critic, device=torch.device("cpu")):
        self.rules, self.capacity, self.device = rules, capacity, device
        self.hidden, self.central_critic = hidden, central_critic
        self.names = list(bots)
        self.agents = [make_agent(name, rules, seed=seed + k) for k, name in enumerate(bots)]
        self.snapshots: list[dict | None] = [None] * len(bots)
        self.score = np.full(len(bots), 0.5)

    def add_snapshot(self, net: PolicyNet, label: str) -> None:
        snap = {k: v.detach().to("cpu", copy=True) for k, v in net.state_dict().items()}  # sent to CPU workers
        if len(self.names) - sum(s is None for s in self.snapshots) >= self.capacity:
            oldest = next(k for k, s in enumerate(self.snapshots) if s is not None)
            for seq in (self.names, self.agents, self.snapshots):
                del seq[oldest]
            self.score = np.delete(self.score, oldest)
        self.names.append(label)
        self.agents.append(self._snapshot_agent(snap))
        self.snapshots.append(snap)
        self.score = np.append(self.score, 0.5)
        self._stack()

    def _stack(self) -> None:
        """Run the snapshots' networks as one :class:`PolicyStack` (one forward a table round)."""
        snapshots = [agent for agent, snap in zip(self.agents, self.snapshots) if snap is not None]
        if snapshots and snapshots[0].stack is not None and snapshots[0].stack.agents == snapshots:
            return
        for agent in snapshots:
            agent.stack = None
        if len(snapshots) > 1:
            PolicyStack(snapshots)

    def _snapshot_agent(self, state_dict) -> PPOAgent:
        net = frozen_net(self.rules, self.hidden, self.central_critic, self.device)
        net.load_state_dict(state_dict)
        net.eval()
        return PPOAgent(self.rules, net=net, greedy=False, device=self.device)

    def weights(self, power: float) -> np.ndarray:
        w = (1.0 - self.score) ** power + 0.05
        return w / w.sum()

    def record(self, entry: np.ndarray, score: np.ndarray, rate: float = 0.02) -> None:
        for e, s in zip(entry, score):
            self.score[e] += rate * (s - self.score[e])

    def state(self) -> dict:
        return {"names": list(self.names), "snapshots": list(self.snapshots), "score": torch.from_numpy(self.score.copy())}

    def load(self, data: dict) -> None:
        """Take the entries and scores of ``data`` (a :meth:`state`), keeping the players of the
        entries already here (a snapshot's label names it for the whole run)."""
        players = dict(zip(self.names, self.agents))
        self.names, self.snapshots = list(data["names"]), list(data["snapshots"])
        self.score = data["score"].numpy().copy()
        self.agents = [players.get(name) or (make_agent(name, self.rules) if snap is None else self._snapshot_agent(snap))
                       for name, snap in zip(self.names, self.snapshots)]
        self._stack()

    def reseed(self, seq: np.random.SeedSequence) -> None:
        """Each player draws from its own child of ``seq`` (bots from ``rng``, snapshots from
        their torch generator)."""
        for agent, child in zip(self.agents, seq.spawn(len(self.agents))):
            agent.rng = np.random.default_rng(child)
            if isinstance(agent, PPOAgent):
                agent.generator.manual_seed(int(child.generate_state(1, np.uint64)[0]))


def frozen_net(rules, hidden, central_critic, device) -> PolicyNet:
    """A network for weights loaded into it (a snapshot, a worker's copy of the learner), built
    without drawing from torch's global generator: the run's random numbers are the same
    wherever and whenever the copies are made."""
    with torch.random.fork_rng(devices=[]):
        return PolicyNet(rules, hidden, central_critic).to(device).eval()


# ------------------------------------------------------------------------------------------------
# Games seen from the learner's side
# ------------------------------------------------------------------------------------------------
class SelfPlayGames:
    """``num_envs`` games on the core at one :class:`~tute_env.table.Table`: the learner's seats
    are the table's LEARNER seats, every other seat a pool entry."""

    def __init__(self, rules, num_envs, rng, pool, args):
        self.rules, self.game, self.rng, self.pool, self.args = rules, Game(rules), rng, pool, args
        self.state = self.game.random_state(rng, num_envs)
        self.table = Table(self.game, pool.agents, np.full((num_envs, rules.num_players), LEARNER))
        self.opponent = np.zeros(num_envs, np.int64)  # the pool entry the learner is scored against
        self.assign(np.arange(num_envs))
        self.decisions = 0  # all decisions played (learner and opponents)

    def assign(self, lanes: np.ndarray) -> None:
        """Seat the learner and draw opponents for new hands in ``lanes``."""
        r, k = self.rules, lanes.size
        n = r.num_players
        entry = self.rng.choice(len(self.pool.names), size=k, p=self.pool.weights(self.args.pfsp_power))
        self.opponent[lanes] = entry
        seats = np.repeat(entry[:, None], n, axis=1)
        learner = np.zeros((k, n), bool)
        if r.partnerships:
            side = self.rng.integers(0, 2, size=k)
            learner[np.arange(k), side] = True
            learner[np.arange(k), side + 2] = True
            # Some games: the learner plays one seat beside a partner from the pool.
            alone = self.rng.random(k) < self.args.partner_mix
            partner_seat = side + 2 * self.rng.integers(0, 2, size=k)
            learner[np.flatnonzero(alone), partner_seat[alone]] = False
            partner_entry = self.rng.choice(len(self.pool.names), size=k)
            seats[np.flatnonzero(alone), partner_seat[alone]] = partner_entry[alone]
        else:
            learner[np.arange(k), self.rng.integers(0, n, size=k)] = True
        self.table.seats[lanes] = np.where(learner, LEARNER, seats)

    def learner_seat(self, lanes: np.ndarray) -> np.ndarray:
        return (self.table.seats[lanes] == LEARNER).argmax(axis=1)

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
        """The learner's actions, then the pool plays until the learner is to act in every game;
        finished hands are scored (in the pool too) and dealt anew. Returns the reward per game,
        which games ended, and (pool entries, wins 1/0) of the hands that ended."""
        reward, ended, results = np.zeros(len(actions)), np.zeros(len(actions), bool), []

        def hands_over(lanes):
            s = self.state
            rewards = hand_rewards(self.rules, "win", s.winner[lanes], s.games[lanes], s.totals[lanes],
                                   s.tute_declarer[lanes], self.args.points_weight)
            seat = self.learner_seat(lanes)
            reward[lanes] = rewards[np.arange(lanes.size), seat]
            won = (s.winner[lanes] == np.array([self.rules.side_of(x) for x in seat])).astype(np.float64)
            ended[lanes] = True
            results.append((self.opponent[lanes].copy(), won))
            self.pool.record(self.opponent[lanes], won)
            self.assign(lanes)

        self.table.step(self.state, actions)
        self.decisions += len(actions)
        self.advance(hands_over)
        return reward, ended, results

    def advance(self, on_done=None) -> None:
        self.table.policies = self.pool.agents  # the pool's entries change with snapshots
        self.decisions += self.table.advance(self.state, on_done, self.rng)

    def arrays(self) -> dict:
        return {
            "state": {k: _to_tensor(getattr(self.state, k)) for k in self.state.__dataclass_fields__},
            "seats": torch.from_numpy(self.table.seats.copy()),
            "opponent": torch.from_numpy(self.opponent.copy()),
            "decisions": self.decisions,
        }

    def load(self, data: dict) -> None:
        """Games from :meth:`arrays`, seated by this pool as it was when they were saved."""
        self.table.policies = self.pool.agents
        ref = self.state
        self.state = State(**{k: _from_tensor(v, getattr(ref, k).dtype) for k, v in data["state"].items()})
        if "seats" in data:
            self.table.seats = data["seats"].numpy().copy()
        else:  # checkpoints before the table layer kept the learner's seats and the others' entries apart
            self.table.seats = np.where(data["learner"].numpy(), LEARNER, data["seat_entry"].numpy())
        self.opponent = data["opponent"].numpy().copy()
        self.decisions = data["decisions"]


def mixed_precision(args: Args, device: torch.device):
    """bfloat16 autocast for the networks' forward passes on ``device`` (CPU or CUDA) when
    ``args.bf16``, else a no-op."""
    return torch.autocast(device.type, dtype=torch.bfloat16, enabled=args.bf16)


def _to_tensor(array: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(array.view(np.int64) if array.dtype == U64 else array.copy())


def _from_tensor(tensor: torch.Tensor, dtype) -> np.ndarray:
    array = tensor.numpy().copy()
    return array.view(U64) if dtype == U64 else array


# ------------------------------------------------------------------------------------------------
# Training
# ------------------------------------------------------------------------------------------------
def evaluate_learner(net, rules, args, update, writer, history):
    # Every scalar is logged against learner decisions, so TensorBoard's panels share one axis.
    """Duplicate-deal evaluation (evaluate.py) against each of ``eval_opponents`` and the exploited agent."""
    agent = PPOAgent(rules, net=net, greedy=True, device=next(net.parameters()).device)
    row, results = {"update": update}, []
    exploited = [args.exploit] if args.exploit is not None and args.exploit not in args.eval_opponents else []
    for name in [*args.eval_opponents, *exploited]:
        with evaluation_records(args, update) as record:
            result = evaluate.evaluate_pairing(rules, agent, make_agent(name, rules, seed=0),
                                               num_deals=args.eval_deals, progress=False, record=record)
        results.append(result)
        row[name] = result.win_rate
        step = update * args.num_envs * args.num_steps
        writer.add_scalar(f"eval/win_rate_vs_{name}", result.win_rate, step)
        writer.add_scalar(f"eval/point_diff_vs_{name}", result.mean_point_diff, step)
    history.append(row)
    return row, results


@contextlib.contextmanager
def evaluation_records(args: Args, update: int):
    """A record sink for one evaluation pairing (None without ``record_games``): its first
    ``record_games`` hands appended to run_dir/records.jsonl, the learner (team A) labelled
    ``learner@UPDATE`` and the update in each record's ``meta``."""
    if not args.record_games:
        yield None
        return
    with RecordWriter(Path(args.run_dir) / "records.jsonl", mode="a", limit=args.record_games) as writer:
        def sink(record):
            teams = record.meta["teams"]
            record.players = [f"learner@{update}" if t == "A" else p for p, t in zip(record.players, teams)]
            record.meta["update"] = update
            writer(record)

        yield sink


@dataclass
class Rollout:
    """One rollout: (num_steps, lanes) decisions of the learner, the games' results; a worker's
    shard of the games, or all of them (:meth:`cat`)."""

    critic: np.ndarray  # (T, N, critic size) int8; the observation is its leading part
    n_obs: int  # the observation's size
    masks: np.ndarray  # (T, N, 47) bool
    actions: torch.Tensor  # (T, N) long
    logprobs: torch.Tensor  # (T, N)
    values: torch.Tensor  # (T, N)
    rewards: torch.Tensor  # (T, N)
    dones: torch.Tensor  # (T, N): the hand ended after this decision
    next_value: torch.Tensor  # (N,) the value of the decisions the games wait at: GAE's bootstrap
    results: list = field(default_factory=list)  # (pool entries, wins 1/0) of the hands that ended
    games: list = field(default_factory=list)  # SelfPlayGames.arrays() of each shard after the rollout

    @property
    def obs(self) -> np.ndarray:
        return self.critic[..., : self.n_obs]

    @classmethod
    def empty(cls, args: Args, lanes: int, n_obs: int, n_critic: int, device: torch.device) -> Rollout:
        t = args.num_steps
        return cls(np.zeros((t, lanes, n_critic), np.int8), n_obs, np.zeros((t, lanes, 47), bool),
                   torch.zeros((t, lanes), dtype=torch.long, device=device),
                   *(torch.zeros((t, lanes), device=device) for _ in range(4)), torch.zeros(lanes, device=device))

    @classmethod
    def cat(cls, parts: list[Rollout], device: torch.device) -> Rollout:
        """The shards' rollouts side by side (along the games), on ``device``; results and games
        in worker order."""
        if len(parts) == 1 and parts[0].rewards.device == device and parts[0].critic.flags.writeable:
            return parts[0]
        tensors = [torch.cat([getattr(p, f) for p in parts], dim=int(f != "next_value")).to(device)
                   for f in ("actions", "logprobs", "values", "rewards", "dones", "next_value")]
        return cls(np.concatenate([p.critic for p in parts], axis=1), parts[0].n_obs,
                   np.concatenate([p.masks for p in parts], axis=1), *tensors,
                   [r for p in parts for r in p.results], [g for p in parts for g in p.games])


def collect_rollout(net, games: SelfPlayGames, buf: Rollout, critic_enc, args: Args, generator) -> None:
    """Every game is at a learner decision: sample num_steps of them per game into ``buf`` (the
    learner's actions drawn from ``generator``), and the bootstrap value where they stop."""
    rules, device = games.rules, buf.rewards.device
    buf.results = []
    for t in range(args.num_steps):
        s = games.state
        buf.critic[t] = critic_enc(rules, s, s.current.astype(np.intp))
        buf.masks[t] = games.game.legal_action_mask(s)
        with torch.no_grad():
            obs_t = torch.from_numpy(np.ascontiguousarray(buf.obs[t])).to(device)
            logits = net.logits(obs_t, torch.from_numpy(buf.masks[t]).to(device))
            action = sample(logits, generator)
            buf.logprobs[t] = torch.log_softmax(logits, dim=1).gather(1, action[:, None])[:, 0]
            buf.values[t] = net.value(torch.from_numpy(buf.critic[t]).to(device))
        buf.actions[t] = action
        reward, ended, results = games.step(action.cpu().numpy())
        buf.results += results
        buf.rewards[t] = torch.from_numpy(reward).float().to(device)
        buf.dones[t] = torch.from_numpy(ended).float().to(device)
    with torch.no_grad():
        s = games.state
        buf.next_value[:] = net.value(torch.from_numpy(critic_enc(rules, s, s.current.astype(np.intp))).to(device))


def advantages(buf: Rollout, args: Args):
    """GAE advantages and returns; a hand's end cuts the bootstrap."""
    adv = torch.zeros_like(buf.rewards)
    last = torch.zeros_like(buf.rewards[0])
    for t in reversed(range(args.num_steps)):
        following = buf.next_value if t == args.num_steps - 1 else buf.values[t + 1]
        nonterminal = 1.0 - buf.dones[t]
        delta = buf.rewards[t] + args.gamma * following * nonterminal - buf.values[t]
        last = delta + args.gamma * args.gae_lambda * nonterminal * last
        adv[t] = last
    return adv, adv + buf.values


# ------------------------------------------------------------------------------------------------
# The workers: the games in shards, in this process or on Ray actors
# ------------------------------------------------------------------------------------------------
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
    instance ``args.ray`` names (``evaluate.connect_ray``). Each update the learner's weights and
    the pool are put in Ray's object store once and every actor reads them from there; a
    snapshot's weights are put once in the run (:meth:`_by_ref`). A worker
    that dies (its process or node lost) is replaced by a new actor that loads the shard's games
    as the last completed rollout left them and redoes this update's rollout: the run goes on as
    if nothing happened. After ``RETRIES`` replacements in one update it stops with
    :class:`WorkerLost` (the run resumes from its last checkpoint)."""

    RETRIES = 3

    def __init__(self, rules, args: Args, device: torch.device):
        num_workers = args.num_workers or 1
        seconds = evaluate.connect_ray(args.ray, num_cpus=num_workers if args.ray == "local" else None)
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


def ppo_update(net, optimizer, buf: Rollout, adv, returns, args: Args) -> dict[str, float]:
    """Clipped PPO over the rollout: update_epochs passes of num_minibatches minibatches."""
    batch_size = args.num_envs * args.num_steps
    device = buf.rewards.device
    b_obs = torch.from_numpy(np.ascontiguousarray(buf.obs).reshape(batch_size, -1)).to(device)
    b_critic = torch.from_numpy(buf.critic.reshape(batch_size, -1)).to(device)
    b_mask = torch.from_numpy(buf.masks.reshape(batch_size, -1)).to(device)
    b_actions, b_logprob = buf.actions.reshape(-1), buf.logprobs.reshape(-1)
    b_adv, b_returns = adv.reshape(-1), returns.reshape(-1)
    minibatch = batch_size // args.num_minibatches
    clipfracs = []
    for _ in range(args.update_epochs):
        order = torch.randperm(batch_size).to(device)  # drawn on the CPU: the same run on any device
        for begin in range(0, batch_size, minibatch):
            mb = order[begin : begin + minibatch]
            with mixed_precision(args, device):
                logits = net.logits(b_obs[mb], b_mask[mb])
                new_value = net.value(b_critic[mb])
            dist = torch.distributions.Categorical(logits=logits)
            log_ratio = dist.log_prob(b_actions[mb]) - b_logprob[mb]
            ratio = log_ratio.exp()
            entropy = dist.entropy().mean()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - log_ratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())
            mb_adv = (b_adv[mb] - b_adv[mb].mean()) / (b_adv[mb].std() + 1e-8)
            policy_loss = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
            value_loss = 0.5 * ((new_value - b_returns[mb]) ** 2).mean()
            loss = policy_loss - args.ent_coef * entropy + args.vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
            optimizer.step()
    return {"policy_loss": policy_loss.item(), "value_loss": value_loss.item(), "entropy": entropy.item(),
            "approx_kl": approx_kl.item(), "clipfrac": float(np.mean(clipfracs))}


CSV_FIELDS = ["update", "learner_steps", "env_steps", "sps", "env_sps", "win_rate", "mean_reward",
              "policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac"]


def log_update(writer, csv_path: Path, stats: dict, lr: float, pool: Pool) -> None:
    """One row of log.csv and the TensorBoard scalars (charts/, losses/) of an update."""
    step = stats["learner_steps"]
    for key, tag in (("sps", "SPS"), ("env_sps", "env_SPS"), ("win_rate", "win_rate"), ("mean_reward", "mean_reward")):
        writer.add_scalar(f"charts/{tag}", stats[key], step)
    writer.add_scalar("charts/learning_rate", lr, step)
    for key in ("policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac"):
        writer.add_scalar(f"losses/{key}", stats[key], step)
    for name, score in zip(pool.names, pool.score):
        writer.add_scalar(f"charts/pool_score/{name}", score, step)
    with open(csv_path, "a", newline="") as f:
        csv.writer(f).writerow([stats[k] for k in CSV_FIELDS])


def start_log(csv_path: Path, update: int) -> None:
    """log.csv with its header and the rows of updates up to ``update`` (those a resumed
    checkpoint includes)."""
    kept = []
    if update and csv_path.exists():
        with open(csv_path, newline="") as f:
            kept = [row for row in list(csv.reader(f))[1:] if row and int(row[0]) <= update]
    with open(csv_path, "w", newline="") as f:
        csv.writer(f).writerows([CSV_FIELDS, *kept])


def check_run_dir(args: Args) -> Path:
    """The run directory, checked before anything is written: a run there is continued only
    with --resume and replaced only with --overwrite."""
    run_dir = Path(args.run_dir)
    has_run = run_dir.is_dir() and any((run_dir / f).exists() for f in RUN_FILES)
    if args.resume and args.overwrite:
        raise ValueError("give --resume or --overwrite, not both")
    if args.resume and not (run_dir / "checkpoint.pt").exists():
        raise ValueError(f"--resume: there is no checkpoint to resume in {run_dir} (checkpoint.pt)")
    if has_run and not args.resume and not args.overwrite:
        raise ValueError(f"{run_dir} holds a run: pass --resume to continue it or --overwrite to start afresh")
    if run_dir.exists() and not run_dir.is_dir():
        raise ValueError(f"run_dir {run_dir} is a file, not a directory")
    return run_dir


def start_run_dir(run_dir: Path, args: Args) -> None:
    """Clear a replaced run (--overwrite) and write the run's full settings to config.yaml."""
    if args.overwrite:
        for path in [*(run_dir / f for f in RUN_FILES), *run_dir.glob("events.out.tfevents.*")]:
            path.unlink(missing_ok=True)
    run_dir.mkdir(parents=True, exist_ok=True)
    settings = {k: v for k, v in _args_dict(args).items() if k not in ("config", "resume", "overwrite")}
    with open(run_dir / "config.yaml", "w") as f:
        f.write("# The full settings of this run: python train.py --config config.yaml reproduces it.\n")
        yaml.safe_dump(settings, f, sort_keys=False)


def resume(checkpoint_path: Path, args: Args, net, optimizer, pool: Pool, workers: Workers) -> tuple:
    """Load a checkpoint into the run's objects; returns (update, eval_history)."""
    data = load_checkpoint(checkpoint_path)
    saved_args = data.get("args") or {}
    saved, wanted = _fixed_settings(saved_args), _fixed_settings(_args_dict(args))
    # A setting added since the checkpoint was written counts as its default (None: exploit, init).
    changed = ", ".join(f"{k}: {saved.get(k)!r} -> {wanted.get(k)!r}"
                        for k in sorted(set(saved) | set(wanted)) if saved.get(k) != wanted.get(k))
    if changed:
        raise ValueError(f"{checkpoint_path} was written by a run with other settings ({changed}); "
                         "resume with the same ones")
    if saved_args["hidden"] != list(args.hidden):
        widen_checkpoint(data, net, saved_args["hidden"])
    net.load_state_dict(data["model"])
    optimizer.load_state_dict(data["optimizer"])
    pool.load(data["pool"])
    workers.load(data["shards"] if "shards" in data else [data["games"]])  # one shard before workers
    torch.set_rng_state(data["rng"]["torch"])
    print(f"resumed from {checkpoint_path} at update {data['update']}")
    return data["update"], list(data["eval_history"])


def main(argv=None) -> None:
    args = parse_args(argv)
    rules = make_rules(args.preset, **args.rule_overrides)
    if not 0 <= args.seed < evaluate.TRAINING_SEED_LIMIT:
        raise ValueError(f"seed {args.seed} must be in 0..{evaluate.TRAINING_SEED_LIMIT - 1}, below the held-out deals")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    device = resolve_device(args.device)
    net = PolicyNet(rules, args.hidden, args.central_critic).to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate, eps=1e-5)
    if args.init is not None and not args.resume:
        init_network(net, args.init, rules)
    pool = Pool(rules, pool_bots(args), args.seed, args.pool_size, args.hidden, args.central_critic, device)
    run_dir = check_run_dir(args)
    workers = start_workers(rules, args, device)  # a Ray instance that cannot be reached is named here
    try:
        run(args, rules, run_dir, net, optimizer, pool, workers)
    finally:
        workers.close()


def run(args: Args, rules, run_dir: Path, net, optimizer, pool: Pool, workers: Workers) -> None:
    """The run: resumed or started in ``run_dir``, updates until total_steps, then final.pt. A
    run whose workers are lost (:class:`WorkerLost`) is checkpointed at its last update first."""
    batch_size = args.num_envs * args.num_steps
    num_updates = max(1, args.total_steps // batch_size)
    update, eval_history = 0, []
    checkpoint_path = run_dir / "checkpoint.pt"
    if args.resume:
        update, eval_history = resume(checkpoint_path, args, net, optimizer, pool, workers)
    start_run_dir(run_dir, args)
    # Points of updates redone after a resume replace the killed run's (purge_step).
    writer = SummaryWriter(str(run_dir), purge_step=update * batch_size + 1 if update else None)
    csv_path = run_dir / "log.csv"
    start_log(csv_path, update)
    bar = tqdm(total=num_updates, initial=update, disable=None if args.progress else True, desc="updates")
    start_time, start_update, start_decisions = time.time(), update, workers.decisions()
    while update < num_updates:
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = args.learning_rate * (1.0 - update / num_updates)
        try:
            buf = workers.collect(update, net, pool)
        except WorkerLost:
            save_checkpoint(checkpoint_path, args, rules, net, optimizer, pool, workers, update, eval_history)
            raise
        adv, returns = advantages(buf, args)
        losses = ppo_update(net, optimizer, buf, adv, returns, args)
        update += 1

        elapsed = time.time() - start_time
        sps = (update - start_update) * batch_size / elapsed
        env_sps = (workers.decisions() - start_decisions) / elapsed
        wins = np.concatenate([won for _, won in buf.results]) if buf.results else np.zeros(0)
        finished = buf.dones.bool()
        stats = {
            "update": update, "learner_steps": update * batch_size, "env_steps": workers.decisions(),
            "sps": round(sps), "env_sps": round(env_sps),
            "win_rate": float(wins.mean()) if wins.size else float("nan"),
            "mean_reward": float(buf.rewards[finished].mean()) if finished.any() else float("nan"),
            **losses,
        }
        log_update(writer, csv_path, stats, optimizer.param_groups[0]["lr"], pool)
        if args.snapshot_every and update % args.snapshot_every == 0:
            pool.add_snapshot(net, f"snapshot@{update}")
        if (args.eval_every and update % args.eval_every == 0) or update == num_updates:
            row, results = evaluate_learner(net, rules, args, update, writer, eval_history)
            if update == num_updates:
                print("\nfinal evaluation on held-out duplicate deals:\n" + "\n".join(r.summary() for r in results))
            bar.set_postfix_str(" ".join(f"{k}={v:.2f}" for k, v in row.items() if k != "update"))
        bar.set_description(f"updates ({sps:,.0f} learner steps/s, {env_sps:,.0f} env steps/s)")
        bar.update(1)
        if update % args.checkpoint_every == 0 or update == num_updates:
            save_checkpoint(checkpoint_path, args, rules, net, optimizer, pool, workers, update, eval_history)
    bar.close()
    writer.close()
    save_policy(run_dir / "final.pt", net, rules, args.preset, learner_steps=update * batch_size,
                eval_history=eval_history)
    plot_run(run_dir, eval_history)
    print(f"model: {run_dir / 'final.pt'} (evaluate it with: python evaluate.py {run_dir / 'final.pt'} heuristic "
          f"--preset {args.preset}); curves: {run_dir / 'curves.png'}")


def save_checkpoint(path: Path, args: Args, rules, net, optimizer, pool: Pool, workers: Workers, update: int,
                    eval_history: list) -> None:
    """Everything :func:`resume` needs to go on exactly, written atomically: the model, Adam, the
    pool, each worker's games, the torch RNG (the update's minibatch order)."""
    atomic_save(
        {
            "format": FORMAT, "preset": args.preset, "rules": dataclasses.asdict(rules),
            "model_config": net.config, "model": net.state_dict(),
            "optimizer": optimizer.state_dict(), "pool": pool.state(), "shards": workers.states,
            "rng": {"torch": torch.get_rng_state()},
            "update": update, "eval_history": eval_history, "args": _args_dict(args),
        },
        path,
    )


def init_network(net: PolicyNet, path: str, rules) -> None:
    """Load the networks of the checkpoint at ``path`` (``--init``) into ``net``: same rules and
    network configuration, else a ``ValueError`` naming the difference."""
    with torch.random.fork_rng(devices=[]):  # as frozen_net: the run's random numbers stay those of its seed
        source = PPOAgent.from_checkpoint(path, rules).net
    if source.config != net.config:
        raise ValueError(f"--init {path} has networks {source.config}, this run {net.config}: "
                         "give the same hidden and central_critic")
    net.load_state_dict(source.state_dict())


def widen_checkpoint(data: dict, net: PolicyNet, old_hidden: list[int]) -> None:
    """Grow a checkpoint's networks (learner and pool snapshots) in place to ``net``'s wider hidden
    layers, keeping what they compute (``agents.ppo.widen``); Adam's moments of the new weights
    start at zero. Resuming with a larger ``hidden`` uses this, so a trained run can be given a
    bigger network without starting over."""
    if len(old_hidden) != len(net.config["hidden"]):
        raise ValueError(f"cannot resume a run with hidden {old_hidden} as {net.config['hidden']}: "
                         "only the widths may grow, not the number of layers")
    template = {k: v.cpu() for k, v in net.state_dict().items()}  # the checkpoint's tensors are on the CPU
    data["model"] = widen(data["model"], template)
    data["pool"]["snapshots"] = [None if s is None else widen(s, template) for s in data["pool"]["snapshots"]]
    for index, param in enumerate(net.parameters()):  # the optimizer state is keyed by parameter order
        moments = data["optimizer"]["state"][index]
        for key in ("exp_avg", "exp_avg_sq"):
            grown = torch.zeros_like(param)
            grown[tuple(slice(0, s) for s in moments[key].shape)] = moments[key]
            moments[key] = grown
    print(f"widened the networks from hidden {old_hidden} to {net.config['hidden']}")


# What a resumed run may change: a run may be extended (total_steps; the learning-rate schedule
# follows the new total), moved (run_dir; onto or off Ray: ray, with the same num_workers), sped up,
# and widened (hidden, see widen_checkpoint).
RESUMABLE_CHANGES = ("resume", "overwrite", "progress", "config", "threads", "device", "total_steps", "bf16", "run_dir",
                     "hidden", "record_games", "ray")
#: What a run writes in its run_dir (and --overwrite deletes).
RUN_FILES = ("checkpoint.pt", "final.pt", "log.csv", "curves.png", "config.yaml", "records.jsonl")


def _args_dict(args: Args) -> dict:
    """The run's settings as saved in its checkpoints."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(args).items()}


def _fixed_settings(args_dict: dict) -> dict:
    """The settings a resumed run must share with the run it continues (one worker when none
    is named: a run without --ray is one worker's)."""
    return {**{k: v for k, v in args_dict.items() if k not in RESUMABLE_CHANGES},
            "num_workers": args_dict.get("num_workers") or 1}


def plot_run(run_dir: Path, eval_history: list[dict]) -> None:
    """Learning curves from log.csv and the evaluation table, as curves.png."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(run_dir / "log.csv") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return
    steps = np.array([int(r["learner_steps"]) for r in rows])
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))

    def curve(ax, key, **kwargs):  # updates where no hand ended log NaN: drawn through, not as gaps
        y = np.array([float(r[key]) for r in rows])
        ax.plot(steps[~np.isnan(y)], y[~np.isnan(y)], **kwargs)

    curve(axes[0], "win_rate")
    axes[0].set_title("training win rate vs pool")
    curve(axes[1], "entropy", label="entropy")
    curve(axes[1], "value_loss", label="value loss")
    axes[1].legend()
    axes[1].set_title("losses")
    per_update = steps[0] // int(rows[0]["update"])
    for name in [k for k in (eval_history[0] if eval_history else {}) if k != "update"]:
        axes[2].plot([e["update"] * per_update for e in eval_history], [e[name] for e in eval_history], marker="o",
                     label=name)
    axes[2].axhline(0.5, color="grey", lw=0.5)
    axes[2].set_title("held-out win rate vs bots")
    axes[2].legend()
    for ax in axes:
        ax.set_xlabel("learner decisions")
    fig.tight_layout()
    fig.savefig(run_dir / "curves.png", dpi=80)
    plt.close(fig)


def cli(argv=None) -> int:
    """train.py's command line: bad input is one short message and exit code 2."""
    try:
        main(argv)
    except (ValueError, OSError) as err:
        print(f"train.py: error: {err}", file=sys.stderr)
        return 2
    except WorkerLost as err:
        print(f"train.py: stopped: {err}; resume from the last checkpoint with --resume", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    sys.exit(cli())
