"""The web table's games and replays, without the web: what the server keeps and what it sends.

A :class:`WebGame` is one person's game against the bots: one :class:`~tute_env.play.seating.Seating`
with the person as the ``LEARNER`` seat, the bots acting through it; a hook of the table sees
every action (the person's and the bots'), which gives the record's action list and the list
of moves the page reveals one by one. Legality is the core's: the legal actions sent are the
core's mask, and an action the person sends is checked by the table before it is applied.

Views are JSON-ready dicts. While a hand is played, a view holds the person's information
only (their hand, cards publicly known in other hands, the trick, the tricks so far, cantes,
scores); every hand is shown once the hand is over, and in replays.
"""

from __future__ import annotations

import secrets
import threading
import weakref

import numpy as np

from agents.base import MissingExtra, shipped_presets
from tute_env.engine.cards import (
    CARD_POINTS,
    CARD_STRENGTH,
    DECISION_KINDS,
    EXCHANGE,
    NUM_CARDS,
    NUM_FACES,
    PASS,
    SING_BASE,
    SUIT_NAMES,
    SUITS,
    TUTE,
    action_id,
    action_str,
    card_str,
    cards_of,
    is_int,
)
from tute_env.engine.core import Game, State
from tute_env.engine.deal import random_deals
from tute_env.engine.rules import PRESETS, Rules
from tute_env.engine.scoring import Scoring
from tute_env.play.records import Record, deal_at_start, finished_record, parse_records, replay
from tute_env.play.seating import LEARNER, Seating
from tute_env.search.analysis import seat_losses
from tute_play.narrate import describe_action, games_won, hand_summary, match_over_text, narrate, side_label
from tute_play.words import LANGS, move_name, player_name, who, word

from ..analyze import DEFAULT_POINT_WEIGHT, analyze
from ..levels import LEVELS, NETWORK_LEVELS, level_spec, make_bots
from .page_words import PAGE_WORDS

#: How many games the server keeps; the least recently used is dropped beyond this.
MAX_GAMES = 64
#: How many hands one game keeps (its records); then the person starts a new game.
MAX_HANDS = 100


