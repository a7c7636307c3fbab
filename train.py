"""PPO self-play for Tute on the batched core, in the CleanRL manner: one file, top to bottom.

    python train.py --config configs/partnership.yaml            # a preset's committed config
    python train.py --config configs/smoke.yaml --total-steps 4096
    python train.py --config configs/partnership.yaml --resume   # continue a killed run

Each of ``num_envs`` games on the core has learner seats (one seat, or with partnerships its
whole side or one seat beside a partner from the pool) and opponent seats played by a pool of
rule-based bots and the learner's own past snapshots. Opponents are drawn with prioritised
fictitious self-play: the worse the learner does against an entry, the more often it meets it.
From the learner's side a game is a single-agent episode: after its action the opponents play
until the learner is to act again or the hand ends, so the rollout buffer is the usual
(num_steps, num_envs) one. The reward comes at the hand's end (zero-sum: +g for a win credited
g games, -g for a loss, shared among losers with three players), optionally plus a small
zero-sum point-difference term.

Logs: TensorBoard (``charts/``, ``losses/``, ``eval/``) and ``log.csv`` in ``run_dir``; a
progress bar; ``checkpoint.pt`` written atomically every ``checkpoint_every`` updates (model,
optimiser, RNG states, opponent pool, games in progress, counters) and ``--resume`` continues
from it exactly; ``final.pt`` (model only) and ``curves.png`` at the end. Periodic evaluation
uses ``evaluate.py``'s duplicate-deal evaluation on its held-out deals.
"""

from __future__ import annotations

import csv
import dataclasses
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import tyro
import yaml
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

import evaluate
from agents import make_agent
from agents.ppo import FORMAT, PolicyNet, PPOAgent, atomic_save, load_checkpoint, save_policy, widen
from tute_env.core import U64, Game, State
from tute_env.observation import encode_observation, encode_perfect_information
from tute_env.rules import make_rules


@dataclass
class Args:
    """Training configuration. YAML files in configs/ set these; the command line overrides."""

    config: str | None = None
    """YAML file with values for the fields below (read first; command-line flags override)."""
    preset: str = "partnership"
    """Rules preset (tute_env.rules.PRESETS)."""
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
    points_weight: float = 0.1
    """Weight of the zero-sum point-difference term (difference / 130) added to the win reward."""
    bots: tuple[str, ...] = ("random", "greedy", "heuristic")
    """Rule-based bots in the opponent pool."""
    pool_size: int = 8
    """Past snapshots kept in the opponent pool."""
    snapshot_every: int = 20
    """Updates between snapshots of the learner added to the pool."""
    partner_mix: float = 0.3
    """Partnerships: fraction of games where the learner plays one seat beside a pool partner."""
    pfsp_power: float = 2.0
    """Opponent weight = (1 - learner score against it) ** power + 0.05 (prioritised self-play)."""
    eval_every: int = 50
    """Updates between evaluations (0: only at the end)."""
    eval_deals: int = 300
    """Held-out deals per evaluation pairing (each played with the sides swapped)."""
    eval_opponents: tuple[str, ...] = ("random", "greedy", "heuristic")
    """Bots the learner is evaluated against."""
    run_dir: str = "runs/partnership"
    """Where logs and checkpoints go."""
    checkpoint_every: int = 10
    """Updates between checkpoints."""
    resume: bool = False
    """Continue from run_dir/checkpoint.pt (which may have been moved there from another run_dir)."""
    threads: int = 2
    """Torch CPU threads."""
    bf16: bool = False
    """Run the networks' matrix products in bfloat16 (torch.autocast; weights, optimiser state and
    losses stay float32): ~3x faster on CPUs with native bfloat16 (AVX512-BF16, AMX), slower on
    others. A speed setting: a run may be resumed with it changed."""
    progress: bool = True
    """Show a progress bar."""


