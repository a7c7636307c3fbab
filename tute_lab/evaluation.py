"""Measuring bot strength with duplicate deals: the library behind ``evaluate.py`` (``tute-evaluate``,
whose docstring has the command lines).

>>> result = evaluate_pairing("two_player", "heuristic", "greedy", num_deals=2000)
>>> result.win_rate, result.ci_low, result.ci_high

Agents are named by specs (:func:`agents.make_agent`; the grammar is :mod:`agents.registry`'s) or passed as
:class:`agents.Agent` objects.

Method
------
* **Deals from seeds.** Deal ``i`` of a deal set is drawn from seed ``seed_start + i``, so a deal
  set is reproducible and a prefix of a bigger one. The default, :data:`HELD_OUT_SEED_START`, is
  a held-out range: training must draw its deals from seeds below :data:`TRAINING_SEED_LIMIT`.
* **Duplicate play.** Every deal is played once per *seating*: with two sides (the partnership
  game, two players) A takes side 0 and then side 1 (partnership: seats 0+2, then 1+3); with three
  players A takes every non-empty proper subset of the seats (one seat against two B's, three
  ways, and two seats against one B, three ways), so self-play scores 0.5 and A's score
  against B is 1 minus B's against A. The cards each seat gets do not change between seatings,
  so the luck of the deal cancels.
* **Win rate.** A's score on a deal is the mean over its seatings of 1 (A's side won the hand) or
  0; the win rate is the mean over deals, and its 95% confidence interval is
  ``mean +- 1.96 * sd / sqrt(D)`` over the D deal scores (the deal is the independent unit).
* Also reported: mean point difference per hand (mean hand total of A's sides minus that of B's,
  with its CI), games credited per hand to each (R9), hands played, and speed.
* **One batch.** All games of a deal set (deals x seatings) run as one batch on the core, seated at one ``tute_env.play.seating.Seating``;
  each agent's ``act_batch`` is called on the lanes where one of its seats is to act.
* **Random streams.** Lane ``d * S + s`` plays with the stream ``mix(deal seed, s)``
  (:mod:`tute_env.play.streams`): every random choice an agent makes there comes from (its seed, the
  deal, the seating, the decision's index in the game), so results do not depend on the batch size.
* **Distributed** (``--ray local|auto|ADDRESS --num-workers N``, :func:`play_distributed`): the deal
  set is split into N contiguous ranges, each a Ray task making its agents from their specs and
  seeds; the per-deal numbers are concatenated in deal order, so the result equals the local one
  (the timing aside). Needs ``pip install 'tute_env[ray]'``; docs/scaling.md.
* **Round robin.** Every pair of a set of agents on the same deals, a win-rate table, and
  OpenSkill (Plackett-Luce) ratings updated once per duplicate deal (a win, a draw when the
  seatings split evenly, or a loss), the pairings' deals interleaved.
"""

from __future__ import annotations

import csv
import dataclasses
import itertools
import json
import math
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents import Agent, make_agent
from tute_env.engine.core import Game, State
from tute_env.engine.deal import Deals, seeded_deals
from tute_env.engine.rules import Rules, make_rules
from tute_env.play.records import Record, Recorder, RecordWriter
from tute_env.play.seating import ActionHook, Seating
from tute_env.play.streams import mix

#: Training draws its deals from seeds below this; evaluation defaults to seeds from here on.
TRAINING_SEED_LIMIT = 10**9
#: First seed of the default (held-out) evaluation deal set.
HELD_OUT_SEED_START = TRAINING_SEED_LIMIT
#: Deals per batch on the core (the lanes are deals x seatings).
DEFAULT_BATCH_DEALS = 4096
Z95 = 1.959963984540054
#: Where an evaluation's game records go: a path (a new JSON Lines file), or a callable taking each
#: :class:`~tute_env.play.records.Record` (a ``RecordWriter``), or None (no records).
RecordSink = str | Path | Callable[[Record], object] | None


