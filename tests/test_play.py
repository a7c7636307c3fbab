"""The terminal game, driven by scripted input."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import build_deal  # tests/conftest.py

from agents.base import shipped_presets
from tute_env.engine.cards import EXCHANGE, action_id, card_id
from tute_env.engine.core import Game
from tute_env.engine.deal import Deal
from tute_env.engine.rules import PRESETS, make_rules
from tute_play.cli import main
from tute_play.levels import make_bots
from tute_play.narrate import describe_action, explain_illegal, narrate
from tute_play.terminal import Console, Quit, parse_choice, play_hand


def scripted(lines):
    """An ``input`` replacement reading from a list, then raising EOFError."""
    it = iter(lines)
    prompts = []

    def read(prompt=""):
        prompts.append(prompt)
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    read.prompts = prompts
    return read


def first_legal_forever():
    """Always answers 1 (the first listed move)."""

    def read(prompt=""):
        return "1"

    return read


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_plays_a_whole_hand_of_every_preset(preset):
    out = io.StringIO()
    code = main(["--preset", preset, "--level", "easy", "--seed", "1", "--hands", "1", "--plain"],
                input_fn=first_legal_forever(), out=out)
    text = out.getvalue()
    assert code == 0
    assert "legal moves" in text
    assert "Hand over" in text and (" 1 game." in text or " games (" in text)
    assert "Match score" in text


def test_expert_level_is_the_search_agent(monkeypatch):
    """--level expert seats the search agent (a whole hand of two_player against it)."""
    from agents.search import SearchAgent

    made = []
    monkeypatch.setattr(SearchAgent, "DEFAULT_SAMPLES", 2)
    real = SearchAgent.__init__
    monkeypatch.setattr(SearchAgent, "__init__", lambda self, *a, **k: made.append(self) or real(self, *a, **k))
    out = io.StringIO()
    code = main(["--preset", "two_player", "--level", "expert", "--seed", "1", "--hands", "1", "--plain"],
                input_fn=first_legal_forever(), out=out)
    assert code == 0 and "Hand over" in out.getvalue()
    assert len(made) == 1 and made[0].num_samples == 2


def test_illegal_choices_are_explained_and_asked_again():
    out = io.StringIO()
    lines = ["nonsense", "99", "sing-o", "pass", "exchange", "tute"] + ["1"] * 200
    read = scripted(lines)
    main(["--preset", "two_player", "--level", "medium", "--seed", "4", "--hands", "1", "--plain"],
         input_fn=read, out=out)
    text = out.getvalue()
    assert "I do not understand 'nonsense'" in text
    assert "99 is not on the list" in text
    assert "sing-o is not allowed" in text
    assert "pass is not allowed: pass only declines a declaration turn" in text
    assert "tute is not allowed" in text
    assert "Hand over" in text


def test_moves_by_action_string_and_quit():
    rules = make_rules("two_player")
    hands = ["Ao 2o 4c 5c 6c 7c Sc 2e", "3o 4o 5o 6o 7o So Co Ro"]
    rest = [c for c in range(40) if c not in {card_id(x) for h in hands for x in h.split()}]
    deal = Deal.from_dict({"dealer": 1, "hands": hands, "trump_card": rest[0], "stock": rest[1:]}, rules)
    state = Game(rules).new_state([deal])
    out = io.StringIO()
    console = Console(scripted(["ao", "quit"]), out)
    bots = make_bots(rules, 0, "greedy", None, seed=0)
    with pytest.raises(Quit):
        play_hand(rules, state, 0, bots, console, symbols=False)
    text = out.getvalue()
    assert "You lead Ao" in text
    assert "player_1 plays" in text
    assert "You win the trick" in text or "player_1 wins the trick" in text


def test_parse_choice():
    menu = [card_id("Ao"), card_id("3c"), action_id("sing-c"), action_id("pass")]
    assert parse_choice("1", menu) == card_id("Ao")
    assert parse_choice(" 3 ", menu) == action_id("sing-c")
    assert parse_choice("3C", menu) == card_id("3c")
    assert parse_choice("Rb", menu) == card_id("Rb")  # not on the menu: parsed, then judged illegal
    assert parse_choice("sing c", menu) == action_id("sing-c")
    assert parse_choice("PASS", menu) == action_id("pass")
    with pytest.raises(ValueError, match="not on the list"):
        parse_choice("7", menu)
    with pytest.raises(ValueError, match="do not understand"):
        parse_choice("xyz", menu)


def test_explains_the_follow_duty():
    rules = make_rules("partnership")
    hands = [
        "Ao 2o 4c 5c 6c 7c Sc 2e 4e 5e",
        "3o 4o 5o 6o 7o So Co Ro 6e 7e",
        "Ac 3c Rc Cc 2c Se Ce Re 3e Ae",
        "2b 4b 5b 6b 7b Sb Cb Rb 3b Ab",
    ]
    deal = Deal.from_dict({"dealer": 3, "hands": hands, "trump_card": "Ab"}, rules)
    game = Game(rules)
    state = game.new_state([deal])
    game.step(state, np.array([card_id("Ao")]))  # seat 0 leads the ace of oros
    why = explain_illegal(rules, state, card_id("6e"))
    assert "follow suit in oros" in why and "3o" in why
    why = explain_illegal(rules, state, card_id("Ac"))
    assert "do not hold Ac" in why


@pytest.mark.parametrize("turned,given", [("5b", "2b"), ("Cb", "7b")])
def test_exchange_is_described_with_the_card_given(turned, given):
    rules = make_rules("two_player", exchange="after_win")
    game = Game(rules)
    state = game.new_state([build_deal(rules, ["7b 2b Ac", "2c"], turned, dealer=1)])
    game.step(state, np.array([card_id("Ac")]))
    game.step(state, np.array([card_id("2c")]))  # seat 0 won a trick: it may exchange (R7)
    assert describe_action(rules, state, EXCHANGE) == f"exchange: give your {given} for the turned {turned}"
    assert narrate(rules, 0, EXCHANGE, state, you=0) == f"You exchange the {given} for the turned {turned}"


@pytest.mark.parametrize("argv, message", [
    (["--opponent", "no_such_bot"], "cannot make the agent: unknown agent 'no_such_bot'"),
    (["--preset", "three_player", "--set", "tute=off", "--level", "trained"], "no shipped agent plays these rules"),
    (["--preset", "two_player", "--set", "tute=off", "--level", "trained"], "no shipped agent plays these rules"),
    (["--preset", "three_player", "--set", "tute=off", "--level", "expert"], "--level expert: no shipped agent plays these rules"),
    (["--seat", "7"], "--seat must be 0..3"),
    (["--hands", "0"], "--hands must be at least 1"),
    pytest.param(["--opponent", "README.md"], "not a checkpoint torch can load", marks=pytest.mark.slow),
])
def test_command_line_bad_input_is_one_message_and_exit_2(argv, message):
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, "-m", "tute_play", *argv], cwd=root, capture_output=True, text=True,
                          input="", timeout=300)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_help_names_each_level_and_how_to_type_a_move():
    root = Path(__file__).resolve().parent.parent
    text = subprocess.run([sys.executable, "-m", "tute_play", "--help"], cwd=root, capture_output=True, text=True,
                          timeout=300).stdout
    text = " ".join(text.split())
    for words in ("easy = greedy", "medium = heuristic", "hard = pimc", "trained = ppo (the shipped network",
                  "expert = search (pimc whose playouts", f"(trained and expert: presets {', '.join(shipped_presets())})", "faces A 2 3 4 5 6 7 S C R", "sing-o", "tricks"):
        assert words in text


def test_ctrl_c_exits_cleanly():
    def interrupt(prompt=""):
        raise KeyboardInterrupt

    out = io.StringIO()
    assert main(["--preset", "two_player", "--seed", "1"], input_fn=interrupt, out=out) == 130
    assert out.getvalue().rstrip().endswith("Bye.")


def test_the_tricks_command_shows_the_tricks_of_the_hand():
    out = io.StringIO()
    answers = iter(["tricks"] + ["1", "tricks"] * 40)
    main(["--preset", "two_player", "--level", "easy", "--seed", "3", "--hands", "1", "--plain"],
         input_fn=lambda prompt="": next(answers), out=out)
    text = out.getvalue()
    assert "no trick completed yet this hand" in text
    assert "trick 1: " in text and "trick 2: " in text and " points)" in text


def test_partner_and_seat_options():
    out = io.StringIO()
    code = main(["--preset", "manita", "--seat", "1", "--partner", "random", "--level", "easy", "--seed", "2",
                 "--hands", "1", "--plain"], input_fn=first_legal_forever(), out=out)
    assert code == 0
    assert "You are player_1, partner player_3" in out.getvalue()


def test_the_terminal_game_in_spanish():
    out = io.StringIO()
    code = main(["--preset", "two_player", "--level", "easy", "--seed", "1", "--hands", "1", "--plain", "--lang", "es",
                 "--no-history"], input_fn=first_legal_forever(), out=out)
    text = out.getvalue()
    assert code == 0
    assert "Sales con el " in text or "Echas el " in text or "Echas la " in text
    assert "Jugador 1 echa " in text or "Jugador 1 sale con " in text or "Jugador 1 falla con " in text
    assert "se lleva la baza" in text or "Te llevas la baza" in text
    assert "Fin de la mano" in text and ("1 juego." in text or "juegos (" in text)
    assert " plays " not in text and "Hand over" not in text


def test_the_match_winner_is_named_as_elsewhere():
    out = io.StringIO()
    main(["--preset", "two_player", "--level", "easy", "--seed", "3", "--set", "target_games=1", "--plain",
          "--no-history"], input_fn=first_legal_forever(), out=out)
    text = out.getvalue()
    assert "You win the match!" in text or "player_1 wins the match." in text
    assert "Side 1 wins" not in text
    (score,) = [line for line in text.splitlines() if line.startswith("Match score")]
    assert "player_1: " in score and "side" not in score


def test_replay_counts_hands_from_one_like_hand(tmp_path):
    path = tmp_path / "games.jsonl"
    out = io.StringIO()
    main(["--preset", "two_player", "--level", "easy", "--seed", "2", "--hands", "2", "--plain", "--record", str(path)],
         input_fn=first_legal_forever(), out=out)
    lines = path.read_text().splitlines()
    assert [json.loads(x)["hand"] for x in lines] == [0, 1]  # the record's field: from 0 (docs/records.md)
    out = io.StringIO()
    assert main(["--replay", str(path), "--hand", "2"], input_fn=scripted(["q"]), out=out) == 0
    assert "hand 2 of match" in out.getvalue() and "hand 1 " not in out.getvalue().splitlines()[0]


def test_illegal_moves_explained_in_spanish():
    out = io.StringIO()
    main(["--preset", "two_player", "--level", "easy", "--seed", "1", "--hands", "1", "--plain", "--lang", "es",
          "--no-history"], input_fn=scripted(["pass", "quit"]), out=out)
    text = out.getvalue()
    assert "paso no vale: pasar solo sirve en un turno de cante; ahora tienes que echar una carta. Prueba otra vez." \
        in text
    assert "jugadas posibles:" in text and "legal moves" not in text


@pytest.fixture(scope="module")
def reviewed_hand(tmp_path_factory):
    """A partnership record (greedy against random) whose analysis at point weight 0 has moves
    that lost, written to a file, and that analysis (tute_env.search.analysis)."""
    from tute_env.play.records import RecordWriter
    from tute_env.search.analysis import analyze_record
    from tute_lab.evaluation import evaluate_pairing

    records = []
    evaluate_pairing(PRESETS["partnership"], "greedy", "random", num_deals=1, record=records.append,
                     seed_start=3_000_000_000)
    path = tmp_path_factory.mktemp("review") / "hands.jsonl"
    with RecordWriter(path) as writer:
        for record in records:
            writer(record)
    decisions = analyze_record(records[1], point_weight=0.0, max_seconds=None)  # every decision solved
    assert any(d.loss > 1e-12 for d in decisions)  # the hand shows a loss and a best move
    return path, records[1], decisions


@pytest.mark.slow
def test_replay_review_shows_each_moves_loss_and_the_best_move(reviewed_hand):
    from tute_env.search.analysis import seat_losses

    path, record, decisions = reviewed_hand
    out = io.StringIO()
    steps = [""] * len(record.actions) + ["q"]
    assert main(["--replay", str(path), "--hand", "2", "--review", "--point-weight", "0", "--max-seconds", "600",
                 "--plain"],
                input_fn=scripted(steps), out=out) == 0
    text = out.getvalue()
    assert "Reviewing the hand with every card known: " in text
    assert f"{len(decisions)} of {len(decisions)} decisions solved" in text
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith("review: ")]
    expected = [f"review: loss {d.loss:.3f}; best {d.best_str}" if d.loss > 1e-12 else "review: a best move (loss 0)"
                for d in decisions]
    assert lines == expected
    assert sum(line.startswith("review: loss ") for line in lines) >= 1
    totals = seat_losses(decisions, 4)
    assert "review, total loss per seat (in games, point weight 0): " + ", ".join(
        f"player_{x} ({record.players[x]}) {t:.3f}" for x, t in enumerate(totals)) in text
    assert max(totals) > 0


@pytest.mark.slow
def test_replay_review_in_spanish_and_its_options_checked(reviewed_hand, capsys):
    from tute_env.play.records import replay
    from tute_env.search.analysis import Decision
    from tute_play.terminal import replay_step, review_line
    from tute_play.words import move_name

    path, record, decisions = reviewed_hand
    lost = next(d for d in decisions if d.loss > 1e-12)
    assert review_line(lost, "es") == f"  análisis: pierde {lost.loss:.3f}; mejor {lost.best_str}"
    assert review_line(Decision(0, 0, 0)) == "  review: not solved (the solver's time ran out)"
    guess = Decision(0, 0, 1, {0: 0.5, 1: 0.25}, "estimate", {0: 0.02, 1: 0.03}, 0.04, 32)
    assert review_line(guess) == "  review: loss 0.250; best " + move_name("en", 0) + " (an estimate, ±0.040)"
    step = replay_step(record, replay(record), lost.ply + 1, symbols=False, review=decisions)
    assert f"review: loss {lost.loss:.3f}; best {lost.best_str}" in step
    for argv in (["--review"], ["--replay", str(path), "--max-seconds", "5"],
                 ["--replay", str(path), "--review", "--max-seconds", "0"], ["--web", "--review"]):
        with pytest.raises(SystemExit) as exc:
            main(argv, input_fn=scripted([]), out=io.StringIO())
        assert exc.value.code == 2
    assert "--replay FILE" in capsys.readouterr().err


def test_another_hand_takes_only_yes_or_no_words():
    from tute_play.terminal import another_hand

    for answers, expected in ((["1", "maybe", ""], True), (["sí"], True), (["S"], True), (["yes"], True),
                              (["x", "no"], False), (["salir"], False), (["q"], False)):
        out = io.StringIO()
        read = scripted(answers)
        assert another_hand(Console(read, out), "es") is expected
        assert len(read.prompts) == len(answers) and set(read.prompts) == {"¿Otra mano? [S/n] "}
        assert out.getvalue().count("Responde s (sí) o n (no).") == len(answers) - 1
    read = scripted(["2", "n"])
    assert another_hand(Console(read, io.StringIO())) is False and read.prompts == ["Another hand? [Y/n] "] * 2


@pytest.mark.parametrize("lang, taken, gone, over", [
    ("en", "player_1 takes the turned card, ", "-> The stock is gone: arrastre, from now on follow suit and beat",
     "Hand over"),
    ("es", "Jugador 1 roba la muestra, ", "-> Se acabó el monte: arrastre; desde ahora hay que asistir y montar",
     "Fin de la mano"),
])
def test_the_last_draw_and_the_end_of_the_stock_are_announced_and_the_result_said_once(lang, taken, gone, over):
    texts = []
    for seed in range(1, 4):  # the turned card goes to the bot in some hands, to the player in others
        out = io.StringIO()
        main(["--preset", "two_player", "--level", "easy", "--seed", str(seed), "--hands", "1", "--plain", "--lang",
              lang, "--no-history"], input_fn=first_legal_forever(), out=out)
        text = out.getvalue()
        assert text.count(gone) == 1
        assert text.count(over) == 1 and len(re.findall(r"(wins|gana) \d+ (game|juego)", text)) == 1
        texts.append(text)
    assert any(taken in text for text in texts)
    taken_you = "You take the turned card, " if lang == "en" else "Robas la muestra, "
    assert all((taken in text) != (taken_you in text) for text in texts)


def test_trumping_and_overtrumping_are_named():
    rules = make_rules("partnership")
    game = Game(rules)
    hands = ["Ao 2o 3o 4o 5o 6o 7o So Co Ro", "2b 2c 3c 4c 5c 6c 7c Sc Cc Rc", "Rb 2e 3e 4e 5e 6e 7e Se Ce Re",
             "Ab 3b 4b 5b 6b 7b Sb Cb Ac Ae"]
    state = game.new_state([Deal.from_dict({"dealer": 3, "hands": hands, "trump_card": "Ab"}, rules)])
    game.step(state, np.array([card_id("Ao")]))
    assert narrate(rules, 1, card_id("2b"), state) == "player_1 trumps with 2b"
    assert narrate(rules, 1, card_id("2b"), state, lang="es") == "jugador 1 falla con el dos de bastos"
    game.step(state, np.array([card_id("2b")]))
    assert narrate(rules, 2, card_id("Rb"), state, you=2) == "You overtrump with Rb"
    assert narrate(rules, 2, card_id("Rb"), state, lang="es") == "jugador 2 contrafalla con el rey de bastos"


def test_spanish_moves_are_typed_and_named_in_spanish():
    menu = [card_id("Ao"), action_id("sing-c"), action_id("exchange"), action_id("pass")]
    assert parse_choice("cantar c", menu) == action_id("sing-c") == parse_choice("cantar-c", menu)
    assert parse_choice("cambiar", menu) == action_id("exchange") and parse_choice("Paso", menu) == action_id("pass")
    with pytest.raises(ValueError, match="no está en la lista: elige de 1 a 4"):
        parse_choice("9", menu, "es")
    with pytest.raises(ValueError, match="No entiendo 'cantar-z'"):
        parse_choice("cantar-z", menu, "es")