def parse_args(argv=None) -> Args:
    """Command line over YAML over defaults (tyro reads the dataclass; YAML gives defaults)."""
    args = tyro.cli(Args, args=argv)
    if args.config:
        with open(args.config) as f:
            values = yaml.safe_load(f) or {}
        unknown = sorted(set(values) - {f.name for f in dataclasses.fields(Args)})
        if unknown:
            raise ValueError(f"{args.config}: unknown training option(s) {unknown}")
        for key in ("hidden", "bots", "eval_opponents"):
            if key in values:
                values[key] = tuple(values[key])
        args = tyro.cli(Args, args=argv, default=dataclasses.replace(Args(), **values, config=args.config))
    return args


# ------------------------------------------------------------------------------------------------
# The opponent pool
# ------------------------------------------------------------------------------------------------
class Pool:
    """Rule-based bots and frozen snapshots of the learner, with the learner's running score
    against each (1 = always wins)."""

    def __init__(self, rules, bots, seed, capacity, hidden, central_critic):
        self.rules, self.capacity = rules, capacity
        self.hidden, self.central_critic = hidden, central_critic
        self.names = list(bots)
        self.agents = [make_agent(name, rules, seed=seed + k) for k, name in enumerate(bots)]
        self.snapshots: list[dict | None] = [None] * len(bots)
        self.score = np.full(len(bots), 0.5)

    def add_snapshot(self, net: PolicyNet, label: str) -> None:
        snap = {k: v.clone() for k, v in net.state_dict().items()}
        if len(self.names) - sum(s is None for s in self.snapshots) >= self.capacity:
            oldest = next(k for k, s in enumerate(self.snapshots) if s is not None)
            for seq in (self.names, self.agents, self.snapshots):
                del seq[oldest]
            self.score = np.delete(self.score, oldest)
        self.names.append(label)
        self.agents.append(self._snapshot_agent(snap))
        self.snapshots.append(snap)
        self.score = np.append(self.score, 0.5)

    def _snapshot_agent(self, state_dict) -> PPOAgent:
        net = PolicyNet(self.rules, self.hidden, self.central_critic)
        net.load_state_dict(state_dict)
        net.eval()
        return PPOAgent(self.rules, net=net, greedy=False)

    def weights(self, power: float) -> np.ndarray:
        w = (1.0 - self.score) ** power + 0.05
        return w / w.sum()

    def record(self, entry: np.ndarray, score: np.ndarray, rate: float = 0.02) -> None:
        for e, s in zip(entry, score):
            self.score[e] += rate * (s - self.score[e])

    def state(self) -> dict:
        return {
            "names": list(self.names),
            "snapshots": list(self.snapshots),
            "score": torch.from_numpy(self.score.copy()),
            "bot_rng": [a.rng.bit_generator.state if s is None else None for a, s in zip(self.agents, self.snapshots)],
            "snapshot_rng": [a.generator.get_state() if s is not None else None for a, s in zip(self.agents, self.snapshots)],
        }

    def load(self, data: dict) -> None:
        bots = {name: agent for name, agent, s in zip(self.names, self.agents, self.snapshots) if s is None}
        self.names, self.snapshots, self.agents = list(data["names"]), list(data["snapshots"]), []
        self.score = data["score"].numpy().copy()
        for name, snap, bot_rng, snap_rng in zip(self.names, self.snapshots, data["bot_rng"], data["snapshot_rng"]):
            if snap is None:
                agent = bots[name]
                agent.rng.bit_generator.state = bot_rng
            else:
                agent = self._snapshot_agent(snap)
                agent.generator.set_state(snap_rng)
            self.agents.append(agent)


