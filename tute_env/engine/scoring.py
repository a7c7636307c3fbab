"""Rewards and match bookkeeping: every reward the project gives, defined once.

The rules decide who won a hand and what it is worth (the core's ``State.winner``,
``State.games``, ``State.totals``: R8b, R9); this module turns that into rewards, for the
PettingZoo env, the Gymnasium views, PPO training and PIMC's playout values alike.

Rewards are per seat, zero-sum over the seats, batched over games:

* :func:`win_rewards`: +g to each seat of the winning side, the losers sharing the winners'
  total (partnership: -g each; two players: -g; three players: -g/2 each);
* :func:`points_rewards`: the seat's side's hand total minus the mean total of the other sides,
  divided by :data:`MAX_HAND_POINTS` (so in [-1, 1]);
* :func:`hand_rewards`: the reward of a finished hand for ``reward="win"`` (the win, plus
  ``point_weight`` times the points reward: the training's point-difference term) or
  ``reward="points"`` (the points reward; a hand ended by a Tute counts as a win of 1);
* :class:`Scoring`: hands and matches (R10) of B games: what each finished hand gives under an
  episode kind (``"hand"`` or ``"match"``), and when an episode is over.
"""

from __future__ import annotations

import numpy as np

from .core import State
from .rules import Rules

__all__ = ["EPISODES", "MAX_HAND_POINTS", "REWARDS", "Scoring", "hand_info", "hand_rewards", "points_rewards",
           "win_rewards"]

EPISODES = ("hand", "match")
REWARDS = ("win", "points")
#: The most a side can score in one hand: 120 card points, 10 for the last trick, 100 of cantes.
MAX_HAND_POINTS = 230


def sides_of_seats(rules: Rules) -> np.ndarray:
    """(n,) the scoring side of each seat."""
    return np.array([rules.side_of(seat) for seat in range(rules.num_players)])


def win_rewards(rules: Rules, winner: np.ndarray, scale) -> np.ndarray:
    """(B, n) zero-sum rewards: +scale to each seat of the winning side, the losers sharing the
    winners' total equally; a winner of -1 gives zeros."""
    n, sides = rules.num_players, rules.num_sides
    per_side = n // sides
    winner = np.asarray(winner)
    scale = np.broadcast_to(np.asarray(scale, dtype=np.float64), winner.shape)
    won = sides_of_seats(rules)[None, :] == winner[:, None]
    out = np.where(won, scale[:, None], -scale[:, None] * per_side / (n - per_side))
    return np.where(winner[:, None] >= 0, out, 0.0)


def points_rewards(rules: Rules, totals: np.ndarray) -> np.ndarray:
    """(B, n) zero-sum rewards: own side's total minus the mean of the other sides' totals,
    divided by :data:`MAX_HAND_POINTS`."""
    totals = np.asarray(totals, dtype=np.float64)
    others = (totals.sum(axis=1, keepdims=True) - totals) / (rules.num_sides - 1)
    return ((totals - others) / MAX_HAND_POINTS)[:, sides_of_seats(rules)]


def hand_rewards(rules: Rules, reward: str, winner, games, totals, tute, point_weight: float = 0.0) -> np.ndarray:
    """(B, n) rewards of finished hands: ``reward="win"``: :func:`win_rewards` of the games
    credited plus ``point_weight`` times :func:`points_rewards`; ``reward="points"``:
    :func:`points_rewards`, except a hand ended by a Tute (``tute >= 0``), a win of 1."""
    if reward == "points":
        return np.where((np.asarray(tute) >= 0)[:, None], win_rewards(rules, winner, 1.0), points_rewards(rules, totals))
    out = win_rewards(rules, winner, games)
    if point_weight:
        out = out + point_weight * points_rewards(rules, totals)
    return out


