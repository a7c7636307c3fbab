"""The terminal game: a human at a table of bots, and the replay of a recorded hand.

At your turn the table is shown (your hand, the trick, the scores), then the moves you may
make, numbered. Type a number, or the move itself: a card (``Ao``, ``3c``, ``Rb``; faces
A 2 3 4 5 6 7 S C R, suits o c e b), ``sing-o`` .. ``sing-b``, ``tute``, ``exchange`` or
``pass`` (in Spanish ``cantar-o``, ``cambiar``, ``paso``). ``help`` explains, ``table`` shows the
table again, ``tricks`` the tricks of this hand so far, ``quit`` (or Ctrl-C) stops (``ayuda``,
``mesa``, ``bazas``, ``salir``). An illegal move is explained and you are asked again. Every line
is in the game's language (``lang``, :mod:`tute_play.words`). The command line is :mod:`tute_play.cli`.
"""

from __future__ import annotations

import functools
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
    card_str,
    cards_of,
)
from tute_env.engine.core import Game, State
from tute_env.engine.deal import random_deals
from tute_env.engine.rules import Rules
from tute_env.engine.scoring import Scoring
from tute_env.envs.render import render_text
from tute_env.play.records import Record, Recorder, RecordError, RecordWriter, load_records, replay, user_data_dir
from tute_env.play.seating import LEARNER, Seating
from tute_play.narrate import (
    describe_action,
    draw_news,
    explain_illegal,
    hand_summary,
    match_over_text,
    narrate,
    side_label,
)
from tute_play.words import NO, YES, cards_text, move_id, move_name, player_name, sentence, who, word

#: The terminal's commands, in either language.
HELP_WORDS, TABLE_WORDS, TRICKS_WORDS = ("h", "help", "?", "ayuda"), ("t", "table", "show", "hand", "mesa"), \
    ("tricks", "last", "history", "bazas")
QUIT_WORDS = ("q", "quit", "exit", "salir")


class Quit(Exception):
    """The player asked to stop (or the input ended)."""


# ----------------------------------------------------------------------------------------------
# Typed moves
# ----------------------------------------------------------------------------------------------
def parse_choice(text: str, menu: Sequence[int], lang: str = "en") -> int:
    """The action a typed choice names: a menu number (1-based) or a move's name in either
    language (``Ao``, ``sing-c`` or ``cantar-c``, ``pass`` or ``paso``...). Raises ``ValueError``
    with an explanation, in ``lang``, for input that names no action."""
    t = text.strip()
    if t.isdigit():
        k = int(t)
        if 1 <= k <= len(menu):
            return menu[k - 1]
        raise ValueError(word(lang, "t_not_listed", k=k, n=len(menu)))
    low = t.lower().replace(" ", "-").replace("_", "-")
    for verb in ("sing", "cantar"):
        if low.startswith(verb) and len(low) >= len(verb) + 1:
            low = f"{verb}-{low[-1]}"
    named = move_id(low)
    if named is not None:
        return named
    if len(t) == 2:
        candidate = t[0].upper() + t[1].lower()
        try:
            return action_id(candidate)
        except ValueError:
            pass
    raise ValueError(sentence(word(lang, "t_unknown", text=text.strip())))


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
    io.say(render_text(rules, state, 0, viewer=seat, symbols=symbols, lang=lang))
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
        text = io.ask(word(lang, "t_prompt"))
        low = text.strip().lower()
        if low in QUIT_WORDS:
            raise Quit
        if low in HELP_WORDS:
            io.say(word(lang, "t_help"))
            continue
        if low in TRICKS_WORDS:
            io.say("\n".join(history) if history else word(lang, "t_no_tricks"))
            continue
        if low in TABLE_WORDS:
            io.say(render_text(rules, state, 0, viewer=seat, symbols=symbols, lang=lang))
            continue
        if not low:
            continue
        try:
            action = parse_choice(text, menu, lang)
        except ValueError as err:
            io.say(f"  {err}")
            continue
        if action in legal:
            return action
        io.say(word(lang, "t_not_allowed", action=move_name(lang, action),
                    why=explain_illegal(rules, state, action, lang=lang)))


