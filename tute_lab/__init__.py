"""The lab: the machinery of ``train.py`` and ``evaluate.py``.

* :mod:`tute_lab.evaluation`: duplicate-deal evaluation on held-out deals, round robins, ratings;
* :mod:`tute_lab.training`: PPO self-play (settings, games and pool, rollouts, workers, runs);
* :mod:`tute_lab.ray_cluster`: connecting to Ray, for both.

It sits above the players (:mod:`agents`) and the rules (:mod:`tute_env`) and imports neither
script. Installed, the two scripts are the ``tute-train`` and ``tute-evaluate`` commands.
"""
