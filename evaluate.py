"""``evaluate.py`` (installed as ``tute-evaluate``): measure bot strength with duplicate deals.

    python evaluate.py greedy heuristic --preset partnership --deals 2000
    python evaluate.py greedy heuristic --set must_beat_partner=false --json out.json --csv out.csv
    python evaluate.py ppo pimc --deals 300 --json out.json --deal-scores   # per-deal scores too, for paired comparisons
    python evaluate.py --round-robin random greedy heuristic --deals 2000 --plot table.png
    python evaluate.py --teams heuristic greedy greedy greedy      # heuristic+greedy vs greedy+greedy
    python evaluate.py heuristic pimc --preset two_player --deals 200 --ray local --num-workers 2
    python evaluate.py --ladder --preset two_player            # the standing table of the preset's pool
    python evaluate.py --ladder pimc:256 --preset two_player   # an agent placed on it (--pool full: every member)
    python evaluate.py --ladder mybot:Bot --save               # ... and kept in ~/.local/share/tute_env/ladder.json

Agents are named by specs (``heuristic``, ``pimc:128``, a checkpoint, ``yourmod:YourAgent``: the grammar is
:mod:`agents.registry`'s, listed by ``--help``; docs/agents.md). The method (held-out
deals, duplicate seatings, confidence intervals, ratings) and the library calls are
:mod:`tute_lab.evaluation`'s; the ladder's, :mod:`tute_lab.evaluation.ladder`'s (docs/ladder.md).
Bad input is one short message and exit code 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.base import MissingExtra
from agents.registry import check_spec, spec_help, spec_lines
from tute_env.engine.rules import PRESETS, Rules, make_rules, parse_overrides
from tute_lab.evaluation import (
    DEFAULT_BATCH_DEALS,
    HELD_OUT_SEED_START,
    RoundRobinResult,
    check_output_path,
    evaluate_pairing,
    evaluate_teams,
    plot_table,
    round_robin,
    write_csv,
    write_json,
)
from tute_lab.evaluation.ladder import (
    DATA_DIR,
    POOLS,
    check_newcomer,
    load_ladder,
    load_user_ladder,
    pool_ratings,
    run_ladder,
    save_placement,
    standing_text,
    user_ladder_path,
    user_ratings,
)
from tute_lab.ray_cluster import check_ray_options, connect_workers


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tute-evaluate",
        description="Measure Tute bots with duplicate deals (win rate with 95% CI, points, games, ratings).",
        epilog="\n".join(["agents (AGENT, A B C D):", *spec_lines()]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("agents", nargs="*", help=f"two agents A B: {spec_help()}")
    parser.add_argument("--round-robin", nargs="+", metavar="AGENT", help="every pair of these agents, with ratings")
    parser.add_argument("--teams", nargs=4, metavar=("A", "B", "C", "D"), help="mixed partnerships: A+B vs C+D")
    parser.add_argument("--ladder", nargs="?", const="", default=None, metavar="AGENT",
                        help="the standing ladder of --preset (docs/ladder.md): alone, its table; with AGENT, AGENT "
                             "played against the pool on the pool's deals and placed on its scale")
    parser.add_argument("--pool", choices=POOLS, default="rules",
                        help="with --ladder AGENT: the rule-based pool members only (the default: quick, beside "
                             "AGENT's own time) or the full pool (pimc, dds, and ppo and search where the preset has "
                             "them: about an hour on 2 cores with --ray local)")
    parser.add_argument("--save", nargs="?", const="", default=None, metavar="PATH",
                        help=f"with --ladder AGENT: add the result to a ladder file of yours (default "
                             f"{user_ladder_path()}), which --ladder alone then lists too")
    parser.add_argument("--preset", default="partnership", choices=sorted(PRESETS))
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="OPTION=VALUE",
                        help="override a rule option, e.g. --set must_beat_partner=false (repeatable)")
    parser.add_argument("--deals", type=int, default=None, help="duplicate deals (default 2000)")
    parser.add_argument("--seed-start", type=int, default=HELD_OUT_SEED_START,
                        help=f"first deal seed (default: the held-out range from {HELD_OUT_SEED_START})")
    parser.add_argument("--agent-seed", type=int, default=None,
                        help="seed of the agents' draws (default: --seed-start); give every chunk of a deal "
                             "range run in parts the same one and the chunks are the parts of one run")
    parser.add_argument("--batch-deals", type=int, default=DEFAULT_BATCH_DEALS, help="deals per core batch")
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")
    parser.add_argument("--deal-scores", action="store_true",
                        help="with --json: add each pairing's per-deal scores and point differences (for paired comparisons)")
    parser.add_argument("--csv", metavar="PATH", help="write one CSV row per pairing")
    parser.add_argument("--plot", metavar="PATH", help="write a PNG of the win-rate table")
    parser.add_argument("--record", metavar="PATH",
                        help="write every hand played as a game record, JSON Lines (docs/records.md)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (there is one on a terminal only)")
    parser.add_argument("--ray", metavar="local|auto|ADDRESS",
                        help="split the deal set into Ray tasks: a local Ray instance, the cluster started here "
                             "by `ray start` (auto), or a cluster head HOST:PORT; results equal the local run's")
    parser.add_argument("--num-workers", type=int, default=None,
                        help="Ray tasks per pairing (default: the cluster's CPUs); needs --ray")
    parser.add_argument("--device", default="cpu",
                        help="where trained (ppo) agents' networks run: cpu (default), cuda, cuda:N or auto")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    modes = sum(bool(x) for x in (args.agents, args.round_robin, args.teams)) + (args.ladder is not None)
    if modes != 1:
        parser.error("give two agents, or --round-robin AGENTS..., or --teams A B C D, or --ladder [AGENT]")
    if args.ladder is not None:
        return ladder_main(parser, args)
    args.deals = 2000 if args.deals is None else args.deals
    if args.pool != "rules" or args.save is not None:
        parser.error("--pool and --save go with --ladder AGENT")
    if args.agents and len(args.agents) != 2:
        parser.error(f"give exactly two agents to compare, got {len(args.agents)}")
    try:
        rules = make_rules(args.preset, **parse_overrides(args.overrides))
        check_arguments(args, rules)
    except ValueError as err:
        parser.error(str(err))
    except MissingExtra as err:  # --device without torch
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        return 2
    try:
        for spec in args.agents or args.round_robin or args.teams:
            check_spec(spec)  # before any game: a bad last agent of a round robin is named at once
        return run(args, rules)
    except (ValueError, MissingExtra) as err:  # an agent that cannot be made (bad name, spec, checkpoint; no torch)
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        return 2


def ray_workers(args) -> int:
    """Connected to Ray as ``--ray`` and ``--num-workers`` say: the tasks a deal set is split into."""
    workers, startup = connect_workers(args.ray, args.num_workers)
    print(f"ray: {args.ray}, {workers} workers, start-up {startup:.1f} s", file=sys.stderr)
    return workers


def ladder_main(parser: argparse.ArgumentParser, args) -> int:
    """``--ladder``: the standing table, or AGENT placed on it (and saved)."""
    try:
        for option, given in (("deals", args.deals is not None), ("seed-start", args.seed_start != HELD_OUT_SEED_START),
                              ("set", args.overrides), ("csv", args.csv), ("plot", args.plot),
                              ("record", args.record), ("deal-scores", args.deal_scores)):
            if given:
                raise ValueError(f"--{option} does not go with --ladder: the ladder plays its pool's deals and rules")
        if not args.ladder and (args.save is not None or args.pool != "rules" or args.json):
            raise ValueError("--save, --pool and --json go with --ladder AGENT (an agent to place)")
        data = load_ladder(args.preset)
        check_ray_options(args.ray, args.num_workers)
        check_output_path("json", args.json)
        save = None if args.save is None else Path(args.save or user_ladder_path())
        if save is not None:
            if save.resolve().parent == DATA_DIR.resolve():
                raise ValueError(f"--save {save}: the shipped pool data are not yours to write")
            load_user_ladder(save)  # a file that is not a ladder file is refused before the games
        if not args.ladder:
            standing = pool_ratings(data)
            mine = user_ratings(load_user_ladder(user_ladder_path()), args.preset)
            print(standing_text(args.preset, standing, data))
            if mine:
                print(f"yours ({user_ladder_path()}; rank among the pool when placed):")
                for r in mine:
                    print(f"{r.rank:>4}  {r.agent:<24} {r.rating:>6.0f}  [{r.low:.0f}, {r.high:.0f}]")
            return 0
        check_spec(args.ladder)
        check_newcomer(data, args.ladder)
        check_device(args.device)
        workers = ray_workers(args) if args.ray else None
        placement = run_ladder(data, args.ladder, args.pool, args.agent_seed, progress=not args.no_progress,
                               device=args.device, workers=workers)
    except (ValueError, MissingExtra) as err:
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        return 2
    print(placement.summary())
    print(standing_text(args.preset, placement.standing, data))
    if args.json:
        write_json(args.json, placement.to_json())
    if save is not None:
        print(f"saved to {save_placement(placement, save)}")
    return 0


def check_device(device: str) -> None:
    """``--device`` other than cpu, checked (torch only when a device is asked for)."""
    if device != "cpu":
        from agents.ppo import resolve_device

        resolve_device(device)


def check_arguments(args, rules: Rules) -> None:
    """What can be checked before any game is played: counts, the mode, the output paths."""
    for name in ("deals", "batch_deals"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    check_ray_options(args.ray, args.num_workers)
    if args.ray and args.record:
        raise ValueError("--record writes locally only: not with --ray")
    if args.deal_scores and not args.json:
        raise ValueError("--deal-scores adds to the --json file: give --json PATH too")
    check_device(args.device)
    if args.teams and not rules.partnerships:
        raise ValueError(f"--teams needs the four-player partnership game, not {args.preset}")
    for option in ("json", "csv", "plot", "record"):
        check_output_path(option, getattr(args, option))


def run(args, rules: Rules) -> int:
    """The evaluation the command line asked for, printed and written."""
    common = dict(num_deals=args.deals, seed_start=args.seed_start, batch_deals=args.batch_deals,
                  progress=not args.no_progress, record=args.record, device=args.device, agent_seed=args.agent_seed)
    if args.ray:
        common["workers"] = ray_workers(args)
    meta = {"preset": args.preset, "overrides": parse_overrides(args.overrides), "rules": dataclasses.asdict(rules),
            "date": datetime.datetime.now().isoformat(timespec="seconds")}
    if args.round_robin:
        result = round_robin(rules, args.round_robin, **common)
        pairings = result.pairings
        payload = {**meta, **result.to_dict(args.deal_scores)}
    elif args.teams:
        a, b, c, d = args.teams
        result = evaluate_teams(rules, (a, b), (c, d), **common)
        pairings = [result]
        payload = {**meta, "pairings": [result.to_dict(args.deal_scores)]}
    else:
        result = evaluate_pairing(rules, args.agents[0], args.agents[1], **common)
        pairings = [result]
        payload = {**meta, "pairings": [result.to_dict(args.deal_scores)]}
    print(f"preset {args.preset}" + (f" with {' '.join(args.overrides)}" if args.overrides else "")
          + f", deals from seed {args.seed_start}")
    for p in pairings:
        print(p.summary())
    if isinstance(result, RoundRobinResult):
        print(result.summary())
    if args.json:
        write_json(args.json, payload)
    if args.csv:
        write_csv(args.csv, pairings, args.preset)
    if args.plot:
        plot_table(result, args.plot, title=f"{args.preset}: win rate of row vs column ({args.deals} duplicate deals)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
