"""The settings of a training run: :class:`Args` (a field per option, each with its docstring),
read from a YAML config and the command line, and checked before anything runs."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import tyro
import yaml

from agents.ppo import resolve_device
from agents.registry import check_spec
from tute_env.engine.cards import is_int

from ..ray_cluster import check_ray_options


@dataclass
class Args:
    """Training configuration. YAML files in configs/ set these; the command line overrides."""

    config: str | None = None
    """YAML file with values for the fields below (read first; command-line flags override)."""
    preset: str = "partnership"
    """Rules preset (tute_env.engine.rules.PRESETS)."""
    rule_overrides: dict[str, str | int | bool] = field(default_factory=dict)
    """Rule options changed on top of the preset, e.g. {must_beat_partner: false}."""
    seed: int = 1
    """Seeds deals, opponents, sampling and network initialisation. Training deals come from
    this generator, far below evaluate.py's held-out seed range."""
    total_steps: int = 20_000_000
    """Learner decisions to train for."""
    num_envs: int = 1024
    """Games played at once on the core."""
    num_steps: int = 16
    """Learner decisions per game per rollout (rollout = num_envs * num_steps decisions)."""
    learning_rate: float = 3e-4
    """Adam step size."""
    anneal_lr: bool = True
    """Decay the learning rate linearly to 0 over the run."""
    gamma: float = 1.0
    """Discount (a hand is short and only its result counts)."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    update_epochs: int = 4
    """Passes over each rollout."""
    num_minibatches: int = 4
    """Minibatches per pass."""
    clip_coef: float = 0.2
    """PPO ratio clip."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    vf_coef: float = 0.5
    """Value loss weight."""
    max_grad_norm: float = 0.5
    """Gradient clipping norm."""
    hidden: tuple[int, ...] = (256, 256)
    """Widths of the policy and value MLPs. A resumed run may widen them (same number of layers):
    the trained networks grow without changing what they compute."""
    central_critic: bool = True
    """Value function reads the perfect-information state (training only)."""
    point_weight: float = 0.177
    """Weight of the zero-sum point-difference term added to the win reward: the reward is
    ``tute_env.engine.scoring.hand_rewards(reward="win", point_weight=...)``, the one
    ``TuteVectorEnv(reward="win", point_weight=...)`` gives (the term is the point difference
    / 230; 0.177 keeps the weight the shipped agents were trained with, 0.1 / 130)."""
    bots: tuple[str, ...] = ("random", "greedy", "heuristic")
    """Agents in the opponent pool from the start (agent specs, docs/agents.md)."""
    pool_size: int = 8
    """Past snapshots kept in the opponent pool."""
    snapshot_every: int = 20
    """Updates between snapshots of the learner added to the pool."""
    partner_mix: float = 0.3
    """Partnerships: fraction of games where the learner plays one seat beside a pool partner."""
    exploit: str | None = None
    """Train a best response to this agent (an agent spec, docs/agents.md: heuristic, pimc:64, ppo,
    a checkpoint path): the pool is that agent alone, frozen, so ``bots`` must be empty and
    ``snapshot_every`` and ``partner_mix`` 0 (with partnerships the learner plays both seats of its
    side); every evaluation includes it. The win rate reached is a lower bound of how exploitable
    the agent is (docs/experiments/exploitability.md)."""
    init: str | None = None
    """Start the learner's networks from this checkpoint's (a policy file such as
    agents/checkpoints/partnership.pt, or a training checkpoint; same rules, ``hidden`` and
    ``central_critic``) instead of at random; the optimiser starts afresh."""
    imitate: str | None = None
    """Before PPO, train the learner to play as this agent (an agent spec, e.g. heuristic) on
    ``imitate_decisions`` of its decisions, and its critic on their outcomes
    (tute_lab.training.imitation); None: PPO starts from ``init`` or at random."""
    imitate_decisions: int | None = None
    """With ``imitate``: the teacher's decisions imitated before PPO (None without it)."""
    pfsp_power: float = 2.0
    """Opponent weight = (1 - learner score against it) ** power + 0.05 (prioritised self-play)."""
    eval_every: int = 50
    """Updates between evaluations (0: only at the end)."""
    eval_deals: int = 300
    """Held-out deals per evaluation pairing (each played with the sides swapped)."""
    final_eval_deals: int | None = None
    """Held-out deals per pairing of the evaluation at the end of the run (None: eval_deals), so
    that periodic evaluations can be cheap and the last one precise."""
    eval_opponents: tuple[str, ...] = ("random", "greedy", "heuristic")
    """Agents the learner is evaluated against (agent specs)."""
    record_games: int = 0
    """Game records (docs/records.md) of this many hands of each evaluation pairing, appended to
    run_dir/records.jsonl (the learner's seats labelled ``learner@UPDATE``); 0: none."""
    run_dir: str = "runs/partnership"
    """Where logs and checkpoints go."""
    checkpoint_every: int = 10
    """Updates between checkpoints."""
    resume: bool = False
    """Continue from run_dir/checkpoint.pt (which may have been moved there from another run_dir);
    an error where there is none."""
    overwrite: bool = False
    """Start afresh in a run_dir that holds a run, deleting its logs and checkpoints (without it,
    or --resume, train.py refuses: a run is never replaced by accident)."""
    threads: int = 2
    """Torch CPU threads (the core and the bots always run on the CPU)."""
    device: str = "auto"
    """Where the networks, the rollout tensors and the update run: auto (CUDA when torch has it),
    cpu, cuda or cuda:N. A hardware setting: a run may be resumed on another device."""
    bf16: bool = False
    """Run the networks' matrix products in bfloat16 (torch.autocast; weights, optimiser state and
    losses stay float32): ~3x faster on CPUs with native bfloat16 (AVX512-BF16, AMX), many times
    slower on others (train.py says so at the start). A speed setting: a run may be resumed with it
    changed."""
    ray: str | None = None
    """Play the self-play games on Ray actors: ``local`` (a private Ray instance with num_workers
    CPUs), ``auto`` (the cluster started on this machine by ``ray start``) or a cluster head's
    HOST:PORT. The update stays in this process, on ``device``. A hardware setting: a run may be
    resumed with or without it, the same run as long as num_workers is the same."""
    num_workers: int | None = None
    """Ray actors (one CPU each) sharing the games, num_envs / num_workers each (needs --ray;
    default 1). The run depends on it: a resumed run keeps it."""
    progress: bool = True
    """Show a progress bar (on a terminal only: a log file gets no carriage returns)."""


