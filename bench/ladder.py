"""The standing ladder's pool data, page and README table, in one command (issue 37).

    python -m bench.ladder                                  # every preset, the full pool; then the docs
    python -m bench.ladder --preset two_player --pool rules # the rule-based pairings of one preset
    python -m bench.ladder --docs-only                      # the page, pictures and README table from the data
    python -m bench.ladder --ray local --num-workers 2      # each chunk of deals on Ray tasks
    python -m bench.ladder --preset corriente --pairing search heuristic   # one pairing (repeatable)

Plays every pool pairing not yet in the shipped data (``tute_lab/evaluation/ladder_data/<preset>.json``,
:mod:`tute_lab.evaluation.ladder`), ``--chunk`` deals at a time, the data saved after each chunk:
a killed run resumes at the first deal it had not saved, and says which pairings it skips because
they are done. The order puts first what rates the most for the time: the cheap pairings and
every member's pairing with the anchor, across the presets, then the rest; each part cheapest
first (by the costlier member's :data:`COST`, then the later member, its opponent from the
anchor's end, the preset). A run stopped early has the rule-based ladder of every preset and as
many members rated in each as it had time for. Where the
project's earlier runs left per-deal scores of a pool pairing (``docs/data``, :data:`REUSE`),
their first deals are played again and, if every figure is equal, the file's deals are taken
instead of playing them. Then writes docs/ladder.md, docs/img/ladder_<preset>.png and the README's
strength table (between ``<!-- ladder:begin -->`` and ``<!-- ladder:end -->``), all from the data:
tests/test_ladder.py checks that the page and the table are what :func:`page` and
:func:`readme_table` make of the shipped data.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from tute_env.engine.rules import PRESETS
from tute_lab.evaluation import MIN_DEALS_FOR_CI, pairing_seatings
from tute_lab.evaluation.ladder import (
    ANCHOR_AGENT,
    ANCHOR_RATING,
    BOOTSTRAP_SAMPLES,
    LADDER_DEALS,
    MEMBERS,
    RULE_POOL,
    POOLS,
    LadderData,
    LadderError,
    LadderPairing,
    load_ladder,
    play_pairing,
    pool_agents,
    pool_pairings,
    pool_ratings,
    shipped_path,
)

from .common import machine

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "ladder.md"
README = ROOT / "README.md"
IMG = ROOT / "docs" / "img"
BEGIN, END = "<!-- ladder:begin -->", "<!-- ladder:end -->"
#: Per-deal scores of pool pairings from earlier runs (same held-out deals, same agent seeds):
#: (preset, A, B) -> file under docs/data. Reused only when their first deals replay equal.
REUSE = {
    ("partnership", "dds", "pimc"): "dds_partnership_vs_pimc.json",
    ("two_player", "dds", "pimc"): "dds_two_player_vs_pimc.json",
    ("partnership", "search", "pimc"): "search_partnership_vs_pimc.json",
    ("two_player", "search", "pimc"): "search_two_player_vs_pimc.json",
    ("partnership", "search", "heuristic"): "search_partnership_vs_heuristic.json",
    ("partnership", "search", "ppo"): "search_partnership_vs_ppo.json",
    ("two_player", "search", "ppo"): "search_two_player_vs_ppo.json",
}
REPLAY_CHECK = 3
#: How costly a member's moves are, roughly (0: a fraction of a millisecond, ppo's network included;
#: 1: search, milliseconds; 2: pimc, tens of ms; 3: dds, up to seconds): the cheap pairings come first.
COST = {"random": 0, "greedy": 0, "heuristic": 0, "ppo": 0, "search": 1, "search+dds": 2, "pimc": 2, "dds": 3}


def log(msg: str) -> None:
    print(msg, flush=True)


def load_or_new(preset: str, deals: int | None) -> LadderData:
    path = shipped_path(preset)
    if not path.is_file():
        return LadderData.new(preset, deals, machine())
    data = load_ladder(preset)
    if deals is not None and deals != data.num_deals:
        raise LadderError(f"{preset}: the shipped data are on {data.num_deals} deals a pairing, not {deals} "
                          f"(delete {path} to start over)")
    return data


def name_machine(data: LadderData, date: str) -> None:
    """Name this machine among the data's (with the date it first played), so the page's times say
    where they were measured."""
    here = machine()
    if here not in data.machine:
        data.machine = f"{data.machine}; {here} from {date}" if data.machine else here


def reuse(data: LadderData, a: str, b: str) -> None:
    """A vs B's deals from an earlier run (:data:`REUSE`) as the pairing's first deals, if it has
    none yet and the first :data:`REPLAY_CHECK` deals played again now are equal to the file's
    (else those deals played again are kept, and the file is not used)."""
    name = REUSE.get((data.preset, a, b))
    path = ROOT / "docs" / "data" / name if name else None
    if path is None or not path.is_file():
        return
    d = json.loads(path.read_text())
    source = d["pairings"][0] if "pairings" in d else d
    if ((source["agent_a"], source["agent_b"]) != (a, b) or source["seed_start"] != data.seed_start
            or d.get("agent_seed", data.agent_seed) != data.agent_seed):
        return
    if data.get(a, b) is not None:  # begun already: from the file, or played here (the file did not replay)
        return
    scores = np.asarray(source["deal_scores"], dtype=np.float64)[: data.num_deals]
    check = play_pairing(data, a, b, count=min(REPLAY_CHECK, len(scores)))
    last = len(check.deal_scores) - 1
    if not np.array_equal(check.deal_scores, scores[: last + 1]):
        log(f"[{data.preset}] {a} vs {b}: docs/data/{name} does not replay equal now (deals 0-{last}): "
            "not reused; the deals played again are kept")
        data.add(check)
    else:
        log(f"[{data.preset}] {a} vs {b}: reused deals 0-{len(scores) - 1} of docs/data/{name} "
            f"(deals 0-{last} played again: equal)")
        seconds = source.get("seconds", math.nan) * len(scores) / len(source["deal_scores"])
        pairing = LadderPairing(a, b, len(pairing_seatings(data.rules_obj)), np.zeros(0, np.int64))
        pairing.extend(scores, seconds, f"{(d.get('date') or 'earlier')[:10]} (docs/data/{name})")
        data.pairings.append(pairing)
    data.save(shipped_path(data.preset))


def play_missing(presets: list[str], pool: str, deals: int | None, chunk: int, workers: int | None,
                 progress: bool, only: list[set[str]] | None = None) -> None:
    """Every pool pairing of ``presets`` not complete in the data (those of ``only``, pairs of
    members, if given), cheap members first, saved after each chunk of deals."""
    ladders = {p: load_or_new(p, deals) for p in presets}
    members = list(MEMBERS)
    order = sorted(((p, a, b) for p in presets for a, b in pool_pairings(p, pool) if not only or {a, b} in only),
                   key=lambda x: (max(COST[x[1]], COST[x[2]]) > 0 and x[2] != ANCHOR_AGENT,
                                  max(COST[x[1]], COST[x[2]]), members.index(x[1]), -members.index(x[2]),
                                  presets.index(x[0])))
    if order:  # numba's compiled rules loaded (or compiled) before any pairing is timed
        play_pairing(ladders[order[0][0]], "greedy", "random", count=1)
    for preset, a, b in order:  # first what earlier runs left: a few deals played again each
        reuse(ladders[preset], a, b)
    for preset, a, b in order:
        data = ladders[preset]
        have = data.get(a, b)
        done = 0 if have is None else have.deals
        if done >= data.num_deals:
            log(f"[{preset}] skip {a} vs {b}: done ({data.num_deals} deals, {', '.join(have.dates)})")
            continue
        if done:
            log(f"[{preset}] {a} vs {b}: {done} of {data.num_deals} deals done, resuming at deal {done}")
        while done < data.num_deals:
            count = min(chunk, data.num_deals - done)
            start, cpu = time.perf_counter(), time.process_time()
            result = play_pairing(data, a, b, first=done, count=count, progress=progress, workers=workers,
                                  desc=f"[{preset}] {a} vs {b} deals {done}-{done + count - 1}")
            result.seconds = time.perf_counter() - start
            pairing = data.add(result, None if workers else time.process_time() - cpu)
            name_machine(data, pairing.dates[-1])
            data.save(shipped_path(preset))
            done = pairing.deals
            if result.seconds >= 5 or done == data.num_deals:
                log(f"[{preset}] {a} vs {b}: deals {done - count}-{done - 1} in {result.seconds:.0f} s "
                    f"({result.seconds / count:.2f} s a deal, CPU {(time.process_time() - cpu) / count:.2f} s); "
                    f"{pairing.win_rate:.3f} over {done} deals")


# ------------------------------------------------------------------------------------------------
# The docs, from the data
# ------------------------------------------------------------------------------------------------
#: The presets in the docs' order: the two with shipped networks first.
PRESET_ORDER = ("partnership", "two_player", *sorted(set(PRESETS) - {"partnership", "two_player"}))


def shipped() -> dict[str, LadderData]:
    """Every preset's shipped pool data, in :data:`PRESET_ORDER` (those without data left out)."""
    return {p: load_ladder(p) for p in PRESET_ORDER if shipped_path(p).is_file()}


