"""The standing ladder: a fixed pool of reference agents for each preset, their round robin played
once on held-out duplicate deals and shipped as data, Elo ratings on one anchored scale, and any
agent placed on that scale without moving it (``tute-evaluate --ladder AGENT``; docs/ladder.md).

* **The pool** (:func:`pool_agents`): ``random``, ``greedy``, ``heuristic`` (the rule-based part,
  ``pool="rules"``), then ``pimc`` and ``dds``, and ``ppo`` and ``search`` where the preset has a
  shipped network (``pool="full"``), and two_player's ``search+dds`` (:data:`PRESET_POOL`). Pool pairings put the later member first (``greedy`` vs
  ``random``).
* **The deals**: :data:`LADDER_DEALS` a preset, from seed :data:`~tute_lab.evaluation.HELD_OUT_SEED_START`,
  every pairing with ``agent_seed`` = the first seed (:func:`~tute_lab.evaluation.evaluate_pairing`:
  the first agent draws from it, the second from it + 1). A newcomer plays the same deals, first.
* **The data** (:class:`LadderData`): per pairing, the seatings A won on each deal (a digit a
  deal), the seconds played (wall and CPU) and the dates; shipped
  in ``tute_lab/evaluation/ladder_data/<preset>.json`` (:func:`shipped_path`). A pairing may be
  played in chunks of deals (the keyed streams make them one run's numbers), so a long round robin
  resumes where it stopped.
* **The scale** (:func:`fit_ratings`): Elo, P(A beats B) = 1 / (1 + 10^((R_B - R_A) / 400)), fitted
  by maximum likelihood (Bradley-Terry) to every pairing's win rate weighted by its deals, the
  anchor (:data:`ANCHOR_AGENT` = ``heuristic``) held at :data:`ANCHOR_RATING` = 1500.
* **Intervals**: a bootstrap over deals with a fixed seed (:data:`BOOTSTRAP_SEED`,
  :data:`BOOTSTRAP_SAMPLES` resamples of the deal set, the same resampled deals in every pairing,
  the fit redone on each; the 2.5th and 97.5th percentiles). The anchor's interval is its
  point; the others' measure their distance from it.
* **Placing an agent** (:func:`place`): the pool's ratings fixed, only the newcomer's rating is
  fitted to its pairings; its interval is the same bootstrap over its own per-deal scores (the
  pool's held fixed); its rank is among the pool's rated members.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents import Agent
from agents.base import shipped_presets
from tute_env.engine.rules import PRESETS, Rules, make_rules
from tute_env.play.records import user_data_dir

from .deals import HELD_OUT_SEED_START
from .playing import agent_label, evaluate_pairing, mean_ci
from .results import MIN_DEALS_FOR_CI, PairingResult

FORMAT = "tute-ladder/1"
"""The shipped pool data's format."""
USER_FORMAT = "tute-ladder-user/1"
"""A user's ladder file's format (``--save``)."""
ANCHOR_AGENT = "heuristic"
ANCHOR_RATING = 1500.0
ELO_SCALE = 400.0
RULE_POOL = ("random", "greedy", "heuristic")
SEARCH_POOL = ("pimc", "dds")
TRAINED_POOL = ("ppo", "search")
#: Members of one preset's pool only, with its network: two_player's strongest play level, search+dds
#: (search while the stock lasts, then dds's exact solves), so the ladder shows whether it tops it.
PRESET_POOL = {"two_player": ("search+dds",)}
POOLS = ("rules", "full")
#: Every pool member of any preset, in the pool's order.
MEMBERS = (*RULE_POOL, *SEARCH_POOL, *TRAINED_POOL, *sorted({m for ms in PRESET_POOL.values() for m in ms}))
#: Deals a pool pairing (and a newcomer's pairing) is played on, per preset: the full pool ladder
#: of a new agent takes about an hour on 2 cores (docs/ladder.md has the times measured).
LADDER_DEALS = {"partnership": 500, "manita": 500, "two_player": 500, "two_player_10": 500, "corriente": 500,
                "three_player": 200}  # three players: six seatings a deal
BOOTSTRAP_SAMPLES = 1000
BOOTSTRAP_SEED = 37
#: Where the shipped pool data are (package data).
DATA_DIR = Path(__file__).resolve().parent / "ladder_data"


