"""Play Tute in the terminal against the bots.

    python -m agents.play                              # partnership, medium bots, you are player_0
    python -m agents.play --preset two_player --level hard
    python -m agents.play --opponent path/to/checkpoint.pt --preset two_player
    python -m agents.play --preset manita --set target_games=2 --seat 1

Levels: ``easy`` (the greedy bot: one ply, takes a trick with points cheaply), ``medium``
(heuristic: counts cards, scores every card by its expected points), ``hard`` (pimc: searches
over the deals consistent with what it has seen, about 0.05 s a move), ``trained`` (the shipped
PPO agent) and ``expert`` (search: the same search over possible deals, played out by the
shipped network and valued by its critic, a fraction of a second a move; the strongest in
two_player, level with pimc in partnership), both offered for
the presets that have a shipped network; ``--opponent`` takes any agent name
or a trained checkpoint path instead (in the partnership game your partner plays at the same
level unless ``--partner`` says otherwise).

At your turn the table is shown (your hand, the trick, the scores), then the moves you may
make, numbered. Type a number, or the move itself: a card (``Ao``, ``3c``, ``Rb``; faces
A 2 3 4 5 6 7 S C R, suits o c e b), ``sing-o`` .. ``sing-b``, ``tute``, ``exchange`` or
``pass``. ``help`` explains, ``table`` shows the table again, ``tricks`` the tricks of this
hand so far, ``quit`` (or Ctrl-C) stops. An illegal move is explained and you are asked again.

Every hand played to its end is saved as a game record (docs/records.md), appended to the history
file (``$XDG_DATA_HOME/tute_env/history.jsonl``, by default ``~/.local/share/tute_env/history.jsonl``;
``--no-history`` turns it off) or to ``--record FILE``. ``--replay FILE`` steps through a recorded
hand (``--hand N``: the file's N-th record, from 1; by default its last) with every hand face up:

    python -m agents.play --replay ~/.local/share/tute_env/history.jsonl
"""

from __future__ import annotations

import argparse
import os
import sys
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from tute_env.cards import (
    CARD_STRENGTH,
    DECLARE,
    EXCHANGE,
    FOLLOW,
    KING,
    KNIGHT,
    LEAD,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_FACES,
    PAIR_SET,
    PASS,
    SEVEN,
    SING_BASE,
    SUIT_NAMES,
    SUIT_SET,
    TUTE,
    action_id,
    action_str,
    beating_set,
    card_str,
    cards_of,
    cards_str,
)
from tute_env.core import Game, State
from tute_env.deal import random_deals
from tute_env.records import Record, Recorder, RecordError, RecordWriter, load_records, replay
from tute_env.render import render_text
from tute_env.rules import PRESETS, Rules, make_rules, parse_overrides
from tute_env.scoring import Scoring
from tute_env.table import LEARNER, Table

from .base import make_agent, shipped_presets

LEVELS = {"easy": "greedy", "medium": "heuristic", "hard": "pimc", "trained": "ppo", "expert": "search"}
#: Levels played by a shipped network: offered only for the presets that have one.
NETWORK_LEVELS = ("trained", "expert")
LEVEL_HELP = ("easy = greedy (one ply), medium = heuristic (counts cards), hard = pimc (search over possible "
              "deals), trained = the shipped PPO agent, expert = search (pimc played out by the shipped "
              "network; strongest in two_player) (trained and expert: presets {})")
MOVES_HELP = ("At your turn type a number from the list of legal moves, or the move: a card, face then suit "
              "(faces A 2 3 4 5 6 7 S C R, suits o c e b: Ao, 3c, Rb), sing-o .. sing-b, tute, exchange or pass. "
              "Commands: help, table, tricks, quit (or Ctrl-C).")


class Quit(Exception):
    """The player asked to stop (or the input ended)."""


# ----------------------------------------------------------------------------------------------
# Words for actions
# ----------------------------------------------------------------------------------------------
def describe_action(rules: Rules, state: State, action: int, lane: int = 0) -> str:
    """A menu line for a legal action of the seat to act: ``"sing-c: sing 40 in copas (trumps)"``."""
    text = action_str(action)
    if action < NUM_CARDS:
        return text
    trump = int(state.trump[lane])
    if SING_BASE <= action < TUTE:
        suit = action - SING_BASE
        points = 40 if suit == trump else 20
        return f"{text}: sing {points} in {SUIT_NAMES[suit]}" + (" (trumps)" if suit == trump else "")
    if action == TUTE:
        return f"{text}: declare Tute (all four kings or knights), wins the hand"
    if action == EXCHANGE:
        give = int(Game(rules).exchange_gives(state)[lane])
        return f"{text}: give your {card_str(give)} for the turned {card_str(int(state.turned_card[lane]))}"
    return f"{text}: do not declare now"


