"""Tute as a native OpenSpiel game, ``python_tute``: importing this module registers it.

>>> import pyspiel
>>> import tute_env.envs.openspiel                      # registers python_tute
>>> game = pyspiel.load_game("python_tute", {"preset": "two_player", "tute": "off"})
>>> state = game.new_initial_state()                   # the deal is chance nodes
>>> pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)

Written the way OpenSpiel's own Python games are (``team_dominoes``, ``kuhn_poker``): a
``pyspiel.Game`` and ``pyspiel.State`` pair and a Python observer, so OpenSpiel's tests and
algorithms (ISMCTS, MCTS, CFR-style tools reading information states) run unchanged. The state
drives the project's core with one game packed in one array
(:class:`tute_env.engine.core.PackedGame`, stepped by the same compiled rules as
``Game.step``): legal actions are the core's, rewards are
:func:`tute_env.engine.scoring.hand_rewards`. No rule is written here.

* **Parameters**: ``preset`` (a name of :data:`tute_env.engine.rules.PRESETS`, default
  ``partnership``), every rule option by its :class:`~tute_env.engine.rules.Rules` field name,
  validated by :func:`~tute_env.engine.rules.make_rules`; ``reward`` (``win`` or ``points``) and
  ``point_weight`` (float), as :func:`~tute_env.engine.scoring.hand_rewards` takes them. OpenSpiel
  fills every parameter left out with its default (the ``partnership`` preset's value), so an option
  counts as given when it differs from that default: with another preset, an option set to its
  ``partnership`` value cannot be told from one left out (the preset's value applies). Those rules
  are reached with ``preset="partnership"`` and every option that differs from it. The game's own
  parameters (its string, what ``serialize`` stores) always name rules that load back the same.
* **Players**: OpenSpiel's player i is seat i (partnerships: 0+2 against 1+3).
* **Chance**: the deal, one chance node for the dealer (uniform over the seats), then one per
  card (uniform over the cards left), 40 in deck order: the first ``hand_size`` cards to seat 0,
  the next to seat 1, ... (the partnership's shown card is the dealer's last card), then, with a
  stock, the turned card and the stock in drawing order: the layout of
  :func:`tute_env.engine.deal.random_deals`, so the deals are those of the env.
* **Returns**: each seat's hand reward, shared within a partnership; zero-sum. One OpenSpiel game
  is one hand (the match options are accepted and have no effect).
* **Actions**: the env's 47 action ids and strings (:mod:`tute_env.engine.cards`).
* **Observations**: the observation tensor is the env's observation
  (:func:`tute_env.engine.observation.encode_observation`; with ``private_info=ALL_PLAYERS`` the
  perfect-information encoding); the information-state tensor adds the player's own start hand,
  the start card, every action it saw (actor and action, in order), its own draws and who drew the
  turned card. The information-state string is the same history in words (seats absolute): the
  player's start hand, the dealer, the start card, every public action, its own passes and draws.
  Another seat's pass is private to it, as in the env's observation. Both are zeros / a short text
  during the deal.
* **Resampling**: :meth:`TuteState.resample_from_infostate` draws the hidden cards from
  :class:`tute_env.search.infoset.DealSampler` (exact, uniform over the consistent deals: voids and
  known cards respected) and returns a state at the same point of the hand that carries the
  player's view of the history; its OpenSpiel ``history()`` starts empty (the hidden part of the
  true history, the deal included, is not carried over).
* :func:`to_record`: a finished hand as a ``tute-record/1`` :class:`~tute_env.play.records.Record`;
  :func:`position_state`: a state at a position given as a core state (search from an information
  set, ``agents.openspiel_bot``).

This module stands in its own layer above ``tute_env.envs`` and ``tute_env.search``
(docs/architecture.md): a view that also resamples information sets.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pyspiel

from ..engine.cards import NUM_ACTIONS, NUM_CARDS, PASS, action_str, card_str, cards_of, cards_str, popcount
from ..engine.core import Game, PackedGame, State
from ..engine.deal import Deal, Deals
from ..engine.observation import (
    encode_observation,
    encode_perfect_information,
    observation_layout,
    perfect_information_layout,
)
from ..engine.rules import PRESETS, Rules, make_rules, nearest_preset, option_differences, option_names
from ..engine.scoring import REWARDS, hand_rewards, win_rewards
from ..play.records import Record, finished_record
from ..search.infoset import DealSampler, deal_constraints, decode_infoset
from .render import render_text

__all__ = ["GAME_TYPE", "SHORT_NAME", "TuteGame", "TuteObserver", "TuteState", "game_parameters", "game_rules",
           "load_game", "max_game_length", "position_state", "to_record", "utility_bounds"]

SHORT_NAME = "python_tute"
_DEFAULT_RULES = PRESETS["partnership"]
#: Every parameter and its default: the preset, the rule options (the partnership preset's
#: values), the reward.
PARAMETERS = {"preset": "partnership", **{k: getattr(_DEFAULT_RULES, k) for k in option_names()},
              "reward": "win", "point_weight": 0.0}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Tute (tute_env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)

# Events of the history as ints: seat << 8 | code, code an action id, or a draw.
_DRAW, _PUBLIC_DRAW = 64, 128
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
# Set bits of each byte, offset by 8 * byte index: the legal set to a sorted list in six lookups.
_BYTE_BITS = [[tuple(8 * k + i for i in range(8) if v >> i & 1) for v in range(256)] for k in range(6)]


def _bits(x: int) -> list[int]:
    out, k = [], 0
    while x:
        out += _BYTE_BITS[k][x & 255]
        x >>= 8
        k += 1
    return out


def game_rules(params: dict) -> tuple[Rules, str, float]:
    """The rules, reward and point weight of ``python_tute`` parameters (missing ones default)."""
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise ValueError(f"unknown python_tute parameter(s) {unknown}: expected {sorted(PARAMETERS)}")
    given = {k: params[k] for k in option_names() if k in params and params[k] != PARAMETERS[k]}
    rules = make_rules(params.get("preset", "partnership"), **given)
    reward = params.get("reward", "win")
    if reward not in REWARDS:
        raise ValueError(f"bad python_tute parameter reward={reward!r}: expected one of {REWARDS}")
    return rules, reward, float(params.get("point_weight", 0.0))


def game_parameters(rules: Rules, reward: str = "win", point_weight: float = 0.0, preset: str | None = None) -> dict:
    """``python_tute`` parameters that load exactly ``rules``: the preset (default the nearest) and
    the options that differ from it, else (an option back at its partnership value) the partnership
    preset and its differences; the reward where not the default."""
    preset = preset or nearest_preset(rules)
    extra = {k: v for k, v in (("reward", reward), ("point_weight", point_weight)) if v != PARAMETERS[k]}
    params = {"preset": preset, **option_differences(rules, PRESETS[preset]), **extra}
    if game_rules(params)[0] != rules:
        params = {"preset": "partnership", **option_differences(rules, _DEFAULT_RULES), **extra}
    return params


def load_game(rules: Rules, reward: str = "win", point_weight: float = 0.0) -> TuteGame:
    """``pyspiel.load_game`` of ``python_tute`` with these rules."""
    return pyspiel.load_game(SHORT_NAME, game_parameters(rules, reward, point_weight))


def max_game_length(rules: Rules) -> int:
    """The most player actions a hand can take: every card played, each suit's cante and a Tute,
    a pass at each of the partner's declaration turns (one after each trick but the last), the exchange."""
    plays = rules.num_tricks * rules.num_players
    declarations = 4 + (rules.tute != "off")
    passes = rules.num_tricks - 1 if rules.partnerships and rules.singers == "side" else 0
    return plays + declarations + passes + (rules.exchange != "off")


