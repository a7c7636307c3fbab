"""Search agent speed: seconds per move of the default ``search`` bot on the presets with a
shipped network (p50, p99, max), pinned to one core.

    python -m bench.search_speed [--quick] [--hands 4] [--write docs/search_speed.md]

Moves: hands played with the default search bot at every seat (``bench.pimc_speed.move_times``);
every decision with more than one legal action is timed: ``act_batch`` on one observation
(decoding, the network's prior, sampling, building the states, the network playouts, the
critic and the choice). The network runs on the CPU with one thread.
"""

from __future__ import annotations

import torch

from agents.base import shipped_presets
from agents.search import SearchAgent
from tute_env.engine.rules import PRESETS

from .common import machine, start_move_bench, today, write_page
from .pimc_speed import move_times

#: The issue's limit: the p99 of a move on one core.
LIMIT_S = 1.0


def main(argv=None) -> None:
    args, hands, pinned, load = start_move_bench(__doc__, 4, "one hand per preset (smoke test)", "hands per preset",
                                                 argv)
    torch.set_num_threads(1)
    rows = []
    for preset in shipped_presets():
        res = move_times(preset, hands, make=SearchAgent)
        rows.append(res)
        print(f"{preset:14s} {res['moves']:4d} moves  mean {res['mean_s']:.3f} s  p50 {res['median_s']:.3f} s  "
              f"p99 {res['p99_s']:.3f} s  max {res['max_s']:.3f} s  (up to {res['max_actions']} actions)", flush=True)
    if args.write:
        default = SearchAgent(PRESETS[shipped_presets()[0]])
        lines = [
            "# Search agent speed",
            "",
            (
                f"Measured {today()} on {machine()}, torch {torch.__version__} (one thread); pinned to one core: "
                f"{pinned}. `python -m bench.search_speed --write docs/search_speed.md`. The default bot "
                f"(`make_agent(\"search\", rules)`): {default.num_samples} sampled deals per decision, the policy "
                f"network playing {default.depth} plies after each candidate action, then the critic. "
                f"Load average at the start: {load:.2f} (other jobs share the machine's cores, so these are "
                "upper bounds)."
            ),
            "",
            (
                f"{hands} hand(s) per preset with the bot at every seat; every decision with more than one legal "
                "action timed (decoding, the prior, sampling, state building, network playouts, critic, choice). "
                "Decisions with a single legal action return at once and are not counted. "
                f"The issue's limit: p99 at most {LIMIT_S:.0f} s."
            ),
            "",
            "| preset | moves | mean s | p50 s | p99 s | max s | most actions |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for r in rows:
            lines.append(f"| {r['preset']} | {r['moves']} | {r['mean_s']:.3f} | {r['median_s']:.3f} | "
                         f"{r['p99_s']:.3f} | {r['max_s']:.3f} | {r['max_actions']} |")
        write_page(args.write, lines)


if __name__ == "__main__":
    main()
