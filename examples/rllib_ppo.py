"""Train RLlib's PPO on tute_v0 through RLlib's own PettingZoo wrapper, with action masking.

    pip install -e '.[rllib]'      # ray[rllib]; it pins gymnasium==1.2.2 (tute_env needs >= 1.0)
    python examples/rllib_ppo.py --preset two_player --iterations 20 --num-env-runners 1

``tute_v0.env()`` (the AEC env in PettingZoo's standard wrappers) goes into RLlib's
``PettingZooEnv`` (``ray.rllib.env.wrappers.pettingzoo_env``), RLlib's multi-agent API, unchanged:
one thin subclass, ``TuteRLlibEnv``, only renames the observation dict's keys for RLlib's
action-masking module (``ActionMaskingTorchRLModule``, shipped in ``ray.rllib.examples``), which
wants ``{"observations", "action_mask"}`` where tute_v0 gives ``{"observation", "action_mask"}``,
and scales the int8 vector to float32 in [0, 1] (``tute_env.engine.observation.observation_scale``);
tute_v0's own spaces are not changed. Every seat maps to one shared policy (self-play), a small
64x64 network, trained by PPO on RLlib's new API stack. The module adds log(mask) to the
logits, so an illegal action is never sampled: an episode that ended by tute_v0's illegal-action
rule (-1 for the offender, no hand result in the infos) is counted as ``illegal_endings`` and
would show as a non-zero episode return, which is the sum over seats of a zero-sum game.

How it compares with ``train.py``: train.py runs thousands of games at once per process on the
batched, numba-compiled core, with one learner against a pool of bots and its own past snapshots
drawn by prioritised fictitious self-play, and a central critic; this example steps one game at a
time through the AEC API (``last``/``step`` per decision, Python all the way), with plain
shared-policy self-play, and gets its scale from Ray instead (``--num-env-runners`` processes,
remote learners) - it shows that the env is native to RLlib's multi-agent API, not a faster way
to train Tute. Measured here (two_player, 2 cores shared with other work): this example about
1,100-1,400 env steps/s end to end (4000-step iterations, 8 games per sampler, 64x64 network;
``--num-env-runners 0`` 1,358, ``1`` 1,107: on 2 cores a sampler process only alternates with the
learner), train.py about 10,800 learner and 21,900 env steps/s (``configs/two_player.yaml
--threads 1``: 1024 games at once, 256x256 networks with a central critic), some 15x more.

RLlib's env check at start plays one unmasked random action, so tute_v0 prints its
"Illegal move made" warning before training; that hand is not part of any batch.

CI runs this for two small iterations (``tests/test_rllib_example.py``) when ray[rllib] is
installed.
"""

from __future__ import annotations

import argparse
import math
import time

import gymnasium as gym
import numpy as np

from tute_env import tute_v0
from tute_env.engine.observation import observation_scale
from tute_env.engine.rules import make_rules

try:  # RLlib is an optional extra: pip install -e '.[rllib]'
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
except ImportError:  # pragma: no cover - main() says what to install
    RLlibCallback, PettingZooEnv = object, object

POLICY = "shared"


class TuteRLlibEnv(PettingZooEnv):
    """``PettingZooEnv(tute_v0.env(preset=...))`` with observations as RLlib's masking module wants.

    ``{"observation": int8, "action_mask": int8}`` becomes ``{"observations": float32 in [0, 1],
    "action_mask": float32}``; everything else (turn order, rewards, infos, the illegal-action
    rule) is tute_v0's, through RLlib's wrapper.
    """

    def __init__(self, config: dict | None = None):
        config = dict(config or {})
        preset = config.pop("preset", "two_player")
        super().__init__(tute_v0.env(preset=preset, **config))
        self._scale = observation_scale(make_rules(preset))
        n_actions = self.env.action_space(self.env.possible_agents[0]).n
        space = gym.spaces.Dict({
            "observations": gym.spaces.Box(0.0, 1.0, (len(self._scale),), np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, (n_actions,), np.float32),
        })
        self.observation_spaces = {aid: space for aid in self.observation_spaces}
        self.observation_space = gym.spaces.Dict(self.observation_spaces)

    def _convert(self, obs: dict) -> dict:
        return {aid: {"observations": o["observation"].astype(np.float32) * self._scale,
                      "action_mask": o["action_mask"].astype(np.float32)} for aid, o in obs.items()}

    def reset(self, *, seed=None, options=None):
        obs, infos = super().reset(seed=seed, options=options)
        return self._convert(obs), infos

    def step(self, action):
        obs, rewards, terminateds, truncateds, infos = super().step(action)
        return self._convert(obs), rewards, terminateds, truncateds, infos