def utility_bounds(rules: Rules, reward: str, point_weight: float) -> tuple[float, float]:
    """The least and most a seat can get: the win reward of the most games a hand credits, plus or
    minus the points reward's weight (points rewards lie in [-1, 1])."""
    if reward == "points":
        return -1.0, 1.0
    most_games = 2 if rules.double_over_100 or rules.tute == "two_games" else 1
    row = win_rewards(rules, np.array([0]), most_games)[0]
    return float(row.min()) - abs(point_weight), float(row.max()) + abs(point_weight)


@dataclasses.dataclass(frozen=True)
class _Spec:
    """What every state of one game shares: the rules, the core, the deal's layout."""

    rules: Rules
    reward: str
    point_weight: float
    game: Game

    @property
    def n(self) -> int:
        return self.rules.num_players

    def seen_positions(self, player: int, dealer: int) -> frozenset[int]:
        """Deal positions (indices into the cards dealt, in deal order) ``player`` sees."""
        h = self.rules.hand_size
        shown = dealer * h + h - 1 if self.rules.partnerships else self.n * h
        return frozenset(range(player * h, (player + 1) * h)) | {shown}


@functools.lru_cache(maxsize=64)
def _spec(rules: Rules, reward: str, point_weight: float) -> _Spec:
    return _Spec(rules, reward, point_weight, Game(rules))


