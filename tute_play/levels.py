"""The bot levels the terminal game and the web table offer, and the bots that sit at a table
with a human."""

from __future__ import annotations

from agents import make_agent
from tute_env.rules import Rules

LEVELS = {"easy": "greedy", "medium": "heuristic", "hard": "pimc", "trained": "ppo", "expert": "search"}
#: Levels played by a shipped network: offered only for the presets that have one.
NETWORK_LEVELS = ("trained", "expert")
LEVEL_HELP = ("easy = greedy (one ply), medium = heuristic (counts cards), hard = pimc (search over possible "
              "deals), trained = the shipped PPO agent, expert = search (pimc played out by the shipped "
              "network; strongest in two_player) (trained and expert: presets {})")
#: How to type a move (the terminal game's help).
MOVES_HELP = ("At your turn type a number from the list of legal moves, or the move: a card, face then suit "
              "(faces A 2 3 4 5 6 7 S C R, suits o c e b: Ao, 3c, Rb), sing-o .. sing-b, tute, exchange or pass. "
              "Commands: help, table, tricks, quit (or Ctrl-C).")


def seat_specs(rules: Rules, human: int, opponent: str, partner: str | None) -> list[str]:
    """The agent spec of every seat, ``"human"`` for the human's (the players of game records)."""
    return ["human" if seat == human else
            partner if (rules.partnerships and seat == (human + 2) % 4 and partner) else opponent
            for seat in range(rules.num_players)]


def make_bots(rules: Rules, human: int, opponent: str, partner: str | None, seed: int) -> dict:
    """The agent of every seat but the human's."""
    specs = seat_specs(rules, human, opponent, partner)
    return {seat: make_agent(spec, rules, seed=seed + seat) for seat, spec in enumerate(specs) if seat != human}