def _rating_cell(r) -> str:
    if r.agent == ANCHOR_AGENT:
        return f"{r.rating:.0f} (anchor)"
    return f"{r.rating:.0f} [{r.low:.0f}, {r.high:.0f}]"


def _order(ladders: dict[str, LadderData]) -> list[str]:
    """Every pool member of any preset, in the pool's order."""
    members: list[str] = []
    for preset in ladders:
        members += [m for m in pool_agents(preset, "full") if m not in members]
    return members


def readme_table(ladders: dict[str, LadderData]) -> str:
    """The README's strength table: every pool member's rating in every preset (the same figures
    as docs/ladder.md)."""
    ratings = {p: {r.agent: r for r in pool_ratings(d)} for p, d in ladders.items()}
    lines = ["| agent | " + " | ".join(f"`{p}`" for p in ladders) + " |",
             "|---|" + "---|" * len(ladders)]
    for m in _order(ladders):
        cells = []
        for p in ladders:
            r = ratings[p].get(m)
            cells.append(_rating_cell(r) if r else ("not yet" if m in pool_agents(p, "full") else ""))
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    if any(data.missing("full") for data in ladders.values()):
        lines += ["", "Until a preset's round robin is complete (docs/ladder.md lists what is missing), its figures "
                  "move as the rest is played."]
    return "\n".join(lines)


