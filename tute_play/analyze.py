"""``tute-analyze`` (``python -m tute_play.analyze``): the double-dummy post-mortem of recorded hands.

    tute-analyze games.jsonl                    # every hand of the file
    tute-analyze games.jsonl --hand 3           # the file's third record (from 1)
    tute-analyze games.jsonl --json out.json    # every decision's values, for programs

Reads ``tute-record/1`` files (``evaluate.py --record``, the play modes' history, the web table's
downloads, the env's records; docs/records.md). For every decision: each legal action's value
and the loss of the action played (best minus played, >= 0; :mod:`tute_env.search.analysis`), in
games at the point weight used, of one of two kinds: **exact** (every card known, solved by
:mod:`tute_env.search.solver` within ``--max-seconds``, default
:data:`~tute_env.search.analysis.MAX_SECONDS`, the limit of every review) or, where that search
does not finish, an **estimate** with its error (the two-player stock phase: sampled orders of the
face-down stock, played on by the heuristic bot until the stock is gone, then solved exactly;
with no stock: the bounds the search proved). The report gives each seat's total loss, the
decisions of each kind and the costliest decisions; on a terminal, a bar shows the decisions
done. ``--json OUT`` writes ``{"hands": [{"decisions": [{"ply", "seat", "action", "values",
"loss", "best", "kind", "error", "errors", "samples"}, ...], ...}, ...]}`` with actions as
action strings (``"Ao"``, ``"sing-c"``, ``"pass"``). A damaged file is one line naming the line
and the field, and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from tqdm import tqdm

from tute_env.play.records import Record, RecordError, load_records
from tute_env.search.analysis import ESTIMATE, MAX_SECONDS, POINT_WEIGHT, Decision, analyze_record, costliest, seat_losses
from tute_env.search.solver import Solver

DEFAULT_POINT_WEIGHT = POINT_WEIGHT
#: The bot both seats play a sampled estimate's stock phase with (tute_env.search.analysis).
PLAYOUT = "heuristic"


def analyze(record: Record, point_weight: float = POINT_WEIGHT, max_seconds: float | None = MAX_SECONDS,
            solver: Solver | None = None, progress=None) -> list[Decision]:
    """:func:`tute_env.search.analysis.analyze_record` as every review runs it (tute-analyze, the
    terminal's and the web table's): the stock phase's estimates played on by :data:`PLAYOUT`."""
    from agents import make_agent

    return analyze_record(record, point_weight, max_seconds, solver=solver, progress=progress,
                          playout=make_agent(PLAYOUT, record.rules))


def value_text(decision: Decision, action: int) -> str:
    """An action's value, with its error when estimated: ``+0.512`` or ``+0.512 ±0.034``."""
    text = f"{decision.values[action]:+.3f}"
    return text + f" ±{decision.errors[action]:.3f}" if decision.kind == ESTIMATE else text


def hand_report(record: Record, decisions: Sequence[Decision], number: int, top: int = 5,
                point_weight: float = POINT_WEIGHT, max_seconds: float = MAX_SECONDS) -> str:
    """A readable report of one analysed hand (values and losses in games at ``point_weight``)."""
    n = record.rules.num_players
    solved = sum(d.solved for d in decisions)
    estimated = [d for d in decisions if d.kind == ESTIMATE]
    sampled = [d.samples for d in estimated if d.samples]
    lines = [f"Hand {number} ({record.variant or 'custom rules'}): {len(decisions)} decisions, {solved} exact "
             f"(solved within {max_seconds:g} s each), {len(estimated)} estimated"
             + (f" ({len(sampled)} from {sampled[0]} sampled stock orders)" if sampled else "")
             + f"; side {record.result['winner']} won ({' to '.join(map(str, record.result['points']))} points). "
             f"Values and losses in games, at point weight {point_weight:g}; an estimate's error is the 95% "
             "half-width over its samples (a sure bound without samples)."]
    for seat, total in enumerate(seat_losses(decisions, n)):
        mine = [d for d in decisions if d.seat == seat and d.values]
        guessed = sum(d.kind == ESTIMATE for d in mine)
        lines.append(f"  player_{seat} ({record.players[seat]}): loss {total:.3f} games over {len(mine)} decisions"
                     + (f" ({guessed} estimated)" if guessed else ""))
    worst = costliest(decisions, top)
    if worst:
        lines.append("  costliest decisions:")
    for d in worst:
        lines.append(f"    ply {d.ply:2d} player_{d.seat} played {d.action_str:<8} value {value_text(d, d.action)}; "
                     f"best {d.best_str:<8} {value_text(d, d.best)}: loss {d.loss:.3f}"
                     + (f" ±{d.error:.3f} (estimate)" if d.kind == ESTIMATE else " (exact)"))
    if not worst and decisions:
        lines.append("  every decision was a best move")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tute-analyze", description=__doc__.splitlines()[0].split(": ", 1)[1])
    parser.add_argument("file", help="a tute-record/1 file (JSON Lines)")
    parser.add_argument("--hand", type=int, default=None, metavar="N", help="only the file's N-th hand (from 1)")
    parser.add_argument("--json", metavar="OUT", help="write every decision's values and loss as JSON")
    parser.add_argument("--point-weight", type=float, default=DEFAULT_POINT_WEIGHT,
                        help=f"weight of the point difference in a value (default {DEFAULT_POINT_WEIGHT})")
    parser.add_argument("--max-seconds", type=float, default=MAX_SECONDS,
                        help=f"the exact solver's time per decision before the decision is estimated instead (default "
                             f"{MAX_SECONDS:g}, the limit of every review)")
    parser.add_argument("--top", type=int, default=5, help="costliest decisions listed per hand (default 5)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.max_seconds <= 0 or args.top < 0:
        parser.error("--max-seconds must be positive and --top at least 0")
    if args.json and not Path(args.json).resolve().parent.is_dir():
        parser.error(f"--json {args.json}: the directory {Path(args.json).resolve().parent} does not exist")
    try:
        records = load_records(args.file)
    except OSError as err:
        parser.error(f"{args.file}: cannot read it: {err.strerror or err}")
    except RecordError as err:
        parser.error(str(err))
    if not records:
        parser.error(f"{args.file}: the file holds no game record")
    numbers = range(1, len(records) + 1)
    if args.hand is not None:
        if not 1 <= args.hand <= len(records):
            parser.error(f"--hand {args.hand}: {args.file} holds hands 1..{len(records)}")
        numbers = [args.hand]
    hands, solvers = [], {}
    for number in numbers:
        record = records[number - 1]
        if record.rules not in solvers:
            solvers[record.rules] = Solver(record.rules, point_weight=args.point_weight, max_seconds=args.max_seconds)
        with tqdm(total=len(record.actions), unit="decision", desc=f"hand {number}", disable=None, leave=False,
                  file=sys.stderr) as bar:  # disable=None: a bar on a terminal only
            decisions = analyze(record, solver=solvers[record.rules], progress=lambda done, total: bar.update(done - bar.n))
        print(hand_report(record, decisions, number, args.top, args.point_weight, args.max_seconds), flush=True)
        hands.append({"hand": number, "variant": record.variant, "players": record.players,
                      "decisions": [d.to_dict() for d in decisions]})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"file": args.file, "point_weight": args.point_weight, "max_seconds": args.max_seconds, "hands": hands}, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
