"""``pimc``: Perfect Information Monte Carlo search on the batched core (the "hard" bot).

For each decision the bot

1. **samples deals** of the cards it has not seen (:class:`tute_env.search.infoset.DealSampler`): the other hands and
   the face-down stock, consistent with everything its information set says -- played and sung
   cards, the shown or turned card, cards known to be in a hand (sung pairs, an exchanged or
   last-drawn turned card) and the public inferences of the strict rules (``cannot_hold``: void
   in a suit, nothing higher in the suit led, no trump). The sampler is **exact**: it counts the
   consistent deals with a small dynamic programme over the remaining capacity of each hand and
   of the stock, and draws uniformly among them. It never returns an inconsistent deal and
   needs no rejection loop, however tight the constraints are;
2. **builds core states** (:func:`tute_env.search.infoset.build_states`), one lane per sample and candidate action,
   with the observer at absolute seat 0 (relative seats and sides of the observation are then
   absolute ones);
3. **plays every lane out** to the end of the hand with a cheap vectorised rule-based policy
   (:func:`playout_policy`) after applying the candidate action, and
4. **picks the action with the best average score** over the samples (common random numbers:
   all actions are evaluated on the same sampled deals; ties go to the lowest action id).
   When only one deal is consistent (two players once the stock is out: the opponent's hand
   is known) one sample is played, as the deterministic playouts would repeat it.

Score of a finished playout, from the observer's side (see :func:`playout_scores`): the
observer's reward as :mod:`tute_env.engine.scoring` defines it for the env and training: the win
(``+games`` credited if its side won the hand, its share of ``-games`` otherwise: R9, R8b) plus
``point_weight`` times the points reward (own side's total minus the other sides' mean, / 230).
The win counts most, the points break ties between actions that win (or lose) equally often and
lower the variance. With ``match="target_points"`` (R10) only the points count. (The default
weight 1.15 / 230 is the 0.5 / 100 the bot was tuned with.)

Parameters: ``num_samples`` (sampled deals per decision), ``time_budget`` (seconds per
decision; no more samples are added once it would be exceeded; ``None``: no limit),
``point_weight``. ``make_agent("pimc:128", rules)`` is 128 samples. The bot is deterministic
given its seed as long as the time budget does not cut a search short (the default sample
count keeps a decision well inside the default 1 second on the benchmark machine, see
``docs/pimc_speed.md``).
"""

from __future__ import annotations

import time

import numpy as np

from tute_env.engine.cards import (
    ALL_CARDS,
    CARD_POINTS,
    CARD_STRENGTH,
    CARD_SUIT,
    KNIGHTS,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_FACES,
    STRONGER,
    SUIT_SET,
    U64,
    beating_cards,
    unpack_sets,
)
from tute_env.engine.core import Game, State
from tute_env.engine.rules import Rules
from tute_env.engine.scoring import hand_rewards, points_rewards
from tute_env.play import streams
from tute_env.search.infoset import (
    DealSampler,
    InconsistentInfoSet,
    InfoSet,
    build_states,
    deal_constraints,
    decode_infoset,
)

from .base import Agent
from .greedy import declaration_actions

_ZERO = U64(0)


# ----------------------------------------------------------------------------------------------
# 3. Playouts
# ----------------------------------------------------------------------------------------------
_POINTS_F = CARD_POINTS.astype(np.float64)
_STRENGTH_F = CARD_STRENGTH.astype(np.float64)
_SUIT = CARD_SUIT.astype(np.intp)


# The playout policy scores each legal card with a cost from a table (lower is better).
# Lane kinds: what the seat to act is doing.
_LEAD_FREE, _LEAD_STRICT, _SMEAR, _FOLLOW_LAST, _FOLLOW, _FOLLOW_LAST_POOR, _FOLLOW_POOR = range(7)
_NUM_KINDS = 7
# Code bits per card.
_LEGAL, _BEATS, _KEEP, _MASTER = 1, 2, 4, 8
_NUM_CODES = 16
_ILLEGAL_COST = np.int16(32767)
#: The cost of trumping a trick not worth a trump (free stock phase), per trump played.
POOR_TRUMP = 50.0
RICH_TRICK = 10


