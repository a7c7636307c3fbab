"""Game records (tute_env.play.records, docs/records.md): written by evaluate.py, the env, the play
mode and training; loaded, validated and replayed through the core."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import record_file_paths

import evaluate
from tute_env import tute_v0
from tute_env.engine.cards import action_id
from tute_env.engine.core import Game
from tute_env.engine.rules import PRESETS, make_rules, option_names
from tute_env.play.records import (
    FORMAT,
    Record,
    Recorder,
    RecordError,
    RecordWriter,
    check,
    check_records,
    deal_at_start,
    load_records,
    replay,
)
from tute_env.play.seating import RandomPolicy, Seating
from tute_lab import evaluation
from tute_play.cli import main as play_main

ROOT = Path(__file__).resolve().parent.parent

#: Every preset, and option mixes that change who sings, what a Tute is worth, exchanges and duties.
MIXES = [(preset, {}) for preset in sorted(PRESETS)] + [
    ("partnership", {"singers": "winner", "tute": "wins_hand"}),
    ("two_player", {"exchange": "after_win", "stock_duty": "trump_led"}),
    ("three_player", {"stock_duty": "free"}),
]
MIX_IDS = [p + "".join(f"-{k}={v}" for k, v in o.items()) for p, o in MIXES]


def replays_exactly(record: Record) -> None:
    """Replay a record through the core action by action: every action legal in the state it was
    recorded in, and the result the core reaches is the record's."""
    game = Game(record.rules)
    states = replay(record)
    assert len(states) == len(record.actions) + 1
    for state, action in zip(states, record.action_ids):
        assert not state.done[0]
        assert game.legal_action_mask(state)[0, action]
    final = states[-1]
    assert final.done[0]
    assert record.result == {"points": final.totals[0].tolist(), "winner": int(final.winner[0]),
                             "games": int(final.games[0])}
    check(record)


def random_records(rules, lanes=8, hands=24, seed=0):
    """Records of random play at a table whose lanes are dealt anew (advance(on_done=...))."""
    game = Game(rules)
    state = game.random_state(seed, lanes)
    recorder = Recorder(rules)
    seating = Seating(game, [RandomPolicy(seed)], np.zeros(rules.num_players, int), hooks=[recorder])
    ended = []

    def on_done(done):
        recorder.end(state, done)
        ended.extend(done.tolist())
        return done if len(ended) < hands else done[:0]

    seating.advance(state, on_done, np.random.default_rng(seed + 1))
    return recorder.records


# ----------------------------------------------------------------------------------------------
# The recorder at a table; lanes dealt anew
# ----------------------------------------------------------------------------------------------
def test_redealt_lanes_record_each_hand_with_its_own_deal():
    rules = make_rules("two_player")
    game = Game(rules)
    state = game.random_state(5, 2)
    first_deals = [deal_at_start(rules, state, lane) for lane in range(2)]
    recorder = Recorder(rules)
    seating = Seating(game, [RandomPolicy(1)], [0, 0], hooks=[recorder])
    second_deals = {}

    def on_done(done):
        recorder.end(state, done)
        redeal = [lane for lane in done.tolist() if lane not in second_deals]
        game.reset_done(state, np.random.default_rng(9 + len(second_deals)), lanes=redeal)
        for lane in redeal:
            second_deals[lane] = deal_at_start(rules, state, lane)
        return []  # dealt here, so the test knows the second deals

    seating.advance(state, on_done)
    seating.advance(state, on_done)
    records = recorder.records
    assert len(records) == 4
    by_deal = [r.deal for r in records]
    for lane in range(2):
        assert first_deals[lane] in by_deal and second_deals[lane] in by_deal
        assert first_deals[lane] != second_deals[lane]
    for record in records:
        replays_exactly(record)


@pytest.mark.parametrize("preset, options", MIXES, ids=MIX_IDS)
def test_records_of_a_redealing_table_replay(preset, options):
    rules = make_rules(preset, **options)
    records = random_records(rules)
    assert len(records) >= 24
    assert {r.deal.dealer for r in records} == set(range(rules.num_players))
    for record in records[:6]:
        replays_exactly(record)
    check_records(records)


