"""The machinery under ``train.py``: PPO self-play's settings, games, rollouts, workers and runs.

* :mod:`~tute_lab.training.settings`: :class:`~tute_lab.training.settings.Args`, parsed and checked;
* :mod:`~tute_lab.training.selfplay`: the opponent pool and the self-play games;
* :mod:`~tute_lab.training.rollout`: a rollout's buffer and how it is collected;
* :mod:`~tute_lab.training.workers`: the games in shards, here or on Ray actors;
* :mod:`~tute_lab.training.runs`: run directories, logs, checkpoints, widening, plots.

``train.py`` is the recipe that reads top to bottom: collect, advantages, update, evaluate,
checkpoint.
"""
