"""Actions and hands in words, at the rules level (no torch, no bots): what the terminal game, the
web table and the replays say of a move, what the draws after a trick make public, why a move is
illegal (R5-R8), and a finished hand's summary. The words are :mod:`tute_play.words`'s; a
narrated move is a clause (``"player_1 plays Ao"``, ``"jugador 1 echa el as de oros"``): shown
as a sentence of its own, it goes through :func:`tute_play.words.sentence`.

>>> narrate(rules, 1, card_id("Ao"), state)      # called with the state before the action
'player_1 plays Ao'
"""

from __future__ import annotations

from tute_env.engine.cards import (
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
    beating_set,
    cards_str,
)
from tute_env.engine.core import Game, State
from tute_env.engine.rules import Rules
from tute_env.envs.render import side_score

from .words import card_name, games_text, move_name, points_word, sentence, side_name, who, word

__all__ = ["describe_action", "draw_news", "explain_illegal", "games_won", "hand_summary", "match_over_text",
           "narrate", "side_label"]


def describe_action(rules: Rules, state: State, action: int, lane: int = 0, lang: str = "en") -> str:
    """A menu line for a legal action of the seat to act: ``"sing-c: sing 40 in copas (trumps)"``
    (``"cantar-c: cantar las cuarenta en copas (triunfo)"``: the move as typed, then what it does)."""
    text = move_name(lang, action)
    if action < NUM_CARDS:
        return text
    trump = int(state.trump[lane])
    if SING_BASE <= action < TUTE:
        suit = action - SING_BASE
        points = 40 if suit == trump else 20
        return (f"{text}: " + word(lang, "d_sing", points=points, points_word=points_word(points), suit=SUIT_NAMES[suit])
                + (word(lang, "d_trumps") if suit == trump else ""))
    if action == TUTE:
        return f"{text}: " + word(lang, "d_tute")
    if action == EXCHANGE:
        give = int(Game(rules).exchange_gives(state)[lane])
        return f"{text}: " + word(lang, "d_exchange", give=card_name(lang, give),
                                  turned=card_name(lang, int(state.turned_card[lane])))
    return f"{text}: " + word(lang, "d_pass")


def narrate(rules: Rules, seat: int, action: int, state: State, lane: int = 0, you: int | None = None,
            lang: str = "en", name: str | None = None) -> str:
    """What a seat just did (call with the state before the action): it leads, plays, trumps
    (*falla*) or overtrumps (*contrafalla*) a card, sings, declares Tute, exchanges or passes.
    ``name``: what to call the seat instead of ``player_1`` (a replay adds its bot's name)."""
    mine = seat == you
    suffix = "_you" if mine else ""
    fields = {"who": name or who(lang, seat, you)}
    if action < NUM_CARDS:
        return word(lang, _card_verb(state, lane, action) + suffix, card=card_name(lang, action), **fields)
    if SING_BASE <= action < TUTE:
        suit = action - SING_BASE
        points = 40 if suit == state.trump[lane] else 20
        return word(lang, "sing" + suffix, points=points, points_word=points_word(points), suit=SUIT_NAMES[suit],
                    **fields)
    if action == TUTE:
        return word(lang, "tute" + suffix, **fields)
    if action == EXCHANGE:
        give = int(Game(rules).exchange_gives(state)[lane])
        return word(lang, "exchange" + suffix, give=card_name(lang, give),
                    turned=card_name(lang, int(state.turned_card[lane])), **fields)
    return word(lang, "pass" + suffix, **fields)


def _card_verb(state: State, lane: int, card: int) -> str:
    """``lead``, ``play``, ``trump`` (a trump to a trick of another suit not trumped yet) or
    ``overtrump`` (a trump beating another's trump there)."""
    if state.decision[lane] == LEAD:
        return "lead"
    trump, best = int(state.trump[lane]), int(state.best_card[lane])
    led = int(state.trick[lane, state.trick_leader[lane]]) // NUM_FACES
    if card // NUM_FACES != trump or led == trump:
        return "play"
    if best // NUM_FACES != trump:
        return "trump"
    return "overtrump" if int(beating_set(best, trump)) >> card & 1 else "play"


def draw_news(rules: Rules, turned_before: int, to_draw_before: int, state: State, lane: int = 0,
              you: int | None = None, lang: str = "en") -> list[str]:
    """What the draws after a trick made public, as sentences: who took the turned card (the last
    draw, R4) and that the stock is gone (arrastre: the R5 duties from now on, R6). Call with the
    turned card and the cards to draw before the trick's last card, and the state after it."""
    news = []
    turned = turned_before
    if rules.turned_card_drawn and turned >= 0 and state.turned_card[lane] < 0:
        taker = next(x for x in range(rules.num_players) if int(state.hands[lane, x]) >> turned & 1)
        news.append(word(lang, "turned_you" if taker == you else "turned", who=who(lang, taker, you),
                         card=card_name(lang, turned)))
    if to_draw_before > 0 and state.to_draw[lane] == 0:
        news.append(word(lang, "stock_out_strict" if rules.stock_duty == "strict" else "stock_out"))
    return [sentence(line) for line in news]


