"""PPO self-play for Tute on the batched core, in the CleanRL manner: the recipe, top to bottom.

    python train.py --config configs/partnership.yaml            # a preset's committed config
    python train.py --config configs/smoke.yaml --total-steps 4096
    python train.py --config configs/partnership.yaml --resume   # continue a killed run
    python train.py --config configs/partnership.yaml --ray local --num-workers 2   # games on Ray actors
    python train.py --config configs/exploit.yaml --exploit heuristic   # a best response to one agent

Each of ``num_envs`` games on the core has learner seats (one seat, or with partnerships its
whole side or one seat beside a partner from the pool) and opponent seats played by a pool of
rule-based bots and the learner's own past snapshots. Opponents are drawn with prioritised
fictitious self-play: the worse the learner does against an entry, the more often it meets it.
From the learner's side a game is a single-agent episode: after its action the opponents play
until the learner is to act again or the hand ends, so the rollout buffer is the usual
(num_steps, num_envs) one. The reward comes at the hand's end (``tute_env.engine.scoring``: zero-sum, +g for a win
credited g games, -g for a loss, shared among losers with three players), plus a small zero-sum
point-difference term: the reward ``TuteVectorEnv(reward="win", point_weight=...)`` gives.
The seats are run by the table layer (``tute_env.play.seating``): the learner's seats are its LEARNER
seats.

The games are played by workers, each owning a shard of them: one in this process, or with
``--ray`` ``num_workers`` Ray actors (docs/scaling.md) while the PPO update stays here (on
``--device``). Every random draw of worker w in update u comes from the seed sequence (seed, w, u),
so a run is the same for the same seed and worker count. The machinery (settings, self-play games
and the pool, rollouts, workers, run directories) is :mod:`tute_lab.training`; this file is the
loop: collect, advantages, update, evaluate, checkpoint.

Logs: TensorBoard (``charts/``, ``losses/``, ``eval/``) and ``log.csv`` in ``run_dir`` (a row per
update: the training hands' win rate and reward, the losses, and in the rows of the updates
evaluated the held-out win rate and point difference against each agent); a
progress bar; ``checkpoint.pt`` written atomically every ``checkpoint_every`` updates (model,
optimiser, RNG states, opponent pool, games in progress, counters) and ``--resume`` continues
from it exactly; ``final.pt`` (model only) and ``curves.png`` at the end. Periodic evaluation
uses :mod:`tute_lab.evaluation`'s duplicate-deal evaluation on its held-out deals; with ``record_games``
it keeps game records of a few of those hands in ``run_dir/records.jsonl`` (docs/records.md).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from agents.base import MissingExtra, require_train_extra

try:  # without the [train] extra (torch, TensorBoard, tyro, pyyaml): one line and exit code 2, before any import
    require_train_extra("tute-train")  # of them (tute-train imports this module before calling cli())
except MissingExtra as err:
    print(f"train.py: error: {err}", file=sys.stderr)
    sys.exit(2)

import torch
from torch.utils.tensorboard import SummaryWriter

from agents import make_agent
from agents.ppo import PolicyNet, PPOAgent, resolve_device, save_policy
from tute_env.engine.rules import make_rules
from tute_lab.evaluation import TRAINING_SEED_LIMIT, evaluate_pairing
from tute_lab.training.imitation import imitate
from tute_lab.training.rollout import Rollout, mixed_precision, warn_slow_bf16
from tute_lab.training.runs import (
    check_run_dir,
    eval_agents,
    evaluation_records,
    init_network,
    log_fields,
    log_update,
    plot_run,
    resume,
    save_checkpoint,
    start_log,
    start_run_dir,
)
from tute_lab.training.selfplay import Pool
from tute_lab.training.settings import Args, parse_args, pool_bots
from tute_lab.training.workers import WorkerLost, Workers, start_workers


def advantages(buf: Rollout, args: Args):
    """GAE advantages and returns; a hand's end cuts the bootstrap."""
    adv = torch.zeros_like(buf.rewards)
    last = torch.zeros_like(buf.rewards[0])
    for t in reversed(range(args.num_steps)):
        following = buf.next_value if t == args.num_steps - 1 else buf.values[t + 1]
        nonterminal = 1.0 - buf.dones[t]
        delta = buf.rewards[t] + args.gamma * following * nonterminal - buf.values[t]
        last = delta + args.gamma * args.gae_lambda * nonterminal * last
        adv[t] = last
    return adv, adv + buf.values


