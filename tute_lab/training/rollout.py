"""One rollout: ``num_steps`` learner decisions in every game, the tensors PPO learns from."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from agents.ppo import sample

from .selfplay import SelfPlayGames
from .settings import Args


def mixed_precision(args: Args, device: torch.device):
    """bfloat16 autocast for the networks' forward passes on ``device`` (CPU or CUDA) when
    ``args.bf16``, else a no-op."""
    return torch.autocast(device.type, dtype=torch.bfloat16, enabled=args.bf16)


def warn_slow_bf16(args: Args, device: torch.device) -> None:
    """Say so when ``args.bf16`` asks for bfloat16 on a CPU without native bfloat16 (AVX512-BF16
    or AMX): there autocast emulates it, and a run is many times slower (11x measured on an AVX2
    EPYC, 2026-12-06: 556 against 6,233 learner decisions/s, docs/experiments/training_runs.md)."""
    if args.bf16 and device.type == "cpu" and not (torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported()):
        print("bf16: this CPU has no native bfloat16 (AVX512-BF16 or AMX), so bfloat16 is emulated and "
              "training runs many times slower; set bf16: false here", flush=True)


@dataclass
class Rollout:
    """One rollout: (num_steps, lanes) decisions of the learner, the games' results; a worker's
    shard of the games, or all of them (:meth:`cat`)."""

    critic: np.ndarray  # (T, N, critic size) int8; the observation is its leading part
    n_obs: int  # the observation's size
    masks: np.ndarray  # (T, N, 47) bool
    actions: torch.Tensor  # (T, N) long
    logprobs: torch.Tensor  # (T, N)
    values: torch.Tensor  # (T, N)
    rewards: torch.Tensor  # (T, N)
    dones: torch.Tensor  # (T, N): the hand ended after this decision
    next_value: torch.Tensor  # (N,) the value of the decisions the games wait at: GAE's bootstrap
    results: list = field(default_factory=list)  # (pool entries, wins 1/0) of the hands that ended
    games: list = field(default_factory=list)  # SelfPlayGames.arrays() of each shard after the rollout

    @property
    def obs(self) -> np.ndarray:
        return self.critic[..., : self.n_obs]

    @classmethod
    def empty(cls, args: Args, lanes: int, n_obs: int, n_critic: int, device: torch.device) -> Rollout:
        t = args.num_steps
        return cls(np.zeros((t, lanes, n_critic), np.int8), n_obs, np.zeros((t, lanes, 47), bool),
                   torch.zeros((t, lanes), dtype=torch.long, device=device),
                   *(torch.zeros((t, lanes), device=device) for _ in range(4)), torch.zeros(lanes, device=device))

    @classmethod
    def cat(cls, parts: list[Rollout], device: torch.device) -> Rollout:
        """The shards' rollouts side by side (along the games), on ``device``; results and games
        in worker order."""
        if len(parts) == 1 and parts[0].rewards.device == device and parts[0].critic.flags.writeable:
            return parts[0]
        tensors = [torch.cat([getattr(p, f) for p in parts], dim=int(f != "next_value")).to(device)
                   for f in ("actions", "logprobs", "values", "rewards", "dones", "next_value")]
        return cls(np.concatenate([p.critic for p in parts], axis=1), parts[0].n_obs,
                   np.concatenate([p.masks for p in parts], axis=1), *tensors,
                   [r for p in parts for r in p.results], [g for p in parts for g in p.games])


def collect_rollout(net, games: SelfPlayGames, buf: Rollout, critic_enc, args: Args, generator) -> None:
    """Every game is at a learner decision: sample num_steps of them per game into ``buf`` (the
    learner's actions drawn from ``generator``), and the bootstrap value where they stop."""
    rules, device = games.rules, buf.rewards.device
    buf.results = []
    for t in range(args.num_steps):
        s = games.state
        buf.critic[t] = critic_enc(rules, s, s.current.astype(np.intp))
        buf.masks[t] = games.game.legal_action_mask(s)
        with torch.no_grad():
            obs_t = torch.from_numpy(np.ascontiguousarray(buf.obs[t])).to(device)
            logits = net.logits(obs_t, torch.from_numpy(buf.masks[t]).to(device))
            action = sample(logits, generator)
            buf.logprobs[t] = torch.log_softmax(logits, dim=1).gather(1, action[:, None])[:, 0]
            buf.values[t] = net.value(torch.from_numpy(buf.critic[t]).to(device))
        buf.actions[t] = action
        reward, ended, results = games.step(action.cpu().numpy())
        buf.results += results
        buf.rewards[t] = torch.from_numpy(reward).float().to(device)
        buf.dones[t] = torch.from_numpy(ended).float().to(device)
    with torch.no_grad():
        s = games.state
        buf.next_value[:] = net.value(torch.from_numpy(critic_enc(rules, s, s.current.astype(np.intp))).to(device))