class _Hand:
    """A state's data, in one attribute: OpenSpiel's clone deep-copies each attribute of a Python
    state, and this copy is the core state's ``copy()`` and a few list copies.

    ``deal``: the chance outcomes (dealer, then cards; None for a state at a position, whose deal
    is unknown); ``packed``: the core's game once dealt (:class:`PackedGame`), ``core`` its
    State; ``events``: the history after the deal
    (``seat << 8 | action``, draws ``seat << 8 | 64 + card``, 128 + card for the turned card);
    ``start``: each seat's start hand (None where unknown); ``opening``: the dealer and the card
    shown or turned at the start (-1 where unknown); ``cache``: resampling's samplers (not copied).
    """

    __slots__ = ("actions", "cache", "deal", "deals", "events", "opening", "packed", "remaining", "spec", "start")

    def __init__(self, spec: _Spec):
        self.spec = spec
        self.deal, self.remaining = [], list(range(NUM_CARDS))
        self.packed = self.deals = self.cache = None
        self.events, self.actions = [], []
        self.start, self.opening = [None] * spec.n, (-1, -1)

    def __deepcopy__(self, memo) -> _Hand:
        new = _Hand.__new__(_Hand)
        new.spec, new.start, new.opening, new.deals, new.cache = self.spec, self.start, self.opening, self.deals, None
        new.deal = None if self.deal is None else list(self.deal)
        new.remaining = list(self.remaining)
        new.packed = None if self.packed is None else self.packed.copy()
        new.events = list(self.events)
        new.actions = None if self.actions is None else list(self.actions)
        return new

    def __getstate__(self):  # serialize: the rules by value, the game's array, no cache
        state = {k: getattr(self, k) for k in self.__slots__ if k not in ("spec", "cache", "packed")}
        state["spec"] = (self.spec.rules, self.spec.reward, self.spec.point_weight)
        state["packed"] = None if self.packed is None else self.packed.words
        return state

    def __setstate__(self, state):
        for k, v in state.items():
            setattr(self, k, _spec(*v) if k == "spec" else v)
        self.cache = None
        if self.packed is not None:
            self.packed = PackedGame(self.spec.game, self.packed)  # checked

    @property
    def core(self) -> State | None:
        """The core's State of the game (B = 1, views of ``packed``), None during the deal."""
        return None if self.packed is None else self.packed.state

    def visible(self, event: int, player: int) -> bool:
        """Whether ``player`` sees an event: plays and declarations are public, passes and draws
        the actor's own (the turned card's draw is public)."""
        code = event & 255
        return event >> 8 == player or (code != PASS and _DRAW > code) or code >= _PUBLIC_DRAW


