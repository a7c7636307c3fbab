"""The views: Tute as other libraries' environments, all over the one engine and seating layer.

* ``args``: the argument and reset-option parsing every view shares (checked here, once);
* ``render``: the text and drawn table of a game, in English or Spanish;
* ``words``: every text a player reads, English and Spanish (the renderer's, the apps' narration);
* ``tute_v0``: the PettingZoo AEC environment (``from tute_env import tute_v0``);
* ``rlcard_env``: Tute as an RLCard environment (``rlcard.make("tute")`` once imported; needs rlcard);
* ``gym_env``: the Gymnasium views, one learner against policies (:class:`TuteEnv`) and N games
  on the batched core (:class:`TuteVectorEnv`);
* ``openspiel``: Tute as an OpenSpiel game, ``python_tute`` (needs ``open_spiel``). It resamples
  information sets with :mod:`tute_env.search`, so it is a layer of its own above this package
  and the search package (docs/architecture.md): nothing else here imports it.

May import :mod:`tute_env.engine` and :mod:`tute_env.play`; not :mod:`tute_env.search` (``openspiel`` apart).
"""