class BadRequest(ValueError):
    """A request the server refuses, with its message (HTTP ``status``). A refusal a person at the
    page may meet is made by :meth:`said`: it carries the page's word for it (``key``, ``params``),
    which the page shows in its language; the others (requests the page never sends) are English."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status
        self.key: str | None = None
        self.params: dict = {}

    @classmethod
    def said(cls, key: str, status: int = 400, **params) -> BadRequest:
        """The refusal ``err_<key>`` of :data:`~tute_play.web.page_words.PAGE_WORDS`, its English the message."""
        error = cls(PAGE_WORDS["en"][f"err_{key}"].format(**params), status)
        error.key, error.params = key, {k: str(v) for k, v in params.items()}
        return error


# ----------------------------------------------------------------------------------------------
# What happened in a hand
# ----------------------------------------------------------------------------------------------
def _cards(mask) -> list[str]:
    """Card strings of a set, by suit, strongest first."""
    cards = sorted(cards_of(int(mask)), key=lambda c: (c // NUM_FACES, -CARD_STRENGTH[c]))
    return [card_str(c) for c in cards]


def _kind(action: int) -> str:
    if action < NUM_CARDS:
        return "card"
    if action < TUTE:
        return "sing"
    return {TUTE: "tute", EXCHANGE: "exchange", PASS: "pass"}[action]


class HandLog:
    """One hand's story, from the actions the table applies: the record's action strings, the
    completed tricks, the cantes in the order sung. ``observe`` is called with the state before
    and after each action and returns the event describing it."""

    def __init__(self, rules: Rules, you: int | None, lang: str = "en"):
        self.rules, self.you, self.lang = rules, you, lang
        self.actions: list[str] = []
        self.tricks: list[dict] = []
        self.cantes: list[dict] = []

    def observe(self, before: State, action: int, after: State) -> dict:
        seat = int(before.current[0])
        self.actions.append(action_str(action))
        text = narrate(self.rules, seat, action, before, you=self.you, lang=self.lang)
        if SING_BASE <= action < TUTE:
            suit = action - SING_BASE
            self.cantes.append({"seat": seat, "suit": SUITS[suit],
                                "points": 40 if suit == int(before.trump[0]) else 20})
        elif action == TUTE:
            self.cantes.append({"seat": seat, "suit": None, "points": None, "tute": True})
        if action < NUM_CARDS and after.tricks_played[0] > before.tricks_played[0]:
            n = self.rules.num_players
            leader = int(before.trick_leader[0])
            cards = {**{s: int(before.trick[0, s]) for s in range(n)}, seat: action}
            winner = int(after.last_winner[0])
            points = int(sum(CARD_POINTS[c] for c in cards.values()))
            self.tricks.append({
                "number": len(self.tricks) + 1,
                "cards": [{"seat": (leader + k) % n, "card": card_str(cards[(leader + k) % n])} for k in range(n)],
                "winner": winner,
                "points": points,
            })
            text += word(self.lang, "takes_you" if winner == self.you else "takes",
                         who=who(self.lang, winner, None), points=points)
        return {"seat": seat, "action": action_str(action), "name": move_name(self.lang, action), "kind": _kind(action),
                "text": text}


def table_view(rules: Rules, state: State, log: HandLog, viewer: int | None, show_all: bool) -> dict:
    lang = log.lang
    """What the page draws: ``viewer``'s information (every hand with ``show_all``)."""
    s, n = state, rules.num_players
    done = bool(s.done[0])
    reveal = show_all or done
    trump = int(s.trump[0])
    players = []
    for seat in range(n):
        hand = int(s.hands[0, seat])
        visible = reveal or seat == viewer
        players.append({
            "seat": seat,
            "side": rules.side_of(seat),
            "count": hand.bit_count(),
            "hand": _cards(hand) if visible else None,
            "known": _cards(int(s.known[0, seat]) & hand),
            "dealer": seat == int(s.dealer[0]),
        })
    leader = int(s.trick_leader[0])
    trick = [{"seat": (leader + k) % n, "card": card_str(int(s.trick[0, (leader + k) % n]))}
             for k in range(n) if s.trick[0, (leader + k) % n] >= 0]
    scores = []
    for side in range(rules.num_sides):
        scores.append({
            "side": side,
            "seats": [x for x in range(n) if rules.side_of(x) == side],
            "cards": int(s.card_points[0, side]),
            "cantes": int(s.cante_points[0, side]),
            "last": int(s.last_trick_bonus[0, side]),
            "total": int(s.totals[0, side]),
        })
    turned = int(s.turned_card[0])
    stock = 0
    if rules.has_stock:
        stock = max(int(s.to_draw[0]) - (1 if rules.turned_card_drawn and turned >= 0 else 0), 0)
    view = {
        "num_players": n,
        "partnerships": rules.partnerships,
        "viewer": viewer,
        "trump": SUITS[trump],
        "trump_name": SUIT_NAMES[trump],
        "turned_card": card_str(turned) if turned >= 0 else None,
        "turned_label": "shown card" if rules.partnerships else "turned card",
        "has_stock": rules.has_stock,
        "stock": stock,
        "tricks_played": int(s.tricks_played[0]),
        "num_tricks": rules.num_tricks,
        "current": int(s.current[0]),
        "decision": DECISION_KINDS[int(s.decision[0])] if not done else None,
        "players": players,
        "trick": trick,
        "tricks": list(log.tricks),
        "cantes": list(log.cantes),
        "scores": scores,
        "done": done,
        "result": None,
    }
    if done:
        view["result"] = {
            "points": [int(x) for x in s.totals[0]],
            "winner": int(s.winner[0]),
            "games": int(s.games[0]),
            "tute": int(s.tute_declarer[0]) >= 0,
            "text": hand_summary(rules, s, viewer, lang),
            "winner_name": side_label(rules, int(s.winner[0]), None, lang),
        }
    return view


