"""Shared helpers for benchmarks: machine description, medians, pinning, timing a policy (:class:`Timed`)."""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np


def machine() -> str:
    """CPU model, core count and Python/numpy versions, for the record."""
    model = platform.processor() or "unknown CPU"
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        model = next(line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Model name"))
    except (OSError, subprocess.CalledProcessError, StopIteration):
        pass
    return f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}"


def show(figures: dict, path: str | None = None) -> None:
    """Print a benchmark's figures as JSON, and write them to ``path`` when given."""
    import json

    print(json.dumps(figures, indent=1))
    if path:
        with open(path, "w") as f:
            json.dump(figures, f, indent=1)


def today() -> str:
    return datetime.date.today().isoformat()


def move_bench_parser(doc: str, hands: int, quick_help: str, hands_help: str) -> argparse.ArgumentParser:
    """The command line of the per-move benchmarks: ``--quick``, ``--hands`` and ``--write``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=quick_help)
    parser.add_argument("--hands", type=int, default=hands, help=hands_help)
    parser.add_argument("--write", default=None, help="markdown file to write the figures to")
    return parser


def start_move_bench(doc: str, hands: int, quick_help: str, hands_help: str, argv=None):
    """A per-move benchmark's start: its command line parsed (:func:`move_bench_parser`), the
    process pinned to core 0 and the load read. Returns (args, hands: 1 with ``--quick``, pinned,
    load average)."""
    args = move_bench_parser(doc, hands, quick_help, hands_help).parse_args(argv)
    pinned = pin_to_core(0)
    return args, 1 if args.quick else args.hands, pinned, load_average()


def write_page(path, lines: list[str]) -> None:
    """Write a benchmark's markdown page, one line each."""
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


#: The heading of a page's hand-written notes, kept when the bench writes the page again.
NOTES = "## Notes"


def write_page_keeping_notes(path, lines: list[str]) -> None:
    """:func:`write_page`, the hand-written notes of the page there (from :data:`NOTES` on) kept below."""
    notes = ""
    if os.path.exists(path):
        text = Path(path).read_text()
        if NOTES in text:
            notes = "\n" + text[text.index(NOTES):]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n" + notes)


def load_average() -> float:
    """The load average of the last minute (NaN where the system does not tell)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def pin_to_core(core: int = 0) -> bool:
    """Pin this process to one core (like ``taskset -c``); False where not supported."""
    try:
        os.sched_setaffinity(0, {core})
        return True
    except (AttributeError, OSError):
        return False


def median_rate(run, repeats: int = 5) -> float:
    """Median over ``repeats`` of ``count / seconds`` where ``run()`` returns (count, seconds)."""
    rates = []
    for _ in range(repeats):
        count, seconds = run()
        rates.append(count / seconds)
    return statistics.median(rates)


def timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - start


class Timed:
    """A policy that times its wrapped policy: ``seconds[k]`` and ``choices[k]`` (legal actions
    of the first row) of the k-th ``act_batch`` call, for per-move benchmarks at a table."""

    def __init__(self, policy):
        self.policy, self.seconds, self.choices = policy, [], []

    @property
    def takes_keys(self) -> bool:
        return getattr(self.policy, "takes_keys", False)

    def act_batch(self, observations, masks, **keys):
        start = time.perf_counter()
        actions = self.policy.act_batch(observations, masks, **keys)
        self.seconds.append(time.perf_counter() - start)
        self.choices.append(int(np.asarray(masks)[0].sum()))
        return actions

    def __repr__(self) -> str:
        return f"Timed({self.policy!r})"