def _cost_table() -> np.ndarray:
    """(4 trumps, lane kinds, 16 codes, 40 cards) int16: the cost of playing a card."""
    P = _POINTS_F
    S = _STRENGTH_F
    out = np.empty((4, _NUM_KINDS, _NUM_CODES, NUM_CARDS))
    for trump in range(4):
        t = (_SUIT == trump).astype(np.float64)
        lose = 2.0 * P + 0.3 * S + 20.0 * t  # lead or lose cheaply: no points, no trumps
        win = 0.5 * S + 8.0 * t  # win cheaply
        keep = np.where(t > 0, 12.0, 6.0)  # breaking a pair still to be sung
        for code in range(_NUM_CODES):
            beats, master = bool(code & _BEATS), bool(code & _MASTER)
            extra = keep if code & _KEEP else 0.0
            out[trump, _LEAD_FREE, code] = lose + extra
            # Under the strict rules a master card of a plain suit takes the trick unless
            # someone is void in it: cash the points.
            out[trump, _LEAD_STRICT, code] = np.where((t == 0) & master, -10.0 - P, lose) + extra
            out[trump, _SMEAR, code] = -1.5 * P + 0.3 * S + 20.0 * t + extra
            out[trump, _FOLLOW_LAST, code] = (win - P if beats else 40.0 + lose) + extra
            if master:  # a winner nobody can beat in its suit: take the trick with points
                mid = win - 0.5 * P - 3.0
            else:
                mid = win + 3.0
            out[trump, _FOLLOW, code] = (mid if beats else 40.0 + lose) + extra
            # Free stock phase, a trick not worth a trump: trump only rather than give points.
            out[trump, _FOLLOW_LAST_POOR, code] = out[trump, _FOLLOW_LAST, code] + POOR_TRUMP * t * beats
            out[trump, _FOLLOW_POOR, code] = out[trump, _FOLLOW, code] + POOR_TRUMP * t * beats
    cost = np.round(out * 10).astype(np.int16)
    cost[:, :, np.arange(_NUM_CODES) & _LEGAL == 0] = _ILLEGAL_COST
    return cost


_COST_FLAT = _cost_table().ravel()
_CARD_INDEX = np.arange(NUM_CARDS, dtype=np.intp)
_POINTS_I = CARD_POINTS.astype(np.int16)
# Knight bits of the sung suits, indexed by a 4-bit "suit sung" pattern.
_SUNG_KNIGHT = np.array(
    [int(KNIGHTS) & sum(int(SUIT_SET[suit]) for suit in range(4) if p >> suit & 1) for p in range(16)], dtype=U64
)
_FACE_STRENGTH = CARD_STRENGTH[:NUM_FACES]
# _MASTER_FACES[p]: faces of one suit stronger than every face in the 10-bit pattern p.
_MASTER_FACES = np.array(
    [
        sum(1 << f for f in range(NUM_FACES) if all(_FACE_STRENGTH[f] > _FACE_STRENGTH[g] for g in range(NUM_FACES) if p >> g & 1))
        for p in range(1 << NUM_FACES)
    ],
    dtype=U64,
)
_TEN_BITS = SUIT_SET[0]  # one suit's ten cards, as the low ten bits


def _sung_index(sung_by: np.ndarray) -> np.ndarray:
    return (sung_by >= 0) @ np.array([1, 2, 4, 8])


def master_cards(outside: np.ndarray) -> np.ndarray:
    """(B,) uint64: the cards stronger than every card of ``outside`` in their suit."""
    out = np.zeros_like(outside)
    for suit in range(4):
        shift = U64(suit * NUM_FACES)
        out |= _MASTER_FACES[((outside >> shift) & _TEN_BITS).astype(np.intp)] << shift
    return out