# ------------------------------------------------------------------------------------------------
# Games seen from the learner's side
# ------------------------------------------------------------------------------------------------
class SelfPlayGames:
    """``num_envs`` games on the core; each knows which seats the learner plays and which pool
    entry plays each other seat."""

    def __init__(self, rules, num_envs, rng, pool, args):
        self.rules, self.game, self.rng, self.pool, self.args = rules, Game(rules), rng, pool, args
        n = rules.num_players
        self.state = self.game.random_state(rng, num_envs)
        self.learner = np.zeros((num_envs, n), bool)  # seats the learner plays
        self.seat_entry = np.zeros((num_envs, n), np.int64)  # pool entry of each other seat
        self.opponent = np.zeros(num_envs, np.int64)  # the pool entry the learner is scored against
        self.assign(np.arange(num_envs))
        self.decisions = 0  # all decisions played (learner and opponents)

    def assign(self, lanes: np.ndarray) -> None:
        """Seat the learner and draw opponents for new hands in ``lanes``."""
        r, k = self.rules, lanes.size
        n = r.num_players
        entry = self.rng.choice(len(self.pool.names), size=k, p=self.pool.weights(self.args.pfsp_power))
        self.opponent[lanes] = entry
        self.seat_entry[lanes] = entry[:, None]
        learner = np.zeros((k, n), bool)
        if r.partnerships:
            side = self.rng.integers(0, 2, size=k)
            learner[np.arange(k), side] = True
            learner[np.arange(k), side + 2] = True
            # Some games: the learner plays one seat beside a partner from the pool.
            alone = self.rng.random(k) < self.args.partner_mix
            partner_seat = side + 2 * self.rng.integers(0, 2, size=k)
            learner[np.flatnonzero(alone), partner_seat[alone]] = False
            partner_entry = self.rng.choice(len(self.pool.names), size=k)
            self.seat_entry[lanes[alone], partner_seat[alone]] = partner_entry[alone]
        else:
            learner[np.arange(k), self.rng.integers(0, n, size=k)] = True
        self.learner[lanes] = learner

    def learner_to_act(self) -> np.ndarray:
        s = self.state
        return ~s.done & self.learner[np.arange(len(s.current)), np.maximum(s.current, 0)]

    def learner_side(self) -> np.ndarray:
        seat = self.learner.argmax(axis=1)
        return seat % 2 if self.rules.partnerships else seat

    def outcome(self, lanes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Zero-sum reward and win (1/0) of the learner's side in finished ``lanes``."""
        s, r = self.state, self.rules
        side = self.learner_side()[lanes]
        won = s.winner[lanes] == side
        games = s.games[lanes].astype(np.float64)
        losers = r.num_sides - 1
        reward = np.where(won, games, -games / losers)
        totals = s.totals[lanes].astype(np.float64)
        own = totals[np.arange(lanes.size), side]
        others = (totals.sum(axis=1) - own) / losers
        reward += self.args.points_weight * (own - others) / 130.0
        return reward, won.astype(np.float64)

    def play_opponents(self) -> None:
        """Let the pool play every seat that is not the learner's until the learner is to act."""
        s, game = self.state, self.game
        lanes = np.arange(len(s.current))
        while True:
            todo = ~s.done & ~self.learner_to_act()
            if not todo.any():
                return
            seat = np.maximum(s.current, 0)
            obs = encode_observation(self.rules, s, seat)
            masks = game.legal_action_mask(s)
            actions = np.zeros(len(lanes), np.int64)
            entry = self.seat_entry[lanes, seat]
            for e in np.unique(entry[todo]):
                rows = np.flatnonzero(todo & (entry == e))
                actions[rows] = self.pool.agents[e].act_batch(obs[rows], masks[rows])
            game.step(s, actions, active=todo)
            self.decisions += int(todo.sum())

    def arrays(self) -> dict:
        return {
            "state": {k: _to_tensor(getattr(self.state, k)) for k in self.state.__dataclass_fields__},
            "learner": torch.from_numpy(self.learner.copy()),
            "seat_entry": torch.from_numpy(self.seat_entry.copy()),
            "opponent": torch.from_numpy(self.opponent.copy()),
            "decisions": self.decisions,
        }

    def load(self, data: dict) -> None:
        ref = self.state
        self.state = State(**{k: _from_tensor(v, getattr(ref, k).dtype) for k, v in data["state"].items()})
        self.learner = data["learner"].numpy().copy()
        self.seat_entry = data["seat_entry"].numpy().copy()
        self.opponent = data["opponent"].numpy().copy()
        self.decisions = data["decisions"]


def mixed_precision(args: Args):
    """bfloat16 autocast for the networks' forward passes when ``args.bf16``, else a no-op."""
    return torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16)