def _num(x: float | None) -> str:
    """Seconds for a table: whole above 100, one decimal above 1, else two significant digits."""
    if x is None or math.isnan(x):
        return ""
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}" if x >= 1 else f"{x:.2g}"


def _per_deal(p: LadderPairing) -> str:
    return _num(p.seconds / p.deals if p.deals else None)


def _cpu_per_deal(p: LadderPairing) -> float | None:
    """CPU seconds a deal, where measured (the cost on a core of its own)."""
    return p.cpu_seconds / p.cpu_deals if p.cpu_deals else None


def _cost(p: LadderPairing) -> float | None:
    """Seconds a deal: CPU time where measured, else wall time (an upper bound on a shared machine)."""
    cpu = _cpu_per_deal(p)
    return cpu if cpu is not None else (None if not p.deals or math.isnan(p.seconds) else p.seconds / p.deals)


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 60 else f"{seconds:.1f} s"


def member_costs(data: LadderData) -> dict[str, float]:
    """Each pool member's seconds a deal, at most, from the pool's times (:func:`_cost`): its
    cheapest pairing against a rule-based bot, else its cheapest pairing (the other member's moves
    included: an upper bound). Members with no timed pairing of 30 deals or more are left out."""
    timed = [(p.agent_a, p.agent_b, _cost(p)) for p in data.pairings
             if p.deals >= MIN_DEALS_FOR_CI and _cost(p) is not None]
    costs = {}
    for m in pool_agents(data.preset, "full"):
        mine = [(b if a == m else a, t) for a, b, t in timed if m in (a, b)]
        cheap = [t for other, t in mine if other in RULE_POOL]
        if mine:
            costs[m] = min(cheap or [t for _, t in mine])
    return costs


