"""The agent registry: every player of the project by name (``make_agent``).

Agents are imported on first use, so torch loads only for the trained ones.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from tute_env.engine.rules import Rules

from .base import Agent

# name -> "module:Class" (imported on first use, so that e.g. torch loads only for trained agents)
_REGISTRY = {
    "random": "agents.base:RandomAgent",
    "greedy": "agents.greedy:GreedyAgent",
    "heuristic": "agents.heuristic:HeuristicAgent",
    "pimc": "agents.pimc:PIMCAgent",
    "ppo": "agents.ppo:PPOAgent",
    "search": "agents.search:SearchAgent",
    "dds": "agents.dds:DDSAgent",
}


def agent_names() -> list[str]:
    return sorted(_REGISTRY)


def make_agent(spec: str, rules: Rules, seed: int = 0, device: str = "cpu") -> Agent:
    """An agent from its name: ``random``, ``greedy``, ``heuristic``, ``pimc`` or ``pimc:N``
    (N samples), ``dds`` or ``dds:N`` (PIMC over N exactly solved deals late in the hand),
    ``ppo`` (the shipped agent of this preset; ``ppo:sample`` sampling), ``search`` or
    ``search:N`` (PIMC with the shipped network's playouts and critic, N samples; presets with a
    shipped network only), or a path to a checkpoint file.
    ``device``: where a trained agent's network runs (``auto``, ``cpu``, ``cuda``, ``cuda:N``)."""
    name, _, arg = spec.partition(":")
    if name == "ppo" and not Path(spec).exists():
        from .ppo import PPOAgent  # torch: loaded for trained agents only

        return PPOAgent.from_spec(arg, rules, seed, device) if arg else PPOAgent(rules, seed=seed, device=device)
    if name in _REGISTRY:
        module, cls = _REGISTRY[name].split(":")
        agent_cls = getattr(importlib.import_module(module), cls)
        return agent_cls.from_spec(arg, rules, seed) if arg else agent_cls(rules, seed=seed)
    if Path(spec).suffix in (".pt", ".pth") or Path(spec).exists():
        from .ppo import PPOAgent

        return PPOAgent.from_checkpoint(spec, rules, seed=seed, device=device)
    raise ValueError(f"unknown agent {spec!r}: expected one of {agent_names()}, 'pimc:N', or a checkpoint path")