def _to_tensor(array: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(array.view(np.int64) if array.dtype == U64 else array.copy())


def _from_tensor(tensor: torch.Tensor, dtype) -> np.ndarray:
    array = tensor.numpy().copy()
    return array.view(U64) if dtype == U64 else array


# ------------------------------------------------------------------------------------------------
# Training
# ------------------------------------------------------------------------------------------------
def evaluate_learner(net, rules, args, update, writer, history):
    """Duplicate-deal evaluation (evaluate.py) against each of ``eval_opponents``."""
    agent = PPOAgent(rules, net=net, greedy=True)
    row, results = {"update": update}, []
    for name in args.eval_opponents:
        result = evaluate.evaluate_pairing(rules, agent, make_agent(name, rules, seed=0), num_deals=args.eval_deals,
                                           progress=False)
        results.append(result)
        row[name] = result.win_rate
        writer.add_scalar(f"eval/win_rate_vs_{name}", result.win_rate, update)
        writer.add_scalar(f"eval/point_diff_vs_{name}", result.mean_point_diff, update)
    history.append(row)
    return row, results


def main(argv=None) -> None:
    args = parse_args(argv)
    rules = make_rules(args.preset, **args.rule_overrides)
    if not 0 <= args.seed < evaluate.TRAINING_SEED_LIMIT:
        raise ValueError(f"seed {args.seed} must be in 0..{evaluate.TRAINING_SEED_LIMIT - 1}, below the held-out deals")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    run_dir = Path(args.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)

    net = PolicyNet(rules, args.hidden, args.central_critic)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate, eps=1e-5)
    pool = Pool(rules, args.bots, args.seed, args.pool_size, args.hidden, args.central_critic)
    games = SelfPlayGames(rules, args.num_envs, rng, pool, args)
    batch_size = args.num_envs * args.num_steps
    num_updates = max(1, args.total_steps // batch_size)
    update, eval_history = 0, []

    checkpoint_path = run_dir / "checkpoint.pt"
    if args.resume and checkpoint_path.exists():
        data = load_checkpoint(checkpoint_path)
        saved_args = data.get("args") or {}
        saved, wanted = _fixed_settings(saved_args), _fixed_settings(_args_dict(args))
        if saved != wanted:
            changed = ", ".join(f"{k}: {saved.get(k)!r} -> {wanted.get(k)!r}"
                                for k in sorted(set(saved) | set(wanted)) if saved.get(k) != wanted.get(k))
            raise ValueError(f"{checkpoint_path} was written by a run with other settings ({changed}); "
                             "resume with the same ones")
        if saved_args["hidden"] != list(args.hidden):
            widen_checkpoint(data, net, saved_args["hidden"])
        net.load_state_dict(data["model"])
        optimizer.load_state_dict(data["optimizer"])
        pool.load(data["pool"])
        games.load(data["games"])
        rng.bit_generator.state = data["rng"]["numpy"]
        torch.set_rng_state(data["rng"]["torch"])
        update, eval_history = data["update"], list(data["eval_history"])
        print(f"resumed from {checkpoint_path} at update {update}")

    writer = SummaryWriter(str(run_dir))
    csv_path = run_dir / "log.csv"
    csv_fields = ["update", "learner_steps", "env_steps", "sps", "env_sps", "win_rate", "mean_reward",
                  "policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac"]
    kept = []
    if update and csv_path.exists():  # drop rows of updates the checkpoint does not include
        with open(csv_path, newline="") as f:
            kept = [row for row in csv.reader(f)][1:]
        kept = [row for row in kept if row and int(row[0]) <= update]
    with open(csv_path, "w", newline="") as f:
        csv.writer(f).writerows([csv_fields, *kept])

    # The perfect-information encoding starts with the observation: one encoding serves both.
    n_obs = encode_observation(rules, games.state, np.zeros(args.num_envs, np.intp)).shape[1]
    critic_enc = encode_perfect_information if args.central_critic else encode_observation
    n_critic = critic_enc(rules, games.state, np.zeros(args.num_envs, np.intp)).shape[1]
    critic_buf = np.zeros((args.num_steps, args.num_envs, n_critic), np.int8)
    obs_buf = critic_buf[..., :n_obs]
    mask_buf = np.zeros((args.num_steps, args.num_envs, 47), bool)
    actions_buf = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long)
    logprob_buf = torch.zeros((args.num_steps, args.num_envs))
    value_buf = torch.zeros((args.num_steps, args.num_envs))
    reward_buf = torch.zeros((args.num_steps, args.num_envs))
    done_buf = torch.zeros((args.num_steps, args.num_envs))

    with mixed_precision(args):
        games.play_opponents()
    bar = tqdm(total=num_updates, initial=update, disable=not args.progress, desc="updates")
    start_time, start_update = time.time(), update
    start_decisions = games.decisions
    lanes = np.arange(args.num_envs)
    while update < num_updates:
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = args.learning_rate * (1.0 - update / num_updates)
        finished_rewards, finished_wins = [], []
        # ---- rollout: every lane is at a learner decision ----
        with mixed_precision(args):  # the opponents' networks too
            for t in range(args.num_steps):
                s = games.state
                seat = s.current.astype(np.intp)
                critic_buf[t] = critic_enc(rules, s, seat)
                mask_buf[t] = games.game.legal_action_mask(s)
                with torch.no_grad():
                    obs_t, mask_t = torch.from_numpy(np.ascontiguousarray(obs_buf[t])), torch.from_numpy(mask_buf[t])
                    logits = net.logits(obs_t, mask_t)
                    dist = torch.distributions.Categorical(logits=logits)
                    action = dist.sample()
                    logprob_buf[t] = dist.log_prob(action)
                    value_buf[t] = net.value(torch.from_numpy(critic_buf[t]))
                actions_buf[t] = action
                games.game.step(s, action.numpy())
                games.decisions += args.num_envs
                games.play_opponents()
                done = np.flatnonzero(s.done)
                reward = np.zeros(args.num_envs)
                if done.size:
                    reward[done], won = games.outcome(done)
                    finished_rewards.append(reward[done])
                    finished_wins.append(won)
                    pool.record(games.opponent[done], won)
                    games.game.reset_done(s, rng)
                    games.assign(done)
                    games.play_opponents()
                reward_buf[t] = torch.from_numpy(reward).float()
                done_buf[t] = torch.from_numpy(np.isin(lanes, done)).float()

        # ---- advantages (GAE); a hand's end cuts the bootstrap ----
        with torch.no_grad(), mixed_precision(args):
            s = games.state
            next_value = net.value(torch.from_numpy(critic_enc(rules, s, s.current.astype(np.intp))))
            advantages = torch.zeros_like(reward_buf)
            last = torch.zeros(args.num_envs)
            for t in reversed(range(args.num_steps)):
                following = next_value if t == args.num_steps - 1 else value_buf[t + 1]
                nonterminal = 1.0 - done_buf[t]
                delta = reward_buf[t] + args.gamma * following * nonterminal - value_buf[t]
                last = delta + args.gamma * args.gae_lambda * nonterminal * last
                advantages[t] = last
            returns = advantages + value_buf

        # ---- PPO update ----
        b_obs = torch.from_numpy(np.ascontiguousarray(obs_buf).reshape(batch_size, -1))
        b_critic = torch.from_numpy(critic_buf.reshape(batch_size, -1))
        b_mask = torch.from_numpy(mask_buf.reshape(batch_size, -1))
        b_actions, b_logprob = actions_buf.reshape(-1), logprob_buf.reshape(-1)
        b_adv, b_returns = advantages.reshape(-1), returns.reshape(-1)
        minibatch = batch_size // args.num_minibatches
        clipfracs = []
        for _ in range(args.update_epochs):
            order = torch.randperm(batch_size)
            for begin in range(0, batch_size, minibatch):
                mb = order[begin : begin + minibatch]
                with mixed_precision(args):
                    logits = net.logits(b_obs[mb], b_mask[mb])
                    new_value = net.value(b_critic[mb])
                dist = torch.distributions.Categorical(logits=logits)
                new_logprob = dist.log_prob(b_actions[mb])
                entropy = dist.entropy().mean()
                log_ratio = new_logprob - b_logprob[mb]
                ratio = log_ratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - log_ratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())
                adv = b_adv[mb]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                value_loss = 0.5 * ((new_value - b_returns[mb]) ** 2).mean()
                loss = policy_loss - args.ent_coef * entropy + args.vf_coef * value_loss
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
                optimizer.step()
        update += 1

        # ---- logs ----
        elapsed = time.time() - start_time
        learner_steps = update * batch_size
        sps = (update - start_update) * batch_size / elapsed
        env_sps = (games.decisions - start_decisions) / elapsed
        rewards = np.concatenate(finished_rewards) if finished_rewards else np.zeros(0)
        wins = np.concatenate(finished_wins) if finished_wins else np.zeros(0)
        stats = {
            "update": update, "learner_steps": learner_steps, "env_steps": games.decisions,
            "sps": round(sps), "env_sps": round(env_sps),
            "win_rate": float(wins.mean()) if wins.size else float("nan"),
            "mean_reward": float(rewards.mean()) if rewards.size else float("nan"),
            "policy_loss": policy_loss.item(), "value_loss": value_loss.item(), "entropy": entropy.item(),
            "approx_kl": approx_kl.item(), "clipfrac": float(np.mean(clipfracs)),
        }
        writer.add_scalar("charts/SPS", sps, learner_steps)
        writer.add_scalar("charts/env_SPS", env_sps, learner_steps)
        writer.add_scalar("charts/win_rate", stats["win_rate"], learner_steps)
        writer.add_scalar("charts/mean_reward", stats["mean_reward"], learner_steps)
        writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], learner_steps)
        for key in ("policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac"):
            writer.add_scalar(f"losses/{key}", stats[key], learner_steps)
        for name, score in zip(pool.names, pool.score):
            writer.add_scalar(f"charts/pool_score/{name}", score, learner_steps)
        with open(csv_path, "a", newline="") as f:
            csv.writer(f).writerow([stats[k] for k in csv_fields])

        if args.snapshot_every and update % args.snapshot_every == 0:
            pool.add_snapshot(net, f"snapshot@{update}")
        if (args.eval_every and update % args.eval_every == 0) or update == num_updates:
            row, results = evaluate_learner(net, rules, args, update, writer, eval_history)
            if update == num_updates:
                print("\nfinal evaluation on held-out duplicate deals:\n" + "\n".join(r.summary() for r in results))
            bar.set_postfix_str(" ".join(f"{k}={v:.2f}" for k, v in row.items() if k != "update"))
        bar.set_description(f"updates ({sps:,.0f} learner steps/s, {env_sps:,.0f} env steps/s)")
        bar.update(1)
        if update % args.checkpoint_every == 0 or update == num_updates:
            atomic_save(
                {
                    "format": FORMAT, "preset": args.preset, "rules": dataclasses.asdict(rules),
                    "model_config": net.config, "model": net.state_dict(),
                    "optimizer": optimizer.state_dict(), "pool": pool.state(), "games": games.arrays(),
                    "rng": {"numpy": rng.bit_generator.state, "torch": torch.get_rng_state()},
                    "update": update, "eval_history": eval_history, "args": _args_dict(args),
                },
                checkpoint_path,
            )
    bar.close()
    writer.close()
    save_policy(run_dir / "final.pt", net, rules, args.preset, learner_steps=update * batch_size,
                eval_history=eval_history)
    plot_run(run_dir, eval_history)
    print(f"model: {run_dir / 'final.pt'} (evaluate it with: python evaluate.py {run_dir / 'final.pt'} heuristic "
          f"--preset {args.preset}); curves: {run_dir / 'curves.png'}")


