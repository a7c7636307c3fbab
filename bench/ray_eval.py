"""Distributed evaluation speed: one pairing run locally in one process, then on a private Ray
instance with ``--workers`` tasks, both in this process; Ray's start-up timed apart.

    python -m bench.ray_eval [--deals 100] [--workers 2] [--json FILE]

Needs the ``[ray]`` extra and a quiet machine: the speed-up is the ratio of two wall times
measured minutes apart. Ray starts its workers at a higher niceness than this process, so any
other job on the machine slows the distributed run more than the local one.
"""

from __future__ import annotations

import argparse
import os
import time

from tute_lab.evaluation import evaluate_pairing
from tute_lab.ray_cluster import connect_ray

from .common import machine, show, today


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="two_player")
    parser.add_argument("--agents", nargs=2, default=["heuristic", "pimc"])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", default=None, help="write the figures here")
    args = parser.parse_args(argv)
    a, b = args.agents
    local = evaluate_pairing(args.preset, a, b, num_deals=args.deals)
    load_local = os.getloadavg()[0]
    startup = connect_ray("local", num_cpus=args.workers)
    start = time.perf_counter()
    spread = evaluate_pairing(args.preset, a, b, num_deals=args.deals, workers=args.workers)
    ray_seconds = time.perf_counter() - start
    same = local.deal_scores.tolist() == spread.deal_scores.tolist() and \
        local.deal_point_diffs.tolist() == spread.deal_point_diffs.tolist()
    figures = {
        "date": today(), "machine": machine(), "preset": args.preset, "pairing": f"{a} vs {b}",
        "deals": args.deals, "workers": args.workers, "local_seconds": round(local.seconds, 1),
        "ray_seconds": round(ray_seconds, 1), "speedup": round(local.seconds / ray_seconds, 2),
        "ray_startup_seconds": round(startup, 1), "win_rate_local": local.win_rate,
        "win_rate_ray": spread.win_rate, "equal_per_deal": same,
        "load_average_after_local": load_local, "load_average_after_ray": os.getloadavg()[0],
    }
    show(figures, args.json)


if __name__ == "__main__":
    main()
