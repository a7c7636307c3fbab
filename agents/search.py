"""``search``: decision-time search with the trained network (the "expert" bot).

PIMC (:mod:`agents.pimc`) whose playouts and leaves come from the shipped PPO network of the
rules being played. For each decision the bot

1. **samples deals** of the cards it has not seen, consistent with its information set, with
   PIMC's exact sampler (:mod:`tute_env.search.infoset`, through :func:`agents.pimc.row_sampler`);
2. **applies each candidate action** to every sampled deal (:func:`agents.pimc.candidate_lanes`;
   all candidates are evaluated on the same deals);
3. **plays on with the policy network** for every seat of the determinised games: the most
   likely legal action of the network on that seat's own observation (the observation it would
   see in the real game; no seat's policy looks at hidden cards), for ``depth`` plies, or to
   the end of the hand (``depth=None``);
4. **values the leaves**: a finished hand by the observer's reward with the point weight the
   network was trained with (:data:`TRAINED_POINT_WEIGHT`); an unfinished one by the network's
   **central critic**, which reads the perfect-information encoding of the determinised game
   from the seat to act (it was trained on exactly that: the return of the seat to act in
   self-play, hand over hand, from all hands and the stock), negated when that seat is on the
   other side (two sides: the rewards are zero-sum); with three players each for himself the
   playouts go on until the observer is to act, and the critic reads the leaf from its seat;
5. **picks the action with the best mean value plus ``prior_weight`` times the log-probability
   the network gives it** (the network's own choice where the values tie, as they often do
   when every sampled deal is won or lost whatever the bot does).

Every playout step is one network forward on a batch (all the lanes of all the rows of an
``act_batch`` call, samples x candidates, up to ``max_lanes`` at a time). The playouts are
greedy, so the only randomness is the sampled deals: drawn from the row's keyed stream
(``streams.generator(mix(seed, key))``) when the table gives keys, so a decision depends on
(seed, key) alone, not on the batch; else from ``self.rng``. When only one deal is consistent
(two players once the stock is out) one sample is played.

Defaults: 16 sampled deals, 4 plies of the network (a trick of the partnership game, two of the
two-player game), then the critic.

Only rules with a shipped network (``agents/checkpoints/<preset>.pt``) can have a search
agent. ``make_agent("search:64", rules)`` is 64 samples per decision.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from tute_env.engine.core import Game, State
from tute_env.engine.observation import encode_observation, encode_perfect_information
from tute_env.engine.rules import Rules
from tute_env.engine.scoring import sides_of_seats
from tute_env.search.infoset import decode_infoset

from .base import Agent, shipped_presets, train_extra
from .dds import DDSAgent
from .pimc import (
    candidate_lanes,
    play_out,
    playout_scores,
    row_generator,
    row_sampler,
    samples_needed,
    searched_rows,
)

with train_extra("the search agent"):  # without torch: one line naming the [train] extra
    import torch

    from .ppo import PolicyNet, PPOAgent

#: The weight of the point difference in the reward the shipped networks were trained with
#: (``configs/partnership.yaml``, ``configs/two_player.yaml``: ``point_weight``); finished
#: playouts are scored with it so that they are on the critic's scale.
TRAINED_POINT_WEIGHT = 0.177


def concat_states(states: list[State]) -> State:
    """One state holding the lanes of ``states`` one after the other."""
    return State(**{f.name: np.concatenate([getattr(s, f.name) for s in states]) for f in dataclasses.fields(State)})


class SearchAgent(Agent):
    """PIMC with the policy network's playouts and the critic's leaf values (module docstring).

    ``num_samples``: sampled deals per decision; ``depth``: plies the network plays after the
    candidate action before the critic values the game (``None``: to the end of the hand, no
    critic); ``top_k``: search only the ``top_k`` most likely actions of the network (``None``:
    every legal action); ``prior_weight``: weight of the network's log-probability of an action
    added to its mean value (> 0 also breaks ties for the network's choice); ``leaf``: what values
    a game still unfinished after ``depth`` plies, ``"critic"`` (the network's critic) or
    ``"rules"`` (played to the end by PIMC's rule-based playout policy); ``max_lanes``: lanes
    played out at once; ``net``: the network (default: the shipped one of ``rules``). Defaults:
    16 samples, 4 plies, the critic (docs/strength.md, "Search agent"; about 0.005 s a move,
    docs/search_speed.md).
    """

    name = "search"
    takes_keys = True
    DEFAULT_SAMPLES = 16
    DEFAULT_DEPTH: int | None = 4
    DEFAULT_PRIOR_WEIGHT = 0.05

    def __init__(self, rules: Rules, seed: int = 0, num_samples: int | None = None, depth: int | None = DEFAULT_DEPTH,
                 top_k: int | None = None, prior_weight: float = DEFAULT_PRIOR_WEIGHT, leaf: str = "critic",
                 max_lanes: int = 16384, net: PolicyNet | None = None):
        super().__init__(rules, seed)
        if net is None:
            try:
                net = PPOAgent(rules).net
            except ValueError:
                raise ValueError(f"no search agent for these rules: it needs a shipped network, and the shipped ones "
                                 f"play the presets {', '.join(shipped_presets())}") from None
        self.net = net.eval()
        self.game = Game(rules)
        self.num_samples = int(num_samples if num_samples is not None else self.DEFAULT_SAMPLES)
        if self.num_samples < 1:
            raise ValueError(f"num_samples must be at least 1, got {self.num_samples}")
        if depth is not None and depth < 0:
            raise ValueError(f"depth must be at least 0 (or None), got {depth}")
        if top_k is not None and top_k < 1:
            raise ValueError(f"top_k must be at least 1 (or None), got {top_k}")
        self.depth, self.top_k, self.max_lanes = depth, top_k, int(max_lanes)
        self.prior_weight = float(prior_weight)
        if leaf not in ("critic", "rules"):
            raise ValueError(f"bad leaf {leaf!r}: expected 'critic' or 'rules'")
        self.leaf = leaf
        self._side = sides_of_seats(rules)
        self.last_values: dict[int, float] = {}
        """Mean value of each candidate action at the last decision searched (the last row)."""
        self.endgame: DDSAgent | None = None
        """Late decisions' exact player (:class:`SearchDDSAgent`); None: search plays every decision."""
        self.name = f"search:{self.num_samples}"

    # -- the network ------------------------------------------------------------------------
    @torch.no_grad()
    def _logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.net.logits(torch.from_numpy(obs), torch.from_numpy(mask)).numpy()

    def _policy(self, game: Game, s: State) -> np.ndarray:
        """The network's most likely legal action for the seat to act in every unfinished lane."""
        action = np.zeros(s.batch_size, dtype=np.int64)
        active = np.flatnonzero(~s.done)
        if len(active):
            part = s.take(active)
            obs = encode_observation(self.rules, part, part.current.astype(np.int64))
            action[active] = self._logits(obs, game.legal_action_mask(part)).argmax(axis=1)
        return action

    def _play_to_observer(self, s: State) -> None:
        """With more than two sides a seat's value is not the observer's: play on with the network
        until the observer (seat 0) is to act or the hand is over, so the critic reads every
        unfinished lane from seat 0, as it was trained (the value of the seat to act)."""
        for _ in range(self.rules.num_players * self.rules.hand_size * 2):
            waiting = ~s.done & (s.current != 0)
            if not waiting.any():
                return
            self.game.step(s, self._policy(self.game, s), active=waiting)
        raise RuntimeError("playouts did not reach the observer's turn")

    @torch.no_grad()
    def _leaf_values(self, s: State) -> np.ndarray:
        """Value of every lane for seat 0 (the observer): the reward of a finished hand, the
        critic's value of an unfinished one."""
        values = playout_scores(self.game, s, TRAINED_POINT_WEIGHT)
        active = np.flatnonzero(~s.done)
        if len(active):
            part = s.take(active)
            seat = part.current.astype(np.int64)
            critic = self.net.value(torch.from_numpy(encode_perfect_information(self.rules, part, seat))).double().numpy()
            same_side = self._side[seat] == self._side[0]
            values[active] = np.where(same_side, critic, -critic)
        return values

    # -- the search -------------------------------------------------------------------------
    def candidates(self, observations: np.ndarray, masks: np.ndarray, rows: list[int]) -> list[tuple[np.ndarray, np.ndarray]]:
        """The actions searched in each row, in action id order, with the network's
        log-probabilities of them: every legal action, or the ``top_k`` the network likes best."""
        if not rows:
            return []
        logits = torch.from_numpy(self._logits(np.asarray(observations)[rows], masks[rows]))
        log_prior = torch.log_softmax(logits.double(), dim=1).numpy()
        out = []
        for k, row in enumerate(rows):
            acts = np.flatnonzero(masks[row])
            if self.top_k is not None:
                acts = np.sort(acts[np.argsort(-log_prior[k, acts], kind="stable")[: self.top_k]])
            out.append((acts, log_prior[k, acts]))
        return out

    def act_batch(self, observations, masks, keys=None):
        """With ``keys``, row i's deals are drawn from ``streams.generator(mix(self.seed,
        keys[i]))``, else from ``self.rng`` (row after row)."""
        masks = np.asarray(masks, dtype=bool)
        observations = np.asarray(observations)
        info = decode_infoset(self.rules, observations, masks)
        out = np.zeros(len(masks), dtype=np.int64)
        rows = searched_rows(masks, out)
        cands = self.candidates(observations, masks, rows)
        pending: list[tuple[int, np.ndarray, np.ndarray, State]] = []
        lanes = 0
        for row, (legal, log_prior) in zip(rows, cands):
            if len(legal) == 1:
                out[row] = legal[0]
                continue
            if self.endgame is not None and self.endgame.is_late(info, row):
                values = self.endgame.solve_samples(info, row, legal, row_generator(self, keys, row))
                if values is not None:  # solved within the budget (else searched as before)
                    self.last_values = {int(a): float(v) for a, v in zip(legal, values)}
                    out[row] = legal[int(np.argmax(values))]
                    continue
            sampler = row_sampler(info, row)
            size = samples_needed(sampler, self.num_samples, deterministic=True)
            deals = sampler.sample(row_generator(self, keys, row), size)
            pending.append((row, legal, log_prior, candidate_lanes(self.game, info, row, legal, *deals)))
            lanes += size * len(legal)
            if lanes >= self.max_lanes:
                self._choose(pending, out)
                pending, lanes = [], 0
        if pending:
            self._choose(pending, out)
        return out

    def _choose(self, pending: list[tuple[int, np.ndarray, np.ndarray, State]], out: np.ndarray) -> None:
        """Play out the lanes of the pending rows together and write each row's choice."""
        s = concat_states([lanes for *_, lanes in pending])
        play_out(self.game, s, self._policy, plies=self.depth)
        if self.rules.num_sides > 2 and self.leaf == "critic":
            self._play_to_observer(s)
        if self.leaf == "rules":
            play_out(self.game, s)  # PIMC's rule-based playout policy to the end of the hand
        values = self._leaf_values(s)
        start = 0
        for row, legal, log_prior, lanes in pending:
            means = values[start : start + lanes.batch_size].reshape(-1, len(legal)).mean(axis=0)
            start += lanes.batch_size
            self.last_values = {int(a): float(v) for a, v in zip(legal, means)}
            # The prior term also breaks exact ties (rounded away) for the network's choice.
            score = np.round(means, 9) + self.prior_weight * log_prior
            best = np.flatnonzero(score == score.max())
            out[row] = legal[best[np.argmax(log_prior[best])]]


class SearchDDSAgent(SearchAgent):
    """``search+dds``: :class:`SearchAgent` until the hand is late, then :class:`agents.dds.DDSAgent`'s
    exact play: once no stock is left and at most ``exact_cards`` cards are in hand (dds's
    default: 8 with two players, the whole last phase of the two-player game, where every card is
    known and one deal is solved in milliseconds; 7 with four), each decision takes the best mean
    exact value over ``dds_samples`` sampled deals (the solver's point weight ``point_weight``,
    dds's 1.15), within dds's ``time_budget`` (else search plays it). ``num_samples``: search's
    samples, as ``search:N``. Same draws as search: the row's keyed stream."""

    def __init__(self, rules: Rules, seed: int = 0, num_samples: int | None = None, dds_samples: int | None = None,
                 exact_cards: int | None = None, time_budget: float | None = 2.0, point_weight: float = 1.15, **search):
        super().__init__(rules, seed, num_samples=num_samples, **search)
        self.endgame = DDSAgent(rules, seed, num_samples=dds_samples, exact_cards=exact_cards,
                                time_budget=time_budget, point_weight=point_weight)
        self.name = f"search+dds:{self.num_samples}"