def legal_view(rules: Rules, game: Game, state: State, lang: str = "en") -> list[dict]:
    """The legal actions of the seat to act, from the core's mask, with words for each."""
    mask = game.legal_action_mask(state)[0]
    out = []
    for a in np.flatnonzero(mask):
        a = int(a)
        out.append({"action": action_str(a), "kind": _kind(a), "label": describe_action(rules, state, a, lang=lang)})
    return out


def prompt_text(view: dict, lang: str = "en") -> str:
    """The status line of the person's view: whose turn, what to do (the buttons offered too)."""
    if view["done"]:
        return word(lang, "p_over")
    if not view["legal"]:
        return word(lang, "p_waiting", who=who(lang, view["current"], None))
    decision = view["decision"]
    text = word(lang, {"lead": "p_lead", "follow": "p_follow", "declare": "p_declare"}[decision])
    cards = sum(a["kind"] == "card" for a in view["legal"])
    held = len(view["players"][view["seat"]]["hand"])
    if cards and cards < held:
        text += word(lang, "p_dimmed")
    others = [a["label"].split(": ", 1)[1] for a in view["legal"] if a["kind"] not in ("card", "pass")]
    if cards and others:
        text += word(lang, "p_or", what="; ".join(others))
    return text + "."


# ----------------------------------------------------------------------------------------------
# A game against the bots
# ----------------------------------------------------------------------------------------------
def short(value, limit: int = 40) -> str:
    """``repr(value)``, cut to ``limit`` characters: what an error message quotes of the input."""
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**limit else f"<an integer of {len(str(abs(value)))} digits>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _check_choice(name: str, value, choices) -> str:
    if not isinstance(value, str) or value not in choices:
        raise BadRequest(f"bad {name} {short(value)}: expected one of {sorted(choices)}")
    return value


class _WeakHook:
    """The table's action hook for a game, holding the game weakly: no reference cycle between
    the game and its table, so a dropped game is freed at once (not at the next full garbage
    collection), its bots' search state and the network's activations with it."""

    def __init__(self, game: WebGame):
        self.game = weakref.ref(game)

    def __call__(self, state, lanes, actions) -> None:
        game = self.game()
        if game is not None:
            game._hook(state, lanes, actions)