class TuteGame(pyspiel.Game):
    """``python_tute``: one hand of Tute under any rules of tute_env (see the module's doc)."""

    def __init__(self, params=None):
        params = dict(params or {})
        rules, reward, point_weight = game_rules(params)
        lo, hi = utility_bounds(rules, reward, point_weight)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=NUM_CARDS,
            num_players=rules.num_players,
            min_utility=lo,
            max_utility=hi,
            utility_sum=0.0,
            max_game_length=max_game_length(rules),
        )
        preset = params.get("preset", "partnership")
        super().__init__(GAME_TYPE, info, game_parameters(rules, reward, point_weight, preset))
        self.spec = _spec(rules, reward, point_weight)

    @property
    def rules(self) -> Rules:
        return self.spec.rules

    def new_initial_state(self) -> TuteState:
        return TuteState(self)

    def max_chance_nodes_in_history(self) -> int:
        return 1 + NUM_CARDS

    def make_py_observer(self, iig_obs_type=None, params=None) -> TuteObserver:
        return TuteObserver(self.spec, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class TuteState(pyspiel.State):
    """One hand: chance nodes for the deal, then the core's game (B = 1)."""

    def __init__(self, game: TuteGame):
        super().__init__(game)
        self._t = _Hand(game.spec)

    @property
    def core(self) -> State | None:
        """The core state (one game; views of the game's packed array), None during the deal.
        Do not change it."""
        return self._t.core

    def current_player(self) -> int:
        packed = self._t.packed
        if packed is None:
            return _CHANCE
        return packed.current if packed.current >= 0 else _TERMINAL

    def is_chance_node(self) -> bool:
        return self._t.packed is None

    def _legal_actions(self, player) -> list[int]:
        return _bits(self._t.packed.legal)

    def legal_actions(self, player=None) -> list[int]:
        """OpenSpiel's ``legal_actions`` answered in Python (C++ callers get the same through
        ``_legal_actions``): the chance outcomes at a chance node, none when over or for a seat
        not to act."""
        packed = self._t.packed
        if packed is None:
            return [a for a, _ in self.chance_outcomes()]
        seat = packed.current
        if seat < 0 or (player is not None and player != seat):
            return []
        return _bits(packed.legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        t = self._t
        if not t.deal:
            return [(seat, 1.0 / t.spec.n) for seat in range(t.spec.n)]
        p = 1.0 / len(t.remaining)
        return [(card, p) for card in t.remaining]

    def _apply_action(self, action: int) -> None:
        t = self._t
        t.cache = None
        packed = t.packed
        if packed is None:
            self._deal(t, action)
            return
        seat = packed.current
        packed.step(action)
        t.events.append(seat << 8 | action)
        if t.actions is not None:
            t.actions.append(action)
        drawn = packed.drawn
        if drawn:
            for drawer in range(t.spec.n):
                code = drawn >> 8 * drawer & 255
                if code:
                    t.events.append(drawer << 8 | (_PUBLIC_DRAW if code & 128 else _DRAW) + (code & 127) - 1)

    def _deal(self, t: _Hand, outcome: int) -> None:
        spec = t.spec
        if not t.deal:
            if not 0 <= outcome < spec.n:
                raise ValueError(f"bad chance outcome {outcome}: the dealer is a seat 0..{spec.n - 1}")
            t.deal.append(outcome)
            return
        t.remaining.remove(outcome)  # ValueError for a card already dealt
        t.deal.append(outcome)
        if t.remaining:
            return
        r, n, h = spec.rules, spec.n, spec.rules.hand_size
        dealer, cards = t.deal[0], np.array(t.deal[1:], np.int8)
        hands = cards[: n * h].reshape(1, n, h)
        trump_card = hands[0, dealer, -1] if r.partnerships else cards[n * h]
        t.deals = Deals(dealer=np.array([dealer], np.int8), hands=hands, trump_card=np.array([trump_card], np.int8),
                        stock=cards[n * h + 1:].reshape(1, r.stock_size))
        t.packed = spec.game.new_packed(t.deals, validate=False)
        t.start = t.packed.field("hands")[0].tolist()
        t.opening = (dealer, int(trump_card))

    def _action_to_string(self, player, action) -> str:
        if player == _CHANCE:
            return f"dealer:{action}" if not self._t.deal else f"deal:{card_str(action)}"
        return action_str(action)

    def is_terminal(self) -> bool:
        packed = self._t.packed
        return packed is not None and packed.current < 0

    def returns(self) -> list[float]:
        t = self._t
        if t.packed is None or t.packed.current >= 0:
            return [0.0] * t.spec.n
        core = t.core
        spec = t.spec
        return hand_rewards(spec.rules, spec.reward, core.winner, core.games, core.totals, core.tute_declarer,
                            spec.point_weight)[0].tolist()

    def __str__(self) -> str:
        t = self._t
        if t.packed is None:
            dealer = f"dealer {t.deal[0]}" if t.deal else "no dealer yet"
            return f"dealing: {dealer}, cards dealt: {cards_str(t.deal[1:])}"
        return render_text(t.spec.rules, t.core, show_all=True, symbols=False)

    # ------------------------------------------------------------------------------------------
    # Resampling
    # ------------------------------------------------------------------------------------------
    def resample_from_infostate(self, player_id: int, probability_sampler) -> TuteState:
        """A state ``player_id`` cannot tell from this one, the hidden cards drawn uniformly among
        those consistent with its information set (``probability_sampler()``, a uniform in [0, 1),
        seeds the draws). During the deal, the cards it has not seen are dealt anew (a real history);
        after it, the state is this one with the other hands and the face-down stock replaced by a
        draw of :class:`~tute_env.search.infoset.DealSampler`, carrying ``player_id``'s view of the
        history only (``history()`` starts empty)."""
        t, game = self._t, self.get_game()
        if t.packed is None:
            return self._redeal(game, player_id, probability_sampler)
        spec, n = t.spec, t.spec.n
        hands, stock = self._sample(player_id, probability_sampler)
        packed = t.packed.copy()
        new_core = packed.state
        for k in range(1, n):
            new_core.hands[0, (player_id + k) % n] = hands[k]
        face_down = spec.rules.stock_size - int(new_core.stock_next[0])
        new_core.stock[0, : spec.rules.stock_size - face_down] = -1  # drawn: not carried over
        if face_down:
            new_core.stock[0, -face_down:] = stock
        packed.refresh()
        new = game.new_initial_state()
        nt = new._t
        nt.packed, nt.deal, nt.remaining, nt.actions = packed, None, [], None
        nt.events = [e for e in t.events if t.visible(e, player_id)]
        nt.start = [t.start[s] if s == player_id else None for s in range(n)]
        nt.opening = t.opening
        return new

    def _sample(self, player: int, probability_sampler) -> tuple[np.ndarray, np.ndarray]:
        """One deal of the hidden cards for ``player``: hands by relative seat and the face-down
        stock. The sampler and a batch of draws are kept until the state changes."""
        t = self._t
        if t.cache is None:
            t.cache = {}
        entry = t.cache.get(player)
        if entry is None:
            spec, core, n = t.spec, t.core, t.spec.n
            obs = encode_observation(spec.rules, core, [player])
            mask = np.zeros((1, NUM_ACTIONS), bool)
            if t.packed.current == player:
                mask[0, _bits(t.packed.legal)] = True
            cons = deal_constraints(decode_infoset(spec.rules, obs, mask), 0)
            # The hand sizes are public; deal_constraints reads them for a player to act.
            sizes = tuple(popcount(int(core.hands[0, (player + k) % n])) for k in range(n))
            entry = t.cache[player] = [DealSampler(dataclasses.replace(cons, hand_sizes=sizes)), [], []]
        sampler, hands, stock = entry
        if not hands:
            rng = np.random.default_rng(int(probability_sampler() * 2**53))
            drawn_hands, drawn_stock = sampler.sample(rng, 32)
            hands.extend(drawn_hands)
            stock.extend(drawn_stock)
        return hands.pop(), stock.pop()

    def _redeal(self, game: TuteGame, player: int, probability_sampler) -> TuteState:
        t = self._t
        new = game.new_initial_state()
        if not t.deal:
            return new
        cards = t.deal[1:]
        seen = t.spec.seen_positions(player, t.deal[0])
        hidden = [i for i in range(len(cards)) if i not in seen]
        rng = np.random.default_rng(int(probability_sampler() * 2**53))
        shuffled = list(cards)
        for i, card in zip(hidden, rng.permutation([cards[i] for i in hidden]).tolist()):
            shuffled[i] = card
        for outcome in [t.deal[0], *shuffled]:
            new.apply_action(outcome)
        return new


def position_state(game: TuteGame, core: State) -> TuteState:
    """A ``python_tute`` state at the position of ``core`` (one game of the same rules, copied):
    its deal and history are unknown (``history()`` empty, information states start there, no
    record). What a search from an information set starts from."""
    if core.batch_size != 1:
        raise ValueError(f"a position is one game, got a batch of {core.batch_size}")
    state = game.new_initial_state()
    t = state._t
    t.packed = PackedGame.from_state(game.spec.game, core)  # a copy; ValueError if it does not fit
    t.deal, t.remaining, t.actions = None, [], None
    t.opening = (int(core.dealer[0]), -1)
    return state


def to_record(state: TuteState, players=None, **optional) -> Record:
    """The finished hand of ``state`` (played from its deal: not a resampled state or a position)
    as a ``tute-record/1`` record; OpenSpiel's player i is seat i. ``players``: a label per seat
    (default ``openspiel_0`` ...); ``optional``: the record's optional fields."""
    t = state._t
    if t.deals is None or t.actions is None:
        raise ValueError("no record of a state whose deal is unknown (a resampled state, or a position)")
    if not state.is_terminal():
        raise ValueError("a record is a finished hand: the state is not terminal")
    rules = t.spec.rules
    players = list(players) if players is not None else [f"openspiel_{i}" for i in range(rules.num_players)]
    deal: Deal = t.deals[0]
    return finished_record(rules, deal, players, t.actions, t.core, **optional)


# ----------------------------------------------------------------------------------------------
# The observer
# ----------------------------------------------------------------------------------------------
class TuteObserver:
    """OpenSpiel's Python observer: ``tensor`` and its named views ``dict``, filled by
    ``set_from(state, player)``; ``string_from(state, player)``.

    Without perfect recall (OpenSpiel's observation): the env's observation pieces
    (:func:`~tute_env.engine.observation.observation_layout`; ``private_info=ALL_PLAYERS``: the
    perfect-information layout). With perfect recall (the information state): those, then
    ``start_hand``, ``start_card``, ``history`` (one row per action seen: the actor's relative seat
    one-hot, then the action one-hot), ``draws`` (one row per own draw) and ``turned_card_drawer``
    (relative seat)."""

    def __init__(self, spec: _Spec, iig_obs_type, params):
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        private = iig_obs_type.private_info
        if private == pyspiel.PrivateInfoType.NONE:
            raise ValueError("python_tute observes a player's private cards: private_info SINGLE_PLAYER or ALL_PLAYERS")
        self.spec, self.perfect_recall = spec, iig_obs_type.perfect_recall
        self.all_players = private == pyspiel.PrivateInfoType.ALL_PLAYERS
        r, n = spec.rules, spec.n
        layout = perfect_information_layout(r) if self.all_players else observation_layout(r)
        pieces = [(name, (size,)) for name, size in layout.pieces]
        if self.perfect_recall:
            draws = -(-(r.stock_size + r.turned_card_drawn) // n) if r.has_stock else 0
            pieces += [("start_hand", (NUM_CARDS,)), ("start_card", (NUM_CARDS,)),
                       ("history", (max_game_length(r), n + NUM_ACTIONS)), ("draws", (draws, NUM_CARDS)),
                       ("turned_card_drawer", (n,))]
        self.layout_size = layout.size
        self.card_pieces = [(name, size // NUM_CARDS) for name, size in layout.pieces if size % NUM_CARDS == 0]
        self.other_pieces = [name for name, size in layout.pieces if size % NUM_CARDS != 0]
        self.tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in pieces), np.float32)
        self.dict, start = {}, 0
        for name, shape in pieces:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[start: start + size].reshape(shape)
            start += size

    def _encode(self, core: State, player: int) -> np.ndarray:
        encode = encode_perfect_information if self.all_players else encode_observation
        return encode(self.spec.rules, core, [player])[0]

    def set_from(self, state: TuteState, player: int) -> None:
        self.tensor.fill(0)
        t = state._t
        if t.packed is None:
            return
        self.tensor[: self.layout_size] = self._encode(t.core, player)
        if not self.perfect_recall:
            return
        n, d = self.spec.n, self.dict
        if t.start[player] is not None:
            d["start_hand"][cards_of(t.start[player])] = 1
        if t.opening[1] >= 0:
            d["start_card"][t.opening[1]] = 1
        row = draw = 0
        for event in t.events:
            seat, code = event >> 8, event & 255
            if code >= _PUBLIC_DRAW:
                d["turned_card_drawer"][(seat - player) % n] = 1
            elif code >= _DRAW:
                if seat == player:
                    d["draws"][draw, code - _DRAW] = 1
                    draw += 1
            elif code != PASS or seat == player:
                d["history"][row, (seat - player) % n] = 1
                d["history"][row, n + code] = 1
                row += 1

    def string_from(self, state: TuteState, player: int) -> str:
        t = state._t
        if t.packed is None:
            return self._deal_string(t, player)
        if self.perfect_recall:
            return self._history_string(t, player)
        return self._observation_string(t, player)

    def _deal_string(self, t: _Hand, player: int) -> str:
        if not t.deal:
            return f"p{player} dealing"
        seen = t.spec.seen_positions(player, t.deal[0])
        mine = [card_str(c) if i in seen else "?" for i, c in enumerate(t.deal[1:])]
        return f"p{player} dealer:{t.deal[0]} dealt:{' '.join(mine)}"

    def _history_string(self, t: _Hand, player: int) -> str:
        """``p1 start:<cards> dealer:3 card:Ro | 1:Ao 2:3o ... 1+Cb ... | hand:<cards>`` (seats
        absolute; ``1+Cb``: seat 1 drew Cb; the hand now, every hand with ``ALL_PLAYERS``)."""
        start = t.start[player]
        head = (f"p{player} start:{'?' if start is None else cards_str(cards_of(start))} dealer:{t.opening[0]} "
                f"card:{card_str(t.opening[1]) if t.opening[1] >= 0 else '?'}")
        events = []
        for event in t.events:
            if t.visible(event, player):
                seat, code = event >> 8, event & 255
                events.append(f"{seat}+{card_str(code & 63)}" if code >= _DRAW else f"{seat}:{action_str(code)}")
        if self.all_players:
            now = "hands:" + " / ".join(cards_str(cards_of(h)) for h in t.core.hands[0].tolist())
        else:
            now = f"hand:{cards_str(cards_of(int(t.core.hands[0, player])))}"
        return f"{head} | {' '.join(events)} | {now}"

    def _observation_string(self, t: _Hand, player: int) -> str:
        obs = self._encode(t.core, player)
        rules = self.spec.rules
        layout = perfect_information_layout(rules) if self.all_players else observation_layout(rules)
        pieces = layout.decode(obs)
        parts = [f"p{player}"]
        for name, blocks in self.card_pieces:
            rows = pieces[name].reshape(blocks, NUM_CARDS)
            if rows.any():
                parts.append(f"{name}:" + "/".join(cards_str(np.flatnonzero(row).tolist()) for row in rows))
        for name in self.other_pieces:
            if pieces[name].any():
                parts.append(f"{name}:" + ",".join(str(int(x)) for x in pieces[name]))
        return " ".join(parts)


pyspiel.register_game(GAME_TYPE, TuteGame)
