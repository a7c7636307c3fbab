"""
# Tute

This environment plays Tute, the Spanish trick-taking card game of the 40-card deck, in the
style of PettingZoo's classic environments. Its rules are [`docs/rules.md`](rules.md) (rule ids
R1..R10 below); every rule option there is a keyword argument here.

| Import             | `from tute_env import tute_v0`                                    |
|--------------------|-------------------------------------------------------------------|
| Registry           | `pettingzoo.make("aec", "tute_env/tute_v0")` after the import     |
| Actions            | Discrete                                                          |
| Parallel API       | Yes, turn-based: `tute_v0.parallel_env()`                         |
| Manual Control     | A person plays against the bots with `tute-play` (the `tute_play` package) |
| Agents             | `agents= ['player_0', 'player_1', 'player_2', 'player_3']` (partnership) |
| Agents             | 4 (`partnership`, `manita`), 3 (`three_player`), 2 (the others)   |
| Action Shape       | Discrete(47)                                                      |
| Action Values      | Discrete(47)                                                      |
| Observation Shape  | `observation`: (size,) int8, see the table; `action_mask`: (47,) int8 |
| Observation Values | [0, 120]                                                          |
| State Shape        | (state size,) int8: the observation plus every hand and the stock |

```python
from tute_env import tute_v0

env = tute_v0.env(preset="partnership", render_mode="ansi")
env.reset(seed=42)
for agent in env.agent_iter():
    observation, reward, termination, truncation, info = env.last()
    if termination or truncation:
        action = None
    else:
        action = env.action_space(agent).sample(observation["action_mask"])
    env.step(action)
print(info)  # e.g. {'points': [84, 46], 'winner': 0, 'games': 1, 'tute': -1, 'hand': 0}
env.close()
```

Tute is played by four players in two partnerships (seats 0 and 2 against 1 and 3; the whole
deck is dealt and the dealer's last card, shown to all, names the trump suit), or by two or
three players each for themselves, drawing from a stock after every trick. Cards are won in
tricks (A 11, 3 10, R 4, C 3, S 2 points, 10 more for the last trick); the follow duties are
strict (follow suit and beat, else trump, else overtrump: R5). A player whose side has just won
a trick may *sing* a king and knight of one suit (20 points, 40 in trumps: R8), or declare a
*Tute* (all four kings or knights: the hand ends, won by the declarer's side: R8b). With two
players the seven of trumps may be exchanged for the turned card (R7). The side with most
points wins the hand and one game, two with more than 100 points in the partnership game (R9).

### Arguments

``` python
tute_v0.env(preset="partnership", episode="hand", reward="win", render_mode=None,
            show_all_hands=False, plain=False, lang="en", **rule_options)
```

`preset`: the preset, one of `partnership` (default), `manita`, `two_player`,
`two_player_10`, `three_player`, `corriente` ([presets](rules.md#presets) in `docs/rules.md`), or a
`tute_env.engine.rules.Rules`.

`**rule_options`: any [rule option](rules.md#options) of `docs/rules.md` overriding the preset,
e.g. `stock_duty="strict"`, `singers="winner"`, `tute="off"`, `target_games=3` (see
`tute_env.engine.rules.Rules`).

`episode`: `"hand"` (default): an episode is one hand; `"match"`: an episode is a whole match
(R10): hands are dealt one after the other, the next seat dealing (R2), until a side has
`target_games` games (or, with `match="target_points"`, `target_points` points).

`reward`: `"win"` (default) or `"points"`, see Rewards.

`render_mode`: `None`, `"ansi"` (a text table), `"rgb_array"` or `"human"` (a drawn table).

`show_all_hands`: render every hand face up, not just the acting player's (a debug view).

`plain`: the `"ansi"` text uses suit letters (`o c e b`) instead of symbols (plain ASCII, as
the play mode's `--plain`).

`lang`: the words of the rendered table, `"en"` (default) or `"es"` (Spanish, as `tute-play
--lang es`).

A bad argument raises `ValueError` naming it.

### Observation Space

The observation is a dictionary with an `'observation'` element, the flat int8 vector below,
and an `'action_mask'` element (see Legal Actions Mask). Both are new arrays on every call.

The vector is what the observing player may know, and nothing more (`tute_env.engine.observation`).
Seats are relative to the observer (relative seat 0 is the observer, 1 the next seat in play
order, ...), and so are sides (relative side 0 is the observer's side). Card pieces have one
entry per card id (see Action Space), so a piece of n x 40 is n blocks of 40, by relative seat.

OBSERVATION_TABLE

Values are 0/1 except `card_points` (0..120), `cante_points` (0..100), `last_won` and
`tricks_played` (0..number of tricks) and `stock_size` (0..40); multiply by
`tute_env.engine.observation.observation_scale(rules)` to bring them into [0, 1].

With `episode="match"` the observation is the same: the match score is not in it, but in the
infos at the end of each hand (and in `raw_env.match_score`).

The turn order is public, so it tells what the rules reveal: after a trick won by a partnership,
the winner's partner gets a declaration turn (sing, Tute or pass) only when holding a legal
declaration (R8). Whether another player has such a turn is therefore known to all when it
happens; the observation shows only the observer's own decision kind.

#### Legal Actions Mask

The legal actions of the agent to act are the `action_mask` element of its observation: a
binary (47,) int8 vector; it is all zeros for every other agent and once the hand is over.
Taking an illegal action ends the episode with a reward of -1 for the agent that took it and 0
for the others (PettingZoo's `TerminateIllegalWrapper`, in `env()`; `raw_env()` raises
`ValueError` instead).

### Action Space

Actions 0..39 play a card: id = suit * 10 + face, by suit (row) and face (column); the card's
action string is face then suit (`Ao` = 0, `3c` = 12, `Rb` = 39). Actions 40..46 declare:

ACTION_TABLE

`tute_env.engine.cards.action_str` and `action_id` convert between ids and strings (`"Ao"`,
`"sing-c"`, `"tute"`, `"exchange"`, `"pass"`). A declaration or an exchange keeps the turn; a
card ends it.

### Rewards

Rewards are zero-sum over the agents and arrive when a hand (`episode="hand"`) or a match
(`episode="match"`) ends; every other step gives 0.

`reward="win"`, `episode="hand"`: the winning side's players get +g each, where g is the
number of games the hand credits (1, or 2 for a hand won with more than 100 points or by a
Tute, as the rules say); the losers share -g per winner: with partnerships each loser gets -g,
with two players the loser -g, with three players each loser -g/2.

| | winner(s) | each loser |
|---|---|---|
| partnership | +g each | -g |
| two players | +g | -g |
| three players | +g | -g/2 |

`reward="win"`, `episode="match"`: the same, with g = 1, when the match ends; the hands before
it give 0.

`reward="points"`: when a hand ends, each player gets its side's hand total (R9) minus the mean
total of the other sides, divided by 230, the most a side can score in a hand (120 card
points, 10 for the last trick and 100 of cantes), so rewards lie in [-1, 1]. A hand ended by a
Tute gives the declarer's side +1 each and the others the zero-sum share of -1 (as `"win"` with
g = 1), whatever the points. With `episode="match"` every hand of the match gives its reward.

In `episode="match"` with `match="target_points"`, the hand totals add up and the first side to
`target_points` wins; should several sides get there in the same hand, the one with the most
points wins, a tie going to the hand's winner. A Tute wins the match outright for the
declarer's side.

An illegal action ends the episode with -1 for the agent that took it and 0 for the others.

### Infos

When a hand ends, every agent's info holds `points` (the hand total of each side, R9, as a
list by side), `winner` (the winning side: side = seat % 2 with partnerships, else the seat;
-1 for none), `games` (games credited to the winner), `tute` (the seat that declared a Tute,
-1 if none) and `hand` (the hand's index in the episode, from 0). With `episode="match"` they
also hold `match_games` and `match_points` (per side, after this hand) and, when the match is
over, `match_winner`. They also hold `record`: the finished hand's game record, a dict in the
format `"tute-record/1"` of [`docs/records.md`](records.md) (the deal, every action, the result;
players labelled by `raw_env.players`, `player_0`... unless set; in a match, a match id and the
hand's index (the id drawn from the seed, apart from the deals); no `time`, so that an info
depends only on the seed and the actions), the same dict object in every agent's info;
`raw_env.record()` gives the last one as a `tute_env.play.records.Record`. A hand's result stays in
an agent's info until that agent acts again.

### State: four different things

The word means four things here, each with its own name:

| name | what it is |
|---|---|
| `state()`, `state_space` | PettingZoo's global observation: the perfect-information vector below |
| `raw_env.core_state` | the rules core's one-game `tute_env.engine.core.State` (arrays), for reading |
| `get_state()` / `set_state(snapshot)` | a snapshot of the whole env, to save and restore |
| `pickle`, `copy.deepcopy` | carry that snapshot inside the pickled env (`__getstate__`) |

`state()` is the perfect-information encoding (`tute_env.engine.observation.encode_perfect_information`)
from the point of view of the agent to act (of `player_0` once the episode is over): the
observation above followed by `hands` (n x 40, every hand by relative seat) and `stock` (40,
the face-down stock as a set). `state_space` is its Box. Use it for centralised critics only.

`get_state()` returns a snapshot of the whole environment (the game, the match, rewards,
infos, the random generator) and `set_state(snapshot)` restores it; `copy.deepcopy` and `pickle`
keep the game in progress too (PettingZoo's `EzPickle` alone would rebuild a fresh env). On an env
from `env()`, call `reset()` once before `set_state()` (the order-enforcing wrapper wants it).
`raw_env.game` is the rules core (`tute_env.engine.core.Game`) and `raw_env.core_state` its one-game
`State`, for reading.

### Reset options

`reset(seed=None, options=None)`: `options={"deal": {"dealer": 3, "hands": [[...], ...],
"trump_card": "Ao", "stock": [...]}}` plays the given deal (card strings or ids): `hands` one
list per seat; `trump_card` the dealer's shown card, in the dealer's hand, for the partnership
game, otherwise the turned card; `stock` only with a stock, in drawing order (`stock[0]` is
drawn first), without the turned card. A malformed deal raises `ValueError` saying what is
wrong. `options={"dealer": d}` deals at random with dealer d. Without either, the dealer is
random. `options={"record": record}` plays a game record's deal again (a record dict, e.g. an
info's `record` or a line of a records file, or a `tute_env.play.records.Record`; its rules must be
this env's, else `ValueError`); playing the record's actions then reproduces its hand and
result. In a match only the first hand is given; the next ones are dealt at random. Other keys
are ignored.

### Speed

The env is thin: one core `State` of one game, the legal set cached per step, an observation
computed only when asked for (`observe`) and at most once per agent and step. `bench/env_speed.py`
measures it against PettingZoo's `leduc_holdem_v4`; the figures are in `docs/env_speed.md`.
For training at scale use `tute_env.envs.gym_env.TuteVectorEnv` or the core itself.

This page is also `docs/tute_v0.md` (`python -m tute_env.envs.tute_v0 > docs/tute_v0.md`).

### Version History

* v0: Initial release (tute_env 0.1.0).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from ..engine.cards import (
    EXCHANGE,
    FACES,
    NUM_ACTIONS,
    NUM_CARDS,
    PASS,
    SING_BASE,
    SUIT_NAMES,
    SUITS,
    TUTE,
    action_str,
    as_action,
    card_id,
)
from ..engine.core import Game, State
from ..engine.deal import Deal, random_deals
from ..engine.observation import (
    PIECE_DOC,
    encode_observation,
    encode_perfect_information,
    observation_layout,
)
from ..engine.rules import PRESETS, Rules
from ..engine.scoring import Scoring, hand_info
from ..play.records import Record, deal_at_start, finished_record
from .args import RENDER_MODES, check_render_args, observation_high, parse_env_args, parse_reset_options
from .render import EnvRenderer

__all__ = ["env", "parallel_env", "raw_env"]

_TABLE_PRESETS = ("partnership", "two_player", "three_player")


def observation_table() -> str:
    """The observation layout as a markdown table, generated from :mod:`tute_env.engine.observation`
    (the module docstring embeds it; a test keeps the two equal)."""
    layouts = [observation_layout(PRESETS[p]) for p in _TABLE_PRESETS]
    names = [name for name, _ in layouts[0].pieces]
    lines = [
        "| piece | offset (4 players) | size: 4 / 2 / 3 players | content |",
        "|---|---|---|---|",
    ]
    for name in names:
        sizes = " / ".join(str(dict(layout.pieces)[name]) for layout in layouts)
        offset = layouts[0].slices[name].start
        lines.append(f"| `{name}` | {offset} | {sizes} | {PIECE_DOC[name][1]} |")
    total = " / ".join(str(layout.size) for layout in layouts)
    lines.append(f"| total | | {total} | |")
    return "\n".join(lines)


_ACTION_MEANINGS = {TUTE: "declare Tute (R8b)", EXCHANGE: "exchange the seven (or two) of trumps for the turned "
                    "card (R7, two players)", PASS: "pass: decline a declaration turn (R8)"}


def action_table() -> str:
    """The 47 action ids as markdown tables, generated from :mod:`tute_env.engine.cards`: playing a
    card (id = suit * 10 + face), then the declarations (the module docstring embeds them)."""
    lines = ["| play a card | " + " | ".join(FACES) + " |", "|---|" + "---|" * len(FACES)]
    for suit, name in zip(SUITS, SUIT_NAMES):
        lines.append(f"| `{suit}` ({name}) | " + " | ".join(str(card_id(face + suit)) for face in FACES) + " |")
    lines += ["", "| action id | string | meaning |", "|---|---|---|"]
    for action in range(NUM_CARDS, NUM_ACTIONS):
        meaning = (f"sing the cante (king and knight) of {SUIT_NAMES[action - SING_BASE]} (R8)" if action < TUTE
                   else _ACTION_MEANINGS[action])
        lines.append(f"| {action} | `{action_str(action)}` | {meaning} |")
    return "\n".join(lines)


__doc__ = __doc__.replace("OBSERVATION_TABLE", observation_table()).replace("ACTION_TABLE", action_table())
DOC_HEADER = "<!-- Generated from tute_env/envs/tute_v0.py: python -m tute_env.envs.tute_v0 > docs/tute_v0.md -->\n"


# ----------------------------------------------------------------------------------------------
# The environment
# ----------------------------------------------------------------------------------------------
def env(**kwargs) -> AECEnv:
    """The AEC environment in PettingZoo's standard wrappers: an illegal action ends the episode
    with -1 for its agent, actions outside the action space fail, calls out of order fail."""
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


def parallel_env(**kwargs):
    """The turn-based Parallel API view (``turn_based_aec_to_parallel``) of :func:`env`."""
    return turn_based_aec_to_parallel(env(**kwargs))


def match_id(rng: np.random.Generator) -> str:
    """A match's 12-hex-digit id from the env's seeded ``rng``, from a child of its seed sequence:
    the same seed gives the same ids, and the deals drawn from ``rng`` are left as they were."""
    words = rng.bit_generator.seed_seq.spawn(1)[0].generate_state(2, np.uint32)
    return f"{int(words[0]):08x}{int(words[1]) & 0xFFFF:04x}"


class raw_env(AECEnv, EzPickle):
    """Tute as a PettingZoo AEC environment (see the module doc). Thin over the batched rules
    core: one :class:`tute_env.engine.core.State` of one game."""

    metadata = {
        "render_modes": list(RENDER_MODES),
        "name": "tute_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, preset: str | Rules = "partnership", episode: str = "hand", reward: str = "win",
                 render_mode: str | None = None, show_all_hands: bool = False, plain: bool = False, lang: str = "en",
                 **rule_options):
        EzPickle.__init__(self, preset, episode, reward, render_mode, show_all_hands, plain, lang, **rule_options)
        super().__init__()
        self.rules = parse_env_args(preset, episode, reward, render_mode, rule_options)
        check_render_args(show_all_hands, plain, lang, "tute_v0.env")
        self.plain, self.lang = plain, lang
        self.preset, self.episode, self.reward_kind = preset, episode, reward
        self.render_mode, self.show_all_hands = render_mode, show_all_hands
        self.game = Game(self.rules)
        n = self.rules.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        size = observation_layout(self.rules).size
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0, observation_high(self.rules), shape=(size,), dtype=np.int8),
                "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8),
            }
        )
        # One space object per agent (PettingZoo seeds them separately).
        self.observation_spaces = {a: copy.deepcopy(obs_space) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        state_high = observation_high(self.rules, perfect=True)
        self.state_space = spaces.Box(0, state_high, shape=state_high.shape, dtype=np.int8)
        self._core_state: State | None = None  # the core's one-game State (core_state)
        self._rng: np.random.Generator | None = None
        self._scoring = Scoring(self.rules, episode, reward, 1)
        self._action = np.zeros(1, np.int64)
        self._legal = 0
        self._current = -1
        self._version = 0
        self._obs_cache: dict[int, tuple[int, np.ndarray]] = {}
        self._mask_cache = (-1, None)
        self._rewards_dirty = False
        self._renderer = None
        self.players = self.possible_agents[:]
        self._hand_deal: Deal | None = None
        self._hand_actions: list[int] = []
        self._record: Record | None = None
        self._match_id: str | None = None

    # -- spaces --------------------------------------------------------------------------------
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # -- read access ---------------------------------------------------------------------------
    @property
    def core_state(self) -> State:
        """The core's one-game state (read it; changing it bypasses the env's bookkeeping)."""
        return self._core_state

    @property
    def match_score(self) -> dict[str, list[int]]:
        """Games and points per side so far in this episode's match (zeros with hand episodes)."""
        return {"games": self._scoring.match_games[0].tolist(), "points": self._scoring.match_points[0].tolist()}

    # -- reset / step --------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        deals, dealer = parse_reset_options(options, self.rules)
        if deals is None:
            deals = random_deals(self.rules, self._rng, 1, dealer)
        self._core_state = self.game.new_state(deals, validate=False)
        self._start_record()
        self._record = None
        self._match_id = match_id(self._rng) if self.episode == "match" else None
        self._scoring.reset()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._rewards_dirty = False
        self._skip_agent_selection = None
        self._sync()
        if self.render_mode == "human":
            self.render()

    def _sync(self) -> None:
        """After the core state changed: whose turn, the legal set, fresh caches."""
        s = self._core_state
        self._version += 1
        current = int(s.current[0])
        self._current = current
        self._legal = int(s.legal[0])
        if current >= 0:
            self.agent_selection = self.possible_agents[current]

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = as_action(action)
        if a < 0:
            raise ValueError(f"bad action {action!r} for {agent}: expected an integer action id 0..{NUM_ACTIONS - 1}")
        if not (0 <= a < NUM_ACTIONS and self._legal >> a & 1):
            legal = " ".join(action_str(x) for x in range(NUM_ACTIONS) if self._legal >> x & 1)
            shown = action_str(a) if 0 <= a < NUM_ACTIONS else "out of range"
            raise ValueError(f"illegal action {a} ({shown}) for {agent}; legal: {legal}")
        self._cumulative_rewards[agent] = 0
        if self.infos[agent]:
            self.infos[agent] = {}
        if self._rewards_dirty:
            self.rewards = dict.fromkeys(self.agents, 0)
            self._rewards_dirty = False
        self._action[0] = a
        s = self._core_state
        self._hand_actions.append(a)
        self.game.step(s, self._action)
        if s.done[0]:
            self._hand_over(self._seat[agent])
        else:
            self._sync()
        if self._rewards_dirty:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _hand_over(self, last_seat: int) -> None:
        s = self._core_state
        res = self._scoring.hand_over(s, np.zeros(1, np.intp))
        rewards = res["rewards"][0]
        for agent, seat in self._seat.items():
            self.rewards[agent] = float(rewards[seat])
        self._rewards_dirty = bool(rewards.any())
        info = hand_info(res, 0)
        # Untimed: an info depends only on the seed and the actions (PettingZoo's seed_test).
        self._record = finished_record(self.rules, self._hand_deal, self.players, self._hand_actions, s, timed=False,
                                       match=self._match_id, hand=info["hand"])
        record = self._record.to_dict()
        for agent in self.agents:
            self.infos[agent] = copy.deepcopy(info)
            self.infos[agent]["record"] = record
        if res["episode_over"][0]:
            self.terminations = dict.fromkeys(self.agents, True)
            self._sync()
            # Everyone is done: the dead steps go round from the seat after the last actor.
            self.agent_selection = self.possible_agents[(last_seat + 1) % self.rules.num_players]
        else:
            self.game.reset_done(s, self._rng)  # the next seat deals (R2)
            self._start_record()
            self._sync()

    # -- records -------------------------------------------------------------------------------
    def _start_record(self) -> None:
        self._hand_deal, self._hand_actions = deal_at_start(self.rules, self._core_state), []

    def record(self) -> Record | None:
        """The game record (:class:`tute_env.play.records.Record`) of the last hand finished since
        :meth:`reset`, None before one ends; ``record().to_dict()`` is the info's ``"record"``."""
        return self._record

    # -- observations --------------------------------------------------------------------------
    def _observation(self, seat: int) -> np.ndarray:
        cached = self._obs_cache.get(seat)
        if cached is None or cached[0] != self._version:
            cached = (self._version, encode_observation(self.rules, self._core_state, seat)[0])
            self._obs_cache[seat] = cached
        return cached[1]

    def _mask(self) -> np.ndarray:
        version, mask = self._mask_cache
        if version != self._version:
            bits = np.array([self._legal], dtype="<u8").view(np.uint8)
            mask = np.unpackbits(bits, bitorder="little")[:NUM_ACTIONS].view(np.int8)
            self._mask_cache = (self._version, mask)
        return mask

    def observe(self, agent):
        seat = self._seat[agent]
        acting = self._current == seat
        return {
            "observation": self._observation(seat).copy(),
            "action_mask": self._mask().copy() if acting else np.zeros(NUM_ACTIONS, np.int8),
        }

    def state(self) -> np.ndarray:
        seat = max(self._current, 0)
        return encode_perfect_information(self.rules, self._core_state, seat)[0]

    # -- snapshots -----------------------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        """A snapshot of the environment (picklable); :meth:`set_state` restores it."""
        if self._core_state is None:
            raise ValueError("get_state() before reset(): there is no game to snapshot")
        return copy.deepcopy(
            {
                "rules": self.rules,
                "episode": self.episode,
                "reward": self.reward_kind,
                "core": self._core_state,
                "scoring": (self._scoring.match_games, self._scoring.match_points, self._scoring.hands),
                "rng": self._rng.bit_generator.state,
                "agents": self.agents,
                "rewards": self.rewards,
                "cumulative_rewards": self._cumulative_rewards,
                "terminations": self.terminations,
                "truncations": self.truncations,
                "infos": self.infos,
                "agent_selection": self.agent_selection,
                "skip_agent_selection": getattr(self, "_skip_agent_selection", None),
                "rewards_dirty": self._rewards_dirty,
                "recording": (self.players, self._hand_deal, self._hand_actions, self._record, self._match_id),
            }
        )

    def set_state(self, snapshot: dict[str, Any]) -> None:
        """Restore a :meth:`get_state` snapshot of an env with the same rules and episode kind."""
        if not isinstance(snapshot, Mapping) or "core" not in snapshot:
            raise ValueError("set_state() expects a snapshot from get_state()")
        for key, mine in (("rules", self.rules), ("episode", self.episode), ("reward", self.reward_kind)):
            if snapshot[key] != mine:
                raise ValueError(f"set_state(): the snapshot's {key} {snapshot[key]!r} differ from this env's {mine!r}")
        snap = copy.deepcopy(snapshot)
        self._core_state = snap["core"]
        self._scoring.match_games, self._scoring.match_points, self._scoring.hands = snap["scoring"]
        if self._rng is None:
            self._rng = np.random.default_rng()
        self._rng.bit_generator.state = snap["rng"]
        self.agents = snap["agents"]
        self.rewards = snap["rewards"]
        self._cumulative_rewards = snap["cumulative_rewards"]
        self.terminations = snap["terminations"]
        self.truncations = snap["truncations"]
        self.infos = snap["infos"]
        self._skip_agent_selection = snap["skip_agent_selection"]
        self._rewards_dirty = snap["rewards_dirty"]
        self.players, self._hand_deal, self._hand_actions, self._record, self._match_id = snap["recording"]
        self._sync()
        self.agent_selection = snap["agent_selection"]

    def __getstate__(self):
        pickled = EzPickle.__getstate__(self)
        pickled["tute_snapshot"] = self.get_state() if self._core_state is not None else None
        return pickled

    def __setstate__(self, pickled):
        EzPickle.__setstate__(self, pickled)
        if pickled.get("tute_snapshot") is not None:
            self.set_state(pickled["tute_snapshot"])

    # -- rendering -----------------------------------------------------------------------------
    def render(self):
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self._renderer is None:
            self._renderer = EnvRenderer(self.render_mode, self.show_all_hands, self.metadata["render_fps"], self.plain,
                                         self.lang)
        return self._renderer.render(self.rules, self._core_state, self._scoring)

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None


def _register() -> None:
    """Register ``tute_env/tute_v0`` in PettingZoo's registry (``pettingzoo.make("aec", ...)``)."""
    try:
        from pettingzoo.env_registry.registration import aec_registry, parallel_registry, register
    except ImportError:  # older PettingZoo without a registry
        return
    if "tute_env/tute-v0" not in aec_registry:
        register("aec", "tute_env/tute_v0", entry_point="tute_env.envs.tute_v0:env")
    if "tute_env/tute-v0" not in parallel_registry:
        register("parallel", "tute_env/tute_v0", entry_point="tute_env.envs.tute_v0:parallel_env")


_register()


if __name__ == "__main__":
    print(DOC_HEADER + __doc__.strip())
