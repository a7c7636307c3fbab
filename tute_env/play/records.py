"""Game records: one finished hand as a JSON object, format ``"tute-record/1"`` (docs/records.md).

>>> recorder = Recorder(rules, players=["heuristic", "greedy"], on_record=RecordWriter("games.jsonl"))
>>> seating = Seating(game, policies, seats, hooks=[recorder])     # the recorder sees every action
>>> seating.advance(state)
>>> recorder.end(state)                                          # the finished hands become records
>>> records = load_records("games.jsonl")                        # validated and replayed
>>> states = replay(records[0])                                  # through the core, action by action

* :class:`Record`: the fields of the format (the rules, the deal, a label per seat, the actions
  as action strings, the result, optional match / hand / seed / time / version / meta);
  :meth:`Record.from_dict` validates a record and names the field that is wrong.
* :class:`Recorder`: a table action hook (``tute_env.play.seating``) that records B games at once,
  lanes dealt anew included; :meth:`Recorder.end` turns the hands that ended into records.
* :func:`replay` plays a record again through the core (every action checked by the core's own
  legality) and returns the states; :func:`check` also compares the result; :func:`check_records`
  does that for many records in one batch; :func:`load_records` reads a JSON Lines file, each
  error naming the line and the field.

Nothing here applies a rule: the core does (``Game.new_state``, ``Game.step``, ``State.legal``).
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..engine.cards import NUM_ACTIONS, action_id, action_str, is_int, unpack_sets
from ..engine.core import Game, State
from ..engine.deal import Deal
from ..engine.rules import Rules, nearest_preset, option_names

__all__ = ["FORMAT", "Record", "RecordError", "RecordWriter", "Recorder", "check", "check_records", "deal_at_start",
           "finished_record", "load_records", "parse_records", "replay", "user_data_dir"]

FORMAT = "tute-record/1"
#: The fields every record has, in the order they are written.
REQUIRED = ("format", "variant", "rules", "deal", "players", "actions", "result")
#: The optional fields (absent, or null, when unknown).
OPTIONAL = ("match", "hand", "seed", "time", "version", "meta")
RESULT_KEYS = ("points", "winner", "games")


class RecordError(ValueError):
    """A malformed record: the message names the line (when read from a file) and the field."""

    def __init__(self, field_name: str | None, message: str, line: int | None = None, source: str | None = None):
        self.field, self.line, self.reason, self.source = field_name, line, message, source
        where = " ".join(x for x in (source, f"line {line}" if line is not None else None) if x)
        parts = [where] if where else []
        parts += [f"field '{field_name}'"] if field_name else []
        super().__init__(": ".join([*parts, message]))

    def at_line(self, line: int, source: str | None = None) -> RecordError:
        return RecordError(self.field, self.reason, line, source or self.source)


@dataclass
class Record:
    """One finished hand. ``actions`` are action strings (``tute_env.engine.cards.action_str``) in the
    order played; ``result`` is ``{"points": [per side], "winner": side, "games": n}``."""

    rules: Rules
    deal: Deal
    players: list[str]
    actions: list[str]
    result: dict
    variant: str = ""
    match: str | None = None
    hand: int | None = None
    seed: int | None = None
    time: str | None = None
    version: str | None = None
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        if not self.variant:
            self.variant = nearest_preset(self.rules)

    @property
    def action_ids(self) -> list[int]:
        return [action_id(a) for a in self.actions]

    def to_dict(self) -> dict:
        """The record as the JSON object of the format (optional fields only when set)."""
        out = {
            "format": FORMAT,
            "variant": self.variant,
            "rules": dataclasses.asdict(self.rules),
            "deal": self.deal.to_dict(),
            "players": list(self.players),
            "actions": list(self.actions),
            "result": {"points": [int(x) for x in self.result["points"]], "winner": int(self.result["winner"]),
                       "games": int(self.result["games"])},
        }
        for name in OPTIONAL:
            value = getattr(self, name)
            if value is not None and value != {}:
                out[name] = value
        return out

    def to_json(self) -> str:
        """One line of JSON (no newline)."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Record:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise RecordError(None, f"not valid JSON ({err})") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Mapping) -> Record:
        """A record from its JSON object, every field checked (the rules, the deal and the action
        strings; not the play itself: :func:`check` replays it). Raises :class:`RecordError`
        naming the field."""
        if not isinstance(data, Mapping):
            raise RecordError(None, f"a record is a JSON object, got {type(data).__name__}")
        unknown = sorted(set(data) - set(REQUIRED) - set(OPTIONAL))
        if unknown:
            raise RecordError(unknown[0], f"unknown field; a record has {', '.join(REQUIRED + OPTIONAL)}")
        for name in REQUIRED:
            if name not in data:
                raise RecordError(name, "missing")
        if data["format"] != FORMAT:
            raise RecordError("format", f"{data['format']!r} is not {FORMAT!r}")
        _expect("variant", data["variant"], str)
        rules = _rules_of(data["rules"])
        deal = data["deal"]
        if not isinstance(deal, Mapping):
            raise RecordError("deal", "expected an object with dealer, hands, trump_card (and stock)")
        try:
            deal = Deal.from_dict(deal, rules)
        except (ValueError, TypeError) as err:
            raise RecordError("deal", str(err)) from None
        players = data["players"]
        if not isinstance(players, list) or len(players) != rules.num_players or not all(
                isinstance(p, str) for p in players):
            raise RecordError("players", f"expected a list of {rules.num_players} strings (one label per seat), "
                                         f"got {players!r}")
        actions = data["actions"]
        _expect("actions", actions, list)
        for k, a in enumerate(actions):
            try:
                action_id(a)
            except (ValueError, TypeError) as err:
                raise RecordError("actions", f"action {k}: {err}") from None
        optional = {name: data.get(name) for name in OPTIONAL}
        for name, kind in (("match", str), ("hand", int), ("seed", int), ("time", str), ("version", str),
                           ("meta", dict)):
            if optional[name] is not None:
                _expect(name, optional[name], kind)
        if optional["meta"] is None:
            optional["meta"] = {}
        return cls(rules=rules, deal=deal, players=list(players), actions=list(actions),
                   result=_result_of(data["result"], rules), variant=data["variant"], **optional)


