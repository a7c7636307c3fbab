"""dds bot speed: seconds per move of the default ``dds`` (issue 30's goal: at most 2 s a move at
the p99, on one core).

    python -m bench.dds_speed [--quick] [--hands 10] [--write docs/dds_speed.md]

Pinned to one core. Hands are played with the default dds bot at every seat; every decision
with more than one legal action is timed (:func:`bench.pimc_speed.move_times`: decoding,
sampling, the solves or pimc's playouts, the choice), and split by who played it: the exact
solves (late in the hand) or pimc (early, or when the solves would run past their share of the
time budget).
"""

from __future__ import annotations

from agents.dds import DDSAgent
from tute_env.engine.rules import PRESETS

from .common import machine, start_move_bench, today, write_page
from .pimc_speed import move_times

PRESETS_TIMED = ("partnership", "two_player")
GOAL_P99 = 2.0


def main(argv=None) -> None:
    args, hands, pinned, load = start_move_bench(__doc__, 10, "one hand a preset (smoke test)", "hands per preset", argv)
    default = DDSAgent(PRESETS["partnership"])
    rows = []
    for preset in PRESETS_TIMED:
        r = move_times(preset, hands, make=DDSAgent)
        rows.append(r)
        print(f"{preset:12s} {r['moves']:4d} moves  median {r['median_s']:.3f} s  p99 {r['p99_s']:.3f} s  "
              f"max {r['max_s']:.3f} s  ({100 * r['exact']:.0f}% solved exactly: median {r['exact_median_s']:.3f} s, "
              f"max {r['exact_max_s']:.3f} s)", flush=True)
    if args.write:
        lines = [
            "# dds speed",
            "",
            (f"Measured {today()} on {machine()}; pinned to one core: {pinned}; load average at the start "
             f"{load:.2f}. `python -m bench.dds_speed --hands {hands} --write docs/dds_speed.md`. The default bot: "
             f"{default.dds_samples} deals solved a late decision, pimc with {default.num_samples} samples before, "
             f"a time budget of {default.dds_budget} s a decision (the solves get "
             f"{default.solve_budget:.2f} s of it, pimc what is left). Goal (issue 30): at most {GOAL_P99} s a "
             "move at the p99."),
            "",
            (f"{hands} hands a preset with the bot at every seat; every decision with more than one legal action "
             "timed. \"Exact\": decisions played by the solved deals (the rest were pimc's)."),
            "",
            "| preset | moves | median s | p95 s | p99 s | max s | exact | exact median s | exact max s | p99 <= 2 s |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
        ]
        for r in rows:
            lines.append(
                f"| {r['preset']} | {r['moves']} | {r['median_s']:.3f} | {r['p95_s']:.3f} | {r['p99_s']:.3f} | "
                f"{r['max_s']:.3f} | {100 * r['exact']:.0f}% | {r['exact_median_s']:.3f} | {r['exact_max_s']:.3f} | "
                f"{'yes' if r['p99_s'] <= GOAL_P99 else '**no**'} |"
            )
        write_page(args.write, lines)


if __name__ == "__main__":
    main()