def missing_cost(data: LadderData, costs: dict[str, float]) -> tuple[float, list[str]]:
    """Seconds on one core the pool pairings not complete still need, at most (each deal left costs
    both members' :func:`member_costs`), and the members whose cost is not known (left out)."""
    seconds, unknown = 0.0, set()
    for a, b, done in data.missing("full"):
        unknown |= {m for m in (a, b) if m not in costs}
        seconds += sum(costs.get(m, 0.0) for m in (a, b)) * (data.num_deals - done)
    return seconds, [m for m in pool_agents(data.preset, "full") if m in unknown]


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else _minutes(seconds)


def preset_section(data: LadderData) -> list[str]:
    from tute_lab.evaluation.ladder import missing_lines, pairing_text

    preset = data.preset
    standing = pool_ratings(data)
    deals = f"{data.num_deals:,} duplicate deals a pairing (seeds {data.seed_start:,} to {data.seed_start + data.num_deals - 1:,})"
    seatings = len(pairing_seatings(data.rules_obj))
    lines = [f"## {preset}", "", f"{deals}, {seatings} seatings a deal; agent seeds from {data.agent_seed:,}.", "",
             f"![ratings of {preset}](img/ladder_{preset}.png)", "",
             "| rank | agent | rating | 95% interval | deals played |", "|---:|---|---:|---|---:|"]
    for r in standing:
        played = sum(p.deals for p in data.pairings if r.agent in (p.agent_a, p.agent_b))
        interval = "(anchor)" if r.agent == ANCHOR_AGENT else f"[{r.low:.0f}, {r.high:.0f}]"
        lines.append(f"| {r.rank} | {r.agent} | {r.rating:.0f} | {interval} | {played:,} |")
    lines += ["", "| pairing | deals | win rate [95% CI] | seconds | s a deal | CPU s a deal | played |",
              "|---|---:|---|---:|---:|---:|---|"]
    for a, b in pool_pairings(preset, "full"):
        p = data.get(a, b)
        if p is None or not p.deals:
            continue
        lines.append(f"| {a} vs {b} | {p.deals:,} | {pairing_text(p)} | {_num(p.seconds)} | "
                     f"{_per_deal(p)} | {_num(_cpu_per_deal(p))} | "
                     f"{', '.join(p.dates)} |")
    missing = missing_lines(data)
    todo = [(a, b) for a, b, n in data.missing("full") if not n]
    if todo:
        missing.append(f"pool pairings not played yet ({len(todo)}): " + ", ".join(f"{a} vs {b}" for a, b in todo))
    known = member_costs(data)
    if missing:
        left, unknown = missing_cost(data, known)
        missing.append(f"what is missing, estimated the same way as a newcomer's ladder below: {_hours(left)} on "
                       "one core" + (f" plus the share of {' and '.join(unknown)}, not measured yet" if unknown else ""))
        lines += ["", *(f"- {m}." for m in missing)]
    rules = sum(known.get(m, 0.0) for m in pool_agents(preset, "rules"))
    unknown = [m for m in pool_agents(preset, "full") if m not in known]
    full = sum(known.values()) * data.num_deals
    lines += ["", "A newcomer's ladder here, estimated from the pool's own times (one core: CPU seconds where "
              "measured, else wall time; a member timed only "
              "against another costly one counted with it, so these are upper bounds), the newcomer's own moves "
              "apart (a newcomer as slow as pimc adds pimc's seconds a deal to each pairing): the rule-based "
              f"pool {_minutes(rules * data.num_deals)}, the full pool "
              f"{_minutes(full)}" + (f" plus the share of {' and '.join(unknown)}, not measured yet" if unknown else
                                      " (about half that with `--ray local --num-workers 2`)") + "."]
    return lines