def _expect(name: str, value, kind: type) -> None:
    if not (is_int(value) if kind is int else isinstance(value, kind)):
        raise RecordError(name, f"expected {'an' if kind is int else 'a'} {kind.__name__}, got {value!r}")


def _rules_of(spec) -> Rules:
    if not isinstance(spec, Mapping):
        raise RecordError("rules", "expected an object with every rule option")
    names = option_names()
    for name in names:
        if name not in spec:
            raise RecordError(f"rules.{name}", "missing (a record names every rule option)")
    unknown = sorted(set(spec) - set(names))
    if unknown:
        raise RecordError(f"rules.{unknown[0]}", f"unknown rule option; options are {', '.join(names)}")
    try:
        return Rules(**spec)
    except ValueError as err:
        raise RecordError("rules", str(err)) from None


def _result_of(spec, rules: Rules) -> dict:
    if not isinstance(spec, Mapping):
        raise RecordError("result", "expected an object with points, winner, games")
    for key in RESULT_KEYS:
        if key not in spec:
            raise RecordError(f"result.{key}", "missing")
    unknown = sorted(set(spec) - set(RESULT_KEYS))
    if unknown:
        raise RecordError(f"result.{unknown[0]}", "unknown key; a result has points, winner, games")
    points, winner, games = spec["points"], spec["winner"], spec["games"]
    if not isinstance(points, list) or len(points) != rules.num_sides or not all(
            is_int(p) for p in points):
        raise RecordError("result.points", f"expected {rules.num_sides} integers (one per side), got {points!r}")
    _expect("result.winner", winner, int)
    if not 0 <= winner < rules.num_sides:
        raise RecordError("result.winner", f"{winner} is not a side 0..{rules.num_sides - 1}")
    _expect("result.games", games, int)
    return {"points": list(points), "winner": winner, "games": games}


