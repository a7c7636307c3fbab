"""The benchmark report: markdown tables, the headline ratios, and a bar chart of the ratios
(matplotlib, Agg backend) from the results dict that ``python -m bench`` builds."""

from __future__ import annotations

import json
from pathlib import Path

DASH = "—"


def _num(x: float | None, digits: int = 0) -> str:
    if x is None:
        return DASH
    return f"{x:,.{digits}f}"


def _ratio(x: float | None) -> str:
    if x is None:
        return DASH
    return f"{x:,.0f}x" if x >= 100 else f"{x:.3g}x"  # three significant digits below 100


def best_batch(results: dict, preset: str) -> dict:
    """The core row with the most decisions/s for a preset."""
    return max((r for r in results["core"] if r["preset"] == preset), key=lambda r: r["decisions_per_s"])


def core_row(results: dict, preset: str, batch: int) -> dict:
    return next(r for r in results["core"] if r["preset"] == preset and r["batch"] == batch)


def comparisons(results: dict, peer: dict) -> list[dict]:
    """The two tute_env figures a peer is set against: one game at a time, and batched.
    Each: label, tute figure, ratio (tute_env / peer; None when the peer has no figure)."""
    preset = peer["preset"]
    if peer["compare"] == "core":
        one, best = core_row(results, preset, 1), best_batch(results, preset)
        pairs = [(f"core `{preset}`, B = 1", one["decisions_per_s"], "B = 1"),
                 (f"core `{preset}`, best B = {best['batch']}", best["decisions_per_s"], "best B")]
    else:
        env = results["env"][preset]
        pairs = [(f"`tute_v0` AEC `{preset}`", env["aec_decisions_per_s"], "B = 1"),
                 (f"`TuteVectorEnv` `{preset}` N = {results['vector_envs']}, learner steps",
                  env["vector_steps_per_s"], "best B")]
    rate = peer["rate"]
    return [{"label": label, "tute": tute, "kind": kind, "ratio": tute / rate if rate else None}
            for label, tute, kind in pairs]


def headline(results: dict) -> list[str]:
    """One line per comparison worth quoting (the README quotes these)."""
    lines = []
    for preset in ("partnership", "two_player"):
        best = best_batch(results, preset)
        ref = results["reference"][preset]
        lines.append(f"Rules core, `{preset}`: {best['decisions_per_s']:,.0f} random-play decisions/s at B = "
                     f"{best['batch']} on one core, {_ratio(best['decisions_per_s'] / ref)} the plain-Python reference "
                     f"engine ({ref:,.0f}/s); one game at a time (B = 1): "
                     f"{_ratio(core_row(results, preset, 1)['decisions_per_s'] / ref)}.")
    for peer in results["peers"]:
        name = f"{peer['library']} `{peer['game']}`"
        if peer["rate"] is None:
            lines.append(f"{name}: {peer['missing']}.")
            continue
        one, best = comparisons(results, peer)
        lines.append(f"vs {name} ({peer['rate']:,.0f} decisions/s): {_ratio(best['ratio'])} batched "
                     f"({best['label']}), {_ratio(one['ratio'])} one game at a time ({one['label']}).")
    return lines


def chart_path(out: Path) -> Path:
    """Where the bar chart of the report ``out`` goes: ``img/`` beside it (docs/img/benchmarks.png)."""
    return Path(out).parent / "img" / Path(out).with_suffix(".png").name


def json_path(out: Path) -> Path:
    """Where the figures of the report ``out`` go as JSON: ``data/`` beside it (docs/data/benchmarks.json)."""
    return Path(out).parent / "data" / Path(out).with_suffix(".json").name


def write(results: dict, out: Path) -> None:
    """The report ``out``, its chart (:func:`chart_path`) and its figures as JSON (:func:`json_path`)."""
    out = Path(out)
    chart = chart_path(out)
    chart.parent.mkdir(parents=True, exist_ok=True)
    plot(results, chart)
    out.write_text(markdown(results, chart.relative_to(out.parent).as_posix()))
    data = json_path(out)
    data.parent.mkdir(parents=True, exist_ok=True)
    data.write_text(json.dumps(results, indent=1) + "\n")