def playout_policy(game: Game, s: State) -> np.ndarray:
    """A cheap rule-based action for the seat to act in every lane (0 in finished lanes).

    Declarations and the exchange first, as the other rule-based bots
    (:func:`agents.greedy.declaration_actions`: Tute, the exchange when it brings a stronger
    trump, the best cante, else pass a declaration turn). Cards,
    by a cost (lowest wins) that sees only the seat's hand and public information. A *master*
    card is one that no card still out (not played, not in the seat's hand) beats in its suit.

    * leading: under the strict rules (R5 in force), a master card of a plain suit, most points
      first; otherwise the cheapest card, avoiding trumps, points and the king or knight of a
      pair still to be sung;
    * following while the partner holds the trick: if it is safe (the seat is last, or the
      partner's card is a master), the card with most points that is not a trump, else the
      cheapest card;
    * following when the seat can take the trick: when last, the cheapest winner, preferring
      points and plain suits to trumps; before the last, a master winner with points, else the
      cheapest winner;
    * otherwise: the cheapest losing card.
    """
    r = game.rules
    n = r.num_players
    lanes = np.arange(s.batch_size)
    seat = np.maximum(s.current, 0).astype(np.intp)
    trump = s.trump.astype(np.intp)
    lead = s.trick_size == 0
    hand = s.hands[lanes, seat]
    outside = ALL_CARDS & ~np.bitwise_or.reduce(s.played, axis=1) & ~hand
    best = np.maximum(s.best_card, 0).astype(np.intp)
    beats = beating_cards(best, trump)  # leading lanes: of card 0, harmless (the lead rows ignore it)
    pairs = hand & (hand >> U64(1)) & KNIGHTS  # the knight bit of each pair held
    pairs &= ~_SUNG_KNIGHT[_sung_index(s.sung_by)]
    # One byte per card: legal | beats << 1 | keep << 2 | master << 3, from 40-bit sets.
    code = unpack_sets(s.legal).view(np.uint8)
    code = code | (unpack_sets(beats).view(np.uint8) << 1)
    code |= unpack_sets(pairs | (pairs << U64(1))).view(np.uint8) << 2
    code |= unpack_sets(master_cards(outside)).view(np.uint8) << 3

    strict = np.ones(len(lanes), bool) if r.stock_duty == "strict" or not r.has_stock else s.to_draw == 0
    kind = np.where(s.trick_size == n - 1, _FOLLOW_LAST, _FOLLOW)
    if not strict.all():
        # In the free stock phase a trick is worth a trump if it holds 10 points or more, or
        # if winning it lets the seat sing.
        on_table = np.where(s.trick >= 0, _POINTS_I[np.maximum(s.trick, 0)], 0).sum(axis=1)
        poor = ~strict & (on_table < RICH_TRICK) & (pairs == 0)
        kind = np.where(poor, kind + (_FOLLOW_LAST_POOR - _FOLLOW_LAST), kind)
    if r.partnerships:
        partner_holds = s.best_seat == (seat + 2) % 4
        safe = (s.trick_size == n - 1) | ((STRONGER[best] & outside) == 0)
        # The partner holds the trick: give it points if it is safe, else play cheaply.
        kind = np.where(partner_holds, np.where(safe, _SMEAR, _LEAD_FREE), kind)
    kind = np.where(lead, np.where(strict, _LEAD_STRICT, _LEAD_FREE), kind)
    index = code.astype(np.intp)
    index *= NUM_CARDS
    index += ((trump * _NUM_KINDS + kind) * (_NUM_CODES * NUM_CARDS))[:, None]
    index += _CARD_INDEX
    action = np.take(_COST_FLAT, index).argmin(axis=1)

    # Declarations and the exchange keep the turn; take them before playing a card.
    declaration = declaration_actions(unpack_sets(s.legal, NUM_ACTIONS), trump, s.turned_card, r)
    action = np.where(declaration >= 0, declaration, action)
    return np.where(s.done, 0, action).astype(np.int64)


