"""Double-dummy analysis of recorded hands (tute_env.search.analysis) and its command line, tute-analyze."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import record_file_paths

from tute_env.engine.rules import make_rules
from tute_env.play.records import RecordWriter, replay
from tute_env.search.analysis import analyze_record, costliest, seat_losses
from tute_lab.evaluation import evaluate_pairing
from tute_play.analyze import main

ROOT = Path(__file__).resolve().parents[1]


def records_of(preset: str, num_deals: int, **overrides) -> list:
    """Records of greedy against random (both seatings of each deal)."""
    out = []
    evaluate_pairing(make_rules(preset, **overrides), "greedy", "random", num_deals=num_deals, record=out.append,
                     seed_start=3_000_000_000)
    return out


@pytest.fixture(scope="module")
def hands():
    """Partnership hands (no stock: cheap to solve from the first lead), greedy against random."""
    return records_of("partnership", 1)


@pytest.mark.slow
def test_values_are_the_legal_actions_and_losses_are_best_minus_played(hands):
    for record in hands:
        states = replay(record)
        decisions = analyze_record(record, point_weight=0.0, max_seconds=None)
        assert [d.action for d in decisions] == record.action_ids
        for d, state in zip(decisions, states):
            assert d.solved
            legal = {a for a in range(47) if int(state.legal[0]) >> a & 1}
            assert set(d.values) == legal and d.action in legal
            assert d.seat == int(state.current[0])
            assert d.loss == pytest.approx(max(d.values.values()) - d.values[d.action]) and d.loss >= 0
            assert d.values[d.best] == max(d.values.values())


@pytest.mark.slow
def test_a_played_action_is_worth_what_the_next_position_is_worth(hands):
    """Minimax consistency along the record: the played action's value is the next decision's
    best value for the same seat, or minus it for the other side (zero-sum)."""
    rules = hands[0].rules
    for record in hands:
        decisions = analyze_record(record, point_weight=0.0, max_seconds=None)
        for d, nxt in zip(decisions, decisions[1:]):
            sign = 1.0 if rules.side_of(d.seat) == rules.side_of(nxt.seat) else -1.0
            assert d.values[d.action] == pytest.approx(sign * max(nxt.values.values()), abs=1e-9)


@pytest.mark.slow
def test_seat_losses_and_costliest(hands):
    decisions = analyze_record(hands[0], point_weight=0.0, max_seconds=None)
    totals = seat_losses(decisions, 4)
    assert totals == pytest.approx([sum(d.loss for d in decisions if d.seat == s) for s in range(4)])
    worst = costliest(decisions, 3)
    assert all(d.loss > 0 for d in worst) and [d.loss for d in worst] == sorted((d.loss for d in worst), reverse=True)


def test_a_budget_too_small_reports_the_decision_unsolved(hands):
    record = hands[0]
    decisions = analyze_record(record, max_seconds=1e-6)
    first = decisions[0]
    assert not first.solved and first.values == {} and first.loss is None and first.best is None
    assert first.to_dict()["loss"] is None


@pytest.mark.slow
def test_cli_report_and_json(tmp_path, hands, capsys):
    path = tmp_path / "games.jsonl"
    with RecordWriter(path) as writer:
        for record in hands:
            writer(record)
    out = tmp_path / "analysis.json"
    assert main([str(path), "--hand", "2", "--json", str(out), "--point-weight", "0", "--max-seconds", "600"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Hand 2 ") and all(f"player_{k} " in text for k in range(4))
    data = json.loads(out.read_text())
    assert [h["hand"] for h in data["hands"]] == [2]
    decisions = data["hands"][0]["decisions"]
    assert len(decisions) == len(hands[1].actions)
    first = decisions[0]
    assert set(first) == {"ply", "seat", "action", "values", "loss", "best"}
    assert first["action"] == hands[1].actions[0] and first["action"] in first["values"]
    assert np.isclose(first["loss"], max(first["values"].values()) - first["values"][first["action"]])


@pytest.mark.parametrize("argv, words", [
    (["BAD"], "line 2: field 'actions'"),
    (["GOOD", "--hand", "9"], "--hand 9: "),
    (["MISSING"], "cannot read it"),
    (["GOOD", "--json", "NODIR"], "does not exist"),
    (["GOOD", "--max-seconds", "0"], "--max-seconds must be positive"),
])
def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, hands, argv, words):
    paths = record_file_paths(tmp_path, [json.loads(r.to_json()) for r in hands], "x.json")
    argv = [str(paths.get(a, a)) for a in argv]
    proc = subprocess.run([sys.executable, "-m", "tute_play.analyze", *argv], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr
    assert words in proc.stderr and "Traceback" not in proc.stderr