class Scoring:
    """Episode bookkeeping of B games: hand and match results and rewards.

    ``episode``: ``"hand"`` (an episode is a hand) or ``"match"`` (R10: until a side has
    ``target_games`` games or, with ``match="target_points"``, ``target_points`` points);
    ``reward``: ``"win"`` or ``"points"`` (see :func:`hand_rewards`; in a match, ``"win"`` pays
    +-1 when the match ends, ``"points"`` every hand); ``point_weight``: the weight of the
    point-difference term added to ``"win"`` hand rewards (training uses it; 0 by default).

    ``hand_over(state, lanes)`` is called for lanes whose hand has just ended (before they are
    dealt anew) and returns the rewards of that moment and which episodes are over.
    """

    def __init__(self, rules: Rules, episode: str, reward: str, batch_size: int, point_weight: float = 0.0):
        if episode not in EPISODES:
            raise ValueError(f"bad episode {episode!r}: expected one of {EPISODES}")
        if reward not in REWARDS:
            raise ValueError(f"bad reward {reward!r}: expected one of {REWARDS}")
        self.rules, self.episode, self.reward = rules, episode, reward
        self.point_weight = float(point_weight)
        sides = rules.num_sides
        self.match_games = np.zeros((batch_size, sides), np.int32)
        self.match_points = np.zeros((batch_size, sides), np.int32)
        self.hands = np.zeros(batch_size, np.int32)

    def reset(self, lanes=slice(None)) -> None:
        self.match_games[lanes] = 0
        self.match_points[lanes] = 0
        self.hands[lanes] = 0

    def hand_over(self, s: State, lanes: np.ndarray) -> dict[str, np.ndarray]:
        """Results of the hands just ended in ``lanes``: a dict of arrays with ``rewards``
        (len, n), ``episode_over``, ``points`` (len, sides), ``winner``, ``games``, ``tute``,
        ``hand`` and, with matches, ``match_games``, ``match_points``, ``match_winner``
        (-1 while the match goes on)."""
        r = self.rules
        winner = s.winner[lanes].astype(np.int64)
        games = s.games[lanes].astype(np.int64)
        totals = s.totals[lanes].astype(np.int64)
        tute = s.tute_declarer[lanes].astype(np.int64)
        out = {"points": totals, "winner": winner, "games": games, "tute": tute, "hand": self.hands[lanes].copy()}
        self.hands[lanes] += 1
        rewards = hand_rewards(r, self.reward, winner, games, totals, tute, self.point_weight)
        if self.episode == "hand":
            out["rewards"] = rewards
            out["episode_over"] = np.ones(len(winner), bool)
            return out
        over, match_winner = self._match_over(lanes, winner, games, totals, tute)
        if self.reward == "win":
            rewards = win_rewards(r, match_winner, 1.0)
        out.update(
            rewards=rewards,
            episode_over=over,
            match_games=self.match_games[lanes].copy(),
            match_points=self.match_points[lanes].copy(),
            match_winner=match_winner,
        )
        return out

    def _match_over(self, lanes, winner, games, totals, tute) -> tuple[np.ndarray, np.ndarray]:
        """Adds the hands to the match scores (R10); returns which matches are over and their
        winners (-1 while a match goes on)."""
        r = self.rules
        self.match_points[lanes] += totals
        self.match_games[lanes, winner] += games
        if r.match == "target_games":
            over = self.match_games[lanes, winner] >= r.target_games
            return over, np.where(over, winner, -1)
        # target_points: the first side there wins; several at once, the most points, a tie
        # going to the hand's winner; a Tute wins outright.
        points = self.match_points[lanes]
        reached = points >= r.target_points
        side_ids = np.arange(r.num_sides)[None, :]
        key = np.where(reached, points * 2 + (side_ids == winner[:, None]), -1)
        over = reached.any(axis=1) | (tute >= 0)
        return over, np.where(tute >= 0, winner, np.where(over, key.argmax(axis=1), -1))


#: The results of a finished hand that the envs put in its info.
INFO_KEYS = ("points", "winner", "games", "tute", "hand", "match_games", "match_points", "match_winner")


def hand_info(results: dict, i: int) -> dict:
    """The info of one finished hand, as Python values: row ``i`` of :meth:`Scoring.hand_over`'s
    results (``match_winner`` only once the match is over)."""
    info = {}
    for key in INFO_KEYS:
        if key in results:
            value = results[key][i]
            info[key] = value.tolist() if isinstance(value, np.ndarray) else value.item()
    if info.get("match_winner", 0) < 0:
        del info["match_winner"]
    return info
