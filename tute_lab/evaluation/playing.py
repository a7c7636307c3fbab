"""Playing a deal set: one batch at one seating, in batches, or in Ray tasks; pairings and mixed teams."""

from __future__ import annotations

import dataclasses
import math
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from agents import Agent
from tute_env.engine.core import Game, State
from tute_env.engine.deal import Deals
from tute_env.engine.rules import Rules, make_rules
from tute_env.play.records import Record, Recorder, RecordWriter
from tute_env.play.seating import ActionHook, Seating
from tute_env.play.streams import mix

from .deals import DEFAULT_BATCH_DEALS, HELD_OUT_SEED_START, TRAINING_SEED_LIMIT, DealRange, Lineup, pairing_seatings
from .results import MIN_DEALS_FOR_CI, PairingResult

Z95 = 1.959963984540054
#: Where an evaluation's game records go: a path (a new JSON Lines file), or a callable taking each
#: :class:`~tute_env.play.records.Record` (a ``RecordWriter``), or None (no records).
RecordSink = str | Path | Callable[[Record], object] | None


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
        lane_streams = mix(np.repeat(np.asarray(deal_ids, dtype=np.int64), s_count),
                           np.tile(np.arange(s_count), len(deals)))
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


def _seat_team_per_side(rules: Rules, seat_team: np.ndarray) -> np.ndarray:
    """(S, sides) team of each scoring side (side x's first seat is seat x)."""
    return seat_team[:, : rules.num_sides]


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


def evaluate_lineup(rules: Rules, lineup: Lineup, deals: DealRange, *, progress: bool = False,
                    desc: str | None = None, record: RecordSink = None, device: str = "cpu",
                    workers: int | None = None) -> PairingResult:
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
    sink, close = open_record_sink(record)
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


def mean_ci(x: np.ndarray) -> tuple[float, float | None]:
    """The mean over deals and the half width of its 95% CI (None below ``MIN_DEALS_FOR_CI`` deals)."""
    mean = float(np.mean(x))
    half = Z95 * float(np.std(x, ddof=1)) / math.sqrt(len(x)) if len(x) >= MIN_DEALS_FOR_CI else None
    return mean, half


def _result(rules: Rules, lineup: Lineup, deals: DealRange, per_deal, seconds: float) -> PairingResult:
    """The :class:`PairingResult` of per-deal arrays (from :func:`play_range`, whole or merged)."""
    scores, diffs, games_a, games_b = per_deal
    num_deals = len(scores)
    win_rate, half = mean_ci(scores)
    diff, diff_half = mean_ci(diffs)
    return PairingResult(
        agent_a=lineup.names[0], agent_b=lineup.names[1], rules=dataclasses.asdict(rules), num_deals=num_deals,
        seed_start=deals.seed_start, seatings=len(lineup.seat_agents), hands=num_deals * len(lineup.seat_agents),
        win_rate=win_rate, ci_low=None if half is None else win_rate - half,
        ci_high=None if half is None else win_rate + half,
        mean_point_diff=diff, point_diff_ci=diff_half, games_a=float(np.mean(games_a)),
        games_b=float(np.mean(games_b)), seconds=seconds, deal_scores=scores, deal_point_diffs=diffs,
    )


def open_record_sink(record) -> tuple:
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
    desc: str | None = None,
) -> PairingResult:
    """A against B on ``num_deals`` duplicate deals (see :mod:`tute_lab.evaluation` for the method).

    ``rules``: a :class:`Rules` or a preset name. Agents: objects or spec strings (made with
    seeds derived from ``agent_seed``, default ``seed_start``). ``record``: a path or a callable
    receiving every hand's :class:`~tute_env.play.records.Record` (docs/records.md). ``workers``: run
    the deal set as that many Ray tasks (see :func:`play_distributed`); the result is the local one.
    ``desc``: the progress bar's label (default ``"A vs B"``)."""
    rules = make_rules(rules)
    seed = seed_start if agent_seed is None else agent_seed
    seat_team = pairing_seatings(rules)
    lineup = Lineup(((agent_a, seed), (agent_b, seed + 1)), seat_team, seat_team,
                    (agent_label(agent_a), agent_label(agent_b)))
    return evaluate_lineup(rules, lineup, DealRange(num_deals, seed_start, batch_deals), progress=progress,
                           desc=desc, record=record, device=device, workers=workers)


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
    return evaluate_lineup(rules, lineup, DealRange(num_deals, seed_start, batch_deals), progress=progress,
                           record=record, device=device, workers=workers)
