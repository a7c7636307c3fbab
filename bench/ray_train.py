"""Distributed training speed, in one process: collecting rollouts alone (train.py's workers, no
update) in this process and on a private Ray instance with 1 and 2 workers, then the learner's
PPO update alone on the driver.

    python -m bench.ray_train [--config configs/partnership.yaml] [--updates 10] [--threads 2] [--num-envs G] [--json FILE]
    python -m bench.ray_train --quick          # a few tiny rollouts: does it run?

Rollouts: learner decisions/s (num_envs x num_steps per rollout) and env decisions/s (every seat's
decisions) over ``--updates`` rollouts after one warm-up rollout (actor start, first deals), the
weights and the pool sent through the object store each time as in a run. The update: rollout
decisions (samples) per second of ``ppo_update`` (update_epochs passes) on ``--device``, on the
last rollout collected. Strong scaling compares N workers with 1 worker on the same games (each
of N workers has num_envs / N of them); weak scaling adds one worker with the games of one shard
(``ray_1_worker_<G>_games``), the per-worker load of the N-worker run. Needs the ``[ray]`` extra and a quiet machine (see bench/ray_eval.py):
each actor runs one torch thread, this process ``--threads``, and on a loaded machine more torch
threads than idle cores are many times slower than one.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time

import torch

import train
from agents.ppo import PolicyNet, resolve_device
from tute_env.engine.rules import make_rules
from tute_lab.ray_cluster import connect_ray
from tute_lab.training.rollout import Rollout
from tute_lab.training.selfplay import Pool
from tute_lab.training.settings import Args, check_args, parse_args
from tute_lab.training.workers import start_workers

from .common import machine, show, today


def rollout_speed(rules, args: Args, net, pool, updates: int) -> tuple[dict, Rollout]:
    """Learner and env decisions/s of ``updates`` rollouts of ``args``'s workers (after a warm-up)."""
    workers = start_workers(rules, args, torch.device("cpu"))
    try:
        workers.collect(0, net, pool)
        decisions, start = workers.decisions(), time.perf_counter()
        for update in range(1, updates + 1):
            buf = workers.collect(update, net, pool)
        seconds = time.perf_counter() - start
        return {"learner_sps": round(updates * args.num_envs * args.num_steps / seconds),
                "env_sps": round((workers.decisions() - decisions) / seconds), "seconds": round(seconds, 2)}, buf
    finally:
        workers.close()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="configs/partnership.yaml", help="the run whose sizes are measured")
    parser.add_argument("--updates", type=int, default=10, help="rollouts (and updates) timed per setting")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="Ray worker counts to time")
    parser.add_argument("--device", default="cpu", help="where the update runs")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch threads of this process (the local rollout, the update); default: the config's")
    parser.add_argument("--num-envs", type=int, default=None, help="games in all (default: the config's)")
    parser.add_argument("--quick", action="store_true", help="64 games, 2 rollouts: a check that it runs")
    parser.add_argument("--json", default=None, help="write the figures here")
    opts = parser.parse_args(argv)
    sizes = ["--num-envs", str(opts.num_envs)] if opts.num_envs else []
    if opts.quick:
        sizes = ["--num-envs", "64", "--num-minibatches", "2"]
    updates = 2 if opts.quick else opts.updates
    threads = ["--threads", str(opts.threads)] if opts.threads else []
    args = parse_args(["--config", opts.config, *sizes, *threads, "--device", opts.device, "--eval-every", "0"])
    rules = make_rules(args.preset, **args.rule_overrides)
    torch.set_num_threads(args.threads)
    net = PolicyNet(rules, args.hidden, args.central_critic)
    pool = Pool(rules, args.bots, args.seed, args.pool_size, args.hidden, args.central_critic)
    for k in range(min(args.pool_size, 4)):  # a pool with snapshots, as in a run past its start
        pool.add_snapshot(net, f"snapshot@{k}")
    figures = {"date": today(), "machine": machine(), "config": opts.config, "num_envs": args.num_envs,
               "num_steps": args.num_steps, "updates": updates, "threads": args.threads, "bf16": args.bf16,
               "load_average_before": os.getloadavg()[0]}
    figures["local"], buf = rollout_speed(rules, args, net, pool, updates)
    figures["ray_startup_seconds"] = round(connect_ray("local", num_cpus=max(opts.workers)), 1)
    for n in opts.workers:
        distributed = dataclasses.replace(args, ray="local", num_workers=n)
        check_args(distributed)
        figures[f"ray_{n}_workers"], buf = rollout_speed(rules, distributed, net, pool, updates)
    # Weak scaling: one worker with the games of one shard of the largest N (the same per-worker load).
    shard = dataclasses.replace(args, ray="local", num_workers=1, num_envs=args.num_envs // max(opts.workers))
    figures[f"ray_1_worker_{shard.num_envs}_games"], _ = rollout_speed(rules, shard, net, pool, updates)
    figures["load_average_after_rollouts"] = os.getloadavg()[0]

    device = resolve_device(opts.device)
    learner = net.to(device)
    optimizer = torch.optim.Adam(learner.parameters(), lr=args.learning_rate, eps=1e-5)
    buf = Rollout.cat([buf], device)
    adv, returns = train.advantages(buf, args)
    train.ppo_update(learner, optimizer, buf, adv, returns, args)  # warm-up
    start = time.perf_counter()
    for _ in range(updates):
        train.ppo_update(learner, optimizer, buf, adv, returns, args)
    seconds = time.perf_counter() - start
    figures["update"] = {"device": str(device), "update_epochs": args.update_epochs,
                         "samples_per_s": round(updates * args.num_envs * args.num_steps / seconds),
                         "seconds_per_update": round(seconds / updates, 3)}
    show(figures, opts.json)


if __name__ == "__main__":
    main()
