"""Round robin and ratings: every pair of agents on the same deals, OpenSkill ratings."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agents import Agent
from tute_env.engine.rules import Rules, make_rules

from .deals import DEFAULT_BATCH_DEALS, HELD_OUT_SEED_START, DealRange, Lineup, pairing_seatings
from .playing import RecordSink, agent_label, evaluate_lineup, open_record_sink
from .results import MIN_DEALS_FOR_CI, PairingResult


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
        """(k, k) half widths of the 95% CIs (0 on the diagonal, NaN for a pairing without one:
        too few deals, :data:`~tute_lab.evaluation.results.MIN_DEALS_FOR_CI`)."""
        k = len(self.agents)
        table = np.zeros((k, k))
        index = {name: i for i, name in enumerate(self.agents)}
        for p in self.pairings:
            i, j = index[p.agent_a], index[p.agent_b]
            table[i, j] = table[j, i] = np.nan if p.ci_half_width is None else p.ci_half_width
        return table

    def to_dict(self, with_deals: bool = False) -> dict:
        return {
            "agents": self.agents,
            "win_rate_table": self.win_rate_table().tolist(),
            "ci_half_width_table": [[None if np.isnan(x) else x for x in row] for row in self.ci_table().tolist()],
            "ratings": self.ratings,
            "pairings": [p.to_dict(with_deals) for p in self.pairings],
        }

    def summary(self) -> str:
        width = max(10, *(len(a) for a in self.agents)) + 2
        cell = max(16, width)  # a long spec (a path, pkg.module:Name) still leaves a space
        table, ci = self.win_rate_table(), self.ci_table()
        k = len(self.agents)
        lines = [f"win rate of row vs column (95% CI half width; none from fewer than {MIN_DEALS_FOR_CI} deals)",
                 " " * width + "".join(f"{a:>{cell}}" for a in self.agents)]
        for i, a in enumerate(self.agents):
            cells = "".join(f"{'-':>{cell}}" if i == j else f"{f'{table[i, j]:.3f}' + ci_text(ci[i, j]):>{cell}}"
                            for j in range(k))
            lines.append(f"{a:<{width}}{cells}")
        ranked = sorted(self.ratings.items(), key=lambda kv: -kv[1]["ordinal"])
        lines.append("ratings (OpenSkill Plackett-Luce): "
                     + ", ".join(f"{a} {r['mu']:.1f}+-{r['sigma']:.1f}" for a, r in ranked))
        return "\n".join(lines)


def ci_text(half: float) -> str:
    """``"+-0.034"``, or ``" no CI"`` for a pairing with too few deals to give one (NaN)."""
    return " no CI" if np.isnan(half) else f"+-{half:.3f}"


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
    sink, close = open_record_sink(record)
    pairs = list(itertools.combinations(range(len(agents)), 2))
    deals, seat_team = DealRange(num_deals, seed_start, batch_deals), pairing_seatings(rules)
    for k, (i, j) in enumerate(pairs):
        # Fresh agents per pairing when given by name, so no pairing depends on another's order.
        lineup = Lineup(((agents[i], first_seed + 2 * k), (agents[j], first_seed + 2 * k + 1)), seat_team, seat_team,
                        (names[i], names[j]))
        pairings.append(evaluate_lineup(rules, lineup, deals, progress=progress, record=sink, device=device,
                                        workers=workers, desc=f"[{k + 1}/{len(pairs)}] {names[i]} vs {names[j]}"))
    if close:
        sink.close()
    return RoundRobinResult(agents=names, pairings=pairings, ratings=rate(names, pairings))
