"""A warm start for PPO: the learner first imitates a teacher bot (behaviour cloning).

The teacher (``Args.imitate``, an agent spec: ``heuristic`` by default) plays every seat of
``num_envs`` games on the core, dealt from the run's training seed; every decision is a sample:
the seat's observation and legal mask, the teacher's action, and the seat's reward for the hand
(the run's reward: win plus ``point_weight`` times the point difference). The policy learns the
teacher's actions (cross-entropy over the legal actions), the value the rewards (squared error,
on the critic's input: the perfect-information encoding with ``central_critic``), for
``Args.imitate_decisions`` samples, drawn afresh game after game, in minibatches of
``num_envs * num_steps / num_minibatches``. PPO then starts from a policy that plays about as
the teacher does and a critic that already knows what a hand is worth, instead of from random
play (docs/experiments/quickstart.md).
"""

from __future__ import annotations

import numpy as np
import torch

from agents import make_agent
from tute_env.engine.core import Game
from tute_env.engine.observation import encode_observation, encode_perfect_information
from tute_env.engine.scoring import hand_rewards
from tute_env.play.seating import Seating

from .settings import Args

__all__ = ["IMITATION_LEARNING_RATE", "imitate", "teacher_games"]

#: Adam's step size while imitating (supervised learning takes larger steps than PPO's).
IMITATION_LEARNING_RATE = 1e-3


def teacher_games(game: Game, teacher, lanes: int, point_weight: float, rng: np.random.Generator, critic_enc):
    """``lanes`` games played to the end by ``teacher`` in every seat: (critic inputs (D, C) int8,
    masks (D, 47), the teacher's actions (D,), the acting seat's hand reward (D,)) for every
    decision D of them."""
    rules = game.rules
    state = game.random_state(rng, lanes)
    seating = Seating(game, [teacher], np.zeros(rules.num_players, np.int64))  # the teacher in every seat
    critic, masks, actions, seats, lane_of = [], [], [], [], []
    while not state.done.all():
        live = ~state.done
        full = seating.actions(state, live)
        rows = np.flatnonzero(live)
        seat = state.current[rows].astype(np.intp)
        critic.append(critic_enc(rules, state.take(rows), seat))
        masks.append(game.legal_action_mask(state)[rows])
        actions.append(full[rows])
        seats.append(seat)
        lane_of.append(rows)
        seating.step(state, full, live)
    rewards = hand_rewards(rules, "win", state.winner, state.games, state.totals, state.tute_declarer, point_weight)
    lane_of, seats = np.concatenate(lane_of), np.concatenate(seats)
    return (np.concatenate(critic), np.concatenate(masks), np.concatenate(actions),
            rewards[lane_of, seats].astype(np.float32))


def imitate(net, rules, args: Args, device: torch.device) -> dict[str, float]:
    """Train ``net`` to play as ``args.imitate`` for ``args.imitate_decisions`` samples (module
    doc); returns the last pass's figures: ``imitation/agreement`` (the share of samples where the
    policy's most likely action is the teacher's), ``imitation/policy_loss``, ``imitation/value_loss``."""
    game = Game(rules)
    teacher = make_agent(args.imitate, rules, seed=args.seed)
    rng = np.random.default_rng([args.seed, 0x1417])  # a stream of its own, apart from the games' and the pool's
    critic_enc = encode_perfect_information if args.central_critic else encode_observation
    n_obs = net.policy_body[0].in_features
    optimizer = torch.optim.Adam(net.parameters(), lr=IMITATION_LEARNING_RATE, eps=1e-5)
    minibatch = max(1, args.num_envs * args.num_steps // args.num_minibatches)
    seen, stats = 0, {}
    while seen < args.imitate_decisions:
        critic, masks, actions, rewards = teacher_games(game, teacher, args.num_envs, args.point_weight, rng, critic_enc)
        order = torch.from_numpy(rng.permutation(len(actions)))
        critic_t, masks_t = torch.from_numpy(critic), torch.from_numpy(masks)
        actions_t, rewards_t = torch.from_numpy(actions), torch.from_numpy(rewards)
        agree = total = 0
        for start in range(0, len(order), minibatch):
            idx = order[start:start + minibatch]
            c = critic_t[idx].to(device)
            logits = net.logits(c[:, :n_obs], masks_t[idx].to(device))
            target = actions_t[idx].to(device)
            policy_loss = torch.nn.functional.cross_entropy(logits, target)
            value_loss = ((net.value(c) - rewards_t[idx].to(device)) ** 2).mean()
            optimizer.zero_grad()
            (policy_loss + args.vf_coef * value_loss).backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
            optimizer.step()
            agree += int((logits.argmax(1) == target).sum())
            total += len(idx)
        seen += len(actions)
        stats = {"imitation/agreement": agree / total, "imitation/policy_loss": float(policy_loss.detach()),
                 "imitation/value_loss": float(value_loss.detach()), "imitation/decisions": seen}
    return stats