def page(ladders: dict[str, LadderData]) -> str:
    """docs/ladder.md from the shipped data."""
    machines = list(dict.fromkeys(m for d in ladders.values() for m in d.machine.split("; ") if m))
    lines = [
        "# The standing ladder",
        "",
        "<!-- Written by `python -m bench.ladder` from tute_lab/evaluation/ladder_data/*.json: rerun it, do not edit. -->",
        "",
        "How strong is a bot? Each preset has a fixed **pool** of reference agents (`random`, `greedy`,",
        "`heuristic`, `pimc`, `dds`, and `ppo` and `search` where the preset has a shipped network), whose",
        "round robin is played once on held-out duplicate deals and shipped with the package",
        "(`tute_lab/evaluation/ladder_data/<preset>.json`). Their ratings stand on one **Elo scale**",
        f"anchored at **{ANCHOR_AGENT} = {ANCHOR_RATING:.0f}** in every preset, and any agent is placed on that",
        "scale by playing the pool on the same deals; the pool's ratings do not move:",
        "",
        "```bash",
        "tute-evaluate --ladder --preset two_player                  # the standing table",
        "tute-evaluate --ladder yourmod:YourAgent --preset two_player # placed against random, greedy, heuristic",
        "tute-evaluate --ladder yourmod:YourAgent --pool full --ray local --num-workers 2 --save",
        "                                                            # the whole pool; kept in your ladder file",
        "```",
        "",
        "## Method",
        "",
        "- **Deals.** Every pairing of a preset plays the same held-out deals (seeds from",
        "  `HELD_OUT_SEED_START` = 10^9, which training never uses), each in every seating (two, or six",
        "  with three players: [strength.md](strength.md) has the duplicate method); a deal's score is",
        "  the share of its seatings won. Agent seeds: the first agent of a pairing draws from 10^9, the",
        "  second from 10^9 + 1; a newcomer is always first, so the same agent and seed give the same",
        "  figures, in one run, in batches or on Ray.",
        "- **Scale.** Elo: P(A beats B) = 1 / (1 + 10^((R_B - R_A) / 400)), fitted by maximum likelihood",
        "  (Bradley-Terry) to every pool pairing's win rate, weighted by its deals, with",
        f"  `{ANCHOR_AGENT}` held at {ANCHOR_RATING:.0f}. The anchor: every preset has it, it is deterministic, and it",
        "  is neither near the top nor at the bottom (against `random` win rates saturate near 0.95 in",
        "  two_player, which would make a `random` anchor noisy). A sweep (a win rate of 0 or 1) is",
        "  moved half a deal in, so every rating is finite.",
        f"- **Intervals.** 95%, from a bootstrap over deals: {BOOTSTRAP_SAMPLES} resamples of the deal set with",
        "  a fixed seed, the same resampled deals in every pairing, the fit redone on each; the 2.5th",
        "  and 97.5th percentiles. They measure the distance from the anchor, whose own interval is",
        "  its point. A pairing still in progress counts with the deals it has, from 30 on (fewer say",
        "  too little: the project gives no interval below 30 deals either).",
        "- **A newcomer** (`--ladder AGENT`) plays the pool's members on the pool's deals; the pool's",
        "  ratings held, only its own rating is fitted; its interval is the same bootstrap over its",
        "  own deals (the pool's held fixed), its rank the place it takes among the pool. `--pool rules`",
        "  (the default) plays `random`, `greedy` and `heuristic` only, `--pool full` every rated",
        "  member. The pool's games against each other are never played again. `--save [PATH]` adds",
        "  the result to your ladder file (default `~/.local/share/tute_env/ladder.json`, beside",
        "  tute-play's history), which `--ladder` alone lists after the table; nothing writes to the",
        "  shipped data but `python -m bench.ladder`. Measured: a network placed on partnership's full",
        "  pool (seven members, 500 deals each) took 39 min on one core, 2026-12-07",
        "  ([experiments/ladder_newcomer.md](experiments/ladder_newcomer.md)); each preset's section",
        "  below estimates its own.",
        "- **Regenerating** the pool's data, this page, its pictures and the README's table:",
        "  `python -m bench.ladder` plays every pool pairing not yet in the data, 50 deals at a time,",
        "  saving after each, so a killed run resumes where it stopped (it names the pairings it",
        "  skips as done); `--docs-only` rewrites the docs alone. Where an earlier run left a pool",
        "  pairing's per-deal scores in [data/](data/), its first deals are played again and, if equal,",
        "  the rest is taken from the file (the dates column says so).",
        "",
        "## Summary",
        "",
        readme_table(ladders),
        "",
        (f"Times: seconds on {'; '.join(machines)}. The machine was shared with other jobs (a load of"
         " up to 10 on its 2 cores), so a pairing's wall time is an upper bound; the process's CPU time a deal"
         " (\"CPU s a deal\", where measured) is what a deal costs on a core of its own. Pairings reused from"
         " earlier runs keep those runs' wall times."),
        "",
    ]
    for data in ladders.values():
        lines += [*preset_section(data), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def plot(data: LadderData, path: Path) -> None:
    """The preset's ratings with their intervals, best at the top."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    standing = pool_ratings(data)[::-1]
    fig, ax = plt.subplots(figsize=(6.4, 0.45 * len(standing) + 1.4))
    y = np.arange(len(standing))
    ratings = np.array([r.rating for r in standing])
    err = np.array([[r.rating - r.low for r in standing], [r.high - r.rating for r in standing]])
    ax.errorbar(ratings, y, xerr=err, fmt="o", color="tab:blue", capsize=4)
    ax.axvline(ANCHOR_RATING, color="grey", lw=0.8, ls="--")
    for yi, r in zip(y, standing):
        ax.annotate(f"{r.rating:.0f}", (r.rating, yi), textcoords="offset points", xytext=(0, 7), ha="center",
                    fontsize=8)
    ax.set_yticks(y, [r.agent for r in standing])
    ax.set_ylim(-0.7, len(standing) - 0.3)
    ax.set_xlabel(f"Elo ({ANCHOR_AGENT} = {ANCHOR_RATING:.0f}), 95% bootstrap interval")
    ax.set_title(f"{data.preset}: the standing ladder ({data.num_deals} deals a pairing)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def readme_with_table(readme: str, ladders: dict[str, LadderData]) -> str:
    """The README with its table between the markers replaced."""
    head, begin, rest = readme.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise LadderError(f"README.md has no {BEGIN} ... {END} section")
    return f"{head}{BEGIN}\n{readme_table(ladders)}\n{END}{tail}"


def write_docs() -> None:
    ladders = shipped()
    PAGE.write_text(page(ladders))
    for preset, data in ladders.items():
        plot(data, IMG / f"ladder_{preset}.png")
    README.write_text(readme_with_table(README.read_text(), ladders))
    log(f"wrote {PAGE.relative_to(ROOT)}, docs/img/ladder_*.png ({len(ladders)} presets) and README.md's table")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", nargs="+", default=sorted(PRESETS), choices=sorted(PRESETS),
                        help="presets to play (default: all)")
    parser.add_argument("--pool", default="full", choices=POOLS, help="the whole pool (default) or its rule-based bots")
    parser.add_argument("--deals", type=int, default=None,
                        help="deals a pairing for a preset without data yet (default: LADDER_DEALS)")
    parser.add_argument("--chunk", type=int, default=50, help="deals played between two saves (default 50)")
    parser.add_argument("--docs-only", action="store_true", help="play nothing: write the page, pictures and table")
    parser.add_argument("--no-docs", action="store_true", help="play, but leave the docs as they are")
    parser.add_argument("--ray", metavar="local|auto|ADDRESS", help="each chunk on Ray tasks")
    parser.add_argument("--num-workers", type=int, default=None, help="Ray tasks a chunk (default: the CPUs)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--pairing", nargs=2, action="append", metavar=("A", "B"), default=None,
                        help="play only this pool pairing (repeatable; either order), e.g. --pairing search heuristic")
    args = parser.parse_args(argv)
    unknown = sorted({m for pair in args.pairing or [] for m in pair} - set(MEMBERS))
    if unknown:
        print(f"bench.ladder: error: --pairing: unknown pool member(s) {unknown}: expected {list(MEMBERS)}", file=sys.stderr)
        return 2
    try:
        if not args.docs_only:
            workers = None
            if args.ray:
                from tute_lab.ray_cluster import check_ray_options, connect_workers

                check_ray_options(args.ray, args.num_workers)
                workers, _ = connect_workers(args.ray, args.num_workers)
            only = [set(pair) for pair in args.pairing] if args.pairing else None
            play_missing(args.preset, args.pool, args.deals, args.chunk, workers, not args.no_progress, only)
        if not args.no_docs:
            write_docs()
    except ValueError as err:  # LadderError, Ray options
        print(f"bench.ladder: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bench.ladder: stopped; every chunk played so far is saved: run it again to resume "
              "(then the docs are written)", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
