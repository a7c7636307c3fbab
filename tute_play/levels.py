"""The bot levels the terminal game and the web table offer, and the bots that sit at a table
with a human."""

from __future__ import annotations

import threading

from agents import make_agent
from agents.registry import kind_help
from tute_env.engine.rules import Rules

LEVELS = {"easy": "greedy", "medium": "heuristic", "hard": "pimc", "trained": "ppo", "expert": "search"}
#: Levels played by a shipped network: offered only for the presets that have one.
NETWORK_LEVELS = ("trained", "expert")
#: A level's agent where a preset's ladder has another top: (level, preset) -> spec. The expert
#: level plays the top of the preset's shipped ladder (docs/ladder.md; tests/test_ladder.py checks
#: it): search, but search+dds in two_player (0.514 against search over the ladder's 500 deals),
#: pimc in partnership, manita and three_player (hard's bot too; in partnership level with dds and
#: search, within their intervals) and dds in two_player_10.
PRESET_LEVELS = {("expert", "two_player"): "search+dds", ("expert", "partnership"): "pimc",
                 ("expert", "manita"): "pimc", ("expert", "three_player"): "pimc",
                 ("expert", "two_player_10"): "dds"}
#: Each level, its agent and the agent's help (the registry's); ``{}``: the presets with a shipped network.
LEVEL_HELP = "; ".join(f"{level} = {spec} ({kind_help(spec)})" for level, spec in LEVELS.items()) + \
    " (trained and expert: presets {})" + "".join(f"; {level} in {preset}: {spec} ({kind_help(spec)})"
                                              for (level, preset), spec in PRESET_LEVELS.items())
#: How to type a move (the terminal game's help).
MOVES_HELP = ("At your turn type a number from the list of legal moves, or the move: a card, face then suit "
              "(faces A 2 3 4 5 6 7 S C R, suits o c e b: Ao, 3c, Rb), sing-o .. sing-b, tute, exchange or pass. "
              "Commands: help, table, tricks, quit (or Ctrl-C).")


def level_spec(level: str, preset: str | None) -> str:
    """The agent spec of ``level`` in ``preset`` (None: rules of no preset)."""
    return PRESET_LEVELS.get((level, preset), LEVELS[level])


def seat_specs(rules: Rules, human: int, opponent: str, partner: str | None) -> list[str]:
    """The agent spec of every seat, ``"human"`` for the human's (the players of game records)."""
    return ["human" if seat == human else
            partner if (rules.partnerships and seat == (human + 2) % 4 and partner) else opponent
            for seat in range(rules.num_players)]


_NETS: dict = {}
_NETS_LOCK = threading.Lock()


def shared_net(rules: Rules):
    """The shipped network of ``rules``, loaded once per process and shared by every bot that
    plays it (inference only): a server with many trained or expert games holds one copy."""
    with _NETS_LOCK:
        if rules not in _NETS:
            from agents.ppo import PPOAgent  # torch: only for the network levels

            _NETS[rules] = PPOAgent(rules).net.eval()
        return _NETS[rules]


def make_level_agent(spec: str, rules: Rules, seed: int):
    """``make_agent(spec, rules, seed)``, the shipped network shared (:func:`shared_net`) for the
    network levels' agents (``ppo``, ``search``, ``search+dds``)."""
    if spec == "ppo":
        from agents.ppo import PPOAgent

        return PPOAgent(rules, seed=seed, net=shared_net(rules))
    if spec in ("search", "search+dds"):
        from agents.search import SearchAgent, SearchDDSAgent

        kind = SearchAgent if spec == "search" else SearchDDSAgent
        return kind(rules, seed=seed, net=shared_net(rules))
    return make_agent(spec, rules, seed=seed)


def make_bots(rules: Rules, human: int, opponent: str, partner: str | None, seed: int) -> dict:
    """The agent of every seat but the human's."""
    specs = seat_specs(rules, human, opponent, partner)
    return {seat: make_level_agent(spec, rules, seed + seat) for seat, spec in enumerate(specs) if seat != human}
