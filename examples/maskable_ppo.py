"""Train sb3-contrib's MaskablePPO on the single-agent Tute view, then play it against random.

    pip install sb3-contrib
    python examples/maskable_ppo.py --preset two_player --timesteps 50000

The learner plays seat 0 against ``--opponents`` (default ``random``; any bot name of
``agents.make_agent``, made here and passed to the env as a policy object) in the single-agent view
``tute_env.envs.gym_env.TuteEnv``; ``action_masks()`` gives MaskablePPO the legal actions, so it
never plays an illegal card. Observations are ``scaled`` to [0, 1]. CI runs this with
``--timesteps 256`` as a smoke test (``tests/test_gym.py``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from agents import make_agent
from tute_env import TuteEnv
from tute_env.engine.rules import make_rules


def make_env(preset: str, opponents: str, seed: int) -> TuteEnv:
    """The single-agent view against ``opponents``, a bot name (agents.make_agent)."""
    env = TuteEnv(preset, opponents=make_agent(opponents, make_rules(preset), seed=seed), scaled=True)
    env.reset(seed=seed)
    return env


def evaluate(model, env: TuteEnv, episodes: int, seed: int) -> dict:
    """Play ``episodes`` hands greedily; the learner's win rate and mean reward."""
    rewards = []
    for k in range(episodes):
        obs, info = env.reset(seed=seed + k)
        done, total = False, 0.0
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, reward, done, _, info = env.step(int(action))
            total += reward
        rewards.append(total)
    rewards = np.array(rewards)
    return {"episodes": episodes, "win_rate": float((rewards > 0).mean()), "mean_reward": float(rewards.mean())}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="two_player")
    parser.add_argument("--opponents", default="random")
    parser.add_argument("--timesteps", type=int, default=50_000)
    parser.add_argument("--n-steps", type=int, default=512)
    parser.add_argument("--eval-episodes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default=None, help="where to save the trained model (.zip)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (small networks: 1 is fastest)")
    args = parser.parse_args(argv)
    for name in ("timesteps", "n_steps", "eval_episodes", "threads"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    try:
        env = make_env(args.preset, args.opponents, args.seed)
    except ValueError as err:  # an unknown preset or opponent
        parser.error(str(err))
    torch.set_num_threads(args.threads)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=min(args.n_steps, max(args.timesteps, 64)),
        batch_size=64,
        learning_rate=3e-4,
        gamma=1.0,  # one hand is one episode; the reward comes at its end
        seed=args.seed,
        verbose=0,
        device="cpu",
    )
    untrained = evaluate(model, make_env(args.preset, args.opponents, args.seed + 1), args.eval_episodes, 10_000)
    start = time.perf_counter()
    model.learn(total_timesteps=args.timesteps)
    seconds = time.perf_counter() - start
    trained = evaluate(model, make_env(args.preset, args.opponents, args.seed + 1), args.eval_episodes, 10_000)
    print(f"{args.preset} vs {args.opponents}: {args.timesteps} steps in {seconds:.1f} s")
    print(f"  before training: win rate {untrained['win_rate']:.3f}, mean reward {untrained['mean_reward']:+.3f}")
    print(f"  after training:  win rate {trained['win_rate']:.3f}, mean reward {trained['mean_reward']:+.3f}")
    if args.save:
        model.save(args.save)
    return {"untrained": untrained, "trained": trained, "seconds": seconds}


if __name__ == "__main__":
    main()