class Narrator:
    """An action hook of the table: tells the human what every seat does, then who took each
    trick, what the human drew, who took the turned card and when the stock is gone."""

    def __init__(self, rules: Rules, human: int, io: Console, lang: str = "en"):
        self.rules, self.human, self.io, self.lang = rules, human, io, lang
        self.tricks = self.hand = None
        self.played: list[str] = []  # the trick in progress: "player_1 Ao", ...
        self.history: list[str] = []  # the tricks of this hand, one line each

    def name(self, seat: int) -> str:
        """A seat inside a line: ``you`` or ``player_1``."""
        return word(self.lang, "you_lc") if seat == self.human else who(self.lang, seat, None)

    def __call__(self, state: State, lanes: np.ndarray, actions: np.ndarray) -> None:
        self.catch_up(state)
        seat = int(state.current[0])
        self.io.say(sentence(narrate(self.rules, seat, int(actions[0]), state, you=self.human, lang=self.lang)))
        if actions[0] < NUM_CARDS:
            self.played.append(f"{self.name(seat)} {card_str(int(actions[0]))}")
        self.tricks, self.hand = int(state.tricks_played[0]), int(state.hands[0, self.human])
        self.turned, self.to_draw = int(state.turned_card[0]), int(state.to_draw[0])
        self.points = int(state.card_points[0].sum())

    def catch_up(self, state: State) -> None:
        """Say what the last action led to: a trick taken, cards drawn, the turned card taken,
        the stock gone."""
        if self.tricks is not None and state.tricks_played[0] > self.tricks:
            lang, winner = self.lang, int(state.last_winner[0])
            gained = int(state.card_points[0].sum()) - self.points
            self.io.say("  -> " + sentence(word(lang, "wins_trick_you" if winner == self.human else "wins_trick",
                                                who=who(lang, winner, None), points=gained)))
            self.history.append(word(lang, "t_trick", n=len(self.history) + 1, cards=", ".join(self.played),
                                     who=self.name(winner), points=gained))
            self.played = []
            drawn = int(state.hands[0, self.human]) & ~self.hand & ~(1 << self.turned if self.turned >= 0 else 0)
            if drawn:
                self.io.say("  -> " + word(lang, "draw_you", cards=cards_text(lang, cards_of(drawn))))
            for line in draw_news(self.rules, self.turned, self.to_draw, state, you=self.human, lang=lang):
                self.io.say("  -> " + line)
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
    partner = word(lang, "t_partner", who=who(lang, (human + 2) % 4, None)) if rules.partnerships else ""
    io.say(word(lang, "t_welcome", n=rules.num_players, who=who(lang, human, None), partner=partner))
    try:
        while True:
            state = game.new_state(random_deals(rules, rng, 1, dealer))
            io.say(word(lang, "t_hand_you" if dealer == human else "t_hand", n=int(match.hands[0]) + 1,
                        who=who(lang, dealer, None)))
            play_hand(rules, state, human, bots, io, symbols, hooks=() if recorder is None else [recorder], lang=lang)
            if recorder is not None:
                recorder.end(state)
            io.say()
            # The table with every hand shown; the points and the result are the summary's (said once).
            io.say(render_text(rules, state, 0, viewer=human, show_all=True, symbols=symbols, lang=lang, score=False))
            io.say(hand_summary(rules, state, human, lang))
            result = match.hand_over(state, np.zeros(1, np.intp))
            io.say(word(lang, "match_score", score=", ".join(f"{side_label(rules, x, human, lang, inline=True)}: {v}"
                                                             for x, v in enumerate(_score(match))),
                        target=rules.target_points if rules.match == "target_points" else rules.target_games))
            winner = int(result["match_winner"][0])
            if winner >= 0:
                io.say(match_over_text(rules, winner, human, lang))
                break
            if hands is not None and match.hands[0] >= hands:
                break
            if hands is None and not another_hand(io, lang):
                break
            dealer = (dealer + 1) % rules.num_players
    except Quit:
        io.say("\n" + word(lang, "t_bye"))
    return _score(match)


