"""A run's directory: its settings, logs, checkpoints (written atomically, resumed exactly,
widened), game records and learning curves. A run is never replaced unless asked (--overwrite)."""

from __future__ import annotations

import contextlib
import csv
import dataclasses
from pathlib import Path

import numpy as np
import torch
import yaml

from agents.ppo import FORMAT, PolicyNet, atomic_save, build_policy, load_checkpoint, rules_of, widen
from tute_env.engine.observation import observation_layout, perfect_information_layout
from tute_env.play.records import RecordWriter

from .selfplay import Pool
from .settings import Args, args_dict, fixed_settings
from .workers import Workers

#: What a run writes in its run_dir (and --overwrite deletes).
RUN_FILES = ("checkpoint.pt", "final.pt", "log.csv", "curves.png", "config.yaml", "records.jsonl")


#: log.csv's columns, then two per evaluated agent (:func:`log_fields`). ``win_rate`` and
#: ``mean_reward`` are the training hands' (those that ended in the update's rollout, against the
#: pool), empty when none ended; ``eval_*`` the held-out evaluation's, in the rows of the updates
#: where it ran, empty elsewhere.
CSV_FIELDS = ["update", "learner_steps", "env_steps", "sps", "env_sps", "win_rate", "mean_reward",
              "policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac"]


def eval_agents(args: Args) -> list[str]:
    """The agents the periodic evaluation plays: ``eval_opponents``, and the exploited agent."""
    exploited = [args.exploit] if args.exploit is not None and args.exploit not in args.eval_opponents else []
    return [*args.eval_opponents, *exploited]


def log_fields(args: Args) -> list[str]:
    """log.csv's header: :data:`CSV_FIELDS`, then ``eval_win_rate_vs_NAME`` and
    ``eval_point_diff_vs_NAME`` for each evaluated agent (TensorBoard's ``eval/`` tags)."""
    return CSV_FIELDS + [f"eval_{kind}_vs_{name}" for name in eval_agents(args) for kind in ("win_rate", "point_diff")]


def log_update(writer, csv_path: Path, stats: dict, lr: float, pool: Pool, fields: list[str]) -> None:
    """One row of log.csv (``fields``; a figure not measured in this update is left empty) and the
    TensorBoard scalars (charts/, losses/) of an update."""
    step = stats["learner_steps"]
    for key, tag in (("sps", "SPS"), ("env_sps", "env_SPS"), ("win_rate", "win_rate"), ("mean_reward", "mean_reward")):
        if stats.get(key) is not None:
            writer.add_scalar(f"charts/{tag}", stats[key], step)
    writer.add_scalar("charts/learning_rate", lr, step)
    for key in ("policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac"):
        writer.add_scalar(f"losses/{key}", stats[key], step)
    for name, score in zip(pool.names, pool.score):
        writer.add_scalar(f"charts/pool_score/{name}", score, step)
    with open(csv_path, "a", newline="") as f:
        csv.writer(f).writerow([stats.get(k) for k in fields])


def start_log(csv_path: Path, update: int, fields: list[str]) -> None:
    """log.csv with its header and the rows of updates up to ``update`` (those a resumed
    checkpoint includes)."""
    kept = []
    if update and csv_path.exists():
        with open(csv_path, newline="") as f:
            kept = [row for row in list(csv.reader(f))[1:] if row and int(row[0]) <= update]
    with open(csv_path, "w", newline="") as f:
        csv.writer(f).writerows([fields, *kept])


def check_run_dir(args: Args) -> Path:
    """The run directory, checked before anything is written: a run there is continued only
    with --resume and replaced only with --overwrite."""
    run_dir = Path(args.run_dir)
    has_run = run_dir.is_dir() and any((run_dir / f).exists() for f in RUN_FILES)
    if args.resume and args.overwrite:
        raise ValueError("give --resume or --overwrite, not both")
    if args.resume and not (run_dir / "checkpoint.pt").exists():
        raise ValueError(f"--resume: there is no checkpoint to resume in {run_dir} (checkpoint.pt)")
    if has_run and not args.resume and not args.overwrite:
        raise ValueError(f"{run_dir} holds a run: pass --resume to continue it or --overwrite to start afresh")
    if run_dir.exists() and not run_dir.is_dir():
        raise ValueError(f"run_dir {run_dir} is a file, not a directory")
    return run_dir


