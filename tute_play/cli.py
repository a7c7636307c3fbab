"""``tute-play`` (or ``python -m tute_play``): play Tute against the bots, in the terminal or the browser.

    tute-play                              # partnership, medium bots, you are player_0
    tute-play --preset two_player --level hard
    tute-play --opponent path/to/checkpoint.pt --preset two_player
    tute-play --preset manita --set target_games=2 --seat 1

Levels: ``easy`` (the greedy bot: one ply, takes a trick with points cheaply), ``medium``
(heuristic: counts cards, scores every card by its expected points), ``hard`` (pimc: searches over
the deals consistent with what it has seen, about 0.05 s a move), ``trained`` (the shipped PPO
agent) and ``expert`` (the top of the preset's ladder, docs/ladder.md: search, the same search over
possible deals played out by the shipped network and valued by its critic, a fraction of a second a
move; in two_player ``search+dds``, the search while the stock lasts and exact play once it is
gone; dds in two_player_10, pimc in partnership, manita and three_player), both offered for the
presets that have a shipped network (every preset); ``--opponent`` takes any agent spec instead (a
name, a checkpoint, your own ``pkg.module:Name``: the grammar is :mod:`agents.registry`'s,
docs/agents.md; in the partnership game your partner plays at the same level unless ``--partner``
says otherwise).

How to type moves: :mod:`tute_play.terminal`.

Every hand played to its end is saved as a game record (docs/records.md), appended to the history
file (``$XDG_DATA_HOME/tute_env/history.jsonl``, by default ``~/.local/share/tute_env/history.jsonl``;
``--no-history`` turns it off) or to ``--record FILE``. ``--replay FILE`` steps through a recorded
hand (``--hand N``: the file's N-th record, from 1; by default its last) with every hand face up:

    tute-play --replay ~/.local/share/tute_env/history.jsonl

``--review`` (with ``--replay``) analyses the hand first with every card known (the figures of
``tute-analyze``, :mod:`tute_env.search.analysis`; a short line says how long it took) and then each
step shows the double-dummy loss of the move just played and the best move when the loss is
above zero ("review: loss 2.014; best 6b"), the last step each seat's total loss; a decision the
solver cannot finish within ``--max-seconds`` (default 3, the limit of every review) is estimated, and
its line says so with the error ("(an estimate, ±0.120)"): in a two_player hand, the stock phase.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from agents.base import MissingExtra, shipped_presets
from agents.registry import spec_help
from tute_env.engine.rules import PRESETS, Rules, make_rules, parse_overrides
from tute_env.play.records import RecordWriter
from tute_env.search.analysis import MAX_SECONDS, POINT_WEIGHT

from .levels import LEVEL_HELP, LEVELS, MOVES_HELP, NETWORK_LEVELS, level_spec, make_bots, seat_specs
from .terminal import Console, Quit, choose_record, history_path, open_history, replay_hand, review_hand, run
from .words import LANGS, word


def build_parser() -> argparse.ArgumentParser:
    """``tute-play``'s command line: the terminal game, ``--replay`` (and ``--review``), ``--web``."""
    shipped = shipped_presets()
    parser = argparse.ArgumentParser(prog="tute-play", description="Play Tute in the terminal against the bots.",
                                     epilog=MOVES_HELP)
    parser.add_argument("--preset", default="partnership", choices=sorted(PRESETS))
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="OPTION=VALUE",
                        help="override a rule option (repeatable), e.g. --set target_games=2")
    parser.add_argument("--level", default="medium", choices=sorted(LEVELS),
                        help="bot level (default medium): " + LEVEL_HELP.format(", ".join(shipped)))
    parser.add_argument("--opponent", metavar="AGENT",
                        help=f"agent for the other seats instead of --level: {spec_help()}")
    parser.add_argument("--partner", metavar="AGENT", help="agent for your partner (partnership game), as --opponent")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    parser.add_argument("--seed", type=int, default=None, help="seed for the deals and the bots")
    parser.add_argument("--hands", type=int, default=None, help="stop after this many hands")
    parser.add_argument("--plain", action="store_true", help="suit letters instead of suit symbols")
    parser.add_argument("--lang", default="en", choices=list(LANGS),
                        help="the language of everything the game, the replay and the review say (es: Spanish as "
                             "players say it)")
    parser.add_argument("--record", metavar="FILE",
                        help="append the record of every hand played to FILE instead of the history file")
    parser.add_argument("--no-history", action="store_true",
                        help=f"do not save the hands played (by default appended to {history_path()})")
    parser.add_argument("--replay", metavar="FILE",
                        help="step through a recorded hand of FILE, all hands face up (with --web: offered in the "
                             "browser's Replay panel)")
    parser.add_argument("--hand", type=int, default=None, metavar="N",
                        help="with --replay: the N-th hand of the file (from 1; default the last)")
    parser.add_argument("--review", action="store_true",
                        help="with --replay: analyse the hand first (every card known, tute-analyze's figures), "
                             "then each step shows the move's loss and the best move, the last step each seat's "
                             "total loss")
    parser.add_argument("--point-weight", type=float, default=None,
                        help=f"with --review: weight of the point difference in a value (default "
                             f"{POINT_WEIGHT}, as tute-analyze)")
    parser.add_argument("--max-seconds", type=float, default=None,
                        help=f"with --review: the exact solver's time per decision before the decision is estimated "
                             f"(default {MAX_SECONDS:g})")
    web = parser.add_argument_group("web table", "play in the browser instead (needs the [web] extra; docs/web.md)")
    web.add_argument("--web", action="store_true", help="serve the web table and open it in the browser")
    web.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1, this machine only)")
    web.add_argument("--port", type=int, default=8765, help="port to serve on (default 8765; 0: any free port)")
    web.add_argument("--no-browser", action="store_true", help="do not open the browser")
    return parser