def playout_scores(game: Game, s: State, point_weight: float, seat: int = 0) -> np.ndarray:
    """Values of finished lanes for ``seat`` (by default seat 0, the observer): its reward in
    :mod:`tute_env.engine.scoring`, the win (``+games``, or the loser's share of ``-games``) plus
    ``point_weight`` times the points reward (own side's total minus the others', / 230); with
    ``match="target_points"`` the points reward alone."""
    r = game.rules
    if r.match == "target_points":
        return points_rewards(r, s.totals)[:, seat]
    return hand_rewards(r, "win", s.winner, s.games, s.totals, s.tute_declarer, point_weight)[:, seat]


def play_out(game: Game, s: State, policy=playout_policy, max_steps: int = 1000, plies: int | None = None) -> State:
    """Step every lane to the end of its hand with ``policy(game, state) -> actions``; with
    ``plies``, stop after that many steps (lanes may then be unfinished)."""
    for _ in range(max_steps if plies is None else plies):
        if s.done.all():
            return s
        game.step(s, policy(game, s))
    if plies is None and not s.done.all():
        raise RuntimeError("playouts did not finish")
    return s


def row_sampler(info: InfoSet, row: int) -> DealSampler:
    """The deal sampler of row ``row`` of an information-set batch."""
    cons = deal_constraints(info, row)
    try:
        return DealSampler(cons)
    except InconsistentInfoSet:
        # Cannot happen for observations of real games; play on with the looser constraints.
        return DealSampler(cons, relax=True)


def candidate_lanes(game: Game, info: InfoSet, row: int, legal: np.ndarray, hands: np.ndarray, stock: np.ndarray) -> State:
    """Core states of row ``row``'s sampled deals (:func:`build_states`) after each candidate
    action: lane ``i * len(legal) + j`` is sample ``i`` after ``legal[j]`` (samples major, so
    every action is evaluated on the same deals)."""
    roots = build_states(game, info, row, hands, stock)
    lanes = roots.take(np.repeat(np.arange(len(hands)), len(legal)))
    game.step(lanes, np.tile(legal, len(hands)))
    return lanes


def searched_rows(masks: np.ndarray, out: np.ndarray) -> list[int]:
    """Rows of ``masks`` with more than one legal action; a row with a single one gets it in
    ``out`` (it is played without a search); a row with none is an error."""
    rows = []
    for row in range(len(masks)):
        legal = np.flatnonzero(masks[row])
        if len(legal) == 0:
            raise ValueError(f"row {row} has no legal action")
        if len(legal) == 1:
            out[row] = legal[0]
        else:
            rows.append(row)
    return rows


def row_generator(agent: Agent, keys, row: int) -> np.random.Generator:
    """Row ``row``'s random generator: ``streams.generator(mix(agent.seed, keys[row]))`` with
    keys, else the agent's own ``rng``."""
    return agent.rng if keys is None else streams.generator(streams.mix(agent.seed, keys[row]))


def samples_needed(sampler: DealSampler, num_samples: int, deterministic: bool) -> int:
    """With a single consistent deal (e.g. two players once the stock is out) and
    deterministic playouts, every sample would give the same scores: one is enough."""
    return 1 if deterministic and sampler.num_deals < 1.5 else num_samples