def narrate(rules: Rules, seat: int, action: int, state: State, lane: int = 0, you: int | None = None) -> str:
    """What a seat just did (call with the state before the action)."""
    who = "You" if seat == you else f"player_{seat}"
    if action < NUM_CARDS:
        verb = "lead" if state.decision[lane] == LEAD else "play"
        return f"{who} {verb if who == 'You' else verb + 's'} {card_str(action)}"
    if SING_BASE <= action < TUTE:
        suit = action - SING_BASE
        points = 40 if suit == state.trump[lane] else 20
        return f"{who} {'sing' if who == 'You' else 'sings'} {points} in {SUIT_NAMES[suit]} (shows R and C)"
    if action == TUTE:
        return f"{who} {'declare' if who == 'You' else 'declares'} Tute!"
    if action == EXCHANGE:
        give = int(Game(rules).exchange_gives(state)[lane])
        return (f"{who} {'exchange' if who == 'You' else 'exchanges'} the {card_str(give)} for the turned "
                f"{card_str(int(state.turned_card[lane]))}")
    return f"{who} {'pass' if who == 'You' else 'passes'}"


def explain_illegal(rules: Rules, state: State, action: int, lane: int = 0) -> str:
    """Why ``action`` is not legal for the seat to act (R5-R8 in words)."""
    s = state
    seat = int(s.current[lane])
    hand = int(s.hands[lane, seat])
    legal = [a for a in range(NUM_ACTIONS) if int(s.legal[lane]) >> a & 1]
    legal_cards = [a for a in legal if a < NUM_CARDS]
    decision = int(s.decision[lane])
    trump = int(s.trump[lane])
    if action < NUM_CARDS:
        if not hand >> action & 1:
            return f"you do not hold {card_str(action)}"
        if decision == DECLARE:
            return "this is a declaration turn after your partner's trick: sing, declare Tute or pass; you play later"
        if decision == FOLLOW:
            return _follow_reason(rules, s, lane, legal_cards)
        return f"{card_str(action)} cannot be played now"
    if SING_BASE <= action < TUTE:
        suit = action - SING_BASE
        name = SUIT_NAMES[suit]
        if s.sung_by[lane, suit] >= 0:
            return f"{name} has already been sung this hand"
        if hand & int(PAIR_SET[suit]) != int(PAIR_SET[suit]):
            return (f"a cante needs the king and the knight of {name} ({card_str(suit * NUM_FACES + KING)} and "
                    f"{card_str(suit * NUM_FACES + KNIGHT)}) in your hand")
        if s.tricks_played[lane] == 0 or decision == FOLLOW or s.declared[lane, seat]:
            return ("you may sing only when your side has just won a trick, before the next lead, "
                    "once per trick won (R8)")
        if suit != trump and rules.forty_before_twenty and legal and (SING_BASE + trump) in legal:
            return "you hold the 40 in trumps: it must be sung first (R8)"
        if suit == trump and rules.forty_before_twenty and s.sang_twenty[lane, seat]:
            return "after singing a 20 you can no longer sing the 40 this hand (R8)"
        if rules.singers == "winner" and s.last_winner[lane] != seat:
            return "only the trick winner may sing in this variant (singers=winner)"
        return f"you cannot sing {name} now"
    if action == TUTE:
        if rules.tute == "off":
            return "Tute is off in this variant"
        return ("Tute needs all four kings or all four knights, declared when your side has just won a "
                "trick (R8b)")
    if action == EXCHANGE:
        if rules.exchange == "off" or rules.num_players != 2:
            return "exchanging the turned trump is not part of this variant"
        if s.exchanged[lane]:
            return "the turned trump was already exchanged this hand (once per hand)"
        if s.turned_card[lane] < 0 or s.to_draw[lane] <= 0:
            return "the turned card has been drawn: nothing to exchange"
        if decision != LEAD:
            return "you may exchange only when it is your turn to lead (R7)"
        if rules.exchange == "after_win":
            return ("after winning a trick, the 7 of trumps takes a turned A, 3 or court card, the 2 a "
                    "turned 4 to 7 (R7)")
        return f"you need the 7 of trumps ({card_str(trump * NUM_FACES + SEVEN)}) to exchange (R7)"
    if action == PASS:
        return "pass only declines a declaration turn; now you must play a card"
    return "not a move"


