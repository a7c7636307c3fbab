"""RLCard agents as players of this project: any RLCard agent, or a DMC model that RLCard's
``DMCTrainer`` saved, behind :class:`agents.base.Agent`'s ``act_batch(observations, masks)``.

>>> from agents.rlcard_agent import RLCardAgent
>>> agent = RLCardAgent.from_spec("runs/rlcard_dmc/tute/model.tar", rules)      # DMC, position 0
>>> agent = RLCardAgent.from_spec("runs/rlcard_dmc/tute/model.tar@1", rules)    # position 1's network
>>> agent = RLCardAgent(rules, agent=dqn_agent)                                  # any RLCard agent

Each row becomes the state dict RLCard's agents read (``obs``, ``legal_actions``,
``raw_legal_actions``; as :mod:`tute_env.envs.rlcard_env` gives them) and the action is the
agent's ``eval_step``. The observation is the project's int8 vector, as in the RLCard env, so a
model trained there plays here unchanged. ``raw_obs`` is not rebuilt (None): agents that read it
(RLCard's human and rule agents) cannot be wrapped. RLCard's sampling agents (``RandomAgent``,
NFSP's average policy) draw from numpy's global generator, not from this agent's seed; DMC and
DQN play their greedy action.
"""

from __future__ import annotations

import pickle
from collections import OrderedDict
from pathlib import Path

import numpy as np

from tute_env.engine.cards import NUM_ACTIONS, action_id
from tute_env.engine.observation import observation_layout
from tute_env.engine.rules import Rules
from tute_env.envs.rlcard_env import ACTION_STRS

from .base import Agent, train_extra


class RLCardAgent(Agent):
    """An RLCard agent (anything with ``eval_step(state) -> (action, info)`` and ``use_raw``)
    playing from the project's (observations, masks) batches, one row at a time."""

    name = "rlcard"

    def __init__(self, rules: Rules, seed: int = 0, agent=None):
        super().__init__(rules, seed)
        if agent is None or not callable(getattr(agent, "eval_step", None)):
            raise ValueError(f"RLCardAgent needs an RLCard agent (with eval_step), got {agent!r}")
        self.agent = agent

    @classmethod
    def from_spec(cls, arg: str, rules: Rules, seed: int = 0, device: str = "cpu") -> RLCardAgent:
        """``PATH`` or ``PATH@N``: the network of position N (default 0) in a ``model.tar`` that
        RLCard's ``DMCTrainer`` saved (with positions = seats, every network plays any seat)."""
        path, _, position = arg.rpartition("@") if "@" in arg else (arg, "", "0")
        if not position.isdigit():
            raise ValueError(f"bad rlcard spec {arg!r}: expected PATH or PATH@POSITION (a seat number)")
        agent = cls(rules, seed, agent=load_dmc_agent(path, rules, int(position), device))
        agent.name = f"rlcard:{arg}"
        return agent

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks, dtype=bool)
        out = np.empty(len(masks), np.int64)
        for row, (obs, mask) in enumerate(zip(np.asarray(observations), masks)):
            legal = np.flatnonzero(mask).tolist()
            state = {
                "obs": obs,
                "legal_actions": OrderedDict((a, None) for a in legal),
                "raw_obs": None,
                "raw_legal_actions": [ACTION_STRS[a] for a in legal],
                "action_record": [],
            }
            action, _ = self.agent.eval_step(state)
            out[row] = action_id(action) if getattr(self.agent, "use_raw", False) else int(action)
        return out


def load_dmc_agent(path: str | Path, rules: Rules, position: int = 0, device: str = "cpu"):
    """RLCard's ``DMCAgent`` of ``position`` from a ``DMCTrainer`` checkpoint (``model.tar``: the
    state dicts only, loaded with ``weights_only=True``), its layer sizes read from the weights.
    ``ValueError`` if the file is missing or not such a checkpoint, the position is not in it, or
    its input is not this preset's observation plus a one-hot action."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no DMC checkpoint at {path}")
    with train_extra("an RLCard DMC model"):  # torch: the [train] extra
        import torch
        from rlcard.agents.dmc_agent.model import DMCAgent

    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
        nets = data["model_state_dict"]
    except (pickle.UnpicklingError, RuntimeError, EOFError, KeyError, TypeError) as err:  # not DMCTrainer's file
        raise ValueError(f"{path} is not a DMCTrainer checkpoint (model.tar): {type(err).__name__}: {err}") from None
    if not 0 <= position < len(nets):
        raise ValueError(f"{path} has networks for positions 0..{len(nets) - 1}, not {position}")
    weights = [v for k, v in nets[position].items() if k.endswith(".weight")]
    obs_size = observation_layout(rules).size
    if weights[0].shape[1] != obs_size + NUM_ACTIONS:
        raise ValueError(f"{path} takes inputs of {weights[0].shape[1]}, these rules' observations and actions "
                         f"make {obs_size + NUM_ACTIONS}: it was trained for other rules")
    agent = DMCAgent([obs_size], [NUM_ACTIONS], mlp_layers=[w.shape[0] for w in weights[:-1]], exp_epsilon=0.0,
                     device=device)
    agent.load_state_dict(nets[position])
    agent.eval()
    return agent