def main(argv: Sequence[str] | None = None, input_fn: Callable[[str], str] = input, out=None) -> int:
    """The command line parsed and its mode run: ``--web``, ``--replay`` or the terminal game; the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.web:
        return _main_web(parser, args)
    if args.no_browser:
        parser.error("--no-browser goes with --web")
    io = Console(input_fn, out)
    if args.hand is not None and not args.replay:
        parser.error("--hand goes with --replay FILE")
    if (args.review or args.point_weight is not None or args.max_seconds is not None) and not args.replay:
        parser.error("--review, --point-weight and --max-seconds go with --replay FILE")
    if (args.point_weight is not None or args.max_seconds is not None) and not args.review:
        parser.error("--point-weight and --max-seconds go with --review")
    if args.max_seconds is not None and not args.max_seconds > 0:
        parser.error(f"--max-seconds must be positive, got {args.max_seconds}")
    if args.replay:
        return _main_replay(parser, args, io)
    return _main_play(parser, args, io)


def _main_replay(parser: argparse.ArgumentParser, args: argparse.Namespace, io: Console) -> int:
    """``--replay FILE``: step through a recorded hand, analysed first with ``--review``."""
    try:
        record = choose_record(args.replay, args.hand)
    except ValueError as err:
        parser.error(str(err))
    try:
        review = None
        if args.review:
            review = review_hand(record, io, POINT_WEIGHT if args.point_weight is None else args.point_weight,
                                 args.max_seconds or MAX_SECONDS, args.lang)
        replay_hand(record, io, symbols=not args.plain, review=review, lang=args.lang)
    except Quit:
        pass
    except KeyboardInterrupt:
        io.say("\n" + word(args.lang, "t_bye"))
        return 130
    return 0


def _game_rules(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Rules:
    """The terminal game's rules, its options checked against them."""
    shipped = shipped_presets()
    try:
        rules = make_rules(args.preset, **parse_overrides(args.overrides))
    except ValueError as err:
        parser.error(str(err))
    if not 0 <= args.seat < rules.num_players:
        parser.error(f"--seat must be 0..{rules.num_players - 1}")
    if args.hands is not None and args.hands < 1:
        parser.error(f"--hands must be at least 1, got {args.hands}")
    if args.level in NETWORK_LEVELS and not args.opponent and not any(rules == PRESETS[p] for p in shipped):
        parser.error(f"--level {args.level}: no shipped agent plays these rules (shipped: {', '.join(shipped)}); "
                     "choose another level or pass --opponent CHECKPOINT")
    if args.record and not Path(args.record).resolve().parent.is_dir():
        parser.error(f"--record {args.record}: the directory {Path(args.record).resolve().parent} does not exist")
    return rules


def _main_play(parser: argparse.ArgumentParser, args: argparse.Namespace, io: Console) -> int:
    """The terminal game against the bots, every hand saved to the history file or ``--record``."""
    rules = _game_rules(parser, args)
    opponent = args.opponent or level_spec(args.level, next((p for p in PRESETS if PRESETS[p] == rules), None))
    try:
        bots = make_bots(rules, args.seat, opponent, args.partner, seed=args.seed or 0)
    except (ValueError, MissingExtra) as err:  # a bad spec, an agent that cannot play these rules, or a
        print(f"{parser.prog}: error: cannot make the agent: {err}", file=sys.stderr)  # trained one without torch
        return 2
    try:
        writer = (RecordWriter(args.record, mode="a") if args.record else None if args.no_history
                  else open_history(io, args.lang))
    except OSError as err:
        parser.error(f"--record {args.record}: cannot write it: {err.strerror or err}")
    try:
        run(rules, args.seat, bots, io, seed=args.seed, hands=args.hands, symbols=not args.plain, record=writer,
            players=seat_specs(rules, args.seat, opponent, args.partner), variant=args.preset, lang=args.lang)
    except KeyboardInterrupt:
        io.say("\n" + word(args.lang, "t_bye"))
        return 130
    finally:
        if writer is not None:
            writer.close()
    return 0


def _main_web(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``--web``: the web table, with --preset, --level and --seat as the new-game form's choices."""
    if args.overrides or args.opponent or args.partner or args.hands is not None:
        parser.error("--set, --opponent, --partner and --hands are for the terminal game, not --web")
    if args.review or args.point_weight is not None or args.max_seconds is not None:
        parser.error("--review, --point-weight and --max-seconds are for the terminal replay; the web table's "
                     "Review button reviews a finished hand (docs/web.md)")
    if not 0 <= args.seat < PRESETS[args.preset].num_players:
        parser.error(f"--seat must be 0..{PRESETS[args.preset].num_players - 1}")
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be 0..65535, got {args.port}")
    from .web import run_web  # starlette and uvicorn: the [web] extra

    return run_web(args.host, args.port, open_browser=not args.no_browser, replay=args.replay,
                   defaults={"preset": args.preset, "level": args.level, "seat": args.seat})

