"""Spanish throughout: a hand played to its end in Spanish in every terminal mode (tute-play's game
against the bots, its replay and its review, the environments' renderers) prints no English word.

A word is English here when the same scenario played in English prints it (or the English words
table holds it) and the Spanish words table does not: so a line left untranslated, which prints the
same in both languages, is caught. Names are not words: card codes (``Ao``, ``Rb``), the presets'
and the bots' names (``two_player``, ``greedy``), a record's match id and time."""

from __future__ import annotations

import io
import re
import warnings

import numpy as np
import pytest

from tute_env.engine.cards import NUM_CARDS
from tute_env.engine.rules import PRESETS
from tute_env.play.records import load_records
from tute_play.cli import main
from tute_play.words import WORDS, card_name

CARD_CODE = re.compile(r"(?<![^\W\d_])[A2-7SCR][oceb](?![^\W\d_])")
BOTS = ("greedy", "heuristic", "random", "pimc")


def words_of(texts) -> set[str]:
    """The words of some texts, lower case, two letters or more (``{fields}`` of templates left out)."""
    words = set()
    for text in texts:
        text = CARD_CODE.sub(" ", re.sub(r"\{[^}]*\}", " ", text))
        words |= {w.lower() for w in re.findall(r"[^\W\d_]+", text) if len(w) > 1}
    return words


def english_left(spanish: str, english: str, names=()) -> list[str]:
    """The English words of ``spanish`` (the same scenario printed ``english`` in English); ``names``
    are not words (the player's input, quoted back, is in ``names`` too)."""
    names = [*names, *(repr(line) for line in {*OPENING, *REPLAY_INPUT})]
    for name in sorted({*PRESETS, *BOTS, *names}, key=len, reverse=True):
        spanish, english = spanish.replace(name, " "), english.replace(name, " ")
    spanish_words = words_of(WORDS["es"].values()) | words_of(card_name("es", c) for c in range(NUM_CARDS))
    english_words = words_of([english, *WORDS["en"].values()])
    return sorted(words_of([spanish]) & (english_words - spanish_words))


class Player:
    """A scripted player at the terminal: the ``opening`` answers first, then the first move on
    the list; to "another hand?" a stray ``1`` (asked again), then yes; in the second hand it quits.
    Keeps every prompt it was shown (the prompts are text the player reads too)."""

    def __init__(self, opening=()):
        self.queue, self.prompts, self.again, self.second_hand = list(opening), [], 0, False

    def __call__(self, prompt=""):
        self.prompts.append(prompt)
        if "[" in prompt:  # another hand? [Y/n]
            self.again += 1
            self.second_hand = self.again > 1
            return "1" if self.again == 1 else "y"
        if self.second_hand:
            return "quit"
        return self.queue.pop(0) if self.queue else "1"


OPENING = ["help", "table", "tricks", "nonsense", "99", "pass", "sing-o", "exchange", "tute", "Rz", ""]


def play(lang: str, argv, opening=OPENING) -> tuple[str, Player]:
    out, player = io.StringIO(), Player(opening)
    code = main([*argv, "--lang", lang], input_fn=player, out=out)
    assert code == 0
    return out.getvalue() + "\n".join(player.prompts), player


def both(argv, opening=OPENING) -> tuple[str, str]:
    return play("es", argv, opening)[0], play("en", argv, opening)[0]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A two_player match played in both languages (two hands, the second quit), its records file
    and the texts: commands, bad input, illegal moves, a stray answer, the end of a hand."""
    path = tmp_path_factory.mktemp("spanish") / "hands.jsonl"
    argv = ["--preset", "two_player", "--level", "easy", "--seed", "5", "--plain"]
    spanish, player = play("es", [*argv, "--record", str(path)])
    english, _ = play("en", [*argv, "--no-history"])
    return path, spanish, english, player


def test_the_game_against_the_bots_in_spanish(recorded):
    _, spanish, english, player = recorded
    first = next(k for k, prompt in enumerate(player.prompts) if "[" in prompt)
    assert "[" in player.prompts[first + 1]  # the stray answer is not a yes: asked again
    assert "Fin de la mano" in spanish and "Hand over" in english
    assert english_left(spanish, english) == []


def test_a_partnership_match_in_spanish_to_its_end():
    """Suit symbols, the partner, the match won."""
    argv = ["--preset", "partnership", "--level", "easy", "--seed", "2", "--set", "target_games=1", "--no-history"]
    spanish, english = both(argv, opening=["tricks", "1", "table"])
    assert "partida" in spanish
    assert english_left(spanish, english) == []


def record_names(path) -> list[str]:
    return [str(getattr(r, k)) for r in load_records(path) for k in ("match", "time") if getattr(r, k)]


REPLAY_INPUT = ["huh", "help", "p", "s", "e", "", "4"]


def replay_steps(path) -> list[str]:
    total = len(load_records(path)[0].actions)
    return [*REPLAY_INPUT, *[""] * (total - 4), "q"]


def test_the_replay_in_spanish(recorded):
    path = recorded[0]
    argv = ["--replay", str(path), "--hand", "1", "--plain"]
    spanish, english = both(argv, opening=replay_steps(path))
    assert english_left(spanish, english, record_names(path)) == []


@pytest.mark.slow
def test_the_review_in_spanish(recorded):
    """Each step's review line (solved or not in the time given) and the totals."""
    path = recorded[0]
    argv = ["--replay", str(path), "--hand", "1", "--plain", "--review", "--max-seconds", "0.05"]
    spanish, english = both(argv, opening=replay_steps(path))
    assert "análisis" in spanish
    assert english_left(spanish, english, record_names(path)) == []


def render_hand(preset: str, lang: str, mode: str, monkeypatch=None, **kwargs) -> str:
    """Every render of a hand of the PettingZoo env played to its end (first legal moves); the drawn
    modes' text as drawn (each ``_text`` call of the table renderer)."""
    from tute_env import tute_v0
    from tute_env.envs.render import TableRenderer

    drawn = []
    if monkeypatch is not None:
        real = TableRenderer._text
        monkeypatch.setattr(TableRenderer, "_text", lambda self, text, *a, **k: drawn.append(text) or real(self, text, *a, **k))
    env = tute_v0.env(preset=preset, render_mode=mode, lang=lang, **kwargs)
    env.reset(seed=3)
    texts = []
    for agent in env.agent_iter(max_iter=500):
        obs, _, term, trunc, _ = env.last()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            picture = env.render()
        texts.append(picture if isinstance(picture, str) else "")
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    env.close()
    return "\n".join(texts + drawn)


@pytest.mark.parametrize("preset", ["two_player", "partnership"])
def test_the_env_text_renderer_in_spanish(preset):
    spanish = render_hand(preset, "es", "ansi", show_all_hands=True, plain=True)
    english = render_hand(preset, "en", "ansi", show_all_hands=True, plain=True)
    assert english_left(spanish, english) == []
    spanish = render_hand(preset, "es", "ansi", episode="match")
    english = render_hand(preset, "en", "ansi", episode="match")
    assert english_left(spanish, english) == []


def test_the_env_drawn_table_in_spanish(monkeypatch):
    spanish = render_hand("two_player", "es", "rgb_array", monkeypatch, episode="match")
    english = render_hand("two_player", "en", "rgb_array", monkeypatch, episode="match")
    assert english_left(spanish, english) == []
