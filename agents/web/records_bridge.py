"""The few lines between the web table and game records ("tute-record/1", JSON Lines).

TEMPORARY: ``tute_env/records.py`` (the record dataclass, a table-hook recorder,
``load_records(path)`` and a replay through the core) is being written on another branch. When it
lands, switch these three functions to its functions and delete this module; nothing else in
``agents.web`` knows the format.

* :func:`record_of_hand`: the record of one finished hand played at the web table;
* :func:`parse_record_file`: the records of a ``.jsonl`` text, errors naming the line and field;
* :func:`replay_states`: the states of a record's hand, step by step, through the core (which
  checks every action's legality).

A record: ``format`` "tute-record/1", ``variant`` (preset), ``rules`` (every ``Rules`` field),
``deal`` (``Deal.to_dict()``), ``players`` (label per seat), ``actions`` (action strings),
``result`` {``points``, ``winner``, ``games``}; optional ``match``, ``hand``, ``seed``, ``time``,
``version``.
"""

from __future__ import annotations

import dataclasses
import json
import time as _time

from tute_env.cards import action_id
from tute_env.core import Game, State
from tute_env.deal import Deal
from tute_env.rules import Rules

FORMAT = "tute-record/1"
_REQUIRED = ("format", "variant", "rules", "deal", "players", "actions", "result")


def record_of_hand(rules: Rules, variant: str, deal: Deal, players: list[str], actions: list[str], state: State,
                   **extra) -> dict:
    """The record of a finished hand (``state``: its final one-game state); ``extra``: the optional
    fields (``match``, ``hand``, ``seed``, ...)."""
    rec = {
        "format": FORMAT,
        "variant": variant,
        "rules": dataclasses.asdict(rules),
        "deal": deal.to_dict(),
        "players": list(players),
        "actions": list(actions),
        "result": {
            "points": [int(x) for x in state.totals[0]],
            "winner": int(state.winner[0]),
            "games": int(state.games[0]),
        },
        "time": _time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    rec.update({k: v for k, v in extra.items() if v is not None})
    return rec


def parse_record_file(text: str) -> list[dict]:
    """The records of a JSON Lines text (blank lines skipped), each replayed through the core.
    Raises ``ValueError`` naming the line and the field of the first problem."""
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"line {number}: not JSON ({err.msg} at column {err.colno})") from None
        try:
            replay_states(rec)
        except ValueError as err:
            raise ValueError(f"line {number}: {err}") from None
        records.append(rec)
    if not records:
        raise ValueError("no records: expected one JSON object per line (tute-record/1)")
    return records


def replay_states(record: dict) -> list[State]:
    """The one-game states of a record's hand: before the first action, then after each action.
    Raises ``ValueError`` naming the field at fault."""
    if not isinstance(record, dict):
        raise ValueError("a record must be a JSON object")
    missing = [key for key in _REQUIRED if key not in record]
    if missing:
        raise ValueError(f"missing field(s) {missing}")
    if record["format"] != FORMAT:
        raise ValueError(f"field 'format': {record['format']!r} is not {FORMAT!r}")
    if not isinstance(record["rules"], dict):
        raise ValueError("field 'rules': expected an object of rule options")
    try:
        rules = Rules(**record["rules"])
    except TypeError as err:
        raise ValueError(f"field 'rules': {err}") from None
    except ValueError as err:
        raise ValueError(f"field 'rules': {err}") from None
    if not isinstance(record["deal"], dict):
        raise ValueError("field 'deal': expected an object")
    try:
        deal = Deal.from_dict(record["deal"], rules)
    except (ValueError, TypeError) as err:
        raise ValueError(f"field 'deal': {err}") from None
    players, actions = record["players"], record["actions"]
    if not isinstance(players, list) or len(players) != rules.num_players or not all(
            isinstance(p, str) for p in players):
        raise ValueError(f"field 'players': expected {rules.num_players} labels (strings)")
    if not isinstance(actions, list):
        raise ValueError("field 'actions': expected a list of action strings")
    game = Game(rules)
    state = game.new_state([deal])
    states = [state.copy()]
    for k, text in enumerate(actions):
        if not isinstance(text, str):
            raise ValueError(f"field 'actions'[{k}]: {text!r} is not an action string")
        if state.done[0]:
            raise ValueError(f"field 'actions'[{k}] {text!r}: the hand is already over")
        try:
            action = action_id(text)
            game.step(state, [action])
        except ValueError as err:
            raise ValueError(f"field 'actions'[{k}] {text!r}: {err}") from None
        states.append(state.copy())
    return states
