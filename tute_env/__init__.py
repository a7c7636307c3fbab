"""tute_env: Tute, the Spanish trick-taking card game, for reinforcement learning.

``from tute_env import tute_v0`` gives the PettingZoo environment (``tute_v0.env()``);
``tute_env.gym_env`` the Gymnasium views. Both are imported on first use, so that
``import tute_env.core`` needs neither PettingZoo nor Gymnasium.
"""

import importlib

_LAZY_SUBMODULES = ("tute_v0", "gym_env")


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
