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
  ``mean +- 1.96 * sd / sqrt(D)`` over the D deal scores (the deal is the independent unit). With
  fewer than :data:`MIN_DEALS_FOR_CI` (30) deals there is no interval: the bounds are None (``null``
  in JSON, empty in CSV) and the summary says so (a zero sd over two deals is no certainty).
* Also reported: mean point difference per hand (mean hand total of A's sides minus that of B's,
  with its CI), games credited per hand to each (R9), hands played, and speed.
* **One batch.** All games of a deal set (deals x seatings) run as one batch on the core, seated at
  one ``tute_env.play.seating.Seating``; each agent's ``act_batch`` is called on the lanes where one
  of its seats is to act.
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

Modules
-------
Every name below is imported from the package (``from tute_lab.evaluation import evaluate_pairing``).

* :mod:`~tute_lab.evaluation.deals`: deal sets and the held-out seed range, seatings, :class:`DealRange`,
  :class:`Lineup`;
* :mod:`~tute_lab.evaluation.results`: :class:`PairingResult`;
* :mod:`~tute_lab.evaluation.playing`: playing a deal set (here, in batches, in Ray tasks),
  :func:`evaluate_pairing`, :func:`evaluate_teams`;
* :mod:`~tute_lab.evaluation.tournament`: :func:`round_robin`, its ratings and :class:`RoundRobinResult`;
* :mod:`~tute_lab.evaluation.output`: CSV, JSON, the win-rate table as a PNG, output paths checked.

And, imported from its module: :mod:`tute_lab.evaluation.ladder`, the standing ladder (each preset's
reference pool, its shipped round robin, Elo ratings anchored at heuristic = 1500, an agent placed
on them; docs/ladder.md).
"""

from .deals import (
    DEFAULT_BATCH_DEALS,
    HELD_OUT_SEED_START,
    TRAINING_SEED_LIMIT,
    DealRange,
    Lineup,
    deal_set,
    pairing_seatings,
    shard_bounds,
)
from .output import CSV_FIELDS, check_output_path, plot_table, write_csv, write_json
from .playing import (
    Z95,
    RecordSink,
    agent_label,
    evaluate_lineup,
    evaluate_pairing,
    evaluate_teams,
    open_record_sink,
    play_deals,
    play_distributed,
    play_range,
)
from .results import MIN_DEALS_FOR_CI, PairingResult
from .tournament import RoundRobinResult, rate, round_robin

__all__ = [
    "CSV_FIELDS", "DEFAULT_BATCH_DEALS", "HELD_OUT_SEED_START", "MIN_DEALS_FOR_CI", "TRAINING_SEED_LIMIT", "Z95",
    "DealRange", "Lineup", "PairingResult", "RecordSink", "RoundRobinResult",
    "agent_label", "check_output_path", "deal_set", "evaluate_lineup", "evaluate_pairing", "evaluate_teams",
    "open_record_sink", "pairing_seatings", "play_deals", "play_distributed", "play_range", "plot_table", "rate",
    "round_robin", "shard_bounds", "write_csv", "write_json",
]