class LadderError(ValueError):
    """Bad ladder input (no data for a preset, an agent already in the pool, a misfit file): one line."""


def pool_agents(preset: str, pool: str = "full") -> list[str]:
    """The pool of ``preset``: the rule-based bots (``pool="rules"``), then pimc and dds, and ppo and
    search (and the preset's :data:`PRESET_POOL`) where the preset has a shipped network (``pool="full"``)."""
    if pool not in POOLS:
        raise LadderError(f"unknown pool {pool!r}: {' or '.join(POOLS)}")
    members = list(RULE_POOL)
    if pool == "full":
        members += SEARCH_POOL
        if preset in shipped_presets():
            members += [*TRAINED_POOL, *PRESET_POOL.get(preset, ())]
    return members


def pool_pairings(preset: str, pool: str = "full") -> list[tuple[str, str]]:
    """Every pairing of the pool, the later member first (``pimc`` vs ``heuristic``), listed by the
    later member, then the earlier from the anchor's end."""
    members = pool_agents(preset, pool)
    return [(members[i], members[j]) for i in range(len(members)) for j in reversed(range(i))]


def shipped_path(preset: str) -> Path:
    return DATA_DIR / f"{preset}.json"


def user_ladder_path() -> Path:
    """A user's ladder file: ``$XDG_DATA_HOME/tute_env/ladder.json`` (by default ``~/.local/share/...``)."""
    return user_data_dir() / "ladder.json"


def _today() -> str:
    return datetime.date.today().isoformat()


# ----------------------------------------------------------------------------------------------
# Pairings and the pool's data
# ----------------------------------------------------------------------------------------------
@dataclass
class LadderPairing:
    """A against B on the first ``deals`` deals of a ladder's deal set."""

    agent_a: str
    agent_b: str
    seatings: int
    wins: np.ndarray
    """(deals,) int: seatings of the deal A's side won (0 .. seatings)."""
    seconds: float = 0.0
    """Time played, all chunks (wall time)."""
    dates: list[str] = field(default_factory=list)
    """The days its deals were played."""
    cpu_seconds: float = 0.0
    cpu_deals: int = 0
    """The process's CPU time over the deals it was measured on (played here, without Ray): what
    a deal costs on a core of its own, whatever else the machine runs."""

    @property
    def deals(self) -> int:
        return len(self.wins)

    @property
    def scores(self) -> np.ndarray:
        """(deals,) A's score on each deal (the mean over its seatings)."""
        return self.wins / self.seatings

    @property
    def win_rate(self) -> float:
        return float(self.scores.mean()) if self.deals else math.nan

    def win_interval(self) -> tuple[float | None, float | None]:
        """The 95% CI over deals (:func:`~tute_lab.evaluation.playing.mean_ci`; None below 30 deals)."""
        mean, half = mean_ci(self.scores)
        return (None, None) if half is None else (mean - half, mean + half)

    def extend(self, scores: np.ndarray, seconds: float = 0.0, date: str | None = None,
               cpu_seconds: float | None = None) -> None:
        """Add the next deals' scores (A's score on each of the deals that follow these), the
        seconds they took, when they were played (default: today) and their CPU time (if known)."""
        wins = np.rint(np.asarray(scores, dtype=np.float64) * self.seatings)
        if not np.allclose(wins, np.asarray(scores) * self.seatings):
            raise LadderError(f"{self.agent_a} vs {self.agent_b}: scores that are not seatings won out of {self.seatings}")
        self.wins = np.concatenate([self.wins, wins.astype(np.int64)])
        self.seconds += seconds
        if cpu_seconds is not None:
            self.cpu_seconds += cpu_seconds
            self.cpu_deals += len(wins)
        date = date or _today()
        if date not in self.dates:
            self.dates.append(date)

    @classmethod
    def of(cls, result: PairingResult) -> LadderPairing:
        pairing = cls(result.agent_a, result.agent_b, result.seatings, np.zeros(0, dtype=np.int64))
        pairing.extend(result.deal_scores, result.seconds)
        return pairing

    def to_json(self) -> dict:
        return {"agent_a": self.agent_a, "agent_b": self.agent_b, "seatings": self.seatings, "deals": self.deals,
                "win_rate": round(self.win_rate, 6), "seconds": round(self.seconds, 3),
                "cpu_seconds": round(self.cpu_seconds, 3), "cpu_deals": self.cpu_deals,
                "dates": self.dates, "wins": "".join(str(int(x)) for x in self.wins)}

    @classmethod
    def from_json(cls, d: dict) -> LadderPairing:
        wins = np.array([int(c) for c in d["wins"]], dtype=np.int64)
        if len(wins) != d["deals"] or (wins > d["seatings"]).any():
            raise LadderError(f"{d['agent_a']} vs {d['agent_b']}: its wins do not fit its deals and seatings")
        return cls(d["agent_a"], d["agent_b"], d["seatings"], wins, d["seconds"], list(d["dates"]),
                   d.get("cpu_seconds", 0.0), d.get("cpu_deals", 0))