@functools.lru_cache(maxsize=1)
def project_version() -> str | None:
    """The installed tute_env version (None if it is not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tute_env")
    except PackageNotFoundError:
        return None


def user_data_dir() -> Path:
    """Where the commands keep a user's files (tute-play's history, tute-evaluate's ladder):
    ``$XDG_DATA_HOME/tute_env``, by default ``~/.local/share/tute_env``."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "tute_env"


def now_utc() -> str:
    """The time field: ISO 8601, UTC, to the second (``2026-12-01T10:20:30Z``)."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# ----------------------------------------------------------------------------------------------
# Writing: the recorder hook and a JSON Lines writer
# ----------------------------------------------------------------------------------------------
def deal_at_start(rules: Rules, state: State, lane: int = 0) -> Deal:
    """The deal of game ``lane`` read from a state at the start of its hand (before any action:
    play moves cards, an exchange swaps the turned card). Hands are listed by card id."""
    n = rules.num_players
    return Deal(
        dealer=int(state.dealer[lane]),
        hands=tuple(tuple(np.flatnonzero(held).tolist()) for held in unpack_sets(state.hands[lane, :n])),
        trump_card=int(state.turned_card[lane]),
        stock=tuple(int(c) for c in state.stock[lane]),
    )


def at_start(state: State, lanes: np.ndarray) -> np.ndarray:
    """(len(lanes),) bool: the games whose hand has not started (no card played, no exchange):
    the next action is the hand's first."""
    return (state.tricks_played[lanes] == 0) & (state.trick_size[lanes] == 0) & ~state.exchanged[lanes]


def finished_record(rules: Rules, deal: Deal, players: Sequence[str], actions: Iterable[int], state: State,
                    lane: int = 0, timed: bool = True, **optional) -> Record:
    """The record of a hand played from ``deal`` with ``actions`` (ids), over in game ``lane`` of
    ``state`` (its result is the core's), stamped with the project version and, if ``timed``,
    the time; ``optional``: ``variant`` and the optional fields."""
    result = {"points": state.totals[lane].tolist(), "winner": int(state.winner[lane]), "games": int(state.games[lane])}
    return Record(rules=rules, deal=deal, players=list(players), actions=[action_str(a) for a in actions],
                  result=result, time=now_utc() if timed else None, version=project_version(), **optional)


@dataclass
class _Hand:
    deal: Deal
    players: list[str]
    extra: dict
    actions: list[int] = field(default_factory=list)


