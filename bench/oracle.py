"""A ceiling for strength targets: how a player that sees every card scores against an agent.

    python -m bench.oracle [--preset partnership] [--opponent pimc] [--deals 150]
                           [--seed-start 2000000000] [--agent-seed 2000000000] [--exact-from 0]
                           [--json docs/data/oracle_partnership_vs_pimc_solver.json]

The oracle is not an agent and never plays outside this diagnostic: it reads the true state of
the game, which the table never gives a policy. Each of its decisions with more than one legal
action is made on the true deal:

* from the ``exact_from``-th trick on (0-based, ``State.tricks_played``; by default the first) by
  the double-dummy solver (:class:`tute_env.search.solver.Solver`, point weight 0: every seat plays
  perfectly and only the games won count); among the actions of the best exact value, the one
  whose rule-based playout (below) scores best is played, so a hand won (or lost) whatever the
  play is still played for points;
* before, by a one-ply search: each legal action followed by pimc's rule-based playout
  (:func:`agents.pimc.playout_policy`) of the true deal to the end, the best score (pimc's, with
  point weight 1.15) chosen.

It is scored like any pairing (:func:`tute_lab.evaluation.evaluate_pairing`: duplicate deals, the sides
swapped; the oracle holds every seat of its side). The default deal range is the tuning one
(from seed 2,000,000,000), apart from the held-out range. With keyed streams a deal's games do
not depend on the batch, so a run split into chunks (``--seed-start``, the same ``--agent-seed``)
gives the chunks of one run. Cost: 300 partnership deals against default pimc took 25 minutes
on one core (decisions: p50 6 ms, p99 2.4 s, at most 16 s, a first lead).
:func:`exact_values` (minimax by full expansion on the batched
core, no pruning) is what the oracle used before the solver, from trick 5; it stays as the
solver's slow reference (tests, ``bench.solver_speed``).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time

import numpy as np

from agents.base import Agent
from agents.pimc import play_out, playout_policy, playout_scores
from tute_env.engine.core import Game, State
from tute_env.engine.rules import PRESETS, make_rules
from tute_env.play.seating import LEARNER, Seating
from tute_env.search.solver import Solver
from tute_lab import evaluation
from tute_lab.evaluation import playing

#: pimc's point weight: the oracle's score is pimc's.
POINT_WEIGHT = 1.15
#: Lanes expanded at once by :func:`exact_values` (memory: about 1 GiB a slice).
CAP = 1 << 20
#: Tuning deals (apart from the held-out range): the default first deal seed.
TUNING_SEED_START = 2_000_000_000


def exact_values(game: Game, s: State, seat: int, point_weight: float = POINT_WEIGHT, cap: int = CAP) -> np.ndarray:
    """(B,) minimax value of each lane of ``s`` for ``seat``: the score of a finished lane
    (:func:`agents.pimc.playout_scores`), else the best child's for a lane whose seat to act
    is on ``seat``'s side and the worst child's otherwise. The children of a level are expanded
    ``cap`` lanes at a time, depth first. ``s`` is not changed."""
    out = np.zeros(s.batch_size)
    done = np.flatnonzero(s.done)
    if done.size:
        out[done] = playout_scores(game, s.take(done), point_weight, seat)
    live = np.flatnonzero(~s.done)
    if live.size:
        sub = s.take(live)
        parent, action = np.nonzero(game.legal_action_mask(sub))
        child = np.empty(len(parent))
        for lo in range(0, len(parent), cap):
            kids = sub.take(parent[lo:lo + cap])
            game.step(kids, action[lo:lo + cap])
            child[lo:lo + cap] = exact_values(game, kids, seat, point_weight, cap)
        best, worst = np.full(live.size, -np.inf), np.full(live.size, np.inf)
        np.maximum.at(best, parent, child)
        np.minimum.at(worst, parent, child)
        sides = game.rules.num_sides
        mine = np.maximum(sub.current, 0) % sides == seat % sides
        out[live] = np.where(mine, best, worst)
    return out


class Oracle(Agent):
    """Sees the true state (``state``, ``rows``: set by the table of :func:`peek_table` before each call)."""

    name = "oracle"

    def __init__(self, rules, exact_from: int = 0, point_weight: float = POINT_WEIGHT):
        super().__init__(rules, 0)
        self.game = Game(rules)
        self.solver = Solver(rules, point_weight=0.0)
        self.exact_from = exact_from
        self.point_weight = point_weight
        self.state: State | None = None
        self.rows: np.ndarray | None = None
        self.seconds: list[float] = []
        """Seconds of each decision searched."""

    def act_batch(self, observations, masks):
        if self.rows is None or len(self.rows) != len(masks):
            raise RuntimeError("the oracle reads the true state: it acts only at a peek_table()")
        return np.array([self.decide(self.state.take(np.array([lane]))) for lane in self.rows], np.int64)

    def playout_values(self, root: State, legal: np.ndarray) -> np.ndarray:
        """pimc's score of each of the ``legal`` actions of a one-lane ``root`` followed by a
        rule-based playout of the true deal, for its seat to act."""
        kids = root.take(np.zeros(len(legal), np.intp))
        self.game.step(kids, legal)
        play_out(self.game, kids, playout_policy)
        return playout_scores(self.game, kids, self.point_weight, int(root.current[0]))

    def decide(self, root: State) -> int:
        legal = np.flatnonzero(self.game.legal_action_mask(root)[0])
        if len(legal) == 1:
            return int(legal[0])
        start = time.perf_counter()
        candidates = legal
        if int(root.tricks_played[0]) >= self.exact_from:
            exact = self.solver.action_values(root)[0, legal]
            candidates = legal[exact == exact.max()]
        choice = candidates[0]
        if len(candidates) > 1:
            choice = candidates[int(np.argmax(self.playout_values(root, candidates)))]
        self.seconds.append(time.perf_counter() - start)
        return int(choice)


def peek_table(oracle: Oracle, index: int = 0) -> type[Seating]:
    """A :class:`Seating` that hands ``oracle`` (policy ``index``) the true state before it acts."""

    class PeekTable(Seating):
        def actions(self, state, lanes):
            who = np.where(lanes, self.to_act(state), LEARNER)
            oracle.state, oracle.rows = state, np.flatnonzero(who == index)
            return super().actions(state, lanes)

    return PeekTable


@contextlib.contextmanager
def seated(oracle: Oracle):
    """Evaluation's table (the one :func:`tute_lab.evaluation.play_deals` seats) replaced by :func:`peek_table`
    for the block."""
    saved = playing.Seating
    playing.Seating = peek_table(oracle)
    try:
        yield
    finally:
        playing.Seating = saved


def run(preset: str, opponent: str, deals: int, seed_start: int, agent_seed: int, exact_from: int):
    """(the :class:`tute_lab.evaluation.PairingResult` of the oracle against ``opponent``, the oracle)."""
    rules = make_rules(preset)
    oracle = Oracle(rules, exact_from)
    with seated(oracle):
        result = evaluation.evaluate_pairing(rules, oracle, opponent, deals, seed_start=seed_start,
                                           agent_seed=agent_seed)
    return result, oracle


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="partnership", help="rules preset (default partnership)")
    parser.add_argument("--opponent", default="pimc", help="the agent spec played against (default pimc)")
    parser.add_argument("--deals", type=int, default=150, help="duplicate deals (default 150)")
    parser.add_argument("--seed-start", type=int, default=TUNING_SEED_START, help="first deal seed")
    parser.add_argument("--agent-seed", type=int, default=TUNING_SEED_START, help="agent seed (same for every chunk)")
    parser.add_argument("--exact-from", type=int, default=0, help="first trick (0-based) played by the solver")
    parser.add_argument("--json", default=None, help="write the result and the decision times here")
    args = parser.parse_args(argv)
    if args.preset not in PRESETS:
        parser.error(f"unknown preset {args.preset!r}; choose from {', '.join(PRESETS)}")
    tricks = make_rules(args.preset).num_tricks
    if not 0 <= args.exact_from <= tricks:
        parser.error(f"--exact-from must be a trick from 0 to {tricks} ({tricks}: never exact), got {args.exact_from}")
    if args.deals < 1:
        parser.error(f"--deals must be at least 1, got {args.deals}")
    try:
        evaluation.check_output_path("json", args.json)
        result, oracle = run(args.preset, args.opponent, args.deals, args.seed_start, args.agent_seed, args.exact_from)
    except ValueError as e:  # e.g. a bad agent spec, or no shipped network for the preset
        parser.error(str(e))
    times = np.array(oracle.seconds or [0.0])
    print(f"oracle vs {args.opponent} ({args.preset}, {args.deals} deals from {args.seed_start}): "
          f"{result.win_rate:.3f} {result.interval_text()}, "
          f"points {result.mean_point_diff:+.1f} a hand, {result.seconds:.0f} s")
    if args.json:
        decision_s = {q: float(np.percentile(times, p)) for q, p in (("p50", 50), ("p99", 99), ("max", 100))}
        evaluation.write_json(args.json, {"preset": args.preset, "agent_seed": args.agent_seed,
                                        "exact_from": args.exact_from, "decision_s": decision_s,
                                        **result.to_dict(with_deals=True)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