def another_hand(io: Console, lang: str = "en") -> bool:
    """Asks "Another hand? [Y/n]" until the answer is a yes (an empty one too) or a no, in either language."""
    while True:
        answer = io.ask(word(lang, "t_again")).strip().lower()
        if answer in YES or answer in NO:
            return answer in YES
        io.say(word(lang, "t_yes_or_no"))


# ----------------------------------------------------------------------------------------------
# Game records: the history file and the replay
# ----------------------------------------------------------------------------------------------
def history_path() -> Path:
    """Where the hands played are kept: ``$XDG_DATA_HOME/tute_env/history.jsonl`` (by default
    ``~/.local/share/tute_env/history.jsonl``)."""
    return user_data_dir() / "history.jsonl"


def open_history(io: Console, lang: str = "en") -> RecordWriter | None:
    """The history file, opened to append; None, with a one-line notice, if it cannot be written."""
    path = history_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return RecordWriter(path, mode="a")
    except OSError as err:
        io.say(word(lang, "t_no_history", path=path, err=err.strerror or err))
        return None


#: The replay's commands, in either language (its help, ``rp_help``, names those of the language).
NEXT_WORDS, BACK_WORDS = ("", "n", "next", "sig", "siguiente"), ("p", "b", "prev", "back", "anterior", "atrás")
START_WORDS, END_WORDS = ("s", "start", "i", "inicio"), ("e", "end", "f", "fin", "final")


def seat_name(record: Record, seat: int, lang: str = "en") -> str:
    """A seat of a recorded hand and who sat there: ``player_1 (greedy)``."""
    return f"{who(lang, seat, None)} ({player_name(lang, record.players[seat])})"


def replay_step(record: Record, states: Sequence[State], k: int, symbols: bool = True,
                review: Sequence | None = None, lang: str = "en") -> str:
    """The replay's view after ``k`` actions: what the k-th action did (and the trick it ended,
    the turned card taken, the stock gone), then the table with every hand face up, the cantes
    and the scores as they were.

    ``review``: the hand's :func:`tute_env.search.analysis.analyze_record` decisions; each step then
    says the double-dummy loss of the action just played and the best move (loss above zero),
    and the last step each seat's total loss (``lang``: the words of every line)."""
    rules, total = record.rules, len(record.actions)
    if k == 0:
        dealer = record.deal.dealer
        head = f"[0/{total}] " + word(lang, "rp_deal", who=who(lang, dealer, None),
                                      name=player_name(lang, record.players[dealer]))
    else:
        before, after, action = states[k - 1], states[k], record.action_ids[k - 1]
        seat = int(before.current[0])
        head = f"[{k}/{total}] " + sentence(narrate(rules, seat, action, before, lang=lang,
                                                    name=seat_name(record, seat, lang)))
        if after.tricks_played[0] > before.tricks_played[0]:
            n = rules.num_players
            leader = int(before.trick_leader[0])
            cards = {int(x): int(before.trick[0, x]) for x in range(n) if before.trick[0, x] >= 0} | {seat: action}
            order = [(leader + i) % n for i in range(n)]
            gained = int(after.card_points[0].sum() - before.card_points[0].sum())
            head += "\n" + word(lang, "rp_trick", n=int(after.tricks_played[0]), points=gained,
                                cards=", ".join(f"{who(lang, x, None)} {card_str(cards[x])}" for x in order),
                                who=who(lang, int(after.last_winner[0]), None))
            for line in draw_news(rules, int(before.turned_card[0]), int(before.to_draw[0]), after, lang=lang):
                head += "\n  -> " + line
        if review is not None:
            head += "\n" + review_line(review[k - 1], lang)
    text = head + "\n" + render_text(rules, states[k], 0, show_all=True, symbols=symbols, lang=lang)
    if review is not None and k == total:
        text += "\n" + review_totals(record, review, lang)
    return text


