"""Keyed random streams: a policy's random draws that depend on *which* decision is drawn for,
never on how the decisions were batched.

A policy that draws randomness from one generator shared by a batch gets different numbers for
a game when the batch changes (another batch size, another shard of a deal set on another
machine). Keyed draws do not: the :class:`~tute_env.play.seating.Seating`, when given a stream id per
lane, hands each decision row a **key** (uint64, ``mix(stream, n)`` for the lane's n-th decision
at the table), and a policy derives its draws from ``mix(its seed, key)`` with the
counter-based functions below. Evaluation gives lane ``d * S + s`` the stream
``mix(deal seed, seating s)``, so every random choice an agent makes on a deal comes from a
stream fixed by (agent seed, deal, seating, decision index) alone.

>>> keys = mix(np.array([10, 11]), 0)          # two streams, their first decisions
>>> uniforms(mix(7, keys))                     # an agent with seed 7: one uniform per key
>>> generator(mix(7, keys[0])).random(3)       # or a full numpy Generator for one key

``mix`` chains splitmix64 (Steele, Lea, Flood 2014) over its parts, element-wise with numpy
broadcasting: cheap enough to key every decision of a batch, vectorised.
"""

from __future__ import annotations

import numpy as np

__all__ = ["generator", "mix", "uniforms"]

_U64 = np.uint64
_GAMMA = _U64(0x9E3779B97F4A7C15)
_M1 = _U64(0xBF58476D1CE4E5B9)
_M2 = _U64(0x94D049BB133111EB)
_START = _U64(0x243F6A8885A308D3)


def _as_u64(x) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype == _U64:
        return x
    if x.dtype.kind not in "iub":
        raise TypeError(f"stream parts must be integers, got {x.dtype}")
    return x.astype(np.int64).astype(_U64)  # negative ints wrap (two's complement)


def _splitmix(z: np.ndarray) -> np.ndarray:
    z = z + _GAMMA
    z = (z ^ (z >> _U64(30))) * _M1
    z = (z ^ (z >> _U64(27))) * _M2
    return z ^ (z >> _U64(31))


def mix(*parts) -> np.ndarray:
    """uint64 hash of integer ``parts`` (scalars or arrays, broadcast together): a 0-d array for
    scalar parts. Order matters: ``mix(a, b) != mix(b, a)`` in general."""
    with np.errstate(over="ignore"):
        h = np.asarray(_START)
        for part in parts:
            h = _splitmix(h ^ _as_u64(part))
    return h


def uniforms(keys) -> np.ndarray:
    """One float64 in [0, 1) per key (53 random bits of ``mix(key)``)."""
    with np.errstate(over="ignore"):
        bits = _splitmix(_as_u64(keys))
    return (bits >> _U64(11)).astype(np.float64) * (1.0 / (1 << 53))


def generator(key) -> np.random.Generator:
    """A numpy Generator (Philox, counter-based) for one key: for policies needing many draws
    per decision (e.g. PIMC's sampled deals)."""
    return np.random.Generator(np.random.Philox(key=int(np.asarray(key, dtype=_U64))))