def widen_checkpoint(data: dict, net: PolicyNet, old_hidden: list[int]) -> None:
    """Grow a checkpoint's networks (learner and pool snapshots) in place to ``net``'s wider hidden
    layers, keeping what they compute (``agents.ppo.widen``); Adam's moments of the new weights
    start at zero. Resuming with a larger ``hidden`` uses this, so a trained run can be given a
    bigger network without starting over."""
    if len(old_hidden) != len(net.config["hidden"]):
        raise ValueError(f"cannot resume a run with hidden {old_hidden} as {net.config['hidden']}: "
                         "only the widths may grow, not the number of layers")
    template = net.state_dict()
    data["model"] = widen(data["model"], template)
    data["pool"]["snapshots"] = [None if s is None else widen(s, template) for s in data["pool"]["snapshots"]]
    for index, param in enumerate(net.parameters()):  # the optimizer state is keyed by parameter order
        moments = data["optimizer"]["state"][index]
        for key in ("exp_avg", "exp_avg_sq"):
            grown = torch.zeros_like(param)
            grown[tuple(slice(0, s) for s in moments[key].shape)] = moments[key]
            moments[key] = grown
    print(f"widened the networks from hidden {old_hidden} to {net.config['hidden']}")


# What a resumed run may change: a run may be extended (total_steps; the learning-rate schedule
# follows the new total), moved (run_dir), sped up, and widened (hidden, see widen_checkpoint).
RESUMABLE_CHANGES = ("resume", "progress", "config", "threads", "total_steps", "bf16", "run_dir", "hidden")


