"""Train RLCard's DMC (Deep Monte-Carlo) on Tute through the RLCard env, then measure it with the
project's evaluator.

    pip install -e '.[rlcard]'
    python examples/rlcard_dmc.py --preset two_player --minutes 8 --deals 500

Training is RLCard's own ``DMCTrainer`` on ``rlcard.make("tute", ...)`` (``tute_env.envs.rlcard_env``):
``--num-actors`` actor processes play hands with the current networks (one per seat) and the
learner fits each seat's network to the hands' payoffs, until ``--minutes`` have passed or
``--frames`` frames (decisions) have been learned from. The trainer writes
``SAVEDIR/XPID/model.tar`` (the networks' weights; also its logs and one ``P_FRAMES.pth`` per seat
and checkpoint). Then seat 0's network plays as a project agent
(``agents.rlcard_agent.RLCardAgent``) against each of ``--opponents`` on ``--deals`` held-out
duplicate deals (``tute_lab.evaluation.evaluate_pairing``): win rates with 95% confidence
intervals. ``--model PATH`` skips training and evaluates a saved ``model.tar``.

DMC's training is not reproducible run to run (processes and threads race); the evaluation of a
given model is. docs/rlcard.md has a run's figures.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import threading
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before torch loads: the actor processes inherit it


def train(preset: str, savedir: str | Path, xpid: str = "tute", minutes: float | None = None,
          frames: int | None = None, num_actors: int = 1, batch_size: int = 32, unroll_length: int = 100,
          num_buffers: int = 50, seed: int = 0) -> Path:
    """Run RLCard's DMCTrainer on the preset until ``minutes`` pass or ``frames`` are learned (the
    first to come); returns the path of the saved ``model.tar``. The actor processes are ended
    when training stops (DMCTrainer leaves them running)."""
    import rlcard
    from rlcard.agents.dmc_agent import DMCTrainer

    import tute_env.envs.rlcard_env  # noqa: F401  registers "tute"

    env = rlcard.make("tute", config={"preset": preset, "seed": seed})
    trainer = DMCTrainer(env, cuda="", xpid=xpid, savedir=str(savedir), save_interval=max(minutes or 0, 1) * 2,
                         num_actors=num_actors, training_device="cpu", total_frames=frames or 10**15,
                         batch_size=batch_size, unroll_length=unroll_length, num_buffers=num_buffers, num_threads=1)
    # RLCard's log writer records the whole process environment in meta.json: keep it out.
    trainer.plogger.metadata.pop("env", None)
    Path(trainer.plogger.paths["meta"]).write_text(json.dumps(trainer.plogger.metadata, indent=4, sort_keys=True))

    def stop():  # DMCTrainer reads total_frames in its loops: they end after the batch in hand
        trainer.total_frames = 0

    timer = threading.Timer(minutes * 60, stop) if minutes else None
    if timer is not None:
        timer.start()
    try:
        trainer.start()
    finally:
        if timer is not None:
            timer.cancel()
        for child in multiprocessing.active_children():  # the trainer's actors
            child.terminate()
            child.join()
    return Path(trainer.checkpointpath)


def evaluate(preset: str, model: str | Path, opponents=("random", "greedy"), num_deals: int = 500,
             position: int = 0) -> dict:
    """The model's network of ``position`` against each opponent on held-out duplicate deals:
    ``{opponent: PairingResult}``."""
    from agents.rlcard_agent import RLCardAgent
    from tute_env.engine.rules import make_rules
    from tute_lab.evaluation import evaluate_pairing

    rules = make_rules(preset)
    agent = RLCardAgent.from_spec(f"{model}@{position}", rules)
    return {opponent: evaluate_pairing(rules, agent, opponent, num_deals=num_deals) for opponent in opponents}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="two_player")
    parser.add_argument("--minutes", type=float, default=8.0, help="training time (wall clock)")
    parser.add_argument("--frames", type=int, default=None, help="stop after this many frames instead, if sooner")
    parser.add_argument("--num-actors", type=int, default=1, help="actor processes (each about one core)")
    parser.add_argument("--savedir", default="runs/rlcard_dmc")
    parser.add_argument("--xpid", default="tute", help="the run's folder in --savedir")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing run's model")
    parser.add_argument("--model", default=None, help="evaluate this model.tar, without training")
    parser.add_argument("--deals", type=int, default=500, help="duplicate deals per opponent")
    parser.add_argument("--opponents", default="random,greedy")
    parser.add_argument("--threads", type=int, default=1, help="torch threads of the learner")
    parser.add_argument("--json", default=None, help="write the results to this JSON file")
    args = parser.parse_args(argv)
    for name in ("num_actors", "deals", "threads"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if args.minutes <= 0 or (args.frames is not None and args.frames < 1):
        parser.error("--minutes and --frames must be positive")
    from agents import make_agent
    from tute_env.engine.rules import make_rules

    opponents = [x for x in args.opponents.split(",") if x]
    try:
        rules = make_rules(args.preset)
        for opponent in opponents:
            make_agent(opponent, rules)
    except ValueError as err:  # an unknown preset or opponent
        parser.error(str(err))
    model = Path(args.model) if args.model else Path(args.savedir) / args.xpid / "model.tar"
    if args.model is None and model.exists() and not args.overwrite:
        parser.error(f"{model} exists: pass --overwrite to train anew, or --model {model} to evaluate it")
    if args.model is not None:
        from agents.rlcard_agent import load_dmc_agent

        try:
            load_dmc_agent(model, rules)
        except ValueError as err:  # no such file, not a DMC checkpoint, other rules
            parser.error(f"--model: {err}")
    import torch

    torch.set_num_threads(args.threads)
    out = {"preset": args.preset, "model": str(model)}
    if args.model is None:
        start = time.perf_counter()
        train(args.preset, args.savedir, args.xpid, args.minutes, args.frames, args.num_actors)
        out["train_seconds"] = time.perf_counter() - start
        out["frames"] = torch.load(model, map_location="cpu", weights_only=True)["frames"]
        print(f"trained {out['frames']:,} frames in {out['train_seconds']:.0f} s: {model}")
    results = evaluate(args.preset, model, opponents, args.deals)
    for result in results.values():
        print(result.summary())
    out["results"] = {name: result.to_dict() for name, result in results.items()}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2, default=float) + "\n")
    return out


if __name__ == "__main__":
    main()