class HandResults(RLlibCallback):
    """Per episode: ``illegal_endings`` is 1 when the hand ended without a result (tute_v0's
    illegal-action rule ends it with no ``winner`` in any info), else 0."""

    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs):
        last_infos = [ep.get_infos(-1) for ep in episode.agent_episodes.values() if len(ep) > 0]
        illegal = not any(isinstance(info, dict) and "winner" in info for info in last_infos)
        metrics_logger.log_value("illegal_endings", int(illegal), reduce="sum")


def build_config(args):
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    return (
        PPOConfig()
        .environment(TuteRLlibEnv, env_config={"preset": args.preset})
        .env_runners(num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.envs_per_runner)
        .multi_agent(policies={POLICY}, policy_mapping_fn=lambda agent_id, episode, **kw: POLICY)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY: RLModuleSpec(
            module_class=ActionMaskingTorchRLModule,
            model_config={"fcnet_hiddens": [64, 64], "head_fcnet_hiddens": [], "vf_share_layers": False})}))
        .training(train_batch_size_per_learner=args.batch_size, minibatch_size=min(128, args.batch_size),
                  num_epochs=args.epochs, lr=3e-4, gamma=1.0)  # one hand is one episode; reward at its end
        .callbacks(HandResults)
        .debugging(seed=args.seed)
    )


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="two_player")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--num-env-runners", type=int, default=1,
                        help="sampling processes (0: sample in the driver)")
    parser.add_argument("--envs-per-runner", type=int, default=8,
                        help="games each sampler steps side by side (one batched forward pass)")
    parser.add_argument("--batch-size", type=int, default=4000, help="env steps per iteration")
    parser.add_argument("--epochs", type=int, default=4, help="PPO epochs per iteration")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads of the driver, where the learner runs (small networks: 1 is fastest)")
    args = parser.parse_args(argv)
    for name, least in (("iterations", 1), ("num_env_runners", 0), ("envs_per_runner", 1), ("batch_size", 1),
                        ("epochs", 1), ("threads", 1)):
        if getattr(args, name) < least:
            parser.error(f"--{name.replace('_', '-')} must be at least {least}, got {getattr(args, name)}")
    try:
        make_rules(args.preset)
    except ValueError as err:  # an unknown preset
        parser.error(str(err))
    try:
        import ray
        config = build_config(args)
    except ImportError as err:
        parser.error(f"this example needs RLlib: pip install -e '.[rllib]' ({err})")

    import torch

    torch.set_num_threads(args.threads)  # 2 threads on 2 cores made the learner's update 40x slower here
    started_ray = not ray.is_initialized()
    if started_ray:
        ray.init(address="local", num_cpus=max(2, args.num_env_runners + 1), include_dashboard=False,
                 log_to_driver=False)  # a private instance, even beside a running cluster
    algo = config.build_algo()
    history = []
    start = time.perf_counter()
    try:
        for _ in range(args.iterations):
            result = algo.train()
            runners = result["env_runners"]
            losses = result["learners"][POLICY]
            row = {
                "iteration": result["training_iteration"],
                "env_steps": int(result["num_env_steps_sampled_lifetime"]),
                "episodes": int(runners.get("num_episodes_lifetime", 0)),
                "episode_return": float(runners.get("episode_return_mean", math.nan)),
                "seat_returns": {aid: float(r) for aid, r in sorted(runners.get("agent_episode_returns_mean",
                                                                                 {}).items())},
                "episode_len": float(runners.get("episode_len_mean", math.nan)),
                "illegal_endings": int(runners.get("illegal_endings", 0)),
                "policy_loss": float(losses["policy_loss"]),
                "vf_loss": float(losses["vf_loss"]),
                "seconds": time.perf_counter() - start,
            }
            history.append(row)
            seats = " ".join(f"{aid[-1]}:{r:+.2f}" for aid, r in row["seat_returns"].items())
            print(f"iter {row['iteration']:3d}  env steps {row['env_steps']:7d}  "
                  f"episode return {row['episode_return']:+.3f} (seats {seats})  "
                  f"length {row['episode_len']:.1f}  illegal {row['illegal_endings']}  "
                  f"policy loss {row['policy_loss']:+.4f}  vf loss {row['vf_loss']:.4f}", flush=True)
    finally:
        algo.stop()
        if started_ray:
            ray.shutdown()
    seconds = time.perf_counter() - start
    steps = history[-1]["env_steps"] if history else 0
    print(f"{args.preset}: {steps} env steps in {seconds:.1f} s ({steps / seconds:,.0f} env steps/s)")
    return {"history": history, "env_steps": steps, "seconds": seconds}


if __name__ == "__main__":
    main()