# ----------------------------------------------------------------------------------------------
# 4. The agent
# ----------------------------------------------------------------------------------------------
class PIMCAgent(Agent):
    """Perfect Information Monte Carlo (see the module docstring).

    ``num_samples``: deals sampled per decision (default 1024: 0.035-0.053 s per move on
    average by preset, 0.131 s at most, on the benchmark machine, ``docs/pimc_speed.md``);
    ``time_budget``: seconds per decision after which no further batch of samples is started
    (``None``: unlimited; at least one batch always runs); ``point_weight``: weight of the point
    margin in the score; ``chunk_lanes``: lanes (samples x candidate actions) played out at once;
    ``playout``: ``"rules"`` (the rule-based :func:`playout_policy`, the default) or
    ``"random"`` (uniform legal actions). Rows with a single legal action return it without a
    search.
    """

    name = "pimc"
    DEFAULT_SAMPLES = 1024

    def __init__(
        self,
        rules: Rules,
        seed: int = 0,
        num_samples: int | None = None,
        time_budget: float | None = 1.0,
        point_weight: float = 1.15,
        chunk_lanes: int = 2048,
        playout: str = "rules",
    ):
        super().__init__(rules, seed)
        self.game = Game(rules)
        self.num_samples = int(num_samples if num_samples is not None else self.DEFAULT_SAMPLES)
        if self.num_samples < 1:
            raise ValueError(f"num_samples must be at least 1, got {self.num_samples}")
        self.time_budget = time_budget
        self.point_weight = float(point_weight)
        self.chunk_lanes = int(chunk_lanes)
        if playout not in ("rules", "random"):
            raise ValueError(f"bad playout {playout!r}: expected 'rules' or 'random'")
        self.playout = playout
        self.last_samples = 0
        """Samples used by the last decision searched."""
        self.last_cut = False
        """Whether the time budget stopped the last search before ``num_samples``."""
        self.last_values: dict[int, float] = {}
        """Mean score of each candidate action at the last decision searched."""
        self.name = f"pimc:{self.num_samples}"

    takes_keys = True

    def act_batch(self, observations, masks, keys=None):
        """With ``keys``, row i's deals (and random playouts) are drawn from
        ``streams.generator(mix(self.seed, keys[i]))``, else from ``self.rng``."""
        masks = np.asarray(masks, dtype=bool)
        info = decode_infoset(self.rules, observations, masks)
        out = np.zeros(len(masks), dtype=np.int64)
        for row in searched_rows(masks, out):
            out[row] = self._search(info, row, np.flatnonzero(masks[row]), row_generator(self, keys, row))
        return out

    def _policy(self, game: Game, s: State, rng: np.random.Generator) -> np.ndarray:
        if self.playout == "rules":
            return playout_policy(game, s)
        mask = unpack_sets(s.legal, NUM_ACTIONS)
        return np.argmax(rng.random(mask.shape) * mask, axis=1)

    def _search(self, info: InfoSet, row: int, legal: np.ndarray, rng: np.random.Generator | None = None) -> int:
        rng = self.rng if rng is None else rng
        start = time.perf_counter()
        self.last_cut = False
        sampler = row_sampler(info, row)
        num_actions = len(legal)
        totals = np.zeros(num_actions)
        done = 0
        wanted = samples_needed(sampler, self.num_samples, self.playout == "rules")
        while done < wanted:
            chunk_start = time.perf_counter()
            size = min(max(1, self.chunk_lanes // num_actions), wanted - done)
            lanes = candidate_lanes(self.game, info, row, legal, *sampler.sample(rng, size))
            play_out(self.game, lanes, lambda game, s: self._policy(game, s, rng))
            scores = playout_scores(self.game, lanes, self.point_weight).reshape(size, num_actions)
            totals += scores.sum(axis=0)
            done += size
            if self.time_budget is not None:
                now = time.perf_counter()
                if done < wanted and now - start + (now - chunk_start) * 1.05 > self.time_budget:
                    self.last_cut = True
                    break
        means = totals / done
        self.last_samples = done
        self.last_values = {int(a): float(v) for a, v in zip(legal, means)}
        # Ties (e.g. a won hand either way) go to the lowest action id: deterministic.
        return int(legal[int(np.argmax(means))])
