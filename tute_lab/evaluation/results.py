"""A pairing's result: win rate, confidence interval, point difference, games, speed."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np


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