def review_line(decision, lang: str = "en") -> str:
    """One decision's review: its loss and the best move, or a best move; an estimate says so,
    with its error; a decision without values (none from the analysis) is not solved."""
    if not decision.values:
        return word(lang, "r_unsolved")
    if decision.loss > 1e-12:
        line = word(lang, "r_loss", loss=decision.loss, best=move_name(lang, decision.best))
    else:
        line = word(lang, "r_best")
    return line + (word(lang, "r_estimate", error=decision.error) if decision.kind == "estimate" else "")


def review_totals(record: Record, review: Sequence, lang: str = "en") -> str:
    """Each seat's total loss over its decisions (:func:`tute_env.search.analysis.seat_losses`)."""
    from tute_env.search.analysis import seat_losses

    totals = seat_losses(review, record.rules.num_players)
    weight = review[0].point_weight if review else 0.0
    return word(lang, "r_totals", weight=f"{weight:g}", totals=", ".join(f"{seat_name(record, x, lang)} {t:.3f}"
                                                                         for x, t in enumerate(totals)))


def review_hand(record: Record, io: Console, point_weight: float, max_seconds: float, lang: str = "en") -> list:
    """The hand's double-dummy analysis (:func:`tute_env.search.analysis.analyze_record`), with a line
    before (what it does) and after (how long it took)."""
    import time

    from tute_play.analyze import analyze

    n = len(record.actions)
    io.say(word(lang, "r_start", n=n, weight=point_weight, seconds=max_seconds))
    start = time.perf_counter()
    decisions = analyze(record, point_weight=point_weight, max_seconds=max_seconds)
    io.say(word(lang, "r_done", seconds=time.perf_counter() - start, solved=sum(d.solved for d in decisions), n=n,
                estimated=sum(d.kind == "estimate" for d in decisions)))
    return decisions


def replay_head(record: Record, lang: str = "en") -> str:
    """The replay's first line: the variant, who sat where, which hand of which match, its seed and time."""
    w = functools.partial(word, lang)
    # The record's ``hand`` counts from 0 (docs/records.md); people count hands from 1, as --hand does.
    hand = "" if record.hand is None else (w("rp_hand", n=record.hand + 1) if record.match is None
                                           else w("rp_hand_of", n=record.hand + 1, match=record.match))
    return (w("rp_head", variant=record.variant, players=", ".join(
                w("rp_player", who=who(lang, x, None), name=player_name(lang, p)) for x, p in enumerate(record.players)))
            + hand
            + (w("rp_seed", seed=record.seed) if record.seed is not None else "")
            + (w("rp_time", time=record.time) if record.time is not None else "")
            + ("" if record.hand is not None or record.match is None else w("rp_match", match=record.match)))


def replay_hand(record: Record, io: Console, symbols: bool = True, review: Sequence | None = None,
                lang: str = "en") -> None:
    """Step forward and back through a recorded hand, played again through the core
    (``review``: its analysis, shown with every step: :func:`replay_step`)."""
    states = replay(record)
    total = len(record.actions)
    io.say(replay_head(record, lang))
    io.say(word(lang, "rp_help"))
    k = 0
    io.say(replay_step(record, states, k, symbols, review, lang))
    while True:
        text = io.ask(word(lang, "rp_prompt", k=k, total=total)).strip().lower()
        if text in QUIT_WORDS:
            return
        if text in HELP_WORDS:
            io.say(word(lang, "rp_help"))
            continue
        if text in NEXT_WORDS:
            if k == total:
                io.say(word(lang, "rp_over"))
                continue
            k += 1
        elif text in BACK_WORDS:
            k = max(k - 1, 0)
        elif text in START_WORDS:
            k = 0
        elif text in END_WORDS:
            k = total
        elif text.isdigit():
            k = min(int(text), total)
        else:
            io.say(word(lang, "rp_unknown", text=text, help=word(lang, "rp_help")))
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