@dataclass
class LadderData:
    """A preset's pool data: the deal set and every pool pairing played so far."""

    preset: str
    rules: dict
    num_deals: int
    seed_start: int = HELD_OUT_SEED_START
    agent_seed: int = HELD_OUT_SEED_START
    pairings: list[LadderPairing] = field(default_factory=list)
    machine: str = ""
    """Where the pairings were played (for their seconds)."""

    @classmethod
    def new(cls, preset: str, num_deals: int | None = None, machine: str = "") -> LadderData:
        rules = make_rules(preset)
        return cls(preset, dataclasses.asdict(rules), num_deals or LADDER_DEALS[preset], machine=machine)

    @property
    def rules_obj(self) -> Rules:
        return make_rules(self.preset)

    def get(self, a: str, b: str) -> LadderPairing | None:
        return next((p for p in self.pairings if (p.agent_a, p.agent_b) == (a, b)), None)

    def complete(self, a: str, b: str) -> bool:
        p = self.get(a, b)
        return p is not None and p.deals >= self.num_deals

    def missing(self, pool: str = "full") -> list[tuple[str, str, int]]:
        """(A, B, deals done) of the pool pairings not complete."""
        out = []
        for a, b in pool_pairings(self.preset, pool):
            p = self.get(a, b)
            if p is None or p.deals < self.num_deals:
                out.append((a, b, 0 if p is None else p.deals))
        return out

    def members(self) -> list[str]:
        """The pool members rated from these data: those with a pairing of at least
        :data:`~tute_lab.evaluation.results.MIN_DEALS_FOR_CI` deals (fewer say too little: a few
        deals that each split their seatings would tie two agents with no doubt), in the pool's order."""
        played = {x for p in self.pairings if p.deals >= MIN_DEALS_FOR_CI for x in (p.agent_a, p.agent_b)}
        return [m for m in pool_agents(self.preset, "full") if m in played]

    def add(self, result: PairingResult, cpu_seconds: float | None = None) -> LadderPairing:
        """A chunk of a pool pairing, on the deals that follow the ones already here (``cpu_seconds``:
        the process's CPU time for it, if measured)."""
        p = self.get(result.agent_a, result.agent_b)
        if p is None:
            p = LadderPairing(result.agent_a, result.agent_b, result.seatings, np.zeros(0, dtype=np.int64))
            self.pairings.append(p)
        elif result.seatings != p.seatings:
            raise LadderError(f"{result.agent_a} vs {result.agent_b}: {result.seatings} seatings, not {p.seatings}")
        p.extend(result.deal_scores, result.seconds, cpu_seconds=cpu_seconds)
        return p

    def to_json(self) -> dict:
        return {"format": FORMAT, "preset": self.preset, "rules": self.rules, "num_deals": self.num_deals,
                "seed_start": self.seed_start, "agent_seed": self.agent_seed,
                "anchor": {"agent": ANCHOR_AGENT, "rating": ANCHOR_RATING}, "machine": self.machine,
                "pairings": [p.to_json() for p in self.pairings]}

    @classmethod
    def from_json(cls, d: dict, where: str = "ladder data") -> LadderData:
        if d.get("format") != FORMAT:
            raise LadderError(f"{where}: not {FORMAT} data")
        data = cls(d["preset"], d["rules"], d["num_deals"], d["seed_start"], d["agent_seed"],
                   [LadderPairing.from_json(p) for p in d["pairings"]], d.get("machine", ""))
        if data.rules != dataclasses.asdict(make_rules(data.preset)):
            raise LadderError(f"{where}: its rules are not preset {data.preset}'s (the preset changed: play it again)")
        return data

    def save(self, path: str | Path) -> None:
        """Written whole to a temporary file, then renamed: a killed run leaves the last complete file."""
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        text = json.dumps(self.to_json(), indent=1)
        tmp.write_text(text + "\n")
        os.replace(tmp, path)


