"""The terminal game: a human at a table of bots, and the replay of a recorded hand.

At your turn the table is shown (your hand, the trick, the scores), then the moves you may
make, numbered. Type a number, or the move itself: a card (``Ao``, ``3c``, ``Rb``; faces
A 2 3 4 5 6 7 S C R, suits o c e b), ``sing-o`` .. ``sing-b``, ``tute``, ``exchange`` or
``pass``. ``help`` explains, ``table`` shows the table again, ``tricks`` the tricks of this
hand so far, ``quit`` (or Ctrl-C) stops. An illegal move is explained and you are asked again.
The command line is :mod:`tute_play.cli`.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from tute_env.engine.cards import (
    CARD_STRENGTH,
    DECLARE,
    FOLLOW,
    LEAD,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_FACES,
    SING_BASE,
    TUTE,
    action_id,
    action_str,
    card_str,
    cards_of,
    cards_str,
)
from tute_env.engine.core import Game, State
from tute_env.engine.deal import random_deals
from tute_env.engine.rules import Rules
from tute_env.engine.scoring import Scoring
from tute_env.envs.render import render_text
from tute_env.play.records import Record, Recorder, RecordError, RecordWriter, load_records, replay
from tute_env.play.seating import LEARNER, Seating
from tute_play.narrate import describe_action, explain_illegal, hand_summary, match_over_text, narrate, side_label
from tute_play.words import who, word


class Quit(Exception):
    """The player asked to stop (or the input ended)."""


# ----------------------------------------------------------------------------------------------
# Typed moves
# ----------------------------------------------------------------------------------------------
def parse_choice(text: str, menu: Sequence[int]) -> int:
    """The action a typed choice names: a menu number (1-based) or an action string.
    Raises ``ValueError`` with an explanation for input that names no action."""
    t = text.strip()
    if t.isdigit():
        k = int(t)
        if 1 <= k <= len(menu):
            return menu[k - 1]
        raise ValueError(f"{k} is not on the list: choose 1..{len(menu)}")
    low = t.lower().replace(" ", "-").replace("_", "-")
    if low.startswith("sing") and len(low) >= 5:
        low = "sing-" + low[-1]
    if low in ("tute", "exchange", "pass"):
        return action_id(low)
    if low.startswith("sing-"):
        try:
            return action_id(low)
        except ValueError:
            pass
    if len(t) == 2:
        candidate = t[0].upper() + t[1].lower()
        try:
            return action_id(candidate)
        except ValueError:
            pass
    raise ValueError(
        f"I do not understand {text.strip()!r}: type a number from the list, or a move such as Ao, 3c, "
        "sing-c, tute, exchange, pass (help for more)"
    )


HELP = """Cards are written face then suit: faces A 2 3 4 5 6 7 S (sota) C (caballo) R (rey),
suits o (oros) c (copas) e (espadas) b (bastos). Strength: A 3 R C S 7 6 5 4 2.
Points: A 11, 3 10, R 4, C 3, S 2; last trick +10; cantes (king and knight of a suit) 20, 40 in trumps.
Type a number from the list or a move (Ao, sing-c, tute, exchange, pass); 'table' shows the table,
'tricks' the tricks of this hand so far, 'quit' (or Ctrl-C) stops."""


# ----------------------------------------------------------------------------------------------
# The game loop
# ----------------------------------------------------------------------------------------------
class Console:
    """Reads choices and writes text (``input_fn`` and ``out`` are swappable for tests)."""

    def __init__(self, input_fn: Callable[[str], str] = input, out=None):
        self.input_fn = input_fn
        self.out = out if out is not None else sys.stdout

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def ask(self, prompt: str) -> str:
        try:
            return self.input_fn(prompt)
        except EOFError:
            raise Quit from None


def human_turn(rules: Rules, game: Game, state: State, seat: int, io: Console, symbols: bool,
               history: Sequence[str] = (), lang: str = "en") -> int:
    legal = [a for a in range(NUM_ACTIONS) if int(state.legal[0]) >> a & 1]
    cards = sorted((a for a in legal if a < NUM_CARDS), key=lambda c: (c // NUM_FACES, -CARD_STRENGTH[c]))
    menu = cards + [a for a in legal if a >= NUM_CARDS]
    io.say()
    io.say(render_text(rules, state, 0, viewer=seat, symbols=symbols))
    kind = word(lang, {LEAD: "t_lead", FOLLOW: "t_follow", DECLARE: "t_declare"}[int(state.decision[0])])
    offers = [a for a in legal if SING_BASE <= a <= TUTE]
    if offers:
        io.say(word(lang, "t_offers", what=", ".join(describe_action(rules, state, a, lang=lang).split(": ", 1)[1]
                                                      for a in offers)))
    io.say(word(lang, "t_legal", kind=kind))
    if cards:
        io.say("   " + "  ".join(f"{k + 1}) {card_str(a)}" for k, a in enumerate(menu) if a < NUM_CARDS))
    for k, a in enumerate(menu):
        if a >= NUM_CARDS:
            io.say(f"   {k + 1}) {describe_action(rules, state, a, lang=lang)}")
    while True:
        text = io.ask("your move> ")
        low = text.strip().lower()
        if low in ("q", "quit", "exit"):
            raise Quit
        if low in ("h", "help", "?"):
            io.say(HELP)
            continue
        if low in ("tricks", "last", "history"):
            io.say("\n".join(history) if history else "  no trick completed yet this hand")
            continue
        if low in ("t", "table", "show", "hand"):
            io.say(render_text(rules, state, 0, viewer=seat, symbols=symbols))
            continue
        if not low:
            continue
        try:
            action = parse_choice(text, menu)
        except ValueError as err:
            io.say(f"  {err}")
            continue
        if action in legal:
            return action
        io.say(word(lang, "t_not_allowed", action=action_str(action),
                    why=explain_illegal(rules, state, action, lang=lang)))


class Narrator:
    """An action hook of the table: tells the human what every seat does, then who took each
    trick and what the human drew."""

    def __init__(self, rules: Rules, human: int, io: Console, lang: str = "en"):
        self.rules, self.human, self.io, self.lang = rules, human, io, lang
        self.tricks = self.hand = None
        self.played: list[str] = []  # the trick in progress: "player_1 Ao", ...
        self.history: list[str] = []  # the tricks of this hand, one line each

    def __call__(self, state: State, lanes: np.ndarray, actions: np.ndarray) -> None:
        self.catch_up(state)
        seat = int(state.current[0])
        self.io.say(narrate(self.rules, seat, int(actions[0]), state, you=self.human, lang=self.lang))
        if actions[0] < NUM_CARDS:
            self.played.append(f"{'you' if seat == self.human else f'player_{seat}'} {card_str(int(actions[0]))}")
        self.tricks, self.hand = int(state.tricks_played[0]), int(state.hands[0, self.human])
        self.points = int(state.card_points[0].sum())

    def catch_up(self, state: State) -> None:
        """Say what the last action led to: a trick taken, cards drawn."""
        if self.tricks is not None and state.tricks_played[0] > self.tricks:
            winner = int(state.last_winner[0])
            gained = int(state.card_points[0].sum()) - self.points
            self.io.say("  -> " + word(self.lang, "wins_trick_you" if winner == self.human else "wins_trick",
                                       who=who(self.lang, winner, None), points=gained))
            self.history.append(f"trick {len(self.history) + 1}: {', '.join(self.played)} -> "
                                f"{'you' if winner == self.human else f'player_{winner}'} ({gained} points)")
            self.played = []
            drawn = int(state.hands[0, self.human]) & ~self.hand
            if drawn:
                self.io.say(f"  -> you draw {cards_str(cards_of(drawn))}")
        self.tricks = None


def play_hand(rules: Rules, state: State, human: int, bots: dict, io: Console, symbols: bool = True,
              hooks: Sequence = (), lang: str = "en") -> State:
    """Play one hand from ``state`` (a batch of one game) to its end at a table where the human
    is the learner seat; returns the finished state. ``hooks``: more action hooks (a recorder)."""
    game = Game(rules)
    policies = [bots[seat] for seat in sorted(bots)]
    seats = [LEARNER if seat == human else sorted(bots).index(seat) for seat in range(rules.num_players)]
    narrator = Narrator(rules, human, io, lang)
    seating = Seating(game, policies, seats, hooks=[narrator, *hooks])
    seating.advance(state)
    while not state.done[0]:
        narrator.catch_up(state)
        seating.step(state, np.array([human_turn(rules, game, state, human, io, symbols, narrator.history, lang)]))
        seating.advance(state)
    narrator.catch_up(state)
    return state


def run(rules: Rules, human: int, bots: dict, io: Console, seed: int | None = None, hands: int | None = None,
        symbols: bool = True, record: Callable[[Record], object] | None = None, players: Sequence[str] | None = None,
        variant: str | None = None, lang: str = "en") -> list[int]:
    """Play hands until the match is won (R10), ``hands`` are played, or the player quits.
    Returns the score per side (games, or points with ``match="target_points"``). ``record``
    receives the game record of every hand played to its end (``players``: the seats' labels;
    ``variant``: the preset name), with a match id and the hand's number in the match."""
    rng = np.random.default_rng(seed)
    game = Game(rules)
    match = Scoring(rules, "match", "win", 1)
    match_id = uuid.uuid4().hex[:12]
    recorder = None if record is None else Recorder(
        rules, players, record, variant, describe=lambda lane: {"match": match_id, "hand": int(match.hands[0])})
    dealer = int(rng.integers(rules.num_players))
    io.say(f"Tute ({rules.num_players} players). You are player_{human}"
           + (f", partner player_{(human + 2) % 4}" if rules.partnerships else "") + ". Type 'help' for help.")
    try:
        while True:
            state = game.new_state(random_deals(rules, rng, 1, dealer))
            io.say(f"\n=== Hand {int(match.hands[0]) + 1}: player_{dealer} deals ===")
            play_hand(rules, state, human, bots, io, symbols, hooks=() if recorder is None else [recorder], lang=lang)
            if recorder is not None:
                recorder.end(state)
            io.say()
            io.say(render_text(rules, state, 0, viewer=human, show_all=True, symbols=symbols))
            io.say(hand_summary(rules, state, human, lang))
            result = match.hand_over(state, np.zeros(1, np.intp))
            io.say(word(lang, "match_score", score=", ".join(f"{side_label(rules, x, human, lang)}: {v}"
                                                             for x, v in enumerate(_score(match))),
                        target=rules.target_points if rules.match == "target_points" else rules.target_games))
            winner = int(result["match_winner"][0])
            if winner >= 0:
                io.say(match_over_text(rules, winner, human, lang))
                break
            if hands is not None and match.hands[0] >= hands:
                break
            if hands is None:
                again = io.ask("Another hand? [Y/n] ").strip().lower()
                if again in ("n", "no", "q", "quit"):
                    break
            dealer = (dealer + 1) % rules.num_players
    except Quit:
        io.say("\nBye.")
    return _score(match)


