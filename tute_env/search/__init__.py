"""Search: what a player can infer, and exact play.

* ``infoset``: information sets decoded from observations, the constraints on the hidden cards,
  an exact sampler of the deals consistent with them;
* ``solver``: the double-dummy solver (alpha-beta with MTD(f), a transposition table) on the
  engine's compiled per-lane rules;
* ``analysis``: every decision of a recorded hand valued by the solver (``tute-analyze``).

May import :mod:`tute_env.engine` and :mod:`tute_env.play`; not :mod:`tute_env.envs`.
"""
