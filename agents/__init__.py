"""Players for tute_env: baseline bots, search, and trained agents, behind one interface.

>>> from agents import make_agent
>>> bot = make_agent("heuristic", rules)          # any agent spec: "pimc:128", a checkpoint, "mymod:MyAgent"
>>> actions = bot.act_batch(observations, masks)  # (the grammar: agents.registry, docs/agents.md)
"""

from .base import Agent, RandomAgent
from .registry import AgentSpecError, agent_names, make_agent

__all__ = ["Agent", "AgentSpecError", "RandomAgent", "agent_names", "make_agent"]
