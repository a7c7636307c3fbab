"""``dds``: GIB-style play, Perfect Information Monte Carlo over exact double-dummy solutions.

For a decision late in the hand the bot

1. samples ``num_samples`` deals of the cards it has not seen, uniformly among those consistent
   with its information set (the exact sampler of :mod:`tute_env.search.infoset`);
2. solves each sampled deal exactly with every card known (:class:`tute_env.search.solver.Solver`: the
   value of every legal action under optimal play by every seat), and
3. plays the action with the best mean value over the samples (ties: the lowest action id).

That is how GIB played bridge card play. Earlier in the hand, where a whole deal is too costly to
solve within the time budget, it plays as ``pimc`` (the same sampler, rule-based playouts instead
of exact solutions: :class:`agents.pimc.PIMCAgent`); also whenever a solve would run past the
budget. The budget is the decision's: the solves may use ``solve_share`` of it (3/4 by default),
and when they run out pimc gets what is left (it always plays at least one batch of samples),
so a decision takes the budget plus at most one pimc batch. "Late" is: no face-down stock left and at most ``exact_cards`` cards in hand (by default
7 with four players, where a deal from trick 3 takes ~0.03 s to solve at the median, and 8
otherwise: the two-player game once the stock is gone, ~0.006 s).

A value is the observer's reward as :mod:`tute_env.engine.scoring` defines it, with ``point_weight``
(pimc's 1.15 by default, so that both parts of the hand score alike). ``make_agent("dds:32",
rules)`` is 32 samples. The bot is deterministic given its seed as long as the time budget
does not cut a search short.
"""

from __future__ import annotations

import time

import numpy as np

from tute_env.engine.cards import popcount
from tute_env.engine.rules import Rules
from tute_env.search.infoset import InfoSet, build_states
from tute_env.search.solver import Solver, SolverBudgetExceeded

from .pimc import PIMCAgent, row_sampler, samples_needed


class DDSAgent(PIMCAgent):
    """PIMC over exact solutions of sampled deals late in the hand, pimc before (module docstring).

    ``num_samples``: deals solved per late decision; ``exact_cards``: cards in hand (with no
    stock left) from which decisions are solved (None: 7 with four players, else 8);
    ``time_budget``: seconds per decision (solves that would run past ``solve_share`` of it hand
    the decision to pimc, with the time left); ``point_weight``: weight of the point margin in a value; ``pimc_samples``: pimc's
    samples for the early decisions.
    """

    name = "dds"
    DEFAULT_SAMPLES = 16

    def __init__(self, rules: Rules, seed: int = 0, num_samples: int | None = None, exact_cards: int | None = None,
                 time_budget: float | None = 2.0, point_weight: float = 1.15, pimc_samples: int | None = None,
                 solve_share: float = 0.75):
        pimc_samples = PIMCAgent.DEFAULT_SAMPLES if pimc_samples is None else pimc_samples
        super().__init__(rules, seed, num_samples=pimc_samples, time_budget=time_budget, point_weight=point_weight)
        self.dds_samples = int(num_samples if num_samples is not None else self.DEFAULT_SAMPLES)
        if self.dds_samples < 1:
            raise ValueError(f"num_samples must be at least 1, got {self.dds_samples}")
        self.exact_cards = exact_cards if exact_cards is not None else (7 if rules.num_players == 4 else 8)
        if not 0.0 < solve_share <= 1.0:
            raise ValueError(f"solve_share must be in (0, 1], got {solve_share}")
        self.dds_budget = time_budget
        self.solve_budget = None if time_budget is None else time_budget * solve_share
        self.solver = Solver(rules, point_weight=point_weight)
        self.last_exact = False
        """Whether the last decision searched was solved exactly (else pimc played it)."""
        self.name = f"dds:{self.dds_samples}"

    def is_late(self, info: InfoSet, row: int) -> bool:
        """No face-down stock left and at most ``exact_cards`` cards in hand."""
        return int(info.stock_size[row]) == 0 and popcount(int(info.hand[row])) <= self.exact_cards

    def _search(self, info: InfoSet, row: int, legal: np.ndarray, rng: np.random.Generator | None = None) -> int:
        rng = self.rng if rng is None else rng
        self.last_exact = False
        start = time.perf_counter()
        if self.is_late(info, row):
            values = self.solve_samples(info, row, legal, rng)
            if values is not None:
                self.last_exact = True
                self.last_values = {int(a): float(v) for a, v in zip(legal, values)}
                return int(legal[int(np.argmax(values))])
        if self.dds_budget is None:
            return super()._search(info, row, legal, rng)
        self.time_budget = max(0.0, self.dds_budget - (time.perf_counter() - start))
        try:  # pimc with what is left of the decision's budget
            return super()._search(info, row, legal, rng)
        finally:
            self.time_budget = self.dds_budget

    def solve_samples(self, info: InfoSet, row: int, legal: np.ndarray, rng: np.random.Generator):
        """Mean exact value of each legal action over the sampled deals; None if the budget ran out."""
        start = time.perf_counter()
        sampler = row_sampler(info, row)
        count = samples_needed(sampler, self.dds_samples, deterministic=True)
        states = build_states(self.game, info, row, *sampler.sample(rng, count))
        totals = np.zeros(len(legal))
        for lane in range(count):
            if self.solve_budget is not None:
                left = self.solve_budget - (time.perf_counter() - start)
                if left <= 0:
                    return None
                self.solver.max_seconds = left
            try:
                values = self.solver.action_values(states.take(np.array([lane])))[0]
            except SolverBudgetExceeded:
                return None
            totals += values[legal]
        self.last_samples = count
        return totals / count