class Recorder:
    """An action hook (``hook(state, lanes, actions)``, see :mod:`tute_env.play.seating`) that records
    every hand played in B games.

    A lane's hand is recorded from its first action on: the deal is read from the state the
    hook is called with when the next action is the hand's first (:func:`at_start`), which is
    also how a lane dealt anew (``Seating.advance(on_done=...)``, ``Game.reset_done``) starts a
    new record; a hand the recorder joined in the middle is not recorded. The hooks are called
    before actions are applied, so the end of a hand is the caller's to report:
    :meth:`end` (``state``, the finished lanes) makes their records from the core's result.
    A hand never reported is dropped when its lane is dealt anew.

    ``players``: the label of each seat (the same in every lane), or ``players(lane)`` giving
    them; ``describe(lane)``: optional fields of the lane's record (``match``, ``hand``,
    ``seed``, ``meta``); both are asked when the hand starts. ``on_record(record)`` receives
    each record; without it they collect in :attr:`records`. ``variant``: the preset name the
    records give (default :func:`tute_env.engine.rules.nearest_preset`).
    """

    def __init__(self, rules: Rules, players: Sequence[str] | Callable[[int], Sequence[str]] | None = None,
                 on_record: Callable[[Record], object] | None = None, variant: str | None = None,
                 describe: Callable[[int], dict] | None = None):
        self.rules = rules
        self.variant = variant or nearest_preset(rules)
        self.players = players if players is not None else [f"player_{i}" for i in range(rules.num_players)]
        self.on_record, self.describe = on_record, describe
        self.records: list[Record] = []
        self._hands: dict[int, _Hand] = {}

    def __call__(self, state: State, lanes: np.ndarray, actions: np.ndarray) -> None:
        lanes = np.asarray(lanes)
        for lane in lanes[at_start(state, lanes)].tolist():
            players = self.players(lane) if callable(self.players) else self.players
            extra = self.describe(lane) if self.describe is not None else {}
            self._hands[lane] = _Hand(deal_at_start(self.rules, state, lane), [str(p) for p in players], dict(extra))
        hands = self._hands
        for lane, action in zip(lanes.tolist(), np.asarray(actions).tolist()):
            hand = hands.get(lane)
            if hand is not None:
                hand.actions.append(action)

    def end(self, state: State, lanes: Iterable[int] | None = None) -> list[Record]:
        """Records of the hands over in ``lanes`` (default: every finished lane with a hand being
        recorded), from the results in ``state``; passed to ``on_record`` and returned. Lanes
        whose hand is not over are left alone."""
        lanes = np.flatnonzero(state.done) if lanes is None else np.asarray(list(lanes), dtype=np.intp)
        out = []
        for lane in lanes.tolist():
            if not state.done[lane] or lane not in self._hands:
                continue
            hand = self._hands.pop(lane)
            record = finished_record(self.rules, hand.deal, hand.players, hand.actions, state, lane,
                                     variant=self.variant, **hand.extra)
            out.append(record)
            if self.on_record is not None:
                self.on_record(record)
            else:
                self.records.append(record)
        return out

    def forget(self, lanes: Iterable[int] | None = None) -> None:
        """Drop the hands being recorded in ``lanes`` (default: all), e.g. a game abandoned."""
        if lanes is None:
            self._hands.clear()
            return
        for lane in np.asarray(lanes).reshape(-1).tolist():
            self._hands.pop(int(lane), None)


class RecordWriter:
    """Writes records as JSON Lines; a callable, so it serves as ``Recorder(on_record=...)``.
    ``mode``: ``"w"`` (a new file) or ``"a"`` (append). Each record is flushed as written.
    ``limit``: write at most this many records (a sample), ignore the rest."""

    def __init__(self, path: str | Path, mode: str = "w", limit: int | None = None):
        self.path, self.limit, self.written = Path(path), limit, 0
        self._file = open(self.path, mode, encoding="utf-8")

    def __call__(self, record: Record) -> None:
        self.write(record)

    def write(self, record: Record) -> None:
        if self.limit is not None and self.written >= self.limit:
            return
        self._file.write(record.to_json() + "\n")
        self._file.flush()
        self.written += 1

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ----------------------------------------------------------------------------------------------
# Reading and replaying: through the core
# ----------------------------------------------------------------------------------------------
def _play_out(rules: Rules, deals: Sequence[Deal], actions: Sequence[Sequence[int]], states: list | None = None):
    """Play action sequences from deals through the core, one lane each, all at once. Returns
    the final state and per lane None or what went wrong (an illegal action, an action after
    the hand ended, a hand the actions leave unfinished). With ``states`` (one lane), appends
    the state before the first action and after each."""
    game = Game(rules)
    state = game.new_state(list(deals))
    size = len(deals)
    lengths = np.array([len(a) for a in actions], dtype=np.int64)
    table = np.zeros((size, max(1, int(lengths.max(initial=0)))), dtype=np.int64)
    for lane, seq in enumerate(actions):
        table[lane, : len(seq)] = seq
    errors: list[str | None] = [None] * size
    alive = np.ones(size, bool)
    if states is not None:
        states.append(state.copy())
    for t in range(int(lengths.max(initial=0))):
        acts = table[:, t]
        active = alive & (lengths > t)
        for lane in np.flatnonzero(active & state.done):
            errors[lane] = f"action {t} ({action_str(int(acts[lane]))}) comes after the hand ended"
        active &= ~state.done
        legal = (state.legal >> acts.astype(np.uint64)) & np.uint64(1)
        for lane in np.flatnonzero(active & (legal == 0)):
            allowed = " ".join(action_str(a) for a in range(NUM_ACTIONS) if int(state.legal[lane]) >> a & 1)
            errors[lane] = (f"action {t} ({action_str(int(acts[lane]))}) is illegal for seat "
                            f"{int(state.current[lane])}; legal: {allowed}")
        active &= legal == 1
        alive &= active | (lengths <= t)  # a lane that went wrong at t plays no further
        game.step(state, acts, active=active)
        if states is not None:
            states.append(state.copy())
    for lane in np.flatnonzero(alive & ~state.done):
        errors[lane] = (f"the hand is not over after the {int(lengths[lane])} actions "
                        f"(seat {int(state.current[lane])} to act)")
    return state, errors