def ppo_update(net, optimizer, buf: Rollout, adv, returns, args: Args) -> dict[str, float]:
    """Clipped PPO over the rollout: update_epochs passes of num_minibatches minibatches."""
    batch_size = args.num_envs * args.num_steps
    device = buf.rewards.device
    b_obs = torch.from_numpy(np.ascontiguousarray(buf.obs).reshape(batch_size, -1)).to(device)
    b_critic = torch.from_numpy(buf.critic.reshape(batch_size, -1)).to(device)
    b_mask = torch.from_numpy(buf.masks.reshape(batch_size, -1)).to(device)
    b_actions, b_logprob = buf.actions.reshape(-1), buf.logprobs.reshape(-1)
    b_adv, b_returns = adv.reshape(-1), returns.reshape(-1)
    minibatch = batch_size // args.num_minibatches
    clipfracs = []
    for _ in range(args.update_epochs):
        order = torch.randperm(batch_size).to(device)  # drawn on the CPU: the same run on any device
        for begin in range(0, batch_size, minibatch):
            mb = order[begin : begin + minibatch]
            with mixed_precision(args, device):
                logits = net.logits(b_obs[mb], b_mask[mb])
                new_value = net.value(b_critic[mb])
            dist = torch.distributions.Categorical(logits=logits)
            log_ratio = dist.log_prob(b_actions[mb]) - b_logprob[mb]
            ratio = log_ratio.exp()
            entropy = dist.entropy().mean()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - log_ratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())
            mb_adv = (b_adv[mb] - b_adv[mb].mean()) / (b_adv[mb].std() + 1e-8)
            policy_loss = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
            value_loss = 0.5 * ((new_value - b_returns[mb]) ** 2).mean()
            loss = policy_loss - args.ent_coef * entropy + args.vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
            optimizer.step()
    return {"policy_loss": policy_loss.item(), "value_loss": value_loss.item(), "entropy": entropy.item(),
            "approx_kl": approx_kl.item(), "clipfrac": float(np.mean(clipfracs))}


def evaluate_learner(net, rules, args, update, writer, history, num_deals):
    """Duplicate-deal evaluation (tute_lab.evaluation) on ``num_deals`` held-out deals against each
    of ``eval_opponents`` and the exploited agent. Every scalar is logged against learner
    decisions, so TensorBoard's panels share one axis; returns the history's row, the results and
    the figures for log.csv (``eval_win_rate_vs_NAME``, ``eval_point_diff_vs_NAME``)."""
    agent = PPOAgent(rules, net=net, greedy=True, device=next(net.parameters()).device)
    row, results, figures = {"update": update}, [], {}
    for name in eval_agents(args):
        with evaluation_records(args, update) as record:
            result = evaluate_pairing(rules, agent, make_agent(name, rules, seed=0),
                                               num_deals=num_deals, progress=False, record=record)
        results.append(result)
        row[name] = result.win_rate
        step = update * args.num_envs * args.num_steps
        for kind, value in (("win_rate", result.win_rate), ("point_diff", result.mean_point_diff)):
            writer.add_scalar(f"eval/{kind}_vs_{name}", value, step)
            figures[f"eval_{kind}_vs_{name}"] = value
    history.append(row)
    return row, results, figures


def main(argv=None) -> None:
    args = parse_args(argv)
    rules = make_rules(args.preset, **args.rule_overrides)
    if not 0 <= args.seed < TRAINING_SEED_LIMIT:
        raise ValueError(f"seed {args.seed} must be in 0..{TRAINING_SEED_LIMIT - 1}, below the held-out deals")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    device = resolve_device(args.device)
    warn_slow_bf16(args, device)
    net = PolicyNet(rules, args.hidden, args.central_critic).to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate, eps=1e-5)
    if args.init is not None and not args.resume:
        init_network(net, args.init, rules)
    pool = Pool(rules, pool_bots(args), args.seed, args.pool_size, args.hidden, args.central_critic, device)
    run_dir = check_run_dir(args)
    workers = start_workers(rules, args, device)  # a Ray instance that cannot be reached is named here
    try:
        run(args, rules, run_dir, net, optimizer, pool, workers)
    finally:
        workers.close()