# ----------------------------------------------------------------------------------------------
# Deals and seatings
# ----------------------------------------------------------------------------------------------
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


def _seat_team_per_side(rules: Rules, seat_team: np.ndarray) -> np.ndarray:
    """(S, sides) team of each scoring side (side x's first seat is seat x)."""
    return seat_team[:, : rules.num_sides]


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


# ----------------------------------------------------------------------------------------------
# Results
# ----------------------------------------------------------------------------------------------
@dataclass
class PairingResult:
    """A against B on a duplicate deal set. Rates and differences are from A's point of view."""

    agent_a: str
    agent_b: str
    rules: dict
    num_deals: int
    seed_start: int
    seatings: int
    """Seatings per deal (2 with two sides, 6 with three players)."""
    hands: int
    """Hands played: deals x seatings."""
    win_rate: float
    """Mean over deals of A's mean win (0/1) over the seatings."""
    ci_low: float
    ci_high: float
    mean_point_diff: float
    """Per hand: mean total of A's side(s) minus mean total of B's."""
    point_diff_ci: float
    """Half width of the 95% CI of ``mean_point_diff`` (over deals)."""
    games_a: float
    """Games credited to A per hand (R9: 1, 2 over 100, Tute...)."""
    games_b: float
    seconds: float
    deal_scores: np.ndarray = field(repr=False, default=None)
    """(D,) A's score on each deal."""
    deal_point_diffs: np.ndarray = field(repr=False, default=None)

    @property
    def ci_half_width(self) -> float:
        return (self.ci_high - self.ci_low) / 2

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else float("inf")

    def significant(self) -> bool:
        """The 95% CI excludes 0.5."""
        return self.ci_low > 0.5 or self.ci_high < 0.5

    def to_dict(self, with_deals: bool = False) -> dict:
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
               if f.name not in ("deal_scores", "deal_point_diffs")}
        out["hands_per_second"] = self.hands_per_second
        if with_deals:
            out["deal_scores"] = [float(x) for x in self.deal_scores]
            out["deal_point_diffs"] = [float(x) for x in self.deal_point_diffs]
        return out

    def summary(self) -> str:
        return (
            f"{self.agent_a} vs {self.agent_b}: win rate {self.win_rate:.3f} "
            f"[{self.ci_low:.3f}, {self.ci_high:.3f}], point diff {self.mean_point_diff:+.1f} "
            f"+- {self.point_diff_ci:.1f}, games/hand {self.games_a:.3f} vs {self.games_b:.3f} "
            f"({self.num_deals} deals, {self.hands} hands, {self.hands_per_second:,.0f} hands/s)"
        )


def _mean_ci(x: np.ndarray) -> tuple[float, float]:
    mean = float(np.mean(x))
    half = Z95 * float(np.std(x, ddof=1)) / math.sqrt(len(x)) if len(x) > 1 else float("nan")
    return mean, half


# ----------------------------------------------------------------------------------------------
# Playing a deal set
# ----------------------------------------------------------------------------------------------
def _as_agent(agent: Agent | str, rules: Rules, seed: int, device: str = "cpu") -> Agent:
    return make_agent(agent, rules, seed=seed, device=device) if isinstance(agent, str) else agent


def agent_label(agent: Agent | str) -> str:
    return agent if isinstance(agent, str) else getattr(agent, "spec", None) or repr(agent)


