"""Peers measured in the same run as tute_env: other card-game engines playing random games.

Each peer is guarded: if its library does not import, the peer is reported as
``missing: <reason>``; if it imports but fails while measuring, as ``failed: <reason>``. It is
never dropped from the report.

How decisions are counted (chance nodes, dealing and PettingZoo's dead steps are never counted):

* OpenSpiel (C++ random play): ``pyspiel.evaluate_bots`` with ``pyspiel.make_uniform_random_bot``
  for every seat, one call per game, timed in games per second. ``evaluate_bots`` does not
  report how many moves it made, so the decisions per game are counted separately by walking
  sample games in Python with uniformly random moves (states that are neither chance nor
  terminal), and decisions/s = games/s x that mean. oh_hell with 10 fixed tricks has 44
  decisions a game (4 bids, 40 cards), spades 56 (4 bids, 52 cards), hearts 52 or 64 (52 cards,
  plus 12 passed cards unless the chance node picks "no pass").
* RLCard: ``env.run(is_training=False)`` with ``rlcard.agents.RandomAgent`` in every seat; the
  decisions are the actions recorded in the returned trajectories (exact, per game).
* PettingZoo classic: the AEC loop of :func:`bench.env_speed.aec_rate` (``env.last()``, a uniform
  random legal action, ``env.step``), which counts the steps with an action (exact).

Every figure is the median over ``runs`` runs of ``seconds`` each (at least one game per run).
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass, field

import numpy as np


@dataclass
class PeerResult:
    library: str  # "OpenSpiel", "RLCard", "PettingZoo"
    game: str  # the peer's own name of the game, with parameters
    players: int
    api: str  # what was timed
    preset: str  # the tute_env preset it is compared with
    compare: str  # "core": against the rules core; "env": against tute_v0 / the VectorEnv
    rate: float | None = None  # decisions per second (median over runs)
    games_per_s: float | None = None
    decisions_per_game: float | None = None
    version: str | None = None
    missing: str | None = None  # "missing: ..." or "failed: ...": why there is no figure
    runs: list[float] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.library} {self.game}"


def _version(dist: str) -> str | None:
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:  # a version is only informative
        return None


def _median_runs(run, runs: int) -> tuple[float, list[float]]:
    rates = [run() for _ in range(runs)]
    return statistics.median(rates), rates


# ------------------------------------------------------------------------------------------------
# OpenSpiel
# ------------------------------------------------------------------------------------------------
# Each peer game and the tute_env preset it is set against. tute_env's own games through the same
# APIs come last: OpenSpiel's python_tute (tute_env.envs.openspiel), RLCard's tute
# (tute_env.envs.rlcard_env, "tute:<preset>"), the cost of each framework's loop around the core.
OPENSPIEL_GAMES = {
    "oh_hell(players=4,num_tricks_fixed=10)": "partnership", "hearts": "partnership", "spades": "partnership",
    "python_tute(preset=partnership)": "partnership", "python_tute(preset=two_player)": "two_player",
}


def openspiel_decisions_per_game(game, games: int, seed: int = 0) -> float:
    """Mean player decisions (not chance nodes) per game of uniformly random play, walked in Python."""
    rng = random.Random(seed)
    total = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                total += 1
    return total / games


def openspiel_rate(name: str, seconds: float, runs: int, count_games: int, seed: int = 0) -> PeerResult:
    import pyspiel

    import tute_env.envs.openspiel  # noqa: F401 - registers python_tute

    game = pyspiel.load_game(name)
    players = game.num_players()
    result = PeerResult("OpenSpiel", name, players, "C++ `pyspiel.evaluate_bots`, uniform random bots",
                        OPENSPIEL_GAMES[name], "core", version=_version("open_spiel"))
    per_game = openspiel_decisions_per_game(game, count_games, seed)
    bots = [pyspiel.make_uniform_random_bot(p, seed + p) for p in range(players)]
    counter = [seed]

    def run():
        games, start = 0, time.perf_counter()
        while games == 0 or time.perf_counter() - start < seconds:
            counter[0] += 1
            pyspiel.evaluate_bots(game.new_initial_state(), bots, counter[0])
            games += 1
        return games / (time.perf_counter() - start)

    result.games_per_s, result.runs = _median_runs(run, runs)
    result.decisions_per_game = per_game
    result.rate = result.games_per_s * per_game
    return result


# ------------------------------------------------------------------------------------------------
# RLCard
# ------------------------------------------------------------------------------------------------
RLCARD_GAMES = {"bridge": "partnership", "gin-rummy": "two_player", "tute:partnership": "partnership",
                "tute:two_player": "two_player"}


def rlcard_rate(name: str, seconds: float, runs: int, seed: int = 0) -> PeerResult:
    import rlcard
    from rlcard.agents import RandomAgent

    import tute_env.envs.rlcard_env  # noqa: F401 - registers tute

    env_id, _, preset = name.partition(":")
    env = rlcard.make(env_id, config={"seed": seed, **({"preset": preset} if preset else {})})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    result = PeerResult("RLCard", name, env.num_players, "`env.run`, `RandomAgent` in every seat",
                        RLCARD_GAMES[name], "core", version=_version("rlcard"))
    np.random.seed(seed)  # RandomAgent draws from numpy's global generator
    totals = {"games": 0, "decisions": 0}

    def run():
        games = decisions = 0
        start = time.perf_counter()
        while games == 0 or time.perf_counter() - start < seconds:
            trajectories, _ = env.run(is_training=False)
            # A trajectory alternates states (dicts) and the actions taken from them.
            decisions += sum(1 for t in trajectories for x in t if not isinstance(x, dict))
            games += 1
        elapsed = time.perf_counter() - start
        totals["games"] += games
        totals["decisions"] += decisions
        return decisions / elapsed

    result.rate, result.runs = _median_runs(run, runs)
    result.decisions_per_game = totals["decisions"] / totals["games"]
    result.games_per_s = result.rate / result.decisions_per_game
    return result


# ------------------------------------------------------------------------------------------------
# PettingZoo classic
# ------------------------------------------------------------------------------------------------
PETTINGZOO_GAMES = ("leduc_holdem_v4", "texas_holdem_v4")


def pettingzoo_rate(name: str, seconds: float, runs: int, seed: int = 0) -> PeerResult:
    import importlib

    from .env_speed import aec_rate

    module = importlib.import_module(f"pettingzoo.classic.{name}")  # needs rlcard for the poker games
    env = module.env()
    env.reset(seed=seed)
    result = PeerResult("PettingZoo", name, len(env.possible_agents), "AEC loop (`bench.env_speed.aec_rate`)",
                        "two_player", "env", version=_version("pettingzoo"))
    rates = [aec_rate(module.env(), seconds, seed=seed + r) for r in range(runs)]
    result.rate, result.runs = statistics.median(rates), rates
    return result


# ------------------------------------------------------------------------------------------------
def _guarded(make, library: str, game: str, players: int, api: str, preset: str, compare: str) -> PeerResult:
    try:
        return make()
    except ImportError as err:  # ModuleNotFoundError included: the peer is not installed
        reason = f"missing: {err}"
    except Exception as err:  # a peer that breaks is reported, not fatal
        reason = f"failed: {type(err).__name__}: {err}"
    return PeerResult(library, game, players, api, preset, compare, missing=reason.splitlines()[0][:200])


def measure_peers(seconds: float, runs: int, count_games: int = 200, log=print) -> list[PeerResult]:
    """Every peer, in a fixed order; a peer without a figure carries the reason in ``missing``."""
    results = []
    for name, preset in OPENSPIEL_GAMES.items():
        players = 4 if preset == "partnership" else 2
        results.append(_guarded(lambda n=name: openspiel_rate(n, seconds, runs, count_games), "OpenSpiel", name,
                                players, "C++ `pyspiel.evaluate_bots`, uniform random bots", preset, "core"))
        log(_line(results[-1]))
    for name, preset in RLCARD_GAMES.items():
        players = 4 if preset == "partnership" else 2
        results.append(_guarded(lambda n=name: rlcard_rate(n, seconds, runs), "RLCard", name, players,
                                "`env.run`, `RandomAgent` in every seat", preset, "core"))
        log(_line(results[-1]))
    for name in PETTINGZOO_GAMES:
        results.append(_guarded(lambda n=name: pettingzoo_rate(n, seconds, runs), "PettingZoo", name, 2,
                                "AEC loop (`bench.env_speed.aec_rate`)", "two_player", "env"))
        log(_line(results[-1]))
    return results


def _line(r: PeerResult) -> str:
    if r.rate is None:
        return f"peer {r.name}: {r.missing}"
    return f"peer {r.name}: {r.rate:,.0f} decisions/s"