def run(args: Args, rules, run_dir: Path, net, optimizer, pool: Pool, workers: Workers) -> None:
    """The run: resumed or started in ``run_dir``, updates until total_steps, then final.pt. A
    run whose workers are lost (:class:`WorkerLost`) is checkpointed at its last update first."""
    batch_size = args.num_envs * args.num_steps
    num_updates = max(1, args.total_steps // batch_size)
    update, eval_history = 0, []
    checkpoint_path = run_dir / "checkpoint.pt"
    if args.resume:
        update, eval_history = resume(checkpoint_path, args, net, optimizer, pool, workers)
    start_run_dir(run_dir, args)
    # Points of updates redone after a resume replace the killed run's (purge_step).
    writer = SummaryWriter(str(run_dir), purge_step=update * batch_size + 1 if update else None)
    csv_path, fields = run_dir / "log.csv", log_fields(args)
    start_log(csv_path, update, fields)
    if args.imitate and update == 0:  # a warm start: the teacher's play first (not again on resume)
        imitated = imitate(net, rules, args, net.obs_scale.device)
        for key, value in imitated.items():
            writer.add_scalar(key, value, 0)
        print(f"imitated {args.imitate} on {imitated['imitation/decisions']:,} decisions: "
              f"agreement {imitated['imitation/agreement']:.3f}", file=sys.stderr)
    bar = tqdm(total=num_updates, initial=update, disable=None if args.progress else True, desc="updates")
    start_time, start_update, start_decisions = time.time(), update, workers.decisions()
    while update < num_updates:
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = args.learning_rate * (1.0 - update / num_updates)
        try:
            buf = workers.collect(update, net, pool)
        except WorkerLost:
            save_checkpoint(checkpoint_path, args, rules, net, optimizer, pool, workers, update, eval_history)
            raise
        adv, returns = advantages(buf, args)
        losses = ppo_update(net, optimizer, buf, adv, returns, args)
        update += 1

        elapsed = time.time() - start_time
        sps = (update - start_update) * batch_size / elapsed
        env_sps = (workers.decisions() - start_decisions) / elapsed
        wins = np.concatenate([won for _, won in buf.results]) if buf.results else np.zeros(0)
        finished = buf.dones.bool()
        stats = {
            "update": update, "learner_steps": update * batch_size, "env_steps": workers.decisions(),
            "sps": round(sps), "env_sps": round(env_sps),
            # The training hands that ended in this rollout (none: not measured, an empty cell).
            "win_rate": float(wins.mean()) if wins.size else None,
            "mean_reward": float(buf.rewards[finished].mean()) if finished.any() else None,
            **losses,
        }
        if args.snapshot_every and update % args.snapshot_every == 0:
            pool.add_snapshot(net, f"snapshot@{update}")
        if (args.eval_every and update % args.eval_every == 0) or update == num_updates:
            last = update == num_updates
            deals = args.final_eval_deals if last and args.final_eval_deals else args.eval_deals
            row, results, figures = evaluate_learner(net, rules, args, update, writer, eval_history, deals)
            stats.update(figures)
            if last:
                print("\nfinal evaluation on held-out duplicate deals:\n" + "\n".join(r.summary() for r in results))
            bar.set_postfix_str(" ".join(f"{k}={v:.2f}" for k, v in row.items() if k != "update"))
        log_update(writer, csv_path, stats, optimizer.param_groups[0]["lr"], pool, fields)
        bar.set_description(f"updates ({sps:,.0f} learner steps/s, {env_sps:,.0f} env steps/s)")
        bar.update(1)
        if update % args.checkpoint_every == 0 or update == num_updates:
            save_checkpoint(checkpoint_path, args, rules, net, optimizer, pool, workers, update, eval_history)
    bar.close()
    writer.close()
    save_policy(run_dir / "final.pt", net, rules, args.preset, learner_steps=update * batch_size,
                eval_history=eval_history)
    plot_run(run_dir, eval_history)
    print(f"model: {run_dir / 'final.pt'} (evaluate it with: tute-evaluate {run_dir / 'final.pt'} heuristic "
          f"--preset {args.preset}); curves: {run_dir / 'curves.png'}")


def cli(argv=None) -> int:
    """train.py's command line: bad input is one short message and exit code 2."""
    try:
        main(argv)
    except (ValueError, OSError) as err:
        print(f"train.py: error: {err}", file=sys.stderr)
        return 2
    except WorkerLost as err:
        print(f"train.py: stopped: {err}; resume from the last checkpoint with --resume", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    sys.exit(cli())