# ----------------------------------------------------------------------------------------------
# Game records: the history file and the replay
# ----------------------------------------------------------------------------------------------
def history_path() -> Path:
    """Where the hands played are kept: ``$XDG_DATA_HOME/tute_env/history.jsonl`` (by default
    ``~/.local/share/tute_env/history.jsonl``)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "tute_env" / "history.jsonl"


def open_history(io: Console) -> RecordWriter | None:
    """The history file, opened to append; None, with a one-line notice, if it cannot be written."""
    path = history_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return RecordWriter(path, mode="a")
    except OSError as err:
        io.say(f"(not saving this game to the history: cannot write {path}: {err.strerror or err})")
        return None


REPLAY_HELP = ("Enter or n: next action; p: previous; a number: go to that action (0 = the deal); "
               "s: start; e: end; q: quit")


def replay_step(record: Record, states: Sequence[State], k: int, symbols: bool = True,
                review: Sequence | None = None, lang: str = "en") -> str:
    """The replay's view after ``k`` actions: what the k-th action did (and the trick it ended),
    then the table with every hand face up, the cantes and the scores as they were.

    ``review``: the hand's :func:`tute_env.search.analysis.analyze_record` decisions; each step then
    says the double-dummy loss of the action just played and the best move (loss above zero),
    and the last step each seat's total loss (``lang``: the words of these lines)."""
    rules, total = record.rules, len(record.actions)
    if k == 0:
        dealer = record.deal.dealer
        head = f"[0/{total}] The deal: player_{dealer} ({record.players[dealer]}) deals."
    else:
        before, after, action = states[k - 1], states[k], record.action_ids[k - 1]
        seat = int(before.current[0])
        said = narrate(rules, seat, action, before).replace(f"player_{seat}", f"player_{seat} ({record.players[seat]})", 1)
        head = f"[{k}/{total}] {said}"
        if after.tricks_played[0] > before.tricks_played[0]:
            n = rules.num_players
            leader = int(before.trick_leader[0])
            cards = {int(x): int(before.trick[0, x]) for x in range(n) if before.trick[0, x] >= 0} | {seat: action}
            order = [(leader + i) % n for i in range(n)]
            winner = int(after.last_winner[0])
            gained = int(after.card_points[0].sum() - before.card_points[0].sum())
            head += (f"\n  trick {int(after.tricks_played[0])}: "
                     + ", ".join(f"player_{x} {card_str(cards[x])}" for x in order)
                     + f" -> player_{winner} takes it ({gained} points)")
        if review is not None:
            head += "\n" + review_line(review[k - 1], lang)
    text = head + "\n" + render_text(rules, states[k], 0, show_all=True, symbols=symbols)
    if review is not None and k == total:
        text += "\n" + review_totals(record, review, lang)
    return text


