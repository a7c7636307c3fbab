"""Players for tute_env: baseline bots, search, and trained agents, behind one interface.

>>> from agents import make_agent
>>> bot = make_agent("heuristic", rules)          # also "random", "greedy", "pimc", "pimc:128",
>>> actions = bot.act_batch(observations, masks)  # "ppo", "search", "search:N" or a checkpoint path
"""

from .base import Agent, RandomAgent
from .registry import agent_names, make_agent

__all__ = ["Agent", "RandomAgent", "agent_names", "make_agent"]