def markdown(results: dict, chart_name: str) -> str:
    """docs/benchmarks.md from the results of ``python -m bench`` (``chart_name``: the bar chart's
    file relative to the report, shown under the headline ratios): the sections in order, each function below giving
    its lines, from its heading to the blank line that ends it."""
    sections = (_intro(results), _headline_section(results, chart_name), _core_section(results),
                _peers_section(results), _env_section(results), _eval_section(results), _ppo_section(results["ppo"]),
                _rerun_section())
    return "\n".join(line for section in sections for line in section)


def _intro(results: dict) -> list[str]:
    """The title, the quick-mode warning and how, where and when the figures were measured."""
    quick = results["mode"] == "quick"
    s = results["settings"]
    pinned = (f"pinned to core {results['pinned_core']}" if results["pinned_core"] is not None
              else "not pinned to a core")
    load = (f"load average (1 min) {results['load_start']:.1f} at the start, {results['load_end']:.1f} at the end"
            if results.get("load_start") is not None else "load average unknown")
    return [
        "# Benchmarks",
        "",
        "Written by `python -m bench` " + ("**in `--quick` mode: a smoke test, the figures mean nothing**. "
                                           if quick else "") + "Do not edit by hand; rerun it.",
        "",
        f"- date: {results['date']}; whole run {results['seconds_total']:.0f} s",
        f"- machine: {results['machine']}",
        f"- {pinned} for everything but PPO (two cores); {load} "
        "(other jobs on the machine slow every figure, the peers' as much as ours)",
        f"- each figure is the median of {s['runs']} runs of {s['seconds']:g} s (core random play: of 5 runs; "
        "masks and observations: of 5 timings), peers and tute_env measured in this same run",
        "",
    ]


def _headline_section(results: dict, chart_name: str) -> list[str]:
    """The :func:`headline` lines as a list, and the chart."""
    return [
        "## Headline ratios",
        "",
        "Ratios are tute_env's figure over the peer's (above 1: tute_env is faster).",
        "",
        *[f"- {line}" for line in headline(results)],
        "",
        f"![ratios of tute_env's figures to the peers' (log scale)]({chart_name})",
        "",
    ]