def review_line(decision, lang: str = "en") -> str:
    """One decision's review: its loss and the best move, a best move, or not solved."""
    if not decision.solved:
        return word(lang, "r_unsolved")
    if decision.loss > 1e-12:
        return word(lang, "r_loss", loss=decision.loss, best=decision.best_str)
    return word(lang, "r_best")


def review_totals(record: Record, review: Sequence, lang: str = "en") -> str:
    """Each seat's total loss over its solved decisions (:func:`tute_env.search.analysis.seat_losses`)."""
    from tute_env.search.analysis import seat_losses

    totals = seat_losses(review, record.rules.num_players)
    return word(lang, "r_totals", totals=", ".join(f"player_{x} ({record.players[x]}) {t:.3f}"
                                                   for x, t in enumerate(totals)))


def review_hand(record: Record, io: Console, point_weight: float, max_seconds: float, lang: str = "en") -> list:
    """The hand's double-dummy analysis (:func:`tute_env.search.analysis.analyze_record`), with a line
    before (what it does) and after (how long it took)."""
    import time

    from tute_env.search.analysis import analyze_record

    n = len(record.actions)
    io.say(word(lang, "r_start", n=n, weight=point_weight, seconds=max_seconds))
    start = time.perf_counter()
    decisions = analyze_record(record, point_weight=point_weight, max_seconds=max_seconds)
    io.say(word(lang, "r_done", seconds=time.perf_counter() - start, solved=sum(d.solved for d in decisions), n=n))
    return decisions


