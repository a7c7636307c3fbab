"""tute_env: Tute, the Spanish trick-taking card game, for reinforcement learning.

``from tute_env import tute_v0`` gives the PettingZoo environment (``tute_v0.env()``);
``tute_env.gym_env`` the Gymnasium views. Both are imported on first use, so that
``import tute_env.core`` needs neither PettingZoo nor Gymnasium.
"""

import importlib
import os
import stat
import tempfile

_LAZY_SUBMODULES = ("tute_v0", "gym_env")


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
        numba.njit(cache=True)(_probe)
        return
    except RuntimeError:
        pass
    numba.config.CACHE_DIR = _private_temp_dir() or ""


def _probe():  # pragma: no cover - never called, only defined with cache=True
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