def test_a_hand_joined_in_the_middle_is_not_recorded_and_an_unreported_one_is_dropped():
    rules = make_rules("partnership")
    game = Game(rules)
    state = game.random_state(1, 1)
    policy = RandomPolicy(2)
    bare = Seating(game, [policy], [0, 0, 0, 0])
    bare.step(state, bare.actions(state, ~state.done))  # one action before the recorder joins
    recorder = Recorder(rules)
    Seating(game, [policy], [0, 0, 0, 0], hooks=[recorder]).advance(state)
    assert recorder.end(state) == []
    state = game.random_state(2, 1)
    Seating(game, [policy], [0, 0, 0, 0], hooks=[recorder]).advance(state)
    game.reset_done(state, np.random.default_rng(0))  # the finished hand is never reported
    second = deal_at_start(rules, state, 0)
    Seating(game, [policy], [0, 0, 0, 0], hooks=[recorder]).advance(state)
    (record,) = recorder.end(state)
    assert record.deal == second and record.result["points"] == state.totals[0].tolist()
    replays_exactly(record)


# ----------------------------------------------------------------------------------------------
# Writers: evaluate.py, the env, the play mode
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset, options", MIXES, ids=MIX_IDS)
def test_evaluate_records_every_hand(tmp_path, preset, options):
    rules = make_rules(preset, **options)
    path = tmp_path / "eval.jsonl"
    result = evaluation.evaluate_pairing(rules, "random", "greedy", num_deals=3, batch_deals=2, record=path)
    records = load_records(path)
    assert len(records) == result.hands
    seatings = result.seatings
    for k, record in enumerate(records):
        assert record.seed == evaluation.HELD_OUT_SEED_START + k // seatings
        assert record.meta["seating"] == k % seatings
        teams = record.meta["teams"]
        assert record.players == ["random" if t == "A" else "greedy" for t in teams]
        assert record.variant == preset and record.rules == rules
    # the duplicate seatings of a deal are the same deal
    assert records[0].deal == records[1].deal
    assert records[0].deal == Record.from_dict(json.loads(path.read_text().splitlines()[0])).deal
    for record in records[:3]:
        replays_exactly(record)