def replay_hand(record: Record, io: Console, symbols: bool = True, review: Sequence | None = None,
                lang: str = "en") -> None:
    """Step forward and back through a recorded hand, played again through the core
    (``review``: its analysis, shown with every step: :func:`replay_step`)."""
    states = replay(record)
    total = len(record.actions)
    # The record's ``hand`` counts from 0 (docs/records.md); people count hands from 1, as --hand does.
    io.say(f"Replay: {record.variant}, " + ", ".join(f"player_{x} = {p}" for x, p in enumerate(record.players))
           + (f", hand {record.hand + 1} of match {record.match}" if record.hand is not None and record.match is not None
              else f", hand {record.hand + 1} of its match" if record.hand is not None else "")
           + "".join(f", {name} {getattr(record, name)}" for name in ("seed", "time")
                     if getattr(record, name) is not None)
           + ("" if record.hand is not None or record.match is None else f", match {record.match}"))
    io.say(REPLAY_HELP)
    k = 0
    io.say(replay_step(record, states, k, symbols, review, lang))
    while True:
        text = io.ask(f"replay {k}/{total}> ").strip().lower()
        if text in ("q", "quit", "exit"):
            return
        if text in ("h", "help", "?"):
            io.say(REPLAY_HELP)
            continue
        if text in ("", "n", "next"):
            if k == total:
                io.say("  the hand is over (p: back, q: quit)")
                continue
            k += 1
        elif text in ("p", "b", "prev", "back"):
            k = max(k - 1, 0)
        elif text in ("s", "start"):
            k = 0
        elif text in ("e", "end"):
            k = total
        elif text.isdigit():
            k = min(int(text), total)
        else:
            io.say(f"  I do not understand {text!r}: " + REPLAY_HELP)
            continue
        io.say(replay_step(record, states, k, symbols, review, lang))


def choose_record(path: str, hand: int | None) -> Record:
    """The ``hand``-th record (from 1; default the last) of a records file, validated and
    replayed. Raises ``ValueError`` with one line saying what is wrong."""
    try:
        records = load_records(path)
    except OSError as err:
        raise ValueError(f"--replay {path}: cannot read it: {err.strerror or err}") from None
    except RecordError as err:
        raise ValueError(f"--replay: {err}") from None
    if not records:
        raise ValueError(f"--replay {path}: the file holds no game record")
    if hand is None:
        return records[-1]
    if not 1 <= hand <= len(records):
        raise ValueError(f"--hand {hand}: {path} holds hands 1..{len(records)}")
    return records[hand - 1]


def _score(match: Scoring) -> list[int]:
    """The match score per side: games, or points with ``match="target_points"`` (R10)."""
    score = match.match_points if match.rules.match == "target_points" else match.match_games
    return score[0].tolist()