def _core_section(results: dict) -> list[str]:
    """Random play in the rules core: a row per preset and batch size, then the reference engine's."""
    lines = [
        "## Rules core: random play",
        "",
        "`bench.core_speed`: `Game.random_state`, then steps of random legal play (legal mask, a uniformly random "
        "legal action, `step`, finished games dealt anew by `reset_done`), one decision per game per step. Legal "
        "mask and observation (`encode_observation` of the player to act) timed alone on mid-game states, per "
        "game; memory is the `State` arrays' bytes per game.",
        "",
        "| preset | B | decisions/s | vs reference engine | legal mask ns/game | observation ns/game | "
        "state bytes/game |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results["core"]:
        ref = results["reference"][r["preset"]]
        lines.append(f"| {r['preset']} | {r['batch']} | {r['decisions_per_s']:,.0f} | "
                     f"{_ratio(r['decisions_per_s'] / ref)} | {r['mask_ns_per_game']:,.0f} | "
                     f"{r['observation_ns_per_game']:,.0f} | {r['bytes_per_game']:,.0f} |")
    for preset, rate in results["reference"].items():
        lines.append(f"| {preset} | reference engine (one game, plain Python) | {rate:,.0f} | 1.00x | | | |")
    return lines + [
        "",
        "The reference engine (`tute_env.engine.reference.ReferenceGame`) plays the deals the core's random play starts "
        "from (`random_deals` with the same seed), one game at a time, with uniformly random legal actions; its "
        "`legal_actions()` and `step()` are timed.",
        "",
    ]


def _peers_section(results: dict) -> list[str]:
    """The peers against tute_env (a row each, **missing** where one could not run), then how
    each peer's decisions are counted."""
    lines = [
        "## Peers, same machine, same run",
        "",
        "Decisions are player decisions (chance nodes, dealing and PettingZoo's dead steps excluded). The peers "
        "play one game at a time, so each is set against tute_env one game at a time (B = 1) and at tute_env's "
        "best batch size: the rules core for the engines (OpenSpiel, RLCard), the environments for PettingZoo. "
        "Ratio = tute_env / peer. tute_env's own games through the same APIs are rows too (OpenSpiel's "
        "`python_tute`, RLCard's `tute`): what each framework's loop costs around the same core.",
        "",
        "| peer | game (players) | version | timed | decisions/game | decisions/s | tute_env one game "
        "| ratio | tute_env batched | ratio |",
        "|---|---|---|---|---:|---:|---|---:|---|---:|",
    ]
    for p in results["peers"]:
        if p["rate"] is None:
            lines.append(f"| {p['library']} | `{p['game']}` ({p['players']}) | {p['version'] or DASH} | {p['api']} | "
                         f"{DASH} | **{p['missing']}** | {DASH} | {DASH} | {DASH} | {DASH} |")
            continue
        one, best = comparisons(results, p)
        lines.append(f"| {p['library']} | `{p['game']}` ({p['players']}) | {p['version'] or DASH} | {p['api']} | "
                     f"{_num(p['decisions_per_game'], 1)} | {p['rate']:,.0f} | {one['label']}: {one['tute']:,.0f} | "
                     f"{_ratio(one['ratio'])} | {best['label']}: {best['tute']:,.0f} | {_ratio(best['ratio'])} |")
    return lines + [
        "",
        "How each peer's decisions are counted:",
        "",
        "- OpenSpiel: `pyspiel.evaluate_bots` (C++) with `make_uniform_random_bot` in every seat, one call per "
        "game, gives games/s; it does not say how many moves it made, so decisions/game is the mean count of "
        f"non-chance, non-terminal states over {results['settings']['count_games']} games walked in Python with "
        "uniformly random moves, and decisions/s = games/s x decisions/game (hearts: 64 decisions with card "
        "passing, 52 when the chance node picks no pass).",
        "- RLCard: `env.run(is_training=False)` with `RandomAgent` in every seat; decisions are the actions in the "
        "returned trajectories (exact).",
        "- PettingZoo and `tute_v0`: the loop of `bench.env_speed.aec_rate` (`env.last()`, a uniformly random "
        "legal action from the mask, `env.step`); decisions are the steps with an action (exact). "
        f"`TuteVectorEnv` (N = {results['vector_envs']}, random opponents inside) counts learner steps only, "
        "the opponents' moves happen inside them.",
        "",
    ]


def _env_section(results: dict) -> list[str]:
    """The environments' rates, a row per preset."""
    return [
        "## Environments",
        "",
        "| preset | `tute_v0` AEC loop, decisions/s | `TuteVectorEnv` N = "
        f"{results['vector_envs']}, learner steps/s |",
        "|---|---:|---:|",
        *[f"| {preset} | {e['aec_decisions_per_s']:,.0f} | {e['vector_steps_per_s']:,.0f} |"
          for preset, e in results["env"].items()],
        "",
    ]


def _eval_section(results: dict) -> list[str]:
    """Greedy-vs-greedy evaluation and PIMC's time per move, a row per preset."""
    s = results["settings"]
    lines = [
        "## Evaluation and search",
        "",
        f"Greedy vs greedy: `tute_lab.evaluation.evaluate_pairing` over {s['eval_deals']} duplicate deals in one batch "
        f"(`bench.eval_speed.eval_speed`), median of {s['eval_runs']} runs; a duplicate hand is one game of a deal "
        f"in one seating. PIMC: the default `pimc` bot on single observations from random points of random hands "
        f"(`bench.eval_speed.pimc_speed`), {s['pimc_moves']} moves a run, median of {s['pimc_runs']} runs.",
        "",
        "| preset | greedy vs greedy, duplicate hands/s | PIMC mean s/move | PIMC 95th percentile s/move |",
        "|---|---:|---:|---:|",
    ]
    for preset, e in results["eval"].items():
        pimc = e["pimc"]
        if pimc:
            cells = f"{pimc['mean_s']:.3f} | {pimc['p95_s']:.3f}"
        else:
            cells = f"**{e['pimc_missing']}** | {DASH}"
        lines.append(f"| {preset} | {e['greedy_hands_per_s']:,.0f} | {cells} |")
    return lines + [""]


def _ppo_section(ppo: dict) -> list[str]:
    """PPO training's rates (``results["ppo"]``), or why it was not run."""
    lines = ["## PPO training end to end (two cores)", ""]
    if "missing" in ppo:
        return lines + ["| config | learner steps/s | env steps/s |", "|---|---:|---:|",
                        f"| `configs/partnership.yaml` | **{ppo['missing']}** | {DASH} |", ""]
    overrides = f" with `{ppo['overrides']}`" if ppo["overrides"] else ""
    return lines + [
        f"`train.py --config {ppo['config']}`{overrides} `--threads 2 --eval-every 0 --eval-opponents "
        f"--no-progress`, {ppo['updates']} updates of {ppo['steps_per_update']:,} learner steps "
        f"({ppo['num_envs']} games at once, networks {'x'.join(map(str, ppo['hidden']))}), in a child process "
        "allowed on every core. Rates from `log.csv` over the updates after the first (warm-up): learner "
        "steps/s are the learner's decisions (rollout, opponents' moves, PPO update all included), env "
        "steps/s every seat's decisions.",
        "",
        "| config | updates timed | learner steps/s | env steps/s |",
        "|---|---:|---:|---:|",
        f"| `{ppo['config']}` | {ppo['timed_updates']} | {ppo['sps']:,.0f} | {ppo['env_sps']:,.0f} |",
        "",
    ]


def _rerun_section() -> list[str]:
    """How to rerun the benchmarks."""
    return [
        "## Rerun",
        "",
        "```bash",
        "pip install -e '.[bench]'     # the peers: open_spiel, rlcard (PettingZoo's poker games need rlcard)",
        "python -m bench               # on a quiet machine; --quick for a smoke run",
        "```",
        "",
    ]


def plot(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels, one, best = [], [], []
    for preset in ("partnership", "two_player"):
        ref = results["reference"][preset]
        labels.append(f"reference engine ({preset})")
        one.append(core_row(results, preset, 1)["decisions_per_s"] / ref)
        best.append(best_batch(results, preset)["decisions_per_s"] / ref)
    for p in results["peers"]:
        labels.append(f"{p['library']} {p['game'].split('(')[0]}" + ("" if p["rate"] else " (missing)"))
        c = comparisons(results, p)
        one.append(c[0]["ratio"])
        best.append(c[1]["ratio"])
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(labels) + 1.8))
    ys = range(len(labels))
    h = 0.38
    ax.barh([y - h / 2 for y in ys], [v or 0 for v in one], h, color="#9ecae1", label="tute_env one game (B = 1)")
    ax.barh([y + h / 2 for y in ys], [v or 0 for v in best], h, color="#3182bd",
            label="tute_env batched (best B; VectorEnv for PettingZoo)")
    for y, a, b in zip(ys, one, best, strict=True):
        for v, dy in ((a, -h / 2), (b, h / 2)):
            if v:
                ax.text(v * 1.05, y + dy, _ratio(v), va="center", fontsize=7)
        if a is None and b is None:
            ax.text(1.05, y, "missing", va="center", fontsize=8, color="#c00")
    ax.set_xscale("log")
    ax.axvline(1, color="black", linewidth=0.8)
    ax.set_yticks(list(ys), labels, fontsize=8)
    ax.invert_yaxis()
    values = [v for v in one + best if v]
    lo = min(values + [1]) / 2
    hi = max(values + [1]) * 4
    ax.set_xlim(lo, hi)
    title = "tute_env / peer, decisions per second (log scale; > 1: tute_env faster)"
    if results["mode"] == "quick":
        title += "\n--quick smoke run: figures meaningless"
    ax.set_title(title, fontsize=9)
    ax.set_xlabel(f"{results['date']}, {results['machine']}", fontsize=7)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=2, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