def _args_dict(args: Args) -> dict:
    """The run's settings as saved in its checkpoints."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(args).items()}


def _fixed_settings(args_dict: dict) -> dict:
    """The settings a resumed run must share with the run it continues."""
    return {k: v for k, v in args_dict.items() if k not in RESUMABLE_CHANGES}


def plot_run(run_dir: Path, eval_history: list[dict]) -> None:
    """Learning curves from log.csv and the evaluation table, as curves.png."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(run_dir / "log.csv") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return
    steps = [int(r["learner_steps"]) for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    axes[0].plot(steps, [float(r["win_rate"]) for r in rows])
    axes[0].set_title("training win rate vs pool")
    axes[1].plot(steps, [float(r["entropy"]) for r in rows], label="entropy")
    axes[1].plot(steps, [float(r["value_loss"]) for r in rows], label="value loss")
    axes[1].legend()
    axes[1].set_title("losses")
    for name in [k for k in (eval_history[0] if eval_history else {}) if k != "update"]:
        axes[2].plot([e["update"] for e in eval_history], [e[name] for e in eval_history], marker="o", label=name)
    axes[2].axhline(0.5, color="grey", lw=0.5)
    axes[2].set_title("held-out win rate vs bots")
    axes[2].set_xlabel("update")
    axes[2].legend()
    for ax in axes[:2]:
        ax.set_xlabel("learner decisions")
    fig.tight_layout()
    fig.savefig(run_dir / "curves.png", dpi=80)
    plt.close(fig)


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    main()
