"""tute_env: Tute, the Spanish trick-taking card game, for reinforcement learning.

The public API, importable from here::

    from tute_env import tute_v0                 # the PettingZoo environment: tute_v0.env()
    from tute_env import TuteEnv, TuteVectorEnv  # the Gymnasium views
    from tute_env import make_rules, PRESETS, Rules, Game, State, Deal
    from tute_env import Seating, RandomPolicy, LEARNER
    from tute_env import Solver
    from tute_env import Record, load_records, RecordWriter, replay

Each name is imported on first use, so ``import tute_env.engine.core`` needs neither PettingZoo
nor Gymnasium. The package's layers, bottom up (docs/architecture.md):

* :mod:`tute_env.engine`: cards, rules, deals, the state, the compiled rules and the batched core,
  scoring, observations, and the plain reference engine that checks the core in the tests;
* :mod:`tute_env.play`: the seating layer (policies in their seats), keyed streams, game records;
* :mod:`tute_env.envs` (PettingZoo, Gymnasium, rendering) and :mod:`tute_env.search`
  (information sets, the double-dummy solver, the analysis of recorded hands).
"""

import importlib
import os
import stat
import tempfile

#: Public name -> the module that defines it (a module itself where the value is None).
_API = {
    "tute_v0": ("tute_env.envs.tute_v0", None),
    "TuteEnv": ("tute_env.envs.gym_env", "TuteEnv"),
    "TuteVectorEnv": ("tute_env.envs.gym_env", "TuteVectorEnv"),
    "make_rules": ("tute_env.engine.rules", "make_rules"),
    "PRESETS": ("tute_env.engine.rules", "PRESETS"),
    "Rules": ("tute_env.engine.rules", "Rules"),
    "Deal": ("tute_env.engine.deal", "Deal"),
    "State": ("tute_env.engine.state", "State"),
    "Game": ("tute_env.engine.core", "Game"),
    "Seating": ("tute_env.play.seating", "Seating"),
    "RandomPolicy": ("tute_env.play.seating", "RandomPolicy"),
    "LEARNER": ("tute_env.play.seating", "LEARNER"),
    "Record": ("tute_env.play.records", "Record"),
    "load_records": ("tute_env.play.records", "load_records"),
    "RecordWriter": ("tute_env.play.records", "RecordWriter"),
    "replay": ("tute_env.play.records", "replay"),
    "Solver": ("tute_env.search.solver", "Solver"),
}
__all__ = sorted(_API)


def __getattr__(name):
    if name not in _API:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module_name, attribute = _API[name]
    module = importlib.import_module(module_name)
    return module if attribute is None else getattr(module, attribute)


def __dir__():
    return sorted(set(globals()) | set(_API))



def _numba_cache_fallback() -> None:
    """Give numba a writable cache directory where it would find none.

    The compiled functions of this package are cached (``numba.njit(cache=True)``): numba writes
    them to ``NUMBA_CACHE_DIR`` if set, else to ``__pycache__`` beside the source, else to the
    user's cache directory (``~/.cache/numba``). Where none of these is writable (a read-only
    install run by a user without a writable home, e.g. in a container), numba refuses to even
    define a cached function ("cannot cache function ...: no locator available") and the import
    fails. Then this points numba's cache at a private directory in the temp dir, one per user,
    kept across runs (created 0700; used only if it is a real directory owned by this user and
    writable by no one else, since numba loads pickles from it), else at a fresh temporary
    directory removed at exit. That is numba's ``NUMBA_CACHE_DIR`` setting, for the whole
    process. In the normal case (a writable ``__pycache__`` or home) nothing changes and numba
    is not even imported here.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return  # the user's choice
    here = os.path.dirname(os.path.abspath(__file__))
    pycache = os.path.join(here, "__pycache__")
    if os.access(pycache if os.path.isdir(pycache) else here, os.W_OK):
        return
    import numba

    if numba.config.CACHE_DIR:
        return
    try:  # numba's own search for a cache location (the user's cache directory, ...)
        numba.njit(cache=True)(_cache_probe)
        return
    except RuntimeError:
        pass
    numba.config.CACHE_DIR = _private_temp_dir() or ""


def _cache_probe():  # pragma: no cover - never called, only defined with cache=True
    return 0


def _private_temp_dir() -> "str | None":
    uid = os.getuid() if hasattr(os, "getuid") else None
    path = os.path.join(tempfile.gettempdir(), "tute_env-numba-cache" + (f"-{uid}" if uid is not None else ""))
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        info = os.lstat(path)
        if (
            stat.S_ISDIR(info.st_mode)
            and (uid is None or info.st_uid == uid)
            and not info.st_mode & 0o022
            and os.access(path, os.W_OK)
        ):
            return path
    except OSError:
        pass
    try:  # someone else's or an unsafe directory: a fresh one for this process
        path = tempfile.mkdtemp(prefix="tute_env-numba-cache-")
    except OSError:
        return None  # nothing writable at all: numba's own error follows
    import atexit
    import shutil

    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


_numba_cache_fallback()