class WebGame:
    """One person (seat ``seat``) against bots of ``level`` in ``preset``: hands one after the
    other, scored as a match (R10) when ``match``; every finished hand becomes a record."""

    def __init__(self, preset="two_player", level="medium", seat=0, match=False, seed=None, lang="en"):
        self.preset = _check_choice("preset", preset, PRESETS)
        self.level = _check_choice("level", level, LEVELS)
        self.lang = _check_choice("lang", lang, LANGS)
        rules = self.rules = PRESETS[preset]
        if not is_int(seat, 0, rules.num_players - 1):
            raise BadRequest(f"bad seat {short(seat)}: expected an integer 0..{rules.num_players - 1}")
        if not isinstance(match, bool):
            raise BadRequest(f"bad match {short(match)}: expected true or false")
        if seed is None:
            seed = secrets.randbits(31)
        if not is_int(seed, 0, 2**31 - 1):
            raise BadRequest(f"bad seed {short(seed)}: expected an integer 0..2**31-1")
        if level in NETWORK_LEVELS and preset not in shipped_presets():
            raise BadRequest.said("no_network", level=level, preset=preset, shipped=", ".join(shipped_presets()))
        self.id = secrets.token_urlsafe(12)
        self.seat, self.match, self.seed = seat, match, seed
        self.lock = threading.Lock()
        self.game = Game(rules)
        try:
            bots = make_bots(rules, seat, level_spec(level, preset), None, seed)
        except MissingExtra as err:  # a network level on a server without torch
            raise BadRequest.said("no_torch", 501, detail=str(err)) from None
        self.labels = ["human" if x == seat else level_spec(level, preset) for x in range(rules.num_players)]
        order = sorted(bots)
        self.seating = Seating(self.game, [bots[x] for x in order],
                           [LEARNER if x == seat else order.index(x) for x in range(rules.num_players)],
                           hooks=[_WeakHook(self)])
        self.rng = np.random.default_rng(seed)
        self.scoring = Scoring(rules, "match", "win", 1)
        self.dealer = int(self.rng.integers(rules.num_players))
        self.records: list[dict] = []
        self.hands: list[dict] = []  # the scoreboard: one row per finished hand
        self.match_winner = -1
        self._deal()

    # -- playing -------------------------------------------------------------------------------
    def _deal(self) -> None:
        deals = random_deals(self.rules, self.rng, 1, self.dealer)
        self.deal = deals[0]
        self.state = self.game.new_state(deals, validate=False)
        self.deal = deal_at_start(self.rules, self.state)  # hands in card-id order, as records are written
        self.log = HandLog(self.rules, self.seat, self.lang)
        self.pending: list[tuple[State, int]] = []
        self.events: list[dict] = []
        self.seating.advance(self.state)
        self._flush()

    def _hook(self, state: State, lanes, actions) -> None:
        self.pending.append((state.copy(), int(actions[0])))

    def _flush(self) -> None:
        """Turn the actions the table applied into events, each with the view after it."""
        for k, (before, action) in enumerate(self.pending):
            after = self.pending[k + 1][0] if k + 1 < len(self.pending) else self.state
            event = self.log.observe(before, action, after)
            event["view"] = table_view(self.rules, after, self.log, self.seat, False)
            self.events.append(event)
        self.pending = []
        if self.state.done[0]:
            self._hand_over()

    def _hand_over(self) -> None:
        results = self.scoring.hand_over(self.state, np.zeros(1, np.intp))
        if self.match:
            self.match_winner = int(results["match_winner"][0])
        s, rules = self.state, self.rules
        score = self.scoring.match_points if rules.match == "target_points" else self.scoring.match_games
        self.hands.append({
            "hand": len(self.hands) + 1,
            "points": [int(x) for x in s.totals[0]],
            "winner": int(s.winner[0]),
            "winner_name": side_label(rules, int(s.winner[0]), self.seat, self.lang),
            "games": int(s.games[0]),
            "why": games_won(rules, s, 0, self.lang),
            "tute": int(s.tute_declarer[0]) >= 0,
            "score": [int(x) for x in score[0]],
        })
        if self.match_winner >= 0:
            self.seating = None  # the match is over: the bots (and what their search holds) go
        self.records.append(finished_record(
            self.rules, self.deal, self.labels, [action_id(a) for a in self.log.actions], self.state,
            variant=self.preset, match=self.id, hand=len(self.records), seed=self.seed).to_dict())

    def act(self, action) -> None:
        """The person's action (an action string); refused unless legal now."""
        if self.state.done[0]:
            raise BadRequest.said("hand_over", 409)
        if not isinstance(action, str):
            raise BadRequest(f"bad action {short(action)}: expected an action string such as 'Ao', 'sing-c', 'pass'")
        try:
            a = action_id(action[:20])
        except ValueError:
            raise BadRequest(f"bad action string {short(action)}: expected a card such as 'Ao', 'sing-c', "
                             "'tute', 'exchange' or 'pass'") from None
        if not int(self.state.legal[0]) >> a & 1:
            legal = " ".join(x["action"] for x in legal_view(self.rules, self.game, self.state, self.lang))
            raise BadRequest.said("illegal", 422, action=action, legal=legal)
        self.seating.step(self.state, np.array([a]))
        self.seating.advance(self.state)
        self._flush()

    def next_hand(self) -> None:
        if not self.state.done[0]:
            raise BadRequest.said("hand_not_over", 409)
        if self.match_winner >= 0:
            raise BadRequest.said("match_over", 409)
        if len(self.records) >= MAX_HANDS:
            raise BadRequest.said("game_full", 409, most=MAX_HANDS)
        self.dealer = (self.dealer + 1) % self.rules.num_players
        self._deal()

    # -- what the page sees --------------------------------------------------------------------
    def view(self) -> dict:
        """The person's view now, with the events since the last view (then forgotten)."""
        view = table_view(self.rules, self.state, self.log, self.seat, False)
        to_act = not self.state.done[0] and int(self.state.current[0]) == self.seat
        view["legal"] = legal_view(self.rules, self.game, self.state, self.lang) if to_act else []
        rules = self.rules
        score = self.scoring.match_points if rules.match == "target_points" else self.scoring.match_games
        view.update(
            id=self.id,
            preset=self.preset,
            level=self.level,
            bot=level_spec(self.level, self.preset),
            seat=self.seat,
            labels=self.labels,
            hand_number=len(self.records) + (0 if self.state.done[0] else 1),
            match={
                "on": self.match,
                "kind": "points" if rules.match == "target_points" else "games",
                "score": [int(x) for x in score[0]],
                "target": rules.target_points if rules.match == "target_points" else rules.target_games,
                "winner": self.match_winner,
                "over": self.match_winner >= 0,
                "sides": [side_label(rules, x, self.seat, self.lang) for x in range(rules.num_sides)],
                "hands": list(self.hands),
            },
            records=len(self.records),
            events=self.events,
            lang=self.lang,
        )
        view["prompt"] = prompt_text(view, self.lang)
        if self.match_winner >= 0:
            view["match"]["text"] = match_over_text(rules, self.match_winner, self.seat, self.lang)
        self.events = []
        return view

    def finished_hand(self, hand) -> dict:
        """The record of finished hand number ``hand`` (from 1; None: the last finished one).
        Refused (409) while that hand is being played: a review comes after the hand."""
        records = list(self.records)  # a copy: a bot may be finishing a hand in another thread
        if hand is None:
            hand = len(records) or 1
        if not is_int(hand):
            raise BadRequest(f"bad hand {short(hand)}: expected a hand number from 1")
        if hand == len(records) + 1 and not self.state.done[0]:
            raise BadRequest.said("review_not_yet", 409)
        if not 1 <= hand <= len(records):
            raise BadRequest.said("no_such_hand", 404, hand=hand, count=len(records))
        return records[hand - 1]

    def record_text(self) -> str:
        """The finished hands of this game as JSON Lines."""
        import json

        records = list(self.records)  # a copy: a bot may be finishing a hand in another thread
        if not records:
            raise BadRequest.said("no_record_yet", 409)
        return "".join(json.dumps(rec) + "\n" for rec in records)