def start_run_dir(run_dir: Path, args: Args) -> None:
    """Clear a replaced run (--overwrite) and write the run's full settings to config.yaml."""
    if args.overwrite:
        for path in [*(run_dir / f for f in RUN_FILES), *run_dir.glob("events.out.tfevents.*")]:
            path.unlink(missing_ok=True)
    run_dir.mkdir(parents=True, exist_ok=True)
    settings = {k: v for k, v in args_dict(args).items() if k not in ("config", "resume", "overwrite")}
    with open(run_dir / "config.yaml", "w") as f:
        f.write("# The full settings of this run: tute-train --config config.yaml reproduces it.\n")
        yaml.safe_dump(settings, f, sort_keys=False)


def resume(checkpoint_path: Path, args: Args, net, optimizer, pool: Pool, workers: Workers) -> tuple:
    """Load a checkpoint into the run's objects; returns (update, eval_history)."""
    data = load_checkpoint(checkpoint_path)
    saved_args = data.get("args") or {}
    saved, wanted = fixed_settings(saved_args), fixed_settings(args_dict(args))
    # A setting added since the checkpoint was written counts as its default (None: exploit, init).
    changed = ", ".join(f"{k}: {saved.get(k)!r} -> {wanted.get(k)!r}"
                        for k in sorted(set(saved) | set(wanted)) if saved.get(k) != wanted.get(k))
    if changed:
        raise ValueError(f"{checkpoint_path} was written by a run with other settings ({changed}); "
                         "resume with the same ones")
    if saved_args["hidden"] != list(args.hidden):
        widen_checkpoint(data, net, saved_args["hidden"])
    net.load_state_dict(data["model"])
    optimizer.load_state_dict(data["optimizer"])
    pool.load(data["pool"])
    workers.load(data["shards"] if "shards" in data else [data["games"]])  # one shard before workers
    torch.set_rng_state(data["rng"]["torch"])
    print(f"resumed from {checkpoint_path} at update {data['update']}")
    return data["update"], list(data["eval_history"])


def save_checkpoint(path: Path, args: Args, rules, net, optimizer, pool: Pool, workers: Workers, update: int,
                    eval_history: list) -> None:
    """Everything :func:`resume` needs to go on exactly, written atomically: the model, Adam, the
    pool, each worker's games, the torch RNG (the update's minibatch order)."""
    atomic_save(
        {
            "format": FORMAT, "preset": args.preset, "rules": dataclasses.asdict(rules),
            "model_config": net.config, "model": net.state_dict(),
            "optimizer": optimizer.state_dict(), "pool": pool.state(), "shards": workers.states,
            "rng": {"torch": torch.get_rng_state()},
            "update": update, "eval_history": eval_history, "args": args_dict(args),
        },
        path,
    )


def init_network(net: PolicyNet, path: str, rules) -> None:
    """Load the networks of the checkpoint at ``path`` (``--init``) into ``net``: the same network
    configuration, else a ``ValueError`` naming the difference. The checkpoint may come from other
    rules whose observations have the same pieces (a preset close to this one: two_player's network
    starts corriente's run); its rule-dependent buffers (the input scales) are this run's."""
    with torch.random.fork_rng(devices=[]):  # as frozen_net: the run's random numbers stay those of its seed
        data = load_checkpoint(path)
        source = build_policy(data)
    trained = rules_of(data)
    if trained != rules:
        if (observation_layout(trained) != observation_layout(rules)
                or perfect_information_layout(trained) != perfect_information_layout(rules)):
            raise ValueError(f"--init {path} was trained for other rules (preset {data.get('preset')!r}) "
                             "whose observation differs from this run's")
        changed = ", ".join(f"{k}={getattr(rules, k)!r}" for k in data["rules"] if getattr(trained, k) != getattr(rules, k))
        print(f"--init: starting from the network of preset {data.get('preset')!r}; this run's rules differ in {changed}")
    if source.config != net.config:
        raise ValueError(f"--init {path} has networks {source.config}, this run {net.config}: "
                         "give the same hidden and central_critic")
    state = source.state_dict()
    state.update({name: buffer for name, buffer in net.state_dict().items() if name.endswith("_scale")})
    net.load_state_dict(state)