def explain_illegal(rules: Rules, state: State, action: int, lane: int = 0, lang: str = "en") -> str:
    """Why ``action`` is not legal for the seat to act (R5-R8 in words)."""
    s = state
    seat = int(s.current[lane])
    hand = int(s.hands[lane, seat])
    legal = [a for a in range(NUM_ACTIONS) if int(s.legal[lane]) >> a & 1]
    legal_cards = [a for a in legal if a < NUM_CARDS]
    decision = int(s.decision[lane])
    trump = int(s.trump[lane])

    def w(key, **fields):
        return word(lang, "ill_" + key, **fields)

    if action < NUM_CARDS:
        if not hand >> action & 1:
            return w("not_held", card=card_name(lang, action))
        if decision == DECLARE:
            return w("declare_turn")
        if decision == FOLLOW:
            return _follow_reason(rules, s, lane, legal_cards, lang)
        return w("card_now", card=card_name(lang, action))
    if SING_BASE <= action < TUTE:
        suit = action - SING_BASE
        name = SUIT_NAMES[suit]
        if s.sung_by[lane, suit] >= 0:
            return w("sung", suit=name)
        if hand & int(PAIR_SET[suit]) != int(PAIR_SET[suit]):
            return w("pair", suit=name, king=card_name(lang, suit * NUM_FACES + KING),
                     knight=card_name(lang, suit * NUM_FACES + KNIGHT))
        if s.tricks_played[lane] == 0 or decision == FOLLOW or s.declared[lane, seat]:
            return w("sing_when")
        if suit != trump and rules.forty_before_twenty and legal and (SING_BASE + trump) in legal:
            return w("forty_first")
        if suit == trump and rules.forty_before_twenty and s.sang_twenty[lane, seat]:
            return w("forty_after")
        if rules.singers == "winner" and s.last_winner[lane] != seat:
            return w("winner_only")
        return w("sing_now", suit=name)
    if action == TUTE:
        if rules.tute == "off":
            return w("tute_off")
        return w("tute")
    if action == EXCHANGE:
        if rules.exchange == "off" or rules.num_players != 2:
            return w("ex_off")
        if s.exchanged[lane]:
            return w("ex_done")
        if s.turned_card[lane] < 0 or s.to_draw[lane] <= 0:
            return w("ex_drawn")
        if decision != LEAD:
            return w("ex_lead")
        if rules.exchange == "after_win":
            return w("ex_after_win")
        return w("ex_seven", card=card_name(lang, trump * NUM_FACES + SEVEN))
    if action == PASS:
        return w("pass")
    return w("not_move")


def _follow_reason(rules: Rules, s: State, lane: int, legal_cards: list[int], lang: str = "en") -> str:
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
            return word(lang, "ill_follow_beat", suit=SUIT_NAMES[led_suit], card=card_name(lang, best),
                        allowed=allowed)
        return word(lang, "ill_follow", suit=SUIT_NAMES[led_suit], allowed=allowed)
    if legal_set & ~trump_set == 0:
        trumped = best // NUM_FACES == trump and led_suit != trump
        what = word(lang, "ill_overtrump", card=card_name(lang, best)) if trumped else word(lang, "ill_trump")
        return word(lang, "ill_no_suit", suit=SUIT_NAMES[led_suit], what=what, allowed=allowed)
    return word(lang, "ill_may_play", allowed=allowed)


def side_label(rules: Rules, side: int, human: int | None, lang: str = "en", inline: bool = False) -> str:
    """How a side is called: ``player_1`` (no partnerships), ``side 1 (player_1 and player_3)``,
    ``You`` / ``your side`` for the human's (``you`` ``inline``, inside a sentence)."""
    if human is not None and side == rules.side_of(human):
        return word(lang, "your_side") if rules.partnerships else word(lang, "you_lc" if inline else "you")
    if not rules.partnerships:
        return side_name(lang, rules, side)
    seats = word(lang, "and").join(who(lang, x, None) for x in range(rules.num_players) if rules.side_of(x) == side)
    return word(lang, "side_of", side=side, seats=seats)


def games_won(rules: Rules, state: State, lane: int = 0, lang: str = "en") -> str:
    """``"2 games (over 100 points)"``: the games a hand credits, and why two."""
    games = int(state.games[lane])
    text = games_text(lang, games)
    if games > 1:
        why = "why_tute" if state.tute_declarer[lane] >= 0 else "why_100"
        text += f" ({word(lang, why)})"
    return text


def hand_summary(rules: Rules, state: State, human: int | None, lang: str = "en") -> str:
    """A finished hand in one line: each side's points, who wins and how many games (and why)."""
    parts = []
    for side in range(rules.num_sides):
        parts.append(side_score(rules, state, 0, side, side_label(rules, side, human, lang, inline=True), lang))
    winner = int(state.winner[0])
    over = word(lang, "hand_over_tute" if state.tute_declarer[0] >= 0 else "hand_over")
    if human is not None and winner == rules.side_of(human):
        result = word(lang, "win_you")
    else:
        result = sentence(word(lang, "win", who=side_label(rules, winner, None, lang)))
    return f"{over}. " + sentence("; ".join(parts)) + f". {result} {games_won(rules, state, 0, lang)}."


def match_over_text(rules: Rules, winner: int, human: int | None, lang: str = "en") -> str:
    """``"You win the match!"``, ``"player_1 wins the match."``, ``"side 1 (...) wins the match."``."""
    if human is not None and winner == rules.side_of(human):
        return word(lang, "match_you")
    return sentence(word(lang, "match", who=side_label(rules, winner, None, lang)))