def load_ladder(preset: str, path: str | Path | None = None) -> LadderData:
    """The pool data of ``preset``: the shipped file, or ``path``. :class:`LadderError` if there is none."""
    if preset not in PRESETS:
        raise LadderError(f"unknown preset {preset!r}")
    path = Path(path) if path is not None else shipped_path(preset)
    if not path.is_file():
        raise LadderError(f"no ladder data for preset {preset} ({path} is missing)")
    try:
        data = LadderData.from_json(json.loads(path.read_text()), str(path))
    except (json.JSONDecodeError, KeyError, TypeError) as err:
        raise LadderError(f"{path}: not readable ladder data ({type(err).__name__}: {err})") from None
    if data.preset != preset:
        raise LadderError(f"{path} holds preset {data.preset}, not {preset}")
    return data


# ----------------------------------------------------------------------------------------------
# Ratings: the Bradley-Terry (Elo) fit and the bootstrap over deals
# ----------------------------------------------------------------------------------------------
_C = math.log(10) / ELO_SCALE


def win_probability(r_a, r_b):
    """Elo: P(A beats B) = 1 / (1 + 10^((R_B - R_A) / 400)); arrays broadcast."""
    return 1.0 / (1.0 + np.power(10.0, (np.asarray(r_b) - np.asarray(r_a)) / ELO_SCALE))


def fit_ratings(k: int, pairs: np.ndarray, counts: np.ndarray, rates: np.ndarray, fixed: dict[int, float],
                iterations: int = 100) -> np.ndarray:
    """Maximum-likelihood Elo ratings of ``k`` agents (Bradley-Terry on win rates).

    ``pairs``: (P, 2) agent indices (A, B); ``counts``: (..., P) deals of each pairing (0: left
    out); ``rates``: (..., P) A's win rate; the leading axes are independent fits (a bootstrap's
    resamples), solved together. ``fixed``: index -> rating of the agents held (the anchor, or a
    whole pool when a newcomer is placed). Maximises sum n (w log p + (1 - w) log(1 - p)) over the
    free ratings by Newton's method (a concave problem). A win rate of 0 or 1 is moved half a deal
    in, so that a clean sweep gives a finite rating. Returns (..., k) ratings."""
    counts = np.asarray(counts, dtype=np.float64)
    rates = np.asarray(rates, dtype=np.float64)
    shape = np.broadcast_shapes(counts.shape, rates.shape)
    counts, rates = np.broadcast_to(counts, shape), np.broadcast_to(rates, shape)
    safe = np.maximum(counts, 1.0)
    rates = np.where(counts > 0, np.clip(rates, 0.5 / safe, 1 - 0.5 / safe), 0.5)
    free = np.array([i for i in range(k) if i not in fixed], dtype=np.intp)
    ratings = np.zeros((*shape[:-1], k))
    for i, r in fixed.items():
        ratings[..., i] = r
    if len(free):
        ratings[..., free] = np.mean(list(fixed.values())) if fixed else 0.0
    a, b = pairs[:, 0], pairs[:, 1]
    # incidence (P, k): +1 at A, -1 at B
    inc = np.zeros((len(pairs), k))
    inc[np.arange(len(pairs)), a] += 1
    inc[np.arange(len(pairs)), b] -= 1
    inc_free = inc[:, free]
    for _ in range(iterations):
        p = win_probability(ratings[..., a], ratings[..., b])
        grad = _C * np.einsum("...p,pf->...f", counts * (rates - p), inc_free)
        weight = counts * p * (1 - p) * _C * _C
        hess = np.einsum("...p,pf,pg->...fg", weight, inc_free, inc_free)  # minus the Hessian
        step = np.linalg.solve(hess + 1e-12 * np.eye(len(free)), grad[..., None])[..., 0]
        step = np.clip(step, -ELO_SCALE, ELO_SCALE)  # no wild first steps
        ratings[..., free] += step
        if np.max(np.abs(step), initial=0.0) < 1e-9:
            break
    return ratings