def play_deals(
    rules: Rules,
    deals: Deals,
    agents: Sequence[Agent],
    seat_agents: np.ndarray,
    progress=None,
    hooks: Sequence[ActionHook] = (),
    deal_ids=None,
) -> State:
    """Play every deal once per row of ``seat_agents`` ((S, n) index into ``agents`` per seat),
    all as one batch at one :class:`~tute_env.play.seating.Seating`; returns the finished states, lane
    ``d * S + s`` for deal d and seating s. ``hooks`` see every action. ``deal_ids``: (D,) ints
    naming the deals (their seeds): lane ``d * S + s`` then plays with the random stream
    ``mix(deal_ids[d], s)`` (:mod:`tute_env.play.streams`), so agents that take keys make the same
    random choices on a deal whatever the batch; None: no streams."""
    game = Game(rules)
    seat_agents = np.asarray(seat_agents)
    s_count = len(seat_agents)
    # The deals come from `deal_set` (valid by construction): skip the per-deal validation.
    state = game.new_state(deals, validate=False).take(np.repeat(np.arange(len(deals)), s_count))
    bar = _ProgressHook(progress) if progress is not None else None
    lane_streams = None
    if deal_ids is not None:
        lane_streams = mix(np.repeat(np.asarray(deal_ids, dtype=np.int64), s_count), np.tile(np.arange(s_count), len(deals)))
    Seating(game, agents, np.tile(seat_agents, (len(deals), 1)), [*hooks, *([bar] if bar else [])],
          streams=lane_streams).advance(state)
    if bar is not None:
        bar.finish(state)
    return state


class _ProgressHook:
    """Counts a batch's finished hands on a tqdm bar as the table plays them."""

    def __init__(self, bar):
        self.bar, self.step, self.done = bar, 0, 0

    def __call__(self, state, lanes, actions):
        self.step += 1
        # Hands end together near the end of a batch: show the decisions made meanwhile.
        self.bar.set_postfix_str(f"decision {self.step} of the batch's hands", refresh=False)
        self.finish(state)

    def finish(self, state):
        done = int(state.done.sum())
        self.bar.update(done - self.done)
        self.done = done


def _score(rules: Rules, finished: State, seat_team: np.ndarray, num_deals: int):
    """Per-deal A scores, point differences, and games per hand credited to A and to B (each
    (num_deals,), the mean over the deal's seatings) from finished lanes."""
    s_count = len(seat_team)
    side_team = _seat_team_per_side(rules, seat_team)  # (S, sides)
    lane_team = np.tile(side_team, (num_deals, 1))  # (L, sides)
    winner_team = lane_team[np.arange(len(lane_team)), finished.winner.astype(np.intp)]
    a_win = (winner_team == 0).astype(np.float64)
    totals = finished.totals.astype(np.float64)
    is_a = lane_team == 0
    diff = (totals * is_a).sum(1) / is_a.sum(1) - (totals * ~is_a).sum(1) / (~is_a).sum(1)
    games = finished.games.astype(np.float64)
    scores = a_win.reshape(num_deals, s_count).mean(axis=1)
    diffs = diff.reshape(num_deals, s_count).mean(axis=1)
    games_a = (games * a_win).reshape(num_deals, s_count).mean(axis=1)
    games_b = (games * (1 - a_win)).reshape(num_deals, s_count).mean(axis=1)
    return scores, diffs, games_a, games_b


def _evaluate(rules: Rules, lineup: Lineup, deals: DealRange, *, progress: bool = False, desc: str | None = None,
              record: RecordSink = None, device: str = "cpu", workers: int | None = None) -> PairingResult:
    """The lineup on the deal range, here or (``workers``) in Ray tasks; the agents are made here
    in any case, so a bad spec is named before anything is played."""
    _warn_not_held_out(deals.seed_start, stacklevel=4)
    agents = lineup.make_agents(rules, device)
    if workers is not None:
        if record is not None:
            raise ValueError("game records are written locally only: no record with Ray workers")
        start = time.perf_counter()
        per_deal = play_distributed(rules, lineup, deals, workers, device)
        return _result(rules, lineup, deals, per_deal, time.perf_counter() - start)
    bar = None
    if progress:
        from tqdm import tqdm

        # disable=None: a bar on a terminal only, so logs get no carriage returns
        bar = tqdm(total=deals.num_deals * len(lineup.seat_agents), unit="hand",
                   desc=desc or f"{lineup.names[0]} vs {lineup.names[1]}", disable=None, leave=False, file=sys.stderr)
    start = time.perf_counter()
    sink, close = _record_sink(record)
    try:
        per_deal = play_range(rules, agents, lineup, deals, bar=bar, record=sink)
    finally:
        if bar is not None:
            bar.close()
        if close:
            sink.close()
    return _result(rules, lineup, deals, per_deal, time.perf_counter() - start)