def widen_checkpoint(data: dict, net: PolicyNet, old_hidden: list[int]) -> None:
    """Grow a checkpoint's networks (learner and pool snapshots) in place to ``net``'s wider hidden
    layers, keeping what they compute (``agents.ppo.widen``); Adam's moments of the new weights
    start at zero. Resuming with a larger ``hidden`` uses this, so a trained run can be given a
    bigger network without starting over."""
    if len(old_hidden) != len(net.config["hidden"]):
        raise ValueError(f"cannot resume a run with hidden {old_hidden} as {net.config['hidden']}: "
                         "only the widths may grow, not the number of layers")
    template = {k: v.cpu() for k, v in net.state_dict().items()}  # the checkpoint's tensors are on the CPU
    data["model"] = widen(data["model"], template)
    data["pool"]["snapshots"] = [None if s is None else widen(s, template) for s in data["pool"]["snapshots"]]
    for index, param in enumerate(net.parameters()):  # the optimizer state is keyed by parameter order
        moments = data["optimizer"]["state"][index]
        for key in ("exp_avg", "exp_avg_sq"):
            grown = torch.zeros_like(param)
            grown[tuple(slice(0, s) for s in moments[key].shape)] = moments[key]
            moments[key] = grown
    print(f"widened the networks from hidden {old_hidden} to {net.config['hidden']}")


@contextlib.contextmanager
def evaluation_records(args: Args, update: int):
    """A record sink for one evaluation pairing (None without ``record_games``): its first
    ``record_games`` hands appended to run_dir/records.jsonl, the learner (team A) labelled
    ``learner@UPDATE`` and the update in each record's ``meta``."""
    if not args.record_games:
        yield None
        return
    with RecordWriter(Path(args.run_dir) / "records.jsonl", mode="a", limit=args.record_games) as writer:
        def sink(record):
            teams = record.meta["teams"]
            record.players = [f"learner@{update}" if t == "A" else p for p, t in zip(record.players, teams)]
            record.meta["update"] = update
            writer(record)

        yield sink


def plot_run(run_dir: Path, eval_history: list[dict]) -> None:
    """Learning curves from log.csv and the evaluation table, as curves.png."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(run_dir / "log.csv") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return
    steps = np.array([int(r["learner_steps"]) for r in rows])
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))

    def curve(ax, key, **kwargs) -> bool:  # figures not measured in an update are empty: drawn through, not gaps
        y = np.array([float(r.get(key) or "nan") for r in rows])
        ax.plot(steps[~np.isnan(y)], y[~np.isnan(y)], **kwargs)
        return bool((~np.isnan(y)).any())

    if not curve(axes[0], "win_rate", label="training hands vs pool"):
        axes[0].text(0.5, 0.5, "no training hand ended within an update's rollout\n(num_steps shorter than a hand)",
                     ha="center", va="center", transform=axes[0].transAxes)
    curve(axes[0], "mean_reward", label="mean reward", alpha=0.6)
    axes[0].legend()
    axes[0].set_title("training win rate and reward")
    curve(axes[1], "entropy", label="entropy")
    curve(axes[1], "value_loss", label="value loss")
    axes[1].legend()
    axes[1].set_title("losses")
    per_update = steps[0] // int(rows[0]["update"])
    for name in [k for k in (eval_history[0] if eval_history else {}) if k != "update"]:
        axes[2].plot([e["update"] * per_update for e in eval_history], [e[name] for e in eval_history], marker="o",
                     label=name)
    axes[2].axhline(0.5, color="grey", lw=0.5)
    axes[2].set_title("held-out win rate vs bots")
    axes[2].legend()
    for ax in axes:
        ax.set_xlabel("learner decisions")
    fig.tight_layout()
    fig.savefig(run_dir / "curves.png", dpi=80)
    plt.close(fig)