def bootstrap_counts(num_deals: int, samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """(samples, num_deals) how many times each deal is drawn in each resample of the deal set
    (deterministic: a fixed seed)."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, num_deals, size=(samples, num_deals))
    out = np.zeros((samples, num_deals), dtype=np.int64)
    np.add.at(out, (np.arange(samples)[:, None], draws), 1)
    return out


def _resampled(pairings: Sequence[LadderPairing], multiplicity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(samples, P) deals and win rates of each pairing in each resample: a pairing played on a
    prefix of the deal set keeps the resampled deals of that prefix."""
    counts = np.stack([multiplicity[:, : p.deals].sum(1) for p in pairings], axis=1)
    won = np.stack([multiplicity[:, : p.deals] @ p.scores for p in pairings], axis=1)
    return counts, np.where(counts > 0, won / np.maximum(counts, 1), 0.5)


@dataclass
class Rating:
    agent: str
    rating: float
    low: float
    high: float
    """The 95% interval (bootstrap percentiles)."""
    rank: int
    pool: bool = True
    """A pool member (False: an agent placed on the scale)."""


def _connected(members: list[str], pairings: Sequence[LadderPairing]) -> list[str]:
    """The members linked to the anchor by pairings with deals (only they can be rated)."""
    linked = {ANCHOR_AGENT} if ANCHOR_AGENT in members else set()
    grew = True
    while grew:
        grew = False
        for p in pairings:
            if p.deals >= MIN_DEALS_FOR_CI and (p.agent_a in linked) != (p.agent_b in linked):
                linked |= {p.agent_a, p.agent_b}
                grew = True
    return [m for m in members if m in linked]


def pool_ratings(data: LadderData) -> list[Rating]:
    """The pool's ratings, best first: the fit on every pairing played on at least
    :data:`~tute_lab.evaluation.results.MIN_DEALS_FOR_CI` deals (a partial one on its deals so far),
    the anchor held; intervals from the bootstrap over deals."""
    members = _connected(data.members(), data.pairings)
    if not members:
        return []
    index = {m: i for i, m in enumerate(members)}
    used = [p for p in data.pairings if p.deals >= MIN_DEALS_FOR_CI and p.agent_a in index and p.agent_b in index]
    pairs = np.array([[index[p.agent_a], index[p.agent_b]] for p in used], dtype=np.intp).reshape(-1, 2)
    fixed = {index[ANCHOR_AGENT]: ANCHOR_RATING}
    point = fit_ratings(len(members), pairs, [p.deals for p in used], [p.win_rate for p in used], fixed)
    counts, rates = _resampled(used, bootstrap_counts(data.num_deals))
    boot = fit_ratings(len(members), pairs, counts, rates, fixed)
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    order = np.argsort(-point, kind="stable")
    return [Rating(members[i], float(point[i]), float(low[i]), float(high[i]), rank + 1)
            for rank, i in enumerate(order)]


@dataclass
class Placement:
    """An agent placed on a preset's ladder: its rating, interval and rank, and its pairings."""

    agent: str
    preset: str
    pool: str
    rating: Rating
    pairings: list[LadderPairing]
    """The agent (A) against each pool member it met."""
    standing: list[Rating]
    """The pool's ratings (unchanged) with the agent among them, best first."""
    agent_seed: int
    num_deals: int
    seed_start: int
    unrated: list[str] = field(default_factory=list)
    """Members of the pool asked for that the shipped data do not rate yet (not played)."""

    def to_json(self) -> dict:
        """An entry of a user's ladder file."""
        return {"agent": self.agent, "preset": self.preset, "pool": self.pool, "rating": round(self.rating.rating, 1),
                "low": round(self.rating.low, 1), "high": round(self.rating.high, 1), "rank": self.rating.rank,
                "of": len(self.standing), "agent_seed": self.agent_seed, "num_deals": self.num_deals,
                "seed_start": self.seed_start, "date": _today(),
                "pairings": [{"opponent": p.agent_b, **{k: v for k, v in p.to_json().items()
                                                        if k not in ("agent_a", "agent_b")}} for p in self.pairings]}

    def summary(self) -> str:
        r = self.rating
        lines = [f"{self.agent} on the {self.preset} ladder ({self.pool} pool, {self.num_deals} deals a pairing): "
                 f"rating {r.rating:.0f} [{r.low:.0f}, {r.high:.0f}], rank {r.rank} of {len(self.standing)}"]
        for p in self.pairings:
            lines.append(f"  vs {p.agent_b:<10} {pairing_text(p)}")
        if self.unrated:
            lines.append(f"  not played: {', '.join(self.unrated)} (not rated in the pool's data yet)")
        return "\n".join(lines)


def pairing_text(p: LadderPairing) -> str:
    """``0.613 [0.599, 0.627]`` (no interval from fewer than 30 deals)."""
    low, high = p.win_interval()
    return f"{p.win_rate:.3f} " + ("(no interval)" if low is None else f"[{low:.3f}, {high:.3f}]")


def place(data: LadderData, pairings: Sequence[LadderPairing], pool: str = "full", agent_seed: int | None = None,
          standing: list[Rating] | None = None) -> Placement:
    """The agent of ``pairings`` (each with it as A against a pool member, on the ladder's deals)
    placed on the pool's scale: the pool's ratings held, its own fitted; the interval from the
    bootstrap over its own deals; its rank among the pool's rated members."""
    standing = pool_ratings(data) if standing is None else standing
    rated = {r.agent: r.rating for r in standing}
    pairings = [p for p in pairings if p.agent_b in rated and p.deals]
    if not pairings:
        raise LadderError("no pairing against a rated pool member to place the agent with")
    name = pairings[0].agent_a
    names = [name, *rated]
    index = {m: i for i, m in enumerate(names)}
    pairs = np.array([[0, index[p.agent_b]] for p in pairings], dtype=np.intp)
    fixed = {index[m]: r for m, r in rated.items()}
    point = fit_ratings(len(names), pairs, [p.deals for p in pairings], [p.win_rate for p in pairings], fixed)[0]
    counts, rates = _resampled(pairings, bootstrap_counts(data.num_deals))
    boot = fit_ratings(len(names), pairs, counts, rates, fixed)[:, 0]
    low, high = np.percentile(boot, [2.5, 97.5])
    rank = 1 + sum(int(r > point) for r in rated.values())
    me = Rating(name, float(point), float(low), float(high), rank, pool=False)
    table = sorted([*standing, me], key=lambda r: -r.rating)
    table = [dataclasses.replace(r, rank=k + 1) if r.pool else r for k, r in enumerate(table)]
    return Placement(name, data.preset, pool, me, list(pairings), table,
                     data.agent_seed if agent_seed is None else agent_seed, data.num_deals, data.seed_start)


def standing_text(preset: str, standing: Sequence[Rating], data: LadderData, title: str = "") -> str:
    """The standing table as text (``tute-evaluate --ladder``)."""
    lines = [title or (f"{preset} ladder: Elo, {ANCHOR_AGENT} = {ANCHOR_RATING:.0f}, 95% bootstrap intervals; "
                       f"{data.num_deals} held-out duplicate deals a pairing")]
    lines.append(f"{'rank':>4}  {'agent':<24} {'rating':>6}  interval")
    for r in standing:
        interval = "(anchor)" if r.pool and r.agent == ANCHOR_AGENT else f"[{r.low:.0f}, {r.high:.0f}]"
        lines.append(f"{r.rank:>4}  {r.agent + ('' if r.pool else ' *'):<24} {r.rating:>6.0f}  {interval}")
    lines += missing_lines(data)
    return "\n".join(lines)


def missing_lines(data: LadderData) -> list[str]:
    """What the pool's data still lack: members not rated yet, pairings begun and not complete."""
    rated = set(data.members())
    absent = [m for m in pool_agents(data.preset, "full") if m not in rated]
    partial = [f"{a} vs {b} ({n} of {data.num_deals} deals)" for a, b, n in data.missing("full") if n]
    out = []
    if absent:
        out.append(f"not on the ladder yet (no pool pairing played): {', '.join(absent)}")
    if partial:
        out.append(f"pool pairings in progress: {', '.join(partial)}")
    return out


# ----------------------------------------------------------------------------------------------
# Playing: a pool pairing's next deals, a newcomer against the pool
# ----------------------------------------------------------------------------------------------
def play_pairing(data: LadderData, agent_a: Agent | str, agent_b: str, first: int = 0, count: int | None = None,
                 agent_seed: int | None = None, progress: bool = False, desc: str | None = None,
                 device: str = "cpu", workers: int | None = None) -> PairingResult:
    """A against pool member B on the ladder's deals ``first .. first + count - 1`` (default: all
    from ``first``), A seeded ``agent_seed`` (default the ladder's), B that plus one: the deals'
    numbers equal those of one run over the whole deal set."""
    count = data.num_deals - first if count is None else count
    return evaluate_pairing(data.rules_obj, agent_a, agent_b, num_deals=count, seed_start=data.seed_start + first,
                            agent_seed=data.agent_seed if agent_seed is None else agent_seed, progress=progress,
                            desc=desc, device=device, workers=workers)


def check_newcomer(data: LadderData, agent: Agent | str) -> str:
    """The newcomer's name; :class:`LadderError` if it is a pool member (its rating is in the table)."""
    name = agent_label(agent)
    if name in pool_agents(data.preset, "full"):
        raise LadderError(f"{name} is in the {data.preset} pool: its rating is in the standing table "
                          f"(tute-evaluate --ladder --preset {data.preset})")
    return name


def run_ladder(data: LadderData, agent: Agent | str, pool: str = "rules", agent_seed: int | None = None,
               progress: bool = False, device: str = "cpu", workers: int | None = None,
               on_pairing: Callable[[LadderPairing], object] | None = None) -> Placement:
    """``agent`` against every rated member of ``pool`` on the ladder's deals, then placed
    (:func:`place`); the pool's pairings are not played again. ``on_pairing`` sees each pairing
    as it ends."""
    name = check_newcomer(data, agent)
    standing = pool_ratings(data)
    rated = {r.agent for r in standing}
    opponents = [m for m in pool_agents(data.preset, pool) if m in rated]
    pairings = []
    for k, member in enumerate(opponents):
        result = play_pairing(data, agent, member, agent_seed=agent_seed, progress=progress, device=device,
                              workers=workers, desc=f"[{k + 1}/{len(opponents)}] {name} vs {member}")
        pairings.append(LadderPairing.of(result))
        if on_pairing is not None:
            on_pairing(pairings[-1])
    placement = place(data, pairings, pool, agent_seed, standing)
    placement.unrated = [m for m in pool_agents(data.preset, pool) if m not in opponents]
    return placement


# ----------------------------------------------------------------------------------------------
# A user's ladder file
# ----------------------------------------------------------------------------------------------
def load_user_ladder(path: str | Path) -> list[dict]:
    """The entries of a user's ladder file ([] if there is none)."""
    path = Path(path)
    if not path.exists():
        return []
    try:
        d = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise LadderError(f"{path}: not a readable ladder file ({type(err).__name__})") from None
    if not isinstance(d, dict) or d.get("format") != USER_FORMAT or not isinstance(d.get("entries"), list):
        raise LadderError(f"{path}: not a {USER_FORMAT} file")
    return d["entries"]


def save_placement(placement: Placement, path: str | Path) -> Path:
    """Add (or replace: same preset, agent, pool and seed) the placement's entry in a user's ladder
    file. Refuses the shipped data."""
    path = Path(path).expanduser()
    if path.resolve().parent == DATA_DIR:
        raise LadderError(f"{path}: the shipped pool data are not a user's ladder file")
    entries = load_user_ladder(path)
    entry = placement.to_json()
    key = ("preset", "agent", "pool", "agent_seed")
    entries = [e for e in entries if tuple(e.get(k) for k in key) != tuple(entry[k] for k in key)] + [entry]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"format": USER_FORMAT, "entries": entries}, indent=1) + "\n")
    os.replace(tmp, path)
    return path


def user_ratings(entries: Sequence[dict], preset: str) -> list[Rating]:
    """The saved entries of ``preset`` as (non-pool) ratings."""
    return [Rating(e["agent"], e["rating"], e["low"], e["high"], e["rank"], pool=False)
            for e in entries if e.get("preset") == preset]