def _warn_not_held_out(seed_start: int, stacklevel: int) -> None:
    if seed_start < TRAINING_SEED_LIMIT:
        warnings.warn(
            f"seed_start {seed_start} is below TRAINING_SEED_LIMIT ({TRAINING_SEED_LIMIT}): these deals "
            "are not held out from training", stacklevel=stacklevel,
        )


def play_range(rules: Rules, agents: Sequence[Agent], lineup: Lineup, deals: DealRange, bar=None, record=None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The deal range played in its batches: per-deal (scores, point diffs, games of A, games of
    B), each (num_deals,). A deal's numbers depend on the deal, the agents and their seeds only
    (keyed draws), not on the batching: the ranges of a split deal set, concatenated, give the
    numbers of the whole."""
    out: list[list[np.ndarray]] = [[], [], [], []]
    for batch in deals.batches():
        recorder = None if record is None else _pairing_recorder(rules, record, lineup, batch.seed_start)
        finished = play_deals(rules, batch.deals(rules), agents, lineup.seat_agents, bar,
                              hooks=() if recorder is None else [recorder], deal_ids=batch.seeds)
        if recorder is not None:
            recorder.end(finished)
        for acc, x in zip(out, _score(rules, finished, lineup.seat_team, batch.num_deals)):
            acc.append(x)
    return tuple(np.concatenate(acc) for acc in out)


def _shard(rules: Rules, lineup: Lineup, deals: DealRange, device: str):
    """One Ray task: its agents made from the lineup's sources, its deals played (:func:`play_range`)."""
    return play_range(rules, lineup.make_agents(rules, device), lineup, deals)


def play_distributed(rules: Rules, lineup: Lineup, deals: DealRange, workers: int, device: str = "cpu"):
    """:func:`play_range` split into ``workers`` contiguous ranges of the deal set, each a Ray
    task (one CPU) on the Ray instance this process is connected to (``ray.init`` first, e.g.
    :func:`tute_lab.ray_cluster.connect_ray`), merged in deal order: equal to the local numbers,
    since every agent's draws on a deal come from its seed and the deal (:mod:`tute_env.play.streams`).
    The tasks make their agents from ``lineup.sources``."""
    import ray

    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    for agent, _ in lineup.sources:
        if not isinstance(agent, str):
            try:
                ray.cloudpickle.dumps(agent)
            except Exception as err:
                raise ValueError(f"agent {agent_label(agent)!r} cannot be sent to Ray workers ({type(err).__name__}):"
                                 " give it by name") from None
    task = ray.remote(num_cpus=1)(_shard)
    parts = ray.get([task.remote(rules, lineup, part, device) for part in deals.shards(workers)])
    return tuple(np.concatenate([part[k] for part in parts]) for k in range(4))


def _result(rules: Rules, lineup: Lineup, deals: DealRange, per_deal, seconds: float) -> PairingResult:
    """The :class:`PairingResult` of per-deal arrays (from :func:`play_range`, whole or merged)."""
    scores, diffs, games_a, games_b = per_deal
    num_deals = len(scores)
    win_rate, half = _mean_ci(scores)
    diff, diff_half = _mean_ci(diffs)
    return PairingResult(
        agent_a=lineup.names[0], agent_b=lineup.names[1], rules=dataclasses.asdict(rules), num_deals=num_deals,
        seed_start=deals.seed_start, seatings=len(lineup.seat_agents), hands=num_deals * len(lineup.seat_agents),
        win_rate=win_rate, ci_low=win_rate - half, ci_high=win_rate + half,
        mean_point_diff=diff, point_diff_ci=diff_half, games_a=float(np.mean(games_a)),
        games_b=float(np.mean(games_b)), seconds=seconds, deal_scores=scores, deal_point_diffs=diffs,
    )


def _record_sink(record) -> tuple:
    """(callable or None, whether to close it): a path opens a new :class:`RecordWriter`."""
    if record is None or callable(record):
        return record, False
    return RecordWriter(record), True


def _pairing_recorder(rules: Rules, sink, lineup: Lineup, seed_first: int) -> Recorder:
    """A recorder for one batch of :func:`play_deals` (lane ``d * S + s``: deal d, seating s):
    each seat labelled with its agent; the deal's seed, the seating and the teams in the record."""
    seat_agents, labels = lineup.seat_agents, lineup.record_labels
    s_count = len(seat_agents)
    evaluation = f"{lineup.names[0]} vs {lineup.names[1]}"

    def describe(lane: int) -> dict:
        s = lane % s_count
        return {"seed": seed_first + lane // s_count,
                "meta": {"evaluation": evaluation, "seating": s,
                         "teams": ["AB"[t] for t in lineup.seat_team[s].tolist()]}}

    return Recorder(rules, players=lambda lane: [labels[k] for k in seat_agents[lane % s_count]], on_record=sink,
                    describe=describe)


def evaluate_pairing(
    rules: Rules | str,
    agent_a: Agent | str,
    agent_b: Agent | str,
    num_deals: int = 2000,
    seed_start: int = HELD_OUT_SEED_START,
    batch_deals: int = DEFAULT_BATCH_DEALS,
    progress: bool = False,
    agent_seed: int | None = None,
    record: RecordSink = None,
    device: str = "cpu",
    workers: int | None = None,
) -> PairingResult:
    """A against B on ``num_deals`` duplicate deals (see the module docstring for the method).

    ``rules``: a :class:`Rules` or a preset name. Agents: objects or spec strings (made with
    seeds derived from ``agent_seed``, default ``seed_start``). ``record``: a path or a callable
    receiving every hand's :class:`~tute_env.play.records.Record` (docs/records.md). ``workers``: run
    the deal set as that many Ray tasks (see :func:`play_distributed`); the result is the local one."""
    rules = make_rules(rules)
    seed = seed_start if agent_seed is None else agent_seed
    seat_team = pairing_seatings(rules)
    lineup = Lineup(((agent_a, seed), (agent_b, seed + 1)), seat_team, seat_team,
                    (agent_label(agent_a), agent_label(agent_b)))
    return _evaluate(rules, lineup, DealRange(num_deals, seed_start, batch_deals), progress=progress, record=record,
                     device=device, workers=workers)


def evaluate_teams(
    rules: Rules | str,
    team_a: tuple[Agent | str, Agent | str],
    team_b: tuple[Agent | str, Agent | str],
    num_deals: int = 2000,
    seed_start: int = HELD_OUT_SEED_START,
    batch_deals: int = DEFAULT_BATCH_DEALS,
    progress: bool = False,
    agent_seed: int | None = None,
    record: RecordSink = None,
    device: str = "cpu",
    workers: int | None = None,
) -> PairingResult:
    """Mixed partnerships: ``team_a = (A, B)`` (A on seat 0 or 1, B opposite) against
    ``team_b = (C, D)``, duplicate over both sides. Four-player rules only. ``record``,
    ``workers``: as :func:`evaluate_pairing`."""
    rules = make_rules(rules)
    if not rules.partnerships:
        raise ValueError("mixed teams need the four-player partnership game")
    seed = seed_start if agent_seed is None else agent_seed
    specs = [*team_a, *team_b]
    labels = tuple(agent_label(x) for x in specs)
    lineup = Lineup(tuple((x, seed + k) for k, x in enumerate(specs)), np.array([[0, 2, 1, 3], [2, 0, 3, 1]]),
                    np.array([[0, 1, 0, 1], [1, 0, 1, 0]]), (f"{labels[0]}+{labels[1]}", f"{labels[2]}+{labels[3]}"),
                    labels)
    return _evaluate(rules, lineup, DealRange(num_deals, seed_start, batch_deals), progress=progress, record=record,
                     device=device, workers=workers)


# ----------------------------------------------------------------------------------------------
# Round robin and ratings
# ----------------------------------------------------------------------------------------------
@dataclass
class RoundRobinResult:
    agents: list[str]
    pairings: list[PairingResult]
    ratings: dict[str, dict[str, float]]
    """name -> {"mu", "sigma", "ordinal"} (OpenSkill Plackett-Luce; ordinal = mu - 3 sigma)."""

    def win_rate_table(self) -> np.ndarray:
        """(k, k) row agent's win rate against column agent (0.5 on the diagonal)."""
        k = len(self.agents)
        table = np.full((k, k), 0.5)
        index = {name: i for i, name in enumerate(self.agents)}
        for p in self.pairings:
            i, j = index[p.agent_a], index[p.agent_b]
            table[i, j], table[j, i] = p.win_rate, 1 - p.win_rate
        return table

    def ci_table(self) -> np.ndarray:
        """(k, k) half widths of the 95% CIs (0 on the diagonal)."""
        k = len(self.agents)
        table = np.zeros((k, k))
        index = {name: i for i, name in enumerate(self.agents)}
        for p in self.pairings:
            i, j = index[p.agent_a], index[p.agent_b]
            table[i, j] = table[j, i] = p.ci_half_width
        return table

    def to_dict(self, with_deals: bool = False) -> dict:
        return {
            "agents": self.agents,
            "win_rate_table": self.win_rate_table().tolist(),
            "ci_half_width_table": self.ci_table().tolist(),
            "ratings": self.ratings,
            "pairings": [p.to_dict(with_deals) for p in self.pairings],
        }

    def summary(self) -> str:
        width = max(10, *(len(a) for a in self.agents)) + 2
        cell = max(16, width)  # a long spec (a path, pkg.module:Name) still leaves a space
        table, ci = self.win_rate_table(), self.ci_table()
        k = len(self.agents)
        lines = ["win rate of row vs column (95% CI half width)",
                 " " * width + "".join(f"{a:>{cell}}" for a in self.agents)]
        for i, a in enumerate(self.agents):
            cells = "".join(f"{'-':>{cell}}" if i == j else f"{f'{table[i, j]:.3f}+-{ci[i, j]:.3f}':>{cell}}"
                            for j in range(k))
            lines.append(f"{a:<{width}}{cells}")
        ranked = sorted(self.ratings.items(), key=lambda kv: -kv[1]["ordinal"])
        lines.append("ratings (OpenSkill Plackett-Luce): "
                     + ", ".join(f"{a} {r['mu']:.1f}+-{r['sigma']:.1f}" for a, r in ranked))
        return "\n".join(lines)


def rate(names: Sequence[str], pairings: Sequence[PairingResult]) -> dict[str, dict[str, float]]:
    """OpenSkill (Plackett-Luce) ratings from duplicate pairings: one match per deal, won by the
    agent with the higher deal score (a draw at 0.5); the pairings' deals interleaved."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in names}
    longest = max((p.num_deals for p in pairings), default=0)
    for d in range(longest):
        for p in pairings:
            if d >= p.num_deals:
                continue
            score = p.deal_scores[d]
            ranks = [0, 0] if score == 0.5 else ([0, 1] if score > 0.5 else [1, 0])
            (ra,), (rb,) = model.rate([[ratings[p.agent_a]], [ratings[p.agent_b]]], ranks=ranks)
            ratings[p.agent_a], ratings[p.agent_b] = ra, rb
    return {name: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for name, r in ratings.items()}


def round_robin(
    rules: Rules | str,
    agents: Sequence[Agent | str],
    num_deals: int = 2000,
    seed_start: int = HELD_OUT_SEED_START,
    batch_deals: int = DEFAULT_BATCH_DEALS,
    progress: bool = False,
    record: RecordSink = None,
    device: str = "cpu",
    workers: int | None = None,
    agent_seed: int | None = None,
) -> RoundRobinResult:
    """Every pair of ``agents`` on the same duplicate deals, a win-rate table and ratings.
    ``record``: as :func:`evaluate_pairing`, every pairing's hands in one file; ``workers``: as
    :func:`evaluate_pairing`, per pairing; ``agent_seed``: pairing k's agents are seeded
    ``agent_seed + 2k`` and ``+ 2k + 1`` (default ``seed_start``)."""
    rules = make_rules(rules)
    first_seed = seed_start if agent_seed is None else agent_seed
    names = [agent_label(a) for a in agents]
    if len(set(names)) != len(names):
        raise ValueError(f"round robin agents need distinct names, got {names}")
    if len(names) < 2:
        raise ValueError("a round robin needs at least two agents")
    pairings = []
    sink, close = _record_sink(record)
    pairs = list(itertools.combinations(range(len(agents)), 2))
    deals, seat_team = DealRange(num_deals, seed_start, batch_deals), pairing_seatings(rules)
    for k, (i, j) in enumerate(pairs):
        # Fresh agents per pairing when given by name, so no pairing depends on another's order.
        lineup = Lineup(((agents[i], first_seed + 2 * k), (agents[j], first_seed + 2 * k + 1)), seat_team, seat_team,
                        (names[i], names[j]))
        pairings.append(_evaluate(rules, lineup, deals, progress=progress, record=sink, device=device, workers=workers,
                                  desc=f"[{k + 1}/{len(pairs)}] {names[i]} vs {names[j]}"))
    if close:
        sink.close()
    return RoundRobinResult(agents=names, pairings=pairings, ratings=rate(names, pairings))


# ----------------------------------------------------------------------------------------------
# Output
# ----------------------------------------------------------------------------------------------
CSV_FIELDS = ["agent_a", "agent_b", "num_deals", "hands", "seed_start", "win_rate", "ci_low", "ci_high",
              "mean_point_diff", "point_diff_ci", "games_a", "games_b", "seconds"]


def write_csv(path: str | Path, pairings: Sequence[PairingResult], preset: str = "") -> None:
    """One row per pairing."""
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["preset", *CSV_FIELDS])
        for p in pairings:
            writer.writerow([preset, *(getattr(p, k) for k in CSV_FIELDS)])


def write_json(path: str | Path, payload: dict) -> None:
    with open(path, "w") as f:
        json.dump(payload, f, indent=2, default=_json_default)
        f.write("\n")


def _json_default(x):
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"not JSON serialisable: {type(x)}")


def plot_table(result: RoundRobinResult | PairingResult, path: str | Path, title: str = "") -> None:
    """A PNG of the win-rate table (row vs column, with CI half widths)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if isinstance(result, PairingResult):
        names = [result.agent_a, result.agent_b]
        table = np.array([[0.5, result.win_rate], [1 - result.win_rate, 0.5]])
        ci = np.array([[0, result.ci_half_width], [result.ci_half_width, 0]])
    else:
        names, table, ci = result.agents, result.win_rate_table(), result.ci_table()
    k = len(names)
    fig, ax = plt.subplots(figsize=(1.6 * k + 2.5, 1.3 * k + 1.8))
    im = ax.imshow(table, cmap="RdYlGn", vmin=0, vmax=1)
    for i in range(k):
        for j in range(k):
            text = "-" if i == j else f"{table[i, j]:.3f}\n+-{ci[i, j]:.3f}"
            ax.text(j, i, text, ha="center", va="center", fontsize=9)
    ax.set_xticks(range(k), names, rotation=30, ha="right")
    ax.set_yticks(range(k), names)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    ax.set_title(title or "win rate of row agent vs column agent (95% CI)")
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def check_output_path(option: str, path: str | None) -> None:
    """``ValueError`` if the directory of the file ``--option path`` is to be written in is missing
    (checked before a run, so that its results are not lost at the end)."""
    if path and not Path(path).resolve().parent.is_dir():
        raise ValueError(f"--{option} {path}: the directory {Path(path).resolve().parent} does not exist")
