"""Deal sets (seeded, held out from training), duplicate seatings, deal ranges and lineups."""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass

import numpy as np

from agents import Agent, make_agent
from tute_env.engine.deal import Deals, seeded_deals
from tute_env.engine.rules import Rules

#: Training draws its deals from seeds below this; evaluation defaults to seeds from here on.
TRAINING_SEED_LIMIT = 10**9
#: First seed of the default (held-out) evaluation deal set.
HELD_OUT_SEED_START = TRAINING_SEED_LIMIT
#: Deals per batch on the core (the lanes are deals x seatings).
DEFAULT_BATCH_DEALS = 4096


def deal_set(rules: Rules, num_deals: int, seed_start: int = HELD_OUT_SEED_START) -> Deals:
    """Deals ``seed_start .. seed_start + num_deals - 1`` (:func:`tute_env.engine.deal.seeded_deals`)."""
    return seeded_deals(rules, seed_start, num_deals)


def pairing_seatings(rules: Rules) -> np.ndarray:
    """(S, n) int: team (0 = A, 1 = B) of each seat in each seating of a duplicate pairing."""
    n = rules.num_players
    if rules.partnerships:
        return np.array([[0, 1, 0, 1], [1, 0, 1, 0]])
    rows = [[0 if seat in subset else 1 for seat in range(n)]
            for k in range(1, n) for subset in itertools.combinations(range(n), k)]
    return np.array(rows)


@dataclass(frozen=True)
class DealRange:
    """A deal set: deals ``seed_start .. seed_start + num_deals - 1``, played ``batch_deals`` at a
    time on the core (the batching changes the speed, never a deal's numbers)."""

    num_deals: int = 2000
    """Deals; each is played once per seating."""
    seed_start: int = HELD_OUT_SEED_START
    """Deal i is drawn from seed ``seed_start + i``; the default is the held-out range."""
    batch_deals: int = DEFAULT_BATCH_DEALS
    """Deals per batch on the core (its lanes are deals x seatings)."""

    def _part(self, first: int, count: int) -> DealRange:
        return dataclasses.replace(self, num_deals=count, seed_start=self.seed_start + first)

    def batches(self) -> list[DealRange]:
        """The range as consecutive batches of at most ``batch_deals`` deals."""
        return [self._part(first, min(self.batch_deals, self.num_deals - first))
                for first in range(0, self.num_deals, self.batch_deals)]

    def shards(self, count: int) -> list[DealRange]:
        """``count`` contiguous parts (:func:`shard_bounds`)."""
        return [self._part(first, n) for first, n in shard_bounds(self.num_deals, count)]

    @property
    def seeds(self) -> np.ndarray:
        """(num_deals,) the deals' seeds, which also name them (their random streams)."""
        return np.arange(self.seed_start, self.seed_start + self.num_deals)

    def deals(self, rules: Rules) -> Deals:
        return deal_set(rules, self.num_deals, self.seed_start)


def shard_bounds(num_deals: int, shards: int) -> list[tuple[int, int]]:
    """(first, count) of ``shards`` contiguous ranges of ``num_deals`` deals (sizes differing by
    at most one; none empty)."""
    shards = max(1, min(shards, num_deals))
    edges = [k * num_deals // shards for k in range(shards + 1)]
    return [(edges[k], edges[k + 1] - edges[k]) for k in range(shards)]


def _as_agent(agent: Agent | str, rules: Rules, seed: int, device: str = "cpu") -> Agent:
    return make_agent(agent, rules, seed=seed, device=device) if isinstance(agent, str) else agent


@dataclass(frozen=True)
class Lineup:
    """Who plays a duplicate evaluation: the agents, the seat each takes in every seating, the teams."""

    sources: tuple[tuple[Agent | str, int], ...]
    """(spec or agent object, seed) of each agent: what the agents are made from, here or in a Ray task."""
    seat_agents: np.ndarray
    """(S, n) int: index into ``sources`` of the agent in each seat, per seating."""
    seat_team: np.ndarray
    """(S, n) int: team (0 = A, 1 = B) of each seat, per seating."""
    names: tuple[str, str]
    """The two teams' names (A's, B's)."""
    labels: tuple[str, ...] | None = None
    """Each agent's label in game records (default: its team's name)."""

    def make_agents(self, rules: Rules, device: str = "cpu") -> list[Agent]:
        return [_as_agent(x, rules, seed, device) for x, seed in self.sources]

    @property
    def record_labels(self) -> tuple[str, ...]:
        return self.labels or self.names