def _result_error(record: Record, state: State, lane: int) -> str | None:
    got = {"points": state.totals[lane].tolist(), "winner": int(state.winner[lane]), "games": int(state.games[lane])}
    if got != {k: record.result[k] for k in RESULT_KEYS}:
        return f"the replay gives {got}, the record says {record.result}"
    return None


def replay(record: Record) -> list[State]:
    """The hand played again through the core: the states (batches of one game) before the first
    action and after each, ``len(record.actions) + 1`` of them. Raises :class:`RecordError`
    (field ``actions``) at an illegal action or if the actions do not finish the hand."""
    states: list[State] = []
    _, errors = _play_out(record.rules, [record.deal], [record.action_ids], states)
    if errors[0]:
        raise RecordError("actions", errors[0])
    return states


def check(record: Record) -> State:
    """Replay ``record`` and compare the result; returns the final state. Raises
    :class:`RecordError` naming ``actions`` or ``result``."""
    return check_records([record])


def check_records(records: Sequence[Record], lines: Sequence[int] | None = None) -> State | None:
    """:func:`check` many records, those of the same rules in one batch on the core. The first
    bad record raises (with its line from ``lines``, if given). Returns the final state of a
    single record (None for several)."""
    groups: dict[Rules, list[int]] = {}
    for k, record in enumerate(records):
        groups.setdefault(record.rules, []).append(k)
    state = None
    bad: list[tuple[int, RecordError]] = []
    for rules, members in groups.items():
        state, errors = _play_out(rules, [records[k].deal for k in members], [records[k].action_ids for k in members])
        for lane, k in enumerate(members):
            if errors[lane]:
                bad.append((k, RecordError("actions", errors[lane])))
            elif (message := _result_error(records[k], state, lane)) is not None:
                bad.append((k, RecordError("result", message)))
    if bad:
        k, err = min(bad, key=lambda x: x[0])
        raise err.at_line(lines[k]) if lines is not None else err
    return state if len(records) == 1 else None


def parse_records(text_lines: Iterable[str], check_play: bool = True) -> list[Record]:
    """Records from JSON Lines (blank lines skipped), validated, and replayed with
    ``check_play``; a :class:`RecordError` names the line (from 1) and the field."""
    records, lines = [], []
    for number, text in enumerate(text_lines, start=1):
        if not text.strip():
            continue
        try:
            records.append(Record.from_json(text))
        except RecordError as err:
            raise err.at_line(number) from None
        lines.append(number)
    if check_play and records:
        check_records(records, lines)
    return records


def load_records(path: str | Path, check_play: bool = True) -> list[Record]:
    """The records of a JSON Lines file (:func:`parse_records`). A missing or unreadable file
    raises ``OSError``; a malformed record a :class:`RecordError` (a ``ValueError``) that starts
    with the file, the line and the field."""
    with open(path, encoding="utf-8") as f:
        try:
            return parse_records(f, check_play)
        except RecordError as err:
            raise err.at_line(err.line, str(path)) from None
