"""The agent interface, the uniformly random agent, and where the shipped networks are."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tute_env.engine.rules import Rules
from tute_env.play.seating import RandomPolicy


class Agent:
    """A player. It sees only its own information set: the observation vectors of
    :mod:`tute_env.engine.observation` and the legal action masks.

    Subclasses implement :meth:`act_batch`; :meth:`act` serves a single PettingZoo observation.
    Agents that draw random numbers set ``takes_keys = True`` and accept ``act_batch(...,
    keys=None)``: with keys (given by a :class:`~tute_env.play.seating.Seating` with streams), row i's
    draws come from ``tute_env.play.streams.mix(self.seed, keys[i])``, independent of the batch; without,
    from ``self.rng``.
    """

    name = "agent"
    takes_keys = False

    def __init__(self, rules: Rules, seed: int = 0):
        self.rules = rules
        self.rng = np.random.default_rng(seed)
        #: The int seed keyed draws are mixed with.
        self.seed = int(seed) if isinstance(seed, (int, np.integer)) else int(self.rng.integers(2**63))

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """(B,) int64 actions for (B, obs_size) int8 observations and (B, 47) masks; each action
        is legal in its row's mask."""
        raise NotImplementedError

    def act(self, observation: dict) -> int:
        """One action for a PettingZoo observation ``{"observation", "action_mask"}``."""
        obs = np.asarray(observation["observation"])[None]
        mask = np.asarray(observation["action_mask"]).astype(bool)[None]
        return int(self.act_batch(obs, mask)[0])

    def __repr__(self) -> str:
        return self.name


class RandomAgent(Agent):
    """Uniform over the legal actions."""

    name = "random"
    takes_keys = True
    act_batch = RandomPolicy.act_batch  # the table's built-in policy, on this agent's seed and rng


#: Where the shipped trained agents are, one per preset: ``<preset>.pt``.
CHECKPOINT_DIR = Path(__file__).parent / "checkpoints"


def shipped_presets() -> list[str]:
    """Presets with a shipped trained agent (``make_agent("ppo", PRESETS[name])``)."""
    from tute_env.engine.rules import PRESETS

    return sorted(p.stem for p in CHECKPOINT_DIR.glob("*.pt") if p.stem in PRESETS)
