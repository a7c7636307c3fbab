"""Play: policies in their seats, and the record of what they did.

* ``streams``: keyed random streams (a policy's draws tied to the decision they are for, so a game
  plays the same whatever batch it is in);
* ``seating``: :class:`Seating`, the one way policies take seats and act on B games at once;
* ``records``: game records (``tute-record/1``): write, load, validate, replay through the core.

May import :mod:`tute_env.engine`; nothing of the views or search.
"""