def _follow_reason(rules: Rules, s: State, lane: int, legal_cards: list[int]) -> str:
    led = int(s.trick[lane, s.trick_leader[lane]])
    led_suit = led // NUM_FACES
    trump = int(s.trump[lane])
    best = int(s.best_card[lane])
    allowed = cards_str(sorted(legal_cards, key=lambda c: (c // NUM_FACES, -CARD_STRENGTH[c])))
    led_set, trump_set = int(SUIT_SET[led_suit]), int(SUIT_SET[trump])
    legal_set = sum(1 << c for c in legal_cards)
    beat = int(beating_set(best, trump))
    if legal_set & ~led_set == 0:
        if legal_set & ~beat == 0:
            return (f"you must follow suit ({SUIT_NAMES[led_suit]}) and beat {card_str(best)} when you can "
                    f"(R5): you may play {allowed}")
        return f"you must follow suit ({SUIT_NAMES[led_suit]}) (R5): you may play {allowed}"
    if legal_set & ~trump_set == 0:
        trumped = best // NUM_FACES == trump and led_suit != trump
        what = f"overtrump {card_str(best)}" if trumped else "trump"
        return f"you have no {SUIT_NAMES[led_suit]}, so you must {what} when you can (R5): you may play {allowed}"
    return f"you may play {allowed}"


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


def seat_specs(rules: Rules, human: int, opponent: str, partner: str | None) -> list[str]:
    """The agent spec of every seat, ``"human"`` for the human's (the players of game records)."""
    return ["human" if seat == human else
            partner if (rules.partnerships and seat == (human + 2) % 4 and partner) else opponent
            for seat in range(rules.num_players)]


def make_bots(rules: Rules, human: int, opponent: str, partner: str | None, seed: int) -> dict:
    """The agent of every seat but the human's."""
    specs = seat_specs(rules, human, opponent, partner)
    return {seat: make_agent(spec, rules, seed=seed + seat) for seat, spec in enumerate(specs) if seat != human}


def human_turn(rules: Rules, game: Game, state: State, seat: int, io: Console, symbols: bool,
               history: Sequence[str] = ()) -> int:
    legal = [a for a in range(NUM_ACTIONS) if int(state.legal[0]) >> a & 1]
    cards = sorted((a for a in legal if a < NUM_CARDS), key=lambda c: (c // NUM_FACES, -CARD_STRENGTH[c]))
    menu = cards + [a for a in legal if a >= NUM_CARDS]
    io.say()
    io.say(render_text(rules, state, 0, viewer=seat, symbols=symbols))
    kind = {LEAD: "your lead", FOLLOW: "your play", DECLARE: "your declaration turn"}[int(state.decision[0])]
    offers = [a for a in legal if SING_BASE <= a <= TUTE]
    if offers:
        io.say("  cantes on offer: " + ", ".join(describe_action(rules, state, a).split(": ", 1)[1] for a in offers))
    io.say(f"  {kind}; legal moves:")
    if cards:
        io.say("   " + "  ".join(f"{k + 1}) {card_str(a)}" for k, a in enumerate(menu) if a < NUM_CARDS))
    for k, a in enumerate(menu):
        if a >= NUM_CARDS:
            io.say(f"   {k + 1}) {describe_action(rules, state, a)}")
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
        io.say(f"  {action_str(action)} is not allowed: {explain_illegal(rules, state, action)}. Try again.")


class Narrator:
    """An action hook of the table: tells the human what every seat does, then who took each
    trick and what the human drew."""

    def __init__(self, rules: Rules, human: int, io: Console):
        self.rules, self.human, self.io = rules, human, io
        self.tricks = self.hand = None
        self.played: list[str] = []  # the trick in progress: "player_1 Ao", ...
        self.history: list[str] = []  # the tricks of this hand, one line each

    def __call__(self, state: State, lanes: np.ndarray, actions: np.ndarray) -> None:
        self.catch_up(state)
        seat = int(state.current[0])
        self.io.say(narrate(self.rules, seat, int(actions[0]), state, you=self.human))
        if actions[0] < NUM_CARDS:
            self.played.append(f"{'you' if seat == self.human else f'player_{seat}'} {card_str(int(actions[0]))}")
        self.tricks, self.hand = int(state.tricks_played[0]), int(state.hands[0, self.human])
        self.points = int(state.card_points[0].sum())

    def catch_up(self, state: State) -> None:
        """Say what the last action led to: a trick taken, cards drawn."""
        if self.tricks is not None and state.tricks_played[0] > self.tricks:
            winner = int(state.last_winner[0])
            who = "You win" if winner == self.human else f"player_{winner} wins"
            gained = int(state.card_points[0].sum()) - self.points
            self.io.say(f"  -> {who} the trick ({gained} points)")
            self.history.append(f"trick {len(self.history) + 1}: {', '.join(self.played)} -> "
                                f"{'you' if winner == self.human else f'player_{winner}'} ({gained} points)")
            self.played = []
            drawn = int(state.hands[0, self.human]) & ~self.hand
            if drawn:
                self.io.say(f"  -> you draw {cards_str(cards_of(drawn))}")
        self.tricks = None


def play_hand(rules: Rules, state: State, human: int, bots: dict, io: Console, symbols: bool = True,
              hooks: Sequence = ()) -> State:
    """Play one hand from ``state`` (a batch of one game) to its end at a table where the human
    is the learner seat; returns the finished state. ``hooks``: more action hooks (a recorder)."""
    game = Game(rules)
    policies = [bots[seat] for seat in sorted(bots)]
    seats = [LEARNER if seat == human else sorted(bots).index(seat) for seat in range(rules.num_players)]
    narrator = Narrator(rules, human, io)
    table = Table(game, policies, seats, hooks=[narrator, *hooks])
    table.advance(state)
    while not state.done[0]:
        narrator.catch_up(state)
        table.step(state, np.array([human_turn(rules, game, state, human, io, symbols, narrator.history)]))
        table.advance(state)
    narrator.catch_up(state)
    return state


def hand_summary(rules: Rules, state: State, human: int) -> str:
    totals = state.totals[0]
    mine = rules.side_of(human)
    parts = []
    for side in range(rules.num_sides):
        label = "you" if side == mine else (f"side {side}" if rules.partnerships else f"player_{side}")
        if rules.partnerships and side == mine:
            label = "your side"
        parts.append(
            f"{label} {int(totals[side])} ({int(state.card_points[0, side])} cards + "
            f"{int(state.cante_points[0, side])} cantes + {int(state.last_trick_bonus[0, side])} last trick)"
        )
    winner = int(state.winner[0])
    how = " by Tute" if state.tute_declarer[0] >= 0 else ""
    result = "You win" if winner == mine else ("Side" if rules.partnerships else "player_") + (
        f" {winner}" if rules.partnerships else f"{winner}") + " wins"
    return f"Hand over{how}. " + "; ".join(parts) + f". {result} {int(state.games[0])} game(s)."


def run(rules: Rules, human: int, bots: dict, io: Console, seed: int | None = None, hands: int | None = None,
        symbols: bool = True, record: Callable[[Record], object] | None = None, players: Sequence[str] | None = None,
        variant: str | None = None) -> list[int]:
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
            play_hand(rules, state, human, bots, io, symbols, hooks=() if recorder is None else [recorder])
            if recorder is not None:
                recorder.end(state)
            io.say()
            io.say(render_text(rules, state, 0, viewer=human, show_all=True, symbols=symbols))
            io.say(hand_summary(rules, state, human))
            result = match.hand_over(state, np.zeros(1, np.intp))
            io.say("Match score: " + ", ".join(f"side {x}: {v}" for x, v in enumerate(_score(match))) + f" (to "
                   f"{rules.target_points if rules.match == 'target_points' else rules.target_games})")
            winner = int(result["match_winner"][0])
            if winner >= 0:
                io.say("You win the match!" if winner == rules.side_of(human) else f"Side {winner} wins the match.")
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


def replay_step(record: Record, states: Sequence[State], k: int, symbols: bool = True) -> str:
    """The replay's view after ``k`` actions: what the k-th action did (and the trick it ended),
    then the table with every hand face up, the cantes and the scores as they were."""
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
    return head + "\n" + render_text(rules, states[k], 0, show_all=True, symbols=symbols)


def replay_hand(record: Record, io: Console, symbols: bool = True) -> None:
    """Step forward and back through a recorded hand, played again through the core."""
    states = replay(record)
    total = len(record.actions)
    io.say(f"Replay: {record.variant}, " + ", ".join(f"player_{x} = {p}" for x, p in enumerate(record.players))
           + "".join(f", {name} {getattr(record, name)}" for name in ("match", "hand", "seed", "time")
                     if getattr(record, name) is not None))
    io.say(REPLAY_HELP)
    k = 0
    io.say(replay_step(record, states, k, symbols))
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
        io.say(replay_step(record, states, k, symbols))


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


def main(argv: Sequence[str] | None = None, input_fn: Callable[[str], str] = input, out=None) -> int:
    shipped = shipped_presets()
    parser = argparse.ArgumentParser(prog="tute-play", description="Play Tute in the terminal against the bots.",
                                     epilog=MOVES_HELP)
    parser.add_argument("--preset", default="partnership", choices=sorted(PRESETS))
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="OPTION=VALUE",
                        help="override a rule option (repeatable), e.g. --set target_games=2")
    parser.add_argument("--level", default="medium", choices=sorted(LEVELS),
                        help="bot level (default medium): " + LEVEL_HELP.format(", ".join(shipped)))
    parser.add_argument("--opponent", help="agent for the other seats instead of --level (a name or a checkpoint)")
    parser.add_argument("--partner", help="agent for your partner (partnership game)")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    parser.add_argument("--seed", type=int, default=None, help="seed for the deals and the bots")
    parser.add_argument("--hands", type=int, default=None, help="stop after this many hands")
    parser.add_argument("--plain", action="store_true", help="suit letters instead of suit symbols")
    parser.add_argument("--record", metavar="FILE",
                        help="append the record of every hand played to FILE instead of the history file")
    parser.add_argument("--no-history", action="store_true",
                        help=f"do not save the hands played (by default appended to {history_path()})")
    parser.add_argument("--replay", metavar="FILE",
                        help="step through a recorded hand of FILE, all hands face up (with --web: offered in the "
                             "browser's Replay panel)")
    parser.add_argument("--hand", type=int, default=None, metavar="N",
                        help="with --replay: the N-th hand of the file (from 1; default the last)")
    web = parser.add_argument_group("web table", "play in the browser instead (needs the [web] extra; docs/web.md)")
    web.add_argument("--web", action="store_true", help="serve the web table and open it in the browser")
    web.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1, this machine only)")
    web.add_argument("--port", type=int, default=8765, help="port to serve on (default 8765; 0: any free port)")
    web.add_argument("--no-browser", action="store_true", help="do not open the browser")
    args = parser.parse_args(argv)
    if args.web:
        return _main_web(parser, args)
    if args.no_browser:
        parser.error("--no-browser goes with --web")
    io = Console(input_fn, out)
    if args.hand is not None and not args.replay:
        parser.error("--hand goes with --replay FILE")
    if args.replay:
        try:
            record = choose_record(args.replay, args.hand)
        except ValueError as err:
            parser.error(str(err))
        try:
            replay_hand(record, io, symbols=not args.plain)
        except Quit:
            pass
        except KeyboardInterrupt:
            io.say("\nBye.")
            return 130
        return 0
    try:
        rules = make_rules(args.preset, **parse_overrides(args.overrides))
    except ValueError as err:
        parser.error(str(err))
    if not 0 <= args.seat < rules.num_players:
        parser.error(f"--seat must be 0..{rules.num_players - 1}")
    if args.hands is not None and args.hands < 1:
        parser.error(f"--hands must be at least 1, got {args.hands}")
    if args.level in NETWORK_LEVELS and not args.opponent and not any(rules == PRESETS[p] for p in shipped):
        parser.error(f"--level {args.level}: no shipped agent plays these rules (shipped: {', '.join(shipped)}); "
                     "choose another level or pass --opponent CHECKPOINT")
    if args.record and not Path(args.record).resolve().parent.is_dir():
        parser.error(f"--record {args.record}: the directory {Path(args.record).resolve().parent} does not exist")
    opponent = args.opponent or LEVELS[args.level]
    try:
        bots = make_bots(rules, args.seat, opponent, args.partner, seed=args.seed or 0)
    except ValueError as err:
        parser.error(f"cannot make the agent: {err}")
    try:
        writer = RecordWriter(args.record, mode="a") if args.record else None if args.no_history else open_history(io)
    except OSError as err:
        parser.error(f"--record {args.record}: cannot write it: {err.strerror or err}")
    try:
        run(rules, args.seat, bots, io, seed=args.seed, hands=args.hands, symbols=not args.plain, record=writer,
            players=seat_specs(rules, args.seat, opponent, args.partner), variant=args.preset)
    except KeyboardInterrupt:
        io.say("\nBye.")
        return 130
    finally:
        if writer is not None:
            writer.close()
    return 0


def _main_web(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``--web``: the web table, with --preset, --level and --seat as the new-game form's choices."""
    if args.overrides or args.opponent or args.partner or args.hands is not None:
        parser.error("--set, --opponent, --partner and --hands are for the terminal game, not --web")
    if not 0 <= args.seat < PRESETS[args.preset].num_players:
        parser.error(f"--seat must be 0..{PRESETS[args.preset].num_players - 1}")
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be 0..65535, got {args.port}")
    from .web import run_web

    return run_web(args.host, args.port, open_browser=not args.no_browser, replay=args.replay,
                   defaults={"preset": args.preset, "level": args.level, "seat": args.seat})


if __name__ == "__main__":
    sys.exit(main())