class Games:
    """The games in memory, by random id (at most :data:`MAX_GAMES`, the least recently used dropped)."""

    def __init__(self, limit: int = MAX_GAMES):
        self.limit = limit
        self._games: dict[str, WebGame] = {}
        self._lock = threading.Lock()

    def new(self, **kwargs) -> WebGame:
        game = WebGame(**kwargs)
        with self._lock:
            self._games[game.id] = game
            while len(self._games) > self.limit:
                self._games.pop(next(iter(self._games)))
        return game

    def get(self, game_id: str) -> WebGame:
        """The game (404 if unknown); it becomes the most recently used (the last dropped)."""
        with self._lock:
            game = self._games.get(game_id)
            if game is not None:
                self._games[game_id] = self._games.pop(game_id)
        if game is None:
            raise BadRequest.said("unknown_game", 404)
        return game


# ----------------------------------------------------------------------------------------------
# Replays
# ----------------------------------------------------------------------------------------------
def replay_view(record: dict, lang: str = "en") -> dict:
    """A record's hand as the steps of a replay: the view of each state with every hand shown,
    and the move that led to it."""
    states = replay(Record.from_dict(record))
    rules = Rules(**record["rules"])
    log = HandLog(rules, None, lang)
    steps = [{"event": None, "view": table_view(rules, states[0], log, None, True)}]
    for k, text in enumerate(record["actions"]):
        event = log.observe(states[k], action_id(text), states[k + 1])
        steps.append({"event": event, "view": table_view(rules, states[k + 1], log, None, True)})
    return {
        "variant": record.get("variant"),
        "players": record["players"],
        "player_names": [player_name(lang, name) for name in record["players"]],  # as read: "human" translated
        "result": record.get("result"),
        "hand": record.get("hand"),
        "time": record.get("time"),
        "steps": steps,
        "record": record,  # what the page sends back for its review (POST /api/review)
    }