def test_evaluate_command_line_records_and_checks_the_directory(tmp_path):
    path = tmp_path / "x.jsonl"
    assert evaluate.main(["random", "greedy", "--preset", "two_player", "--deals", "2", "--no-progress",
                          "--record", str(path)]) == 0
    records = load_records(path)
    assert len(records) == 4 and records[0].players in (["random", "greedy"], ["greedy", "random"])
    proc = subprocess.run([sys.executable, "evaluate.py", "random", "greedy", "--record", str(tmp_path / "no" / "x")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert "--record" in proc.stderr and "does not exist" in proc.stderr and "Traceback" not in proc.stderr


def env_records(rules_args, episode, seed):
    env = tute_v0.env(episode=episode, **rules_args)
    env.reset(seed=seed)
    records = []
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if "record" in info and not any(info["record"] is r for r in records):
            records.append(info["record"])
        action = None if termination or truncation else env.action_space(agent).sample(observation["action_mask"])
        env.step(action)
    return env, records


@pytest.mark.parametrize("preset, options", MIXES, ids=MIX_IDS)
def test_env_records_replay(preset, options):
    _, records = env_records({"preset": preset, **options}, "match", seed=7)
    assert len(records) >= 1
    assert [r["hand"] for r in records] == list(range(len(records)))
    assert len({r["match"] for r in records}) == 1
    for data in records:
        record = Record.from_dict(json.loads(json.dumps(data)))
        assert record.variant == preset and record.players == [f"player_{i}" for i in range(record.rules.num_players)]
        replays_exactly(record)


@pytest.mark.parametrize("preset", ["partnership", "two_player", "three_player"])
def test_env_reset_with_a_record_plays_its_hand_again(preset):
    env, (data,) = env_records({"preset": preset}, "hand", seed=11)
    raw = env.unwrapped
    assert raw.record().to_dict() == data
    for options in ({"record": data}, {"record": raw.record()}, {"deal": data["deal"]}):
        env.reset(seed=99, options=options)
        for action in data["actions"]:
            env.step(action_id(action))
        again = raw.record()
        assert again.deal == raw.record().deal and again.actions == data["actions"]
        assert again.result == data["result"]
    other = make_rules(preset, target_games=9)
    with pytest.raises(ValueError, match="rules differ from this env's in target_games"):
        tute_v0.env(preset=other).reset(options={"record": data})
    with pytest.raises(ValueError, match="give only one of"):
        env.reset(options={"record": data, "dealer": 0})


def test_env_players_label_the_records():
    env = tute_v0.env(preset="two_player")
    env.unwrapped.players = ["me", "heuristic"]
    env.reset(seed=1)
    while not all(env.terminations.values()):
        observation = env.observe(env.agent_selection)
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert env.unwrapped.record().players == ["me", "heuristic"]


def test_records_file_round_trip(tmp_path):
    records = random_records(make_rules("three_player"), hands=5)
    path = tmp_path / "r.jsonl"
    with RecordWriter(path) as writer:
        for record in records:
            writer(record)
    with RecordWriter(path, mode="a", limit=2) as writer:
        for record in records:
            writer(record)
    loaded = load_records(path)
    assert [r.to_dict() for r in loaded] == [r.to_dict() for r in records + records[:2]]
    first = json.loads(path.read_text().splitlines()[0])
    assert first["format"] == FORMAT and list(first)[:7] == ["format", "variant", "rules", "deal", "players",
                                                             "actions", "result"]
    assert set(first["rules"]) == set(option_names())
    assert set(first["deal"]) == {"dealer", "hands", "trump_card", "stock"}


@pytest.mark.parametrize("preset, options", MIXES, ids=MIX_IDS)
def test_play_mode_records_every_hand_to_the_history(preset, options):
    argv = ["--preset", preset, *(f"--set={k}={v}" for k, v in options.items()), "--level", "easy", "--seed", "2",
            "--hands", "2", "--plain"]
    assert play_main(argv, input_fn=lambda prompt="": "1", out=io.StringIO()) == 0
    from tute_play.terminal import history_path

    records = load_records(history_path())
    assert len(records) == 2
    assert [r.hand for r in records] == [0, 1] and records[0].match == records[1].match
    assert records[0].players == ["human"] + ["greedy"] * (records[0].rules.num_players - 1)
    assert records[0].rules == make_rules(preset, **options) and records[0].variant == preset
    assert records[1].deal.dealer == (records[0].deal.dealer + 1) % records[0].rules.num_players
    for record in records:
        replays_exactly(record)


def test_play_mode_record_file_and_no_history(tmp_path):
    from tute_play.terminal import history_path

    path = tmp_path / "mine.jsonl"
    argv = ["--preset", "two_player", "--level", "easy", "--seed", "3", "--hands", "1", "--plain"]
    play_main([*argv, "--record", str(path)], input_fn=lambda prompt="": "1", out=io.StringIO())
    play_main([*argv, "--record", str(path)], input_fn=lambda prompt="": "1", out=io.StringIO())  # appends
    assert len(load_records(path)) == 2 and not history_path().exists()
    play_main([*argv, "--no-history"], input_fn=lambda prompt="": "1", out=io.StringIO())
    assert not history_path().exists()


def test_an_unwritable_history_is_a_one_line_notice(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocker))  # a file where a directory should be
    out = io.StringIO()
    code = play_main(["--preset", "corriente", "--level", "easy", "--seed", "1", "--hands", "1", "--plain"],
                     input_fn=lambda prompt="": "1", out=out)
    assert code == 0 and "Hand over" in out.getvalue()
    notice = [line for line in out.getvalue().splitlines() if "not saving this game" in line]
    assert len(notice) == 1 and str(blocker) in notice[0]


def scripted(lines):
    it = iter(lines)
    return lambda prompt="": next(it)


def test_terminal_replay_steps_forward_and_back_and_shows_everything(tmp_path):
    rules = make_rules("partnership")
    records = random_records(rules, lanes=2, hands=3, seed=4)
    path = tmp_path / "r.jsonl"
    with RecordWriter(path) as writer:
        for record in records:
            writer(record)
    record = records[1]
    total = len(record.actions)
    out = io.StringIO()
    code = play_main(["--replay", str(path), "--hand", "2", "--plain"],
                     input_fn=scripted(["", "n", "p", "4", "e", "", "huh", "q"]), out=out)
    assert code == 0
    text = out.getvalue()
    views = [block for block in text.split("\n[")[1:]]
    assert [v.split("]")[0] for v in views] == [f"{k}/{total}" for k in (0, 1, 2, 1, 4, total)]
    states = replay(record)
    first = views[0]
    for seat in range(4):  # every hand face up at the deal
        from tute_env.envs.render import hand_label

        assert hand_label(int(states[0].hands[0, seat]), symbols=False) in first
    assert views[1] == views[3]  # back to the same view
    assert f"player_{states[0].current[0]} (player_{states[0].current[0]}) leads {record.actions[0]}" in views[1]
    assert "trick 1: " in views[4] and "takes it" in views[4]
    final = views[5]
    points = record.result["points"]
    assert f"side 0: {points[0]} " in final and f"side 1: {points[1]} " in final
    assert f"Hand over: side {record.result['winner']} wins" in final
    assert "the hand is over" in text and "I do not understand 'huh'" in text


def test_terminal_replay_defaults_to_the_last_hand(tmp_path):
    records = random_records(make_rules("two_player"), lanes=1, hands=2, seed=8)
    path = tmp_path / "r.jsonl"
    path.write_text("".join(r.to_json() + "\n" for r in records))
    out = io.StringIO()
    assert play_main(["--replay", str(path), "--plain"], input_fn=scripted(["e", "q"]), out=out) == 0
    assert f"[{len(records[-1].actions)}/{len(records[-1].actions)}]" in out.getvalue()


# ----------------------------------------------------------------------------------------------
# The loader rejects malformed records: the line and the field in the message
# ----------------------------------------------------------------------------------------------
def good_lines(n=3):
    records = random_records(make_rules("two_player", exchange="after_win"), lanes=1, hands=n, seed=2)
    return [r.to_dict() for r in records[:n]]


def corrupt(data, how):
    data = json.loads(json.dumps(data))
    how(data)
    return json.dumps(data)


def _illegal(d):  # the first two actions swapped: the second seat cannot act first
    d["actions"][0], d["actions"][1] = d["actions"][1], d["actions"][0]


def _extra_action(d):
    d["actions"].append(d["actions"][-1])


def _short(d):
    del d["actions"][-3:]


def _wrong_points(d):
    d["result"]["points"][0] += 1


def _wrong_winner(d):
    d["result"]["winner"] = 1 - d["result"]["winner"]


@pytest.mark.parametrize("how, field, words", [
    (lambda d: d.update(format="tute-record/2"), "format", "is not 'tute-record/1'"),
    (lambda d: d.pop("deal"), "deal", "missing"),
    (lambda d: d.pop("result"), "result", "missing"),
    (lambda d: d["rules"].pop("tute"), "rules.tute", "missing"),
    (lambda d: d["rules"].update(tute="sometimes"), "rules", "bad rules option tute='sometimes'"),
    (lambda d: d.update(colour="red"), "colour", "unknown field"),
    (lambda d: d["deal"]["hands"][0].__setitem__(0, "Zx"), "deal", "bad card string 'Zx'"),
    (lambda d: d["deal"]["hands"][0].__setitem__(0, d["deal"]["hands"][1][0]), "deal", "duplicate card"),
    (lambda d: d["actions"].__setitem__(3, "9o"), "actions", "action 3: bad action string '9o'"),
    (lambda d: d.update(players=["a"]), "players", "expected a list of 2 strings"),
    (lambda d: d["result"].update(winner=5), "result.winner", "5 is not a side 0..1"),
    (lambda d: d.update(hand="first"), "hand", "expected an int"),
    (_illegal, "actions", "is illegal for seat"),
    (_extra_action, "actions", "comes after the hand ended"),
    (_short, "actions", "the hand is not over after"),
    (_wrong_points, "result", "the replay gives"),
    (_wrong_winner, "result", "the replay gives"),
])
def test_the_loader_names_the_line_and_the_field(tmp_path, how, field, words):
    lines = [json.dumps(d) for d in good_lines()]
    lines[2] = corrupt(json.loads(lines[2]), how)
    path = tmp_path / "bad.jsonl"
    path.write_text(lines[0] + "\n\n" + lines[1] + "\n" + lines[2] + "\n")  # a blank line counts too
    with pytest.raises(RecordError) as info:
        load_records(path)
    err = info.value
    assert (err.line, err.field) == (4, field)
    assert str(err).startswith(f"{path} line 4: field '{field}': ") and words in str(err)
    assert isinstance(err, ValueError)


def test_bad_json_and_non_objects_name_the_line(tmp_path):
    good = json.dumps(good_lines(1)[0])
    path = tmp_path / "bad.jsonl"
    path.write_text(good + "\n" + good[:-5] + "\n")
    with pytest.raises(RecordError, match=r"line 2: not valid JSON"):
        load_records(path)
    path.write_text("[1, 2]\n")
    with pytest.raises(RecordError, match=r"line 1: a record is a JSON object"):
        load_records(path)


@pytest.mark.parametrize("argv, words", [
    (["tute_play", "--replay", "BAD"], "line 2: field 'actions': action 0"),
    (["tute_play", "--replay", "GOOD", "--hand", "9"], "--hand 9: "),
    (["tute_play", "--replay", "MISSING"], "cannot read it"),
    (["tute_play", "--hand", "2"], "--hand goes with --replay"),
    (["tute_play", "--record", "NODIR"], "does not exist"),
    (["evaluate.py", "random", "greedy", "--record", "NODIR"], "does not exist"),
])
def test_command_line_bad_input_is_one_message_and_exit_2(tmp_path, argv, words):
    paths = record_file_paths(tmp_path, good_lines(2), "x.jsonl")
    argv = [str(paths.get(a, a)) for a in argv]
    if argv[0] == "tute_play":
        argv = ["-m", "tute_play", *argv[1:]]
    proc = subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, text=True, input="", timeout=300)
    assert proc.returncode == 2, proc.stderr
    assert words in proc.stderr and "Traceback" not in proc.stderr
    assert len([line for line in proc.stderr.splitlines() if "error:" in line]) == 1


@pytest.mark.slow
def test_training_records_a_sample_of_each_evaluation(tmp_path):
    import train

    run = tmp_path / "run"
    train.main(["--config", str(ROOT / "configs" / "smoke.yaml"), "--run-dir", str(run), "--record-games", "3"])
    records = load_records(run / "records.jsonl")
    updates = [r.meta["update"] for r in records]
    assert updates == [1, 1, 1, 2, 2, 2]  # smoke.yaml: an evaluation after each of 2 updates, against random
    for record in records:
        labels = dict(zip(record.meta["teams"], record.players))
        assert labels == {"A": f"learner@{record.meta['update']}", "B": "random"}
        replays_exactly(record)
    assert records[0].deal == records[1].deal  # a duplicate deal, both seatings


def test_forget_drops_the_hands_being_recorded():
    rules = make_rules("corriente")
    game = Game(rules)
    state = game.random_state(3, 3)
    recorder = Recorder(rules)
    Seating(game, [RandomPolicy(0)], [0, 0], hooks=[recorder]).advance(state)
    recorder.forget(np.array([0, 2]))
    assert [r.deal for r in recorder.end(state)] == [deal_at_start(rules, game.random_state(3, 3), 1)]
    recorder.forget()
    assert recorder.end(state) == []
