"""A pairing's result: win rate, confidence interval, point difference, games, speed."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

#: The fewest deals a 95% confidence interval is given for: mean +- 1.96 sd / sqrt(D) is a normal
#: approximation, and over a handful of deals the sample sd says little (two deals that each split
#: their seatings give sd 0 and a zero-width interval, which is no certainty). Below it the bounds
#: are None (null in JSON, empty in CSV) and the summary says why.
MIN_DEALS_FOR_CI = 30


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
    ci_low: float | None
    ci_high: float | None
    """The 95% CI of ``win_rate`` (over deals); None with fewer than :data:`MIN_DEALS_FOR_CI` deals."""
    mean_point_diff: float
    """Per hand: mean total of A's side(s) minus mean total of B's."""
    point_diff_ci: float | None
    """Half width of the 95% CI of ``mean_point_diff`` (over deals); None as ``ci_low``."""
    games_a: float
    """Games credited to A per hand (R9: 1, 2 over 100, Tute...)."""
    games_b: float
    seconds: float
    deal_scores: np.ndarray = field(repr=False, default=None)
    """(D,) A's score on each deal."""
    deal_point_diffs: np.ndarray = field(repr=False, default=None)

    @property
    def ci_half_width(self) -> float | None:
        return None if self.ci_low is None else (self.ci_high - self.ci_low) / 2

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else float("inf")

    def significant(self) -> bool:
        """The 95% CI excludes 0.5 (False without an interval)."""
        return self.ci_low is not None and (self.ci_low > 0.5 or self.ci_high < 0.5)

    def interval_text(self) -> str:
        """``"[0.412, 0.588]"``, or why there is none: ``"(no interval from 2 deals: 30 give one)"``."""
        if self.ci_low is None:
            return f"(no interval from {self.num_deals} deal{'s' * (self.num_deals != 1)}: {MIN_DEALS_FOR_CI} give one)"
        return f"[{self.ci_low:.3f}, {self.ci_high:.3f}]"

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
            f"{self.agent_a} vs {self.agent_b}: win rate {self.win_rate:.3f} {self.interval_text()}, "
            f"point diff {self.mean_point_diff:+.1f}"
            + ("" if self.point_diff_ci is None else f" +- {self.point_diff_ci:.1f}")
            + f", games/hand {self.games_a:.3f} vs {self.games_b:.3f} "
            f"({self.num_deals} deals, {self.hands} hands, {self.hands_per_second:,.0f} hands/s)"
        )