#: The most hands one replay upload may hold.
MAX_REPLAY_HANDS = 200


def replay_of_text(text: str, lang: str = "en") -> dict:
    """Every hand of a record file's text, ready to step through; ``BadRequest`` on bad input.
    The hand limit is checked before any line is parsed."""
    count = sum(1 for line in text.splitlines() if line.strip())
    if count > MAX_REPLAY_HANDS:
        raise BadRequest.said("replay_hands", 413, count=count, most=MAX_REPLAY_HANDS)
    try:
        records = [r.to_dict() for r in parse_records(text.splitlines())]
        if not records:
            raise ValueError("no records: expected one JSON object per line (tute-record/1)")
    except ValueError as err:
        raise BadRequest.said("bad_record", 422, detail=str(err)[:300]) from None
    except RecursionError:
        raise BadRequest.said("bad_record", 422, detail="a line is nested too deeply") from None
    if len(records) > MAX_REPLAY_HANDS:
        raise BadRequest(f"{len(records)} hands: at most {MAX_REPLAY_HANDS} per replay", 413)
    return {"hands": [replay_view(rec, lang) for rec in records]}


# ----------------------------------------------------------------------------------------------
# Reviews: a finished hand's double-dummy analysis (tute_env.search.analysis)
# ----------------------------------------------------------------------------------------------
#: The point weight of a review's values: tute-analyze's default (the agents' training weight).
REVIEW_POINT_WEIGHT = DEFAULT_POINT_WEIGHT
#: The exact solver's time per decision in a review (seconds); a slower decision is estimated.
REVIEW_MAX_SECONDS = 3.0


def review_of(record: dict) -> dict:
    """A finished hand's review: for every move (in the record's order) its loss and the best
    move (:func:`tute_play.analyze.analyze`), ``kind`` ``"exact"`` (double dummy; ``solved``) or
    ``"estimate"`` with its ``error``, and each seat's total loss.
    Slow (seconds): the server runs it off the event loop."""
    rec = Record.from_dict(record)
    decisions = analyze(rec, point_weight=REVIEW_POINT_WEIGHT, max_seconds=REVIEW_MAX_SECONDS)
    return {
        "point_weight": REVIEW_POINT_WEIGHT,
        "max_seconds": REVIEW_MAX_SECONDS,
        "moves": [{"ply": d.ply, "seat": d.seat, "action": d.action_str, "solved": d.solved, "loss": d.loss,
                   "best": d.best_str, "kind": d.kind, "error": d.error} for d in decisions],
        "solved": sum(d.solved for d in decisions),
        "estimated": sum(d.kind == "estimate" for d in decisions),
        "totals": seat_losses(decisions, rec.rules.num_players),
    }


def record_of_text(text: str) -> dict:
    """One record (a line of a record file, as ``POST /api/review`` takes it), checked."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) != 1:
        raise BadRequest(f"expected one record (one JSON line), got {len(lines)} lines", 422)
    try:
        (record,) = parse_records(lines)
    except ValueError as err:
        raise BadRequest(f"not a valid record: {str(err)[:300]}", 422) from None
    except RecursionError:
        raise BadRequest("not a valid record: nested too deeply", 422) from None
    return record.to_dict()
