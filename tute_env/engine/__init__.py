"""The engine: the game itself, with no notion of who is playing.

Modules, bottom up (each imports only those before it; ``tests/test_layout.py`` checks it):

* ``cards`` (the 40-card deck, card sets, the 47 action ids, :func:`is_int`: the one check of an
  integer a user gives);
* ``rules`` (the frozen :class:`Rules`, the presets, :func:`nearest_preset`);
* ``deal`` (deals: random or given, validated);
* ``state`` (:class:`State`: B games as arrays, field by field);
* ``kernel`` (the rules of one game compiled with numba, per lane, and the batch kernel and state
  check over them: the named API the observation encoder and the solver share);
* ``checks`` (why a state does not fit its game, in words: the error path of the state check);
* ``core`` (:class:`Game`: the rules applied to batches of games) and ``reference`` (a plain
  one-game engine written straight from the rules, the core's oracle in the tests);
* ``scoring`` (every reward, defined once) and ``observation`` (what a player may know).

The engine imports numpy and numba only: nothing of ``tute_env``'s other packages, PettingZoo,
Gymnasium or torch.
"""
