"""Self-play games and the opponent pool.

:class:`Pool`: rule-based bots and frozen snapshots of the learner, with the learner's running
score against each, from which opponents are drawn by prioritised fictitious self-play.
:class:`SelfPlayGames`: ``num_envs`` games on the core at one :class:`~tute_env.play.seating.Seating`
whose LEARNER seats are the learner's; from its side each game is a single-agent episode.
"""

from __future__ import annotations

import numpy as np
import torch

from agents import make_agent
from agents.ppo import PolicyNet, PolicyStack, PPOAgent
from tute_env.engine.cards import U64
from tute_env.engine.core import Game, State
from tute_env.engine.scoring import hand_rewards
from tute_env.play.seating import LEARNER, Seating


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


class SelfPlayGames:
    """``num_envs`` games on the core at one :class:`~tute_env.play.seating.Seating`: the learner's seats
    are the table's LEARNER seats, every other seat a pool entry."""

    def __init__(self, rules, num_envs, rng, pool, args):
        self.rules, self.game, self.rng, self.pool, self.args = rules, Game(rules), rng, pool, args
        self.state = self.game.random_state(rng, num_envs)
        self.seating = Seating(self.game, pool.agents, np.full((num_envs, rules.num_players), LEARNER))
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
        self.seating.seats[lanes] = np.where(learner, LEARNER, seats)

    def learner_seat(self, lanes: np.ndarray) -> np.ndarray:
        return (self.seating.seats[lanes] == LEARNER).argmax(axis=1)

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
        """The learner's actions, then the pool plays until the learner is to act in every game;
        finished hands are scored (in the pool too) and dealt anew. Returns the reward per game,
        which games ended, and (pool entries, wins 1/0) of the hands that ended."""
        reward, ended, results = np.zeros(len(actions)), np.zeros(len(actions), bool), []

        def hands_over(lanes):
            s = self.state
            rewards = hand_rewards(self.rules, "win", s.winner[lanes], s.games[lanes], s.totals[lanes],
                                   s.tute_declarer[lanes], self.args.point_weight)
            seat = self.learner_seat(lanes)
            reward[lanes] = rewards[np.arange(lanes.size), seat]
            won = (s.winner[lanes] == np.array([self.rules.side_of(x) for x in seat])).astype(np.float64)
            ended[lanes] = True
            results.append((self.opponent[lanes].copy(), won))
            self.pool.record(self.opponent[lanes], won)
            self.assign(lanes)

        self.seating.step(self.state, actions)
        self.decisions += len(actions)
        self.advance(hands_over)
        return reward, ended, results

    def advance(self, on_done=None) -> None:
        self.seating.policies = self.pool.agents  # the pool's entries change with snapshots
        self.decisions += self.seating.advance(self.state, on_done, self.rng)

    def arrays(self) -> dict:
        return {
            "state": {k: _to_tensor(getattr(self.state, k)) for k in self.state.__dataclass_fields__},
            "seats": torch.from_numpy(self.seating.seats.copy()),
            "opponent": torch.from_numpy(self.opponent.copy()),
            "decisions": self.decisions,
        }

    def load(self, data: dict) -> None:
        """Games from :meth:`arrays`, seated by this pool as it was when they were saved."""
        self.seating.policies = self.pool.agents
        ref = self.state
        self.state = State(**{k: _from_tensor(v, getattr(ref, k).dtype) for k, v in data["state"].items()})
        self.seating.seats = data["seats"].numpy().copy()
        self.opponent = data["opponent"].numpy().copy()
        self.decisions = data["decisions"]


def _to_tensor(array: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(array.view(np.int64) if array.dtype == U64 else array.copy())


def _from_tensor(tensor: torch.Tensor, dtype) -> np.ndarray:
    array = tensor.numpy().copy()
    return array.view(U64) if dtype == U64 else array
