"""``tute-analyze`` (``python -m tute_play.analyze``): the double-dummy post-mortem of recorded hands.

    tute-analyze games.jsonl                    # every hand of the file
    tute-analyze games.jsonl --hand 3           # the file's third record (from 1)
    tute-analyze games.jsonl --json out.json    # every decision's values, for programs

Reads ``tute-record/1`` files (``evaluate.py --record``, the play modes' history, the web table's
downloads, the env's records; docs/records.md). For every decision: each legal action's exact
value with all cards known (:mod:`tute_env.search.solver`) and the loss of the action played (best minus
played, >= 0; :mod:`tute_env.search.analysis`), in games at the point weight used. The report gives each seat's
total loss and the costliest decisions; on a terminal, a bar shows the decisions done. ``--json OUT`` writes ``{"hands": [{"decisions": [{"ply", "seat", "action", "values",
"loss", "best"}, ...], ...}, ...]}`` with actions as action strings (``"Ao"``, ``"sing-c"``,
``"pass"``). A decision the solver cannot finish within ``--max-seconds`` (default
:data:`~tute_env.search.analysis.MAX_SECONDS`, the limit of every review) is reported as not
solved (``"values": {}``, ``"loss": null``). A damaged file is one line naming the line and the
field, and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from tqdm import tqdm

from tute_env.play.records import Record, RecordError, load_records
from tute_env.search.analysis import MAX_SECONDS, POINT_WEIGHT, Decision, analyze_record, costliest, seat_losses
from tute_env.search.solver import Solver

DEFAULT_POINT_WEIGHT = POINT_WEIGHT


def hand_report(record: Record, decisions: Sequence[Decision], number: int, top: int = 5,
                point_weight: float = POINT_WEIGHT, max_seconds: float = MAX_SECONDS) -> str:
    """A readable report of one analysed hand (values and losses in games at ``point_weight``)."""
    n = record.rules.num_players
    solved = sum(d.solved for d in decisions)
    lines = [f"Hand {number} ({record.variant or 'custom rules'}): {len(decisions)} decisions, {solved} solved "
             f"(at most {max_seconds:g} s each); side {record.result['winner']} won "
             f"({' to '.join(map(str, record.result['points']))} points). Values and losses in games, "
             f"at point weight {point_weight:g}."]
    for seat, total in enumerate(seat_losses(decisions, n)):
        mine = [d for d in decisions if d.seat == seat and d.solved]
        lines.append(f"  player_{seat} ({record.players[seat]}): loss {total:.3f} games over {len(mine)} decisions")
    worst = costliest(decisions, top)
    if worst:
        lines.append("  costliest decisions:")
    for d in worst:
        lines.append(f"    ply {d.ply:2d} player_{d.seat} played {d.action_str:<8} value {d.values[d.action]:+.3f}; "
                     f"best {d.best_str:<8} {d.values[d.best]:+.3f}: loss {d.loss:.3f}")
    if not worst and solved:
        lines.append("  every solved decision was a best move")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tute-analyze", description=__doc__.splitlines()[0].split(": ", 1)[1])
    parser.add_argument("file", help="a tute-record/1 file (JSON Lines)")
    parser.add_argument("--hand", type=int, default=None, metavar="N", help="only the file's N-th hand (from 1)")
    parser.add_argument("--json", metavar="OUT", help="write every decision's values and loss as JSON")
    parser.add_argument("--point-weight", type=float, default=DEFAULT_POINT_WEIGHT,
                        help=f"weight of the point difference in a value (default {DEFAULT_POINT_WEIGHT})")
    parser.add_argument("--max-seconds", type=float, default=MAX_SECONDS,
                        help=f"the solver's time per decision before it is reported as not solved (default {MAX_SECONDS:g}, "
                             "the limit of every review)")
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
            decisions = analyze_record(record, solver=solvers[record.rules],
                                       progress=lambda done, total: bar.update(done - bar.n))
        print(hand_report(record, decisions, number, args.top, args.point_weight, args.max_seconds), flush=True)
        hands.append({"hand": number, "variant": record.variant, "players": record.players,
                      "decisions": [d.to_dict() for d in decisions]})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"file": args.file, "point_weight": args.point_weight, "hands": hands}, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