def parse_args(argv=None) -> Args:
    """Command line over YAML over defaults (tyro reads the dataclass; YAML gives defaults)."""
    args = tyro.cli(Args, args=argv)
    if args.config:
        with open(args.config) as f:
            try:
                values = yaml.safe_load(f) or {}
            except yaml.YAMLError as err:
                raise ValueError(f"{args.config} is not a YAML file: {str(err).splitlines()[0]}") from None
        if not isinstance(values, dict):
            raise ValueError(f"{args.config}: expected a mapping of training options, got {type(values).__name__}")
        unknown = sorted(set(values) - {f.name for f in dataclasses.fields(Args)})
        if unknown:
            raise ValueError(f"{args.config}: unknown training option(s) {unknown}")
        for key in ("hidden", "bots", "eval_opponents"):
            if key in values:
                values[key] = tuple(values[key])
        args = tyro.cli(Args, args=argv, default=dataclasses.replace(Args(), **values, config=args.config))
    check_args(args)
    return args


def check_args(args: Args) -> None:
    """Numbers out of range are named before anything runs."""
    at_least = {"total_steps": 1, "num_envs": 1, "num_steps": 1, "update_epochs": 1, "num_minibatches": 1,
                "pool_size": 0, "snapshot_every": 0, "eval_every": 0, "eval_deals": 1, "checkpoint_every": 1,
                "threads": 1, "record_games": 0}
    for name, low in at_least.items():
        value = getattr(args, name)
        if not is_int(value, low):
            raise ValueError(f"{name} must be an integer of at least {low}, got {value!r}")
    if args.final_eval_deals is not None and (isinstance(args.final_eval_deals, bool) or args.final_eval_deals < 1):
        raise ValueError(f"final_eval_deals must be an integer of at least 1 (or null), got {args.final_eval_deals!r}")
    if (args.num_envs * args.num_steps) % args.num_minibatches:
        raise ValueError(f"num_minibatches ({args.num_minibatches}) must divide num_envs x num_steps "
                         f"({args.num_envs * args.num_steps})")
    for name, low, high in (("learning_rate", 0, None), ("clip_coef", 0, None), ("gamma", 0, 1),
                            ("gae_lambda", 0, 1), ("partner_mix", 0, 1), ("point_weight", 0, None)):
        value = getattr(args, name)
        if not low <= value or (high is not None and value > high) or (name in ("learning_rate", "clip_coef")
                                                                        and value == 0):
            raise ValueError(f"{name} must be in {'(' if value == 0 else '['}{low}, {high or 'inf'}], got {value!r}")
    resolve_device(args.device)  # an unknown device, or CUDA where torch has none, is named now
    check_ray_options(args.ray, args.num_workers)
    if args.num_envs % (args.num_workers or 1):
        raise ValueError(f"num_envs ({args.num_envs}) must split into num_workers ({args.num_workers}) equal shards")
    if not args.hidden or min(args.hidden) < 1:
        raise ValueError(f"hidden must be one or more positive layer widths, got {args.hidden}")
    if args.exploit is None and not args.bots:
        raise ValueError("bots is empty: the opponent pool needs a bot to start with (or --exploit AGENT)")
    for spec in (*pool_bots(args), *args.eval_opponents, *([args.imitate] if args.imitate else [])):
        check_spec(spec)  # a bad agent spec is named before the run starts
    if (args.imitate is None) != (args.imitate_decisions is None) or not (
            args.imitate_decisions is None or is_int(args.imitate_decisions, 1)):
        raise ValueError("imitate and imitate_decisions go together: an agent spec and a number of decisions of at "
                         f"least 1 (or neither), got {args.imitate!r} and {args.imitate_decisions!r}")
    if args.exploit is not None:
        pooled = {"bots": list(args.bots), "snapshot_every": args.snapshot_every, "partner_mix": args.partner_mix}
        if any(pooled.values()):
            raise ValueError(f"--exploit {args.exploit}: the learner faces that agent alone, so set "
                             + ", ".join(f"{k} to {type(v)()} (not {v})" for k, v in pooled.items() if v))


def pool_bots(args: Args) -> tuple[str, ...]:
    """The agents the opponent pool starts with: ``bots``, or the exploited agent alone."""
    return args.bots if args.exploit is None else (args.exploit,)


# What a resumed run may change: a run may be extended (total_steps; the learning-rate schedule
# follows the new total), moved (run_dir; onto or off Ray: ray, with the same num_workers), sped up,
# and widened (hidden, see widen_checkpoint).
RESUMABLE_CHANGES = ("resume", "overwrite", "progress", "config", "threads", "device", "total_steps", "bf16", "run_dir",
                     "hidden", "record_games", "ray")
#: What a run writes in its run_dir (and --overwrite deletes).
RUN_FILES = ("checkpoint.pt", "final.pt", "log.csv", "curves.png", "config.yaml", "records.jsonl")


def args_dict(args: Args) -> dict:
    """The run's settings as saved in its checkpoints."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(args).items()}


def fixed_settings(args_dict: dict) -> dict:
    """The settings a resumed run must share with the run it continues (one worker when none
    is named: a run without --ray is one worker's)."""
    return {**{k: v for k, v in args_dict.items() if k not in RESUMABLE_CHANGES},
            "num_workers": args_dict.get("num_workers") or 1}
