"""Double-dummy analysis of recorded hands (tute_env.search.analysis) and its command line, tute-analyze."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import record_file_paths

from tute_env.engine.core import Game
from tute_env.engine.rules import make_rules
from tute_env.play.records import RecordWriter, replay
from tute_env.search.analysis import ESTIMATE, EXACT, SAMPLES, analyze_record, costliest, sampled_values, seat_losses
from tute_env.search.solver import Solver
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


def test_a_budget_too_small_gives_the_first_lead_a_bounded_estimate(hands):
    """No stock: an unfinished search's values are the middles of the bounds it proved."""
    record = hands[0]
    state = replay(record)[0]
    decisions = analyze_record(record, max_seconds=1e-6)
    first = decisions[0]
    legal = {a for a in range(47) if int(state.legal[0]) >> a & 1}
    assert not first.solved and first.kind == ESTIMATE and first.samples == 0
    assert set(first.values) == set(first.errors) == legal
    assert all(np.isfinite(e) and e >= 0 for e in first.errors.values()) and first.error > 0
    assert first.loss is not None and first.to_dict()["kind"] == "estimate"
    assert all(d.values for d in decisions) and decisions[-1].kind == EXACT  # the last trick is solved in time


@pytest.mark.slow
def test_a_bounded_estimate_holds_the_exact_values(hands):
    """Every exact value lies within the bounded estimate's error of it (a sure bound)."""
    record = hands[0]
    state = replay(record)[0]
    exact = Solver(record.rules, point_weight=0.0).action_values(state)[0]
    budget = Solver(record.rules, point_weight=0.0, max_nodes=1_000_000)
    first = analyze_record(record, solver=budget)[0]
    assert first.kind == ESTIMATE and max(first.errors.values()) > 0
    for a, v in first.values.items():
        assert abs(v - exact[a]) <= first.errors[a] + 1e-12
    assert any(e == 0 for e in first.errors.values())  # the actions solved within the budget are exact


@pytest.fixture(scope="module")
def two_hands():
    """Two-player hands: a long free stock phase before the exact solver can finish."""
    return records_of("two_player", 1)


def heuristic(rules):
    from agents import make_agent

    return make_agent("heuristic", rules)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["two_player", "partnership"])
def test_every_decision_is_valued_with_its_kind(preset, hands, two_hands):
    """A node budget (the same on every machine): exact where the solver finished (the values
    equal the unbudgeted solver's), an estimate with a finite error elsewhere, never nothing."""
    record = (two_hands if preset == "two_player" else hands)[0]
    states = replay(record)
    budget = Solver(record.rules, point_weight=0.177, max_nodes=50_000)
    exact = Solver(record.rules, point_weight=0.177)
    decisions = analyze_record(record, solver=budget, playout=heuristic(record.rules))
    assert [d.action for d in decisions] == record.action_ids
    for d, state in zip(decisions, states):
        legal = {a for a in range(47) if int(state.legal[0]) >> a & 1}
        assert set(d.values) == legal and d.kind in (EXACT, ESTIMATE) and d.loss >= 0
        if d.kind == EXACT:
            assert d.errors == {} and d.error == 0 and d.samples == 0
        else:
            assert set(d.errors) == legal and all(np.isfinite(e) and e >= 0 for e in d.errors.values())
            assert np.isfinite(d.error) and d.error >= 0
    kinds = [d.kind for d in decisions]
    assert kinds[0] == ESTIMATE and kinds[-1] == EXACT
    if preset == "two_player":
        in_stock = [int(s.to_draw[0]) > 0 for s in states[:-1]]
        assert all(d.kind == EXACT for d, stock in zip(decisions, in_stock) if not stock)
        sampled = [d for d in decisions if d.kind == ESTIMATE]
        assert all(d.samples == SAMPLES for d in sampled) and any(d.error > 0 for d in sampled)
        assert any(max(d.errors.values()) > 0 for d in sampled)  # samples differ: a positive error
    for d, state in list(zip(decisions, states))[-12:]:  # exact: the solver's values, whoever is to act
        if d.kind == EXACT:
            row = exact.action_values(state)[0]
            assert d.values == {a: row[a] for a in d.values}


@pytest.mark.slow
def test_the_sampled_estimate_is_the_exact_value_with_one_stock_card_left(two_hands):
    """The follower's card in the last stock trick: one face-down card (one order), no playout
    left: every sample is the exact value, the error 0."""
    record = two_hands[0]
    states = replay(record)
    ply = next(k for k, s in enumerate(states) if s.to_draw[0] == 2 and s.trick_size[0] == 1)
    state = states[ply]
    exact = Solver(record.rules, point_weight=0.177).action_values(state)[0]
    values, errors, error = sampled_values(state, record.action_ids[ply], Solver(record.rules, point_weight=0.177),
                                           None, 8, np.random.default_rng(0))
    assert values == pytest.approx({a: exact[a] for a in values}, abs=1e-12)
    assert set(errors.values()) == {0.0} and error == 0.0


@pytest.mark.slow
def test_the_sampled_estimate_agrees_with_every_order_solved(two_hands):
    """Three face-down cards: the estimate's values against their expectation over the six
    orders (each played on by the same policy and solved exactly), within the errors."""
    misses, checked, strict = 0, 0, 0
    for record in two_hands:
        states = replay(record)
        ply = next(k for k, s in enumerate(states) if s.to_draw[0] == 4 and s.trick_size[0] == 1)
        state = states[ply]
        rules, policy = record.rules, heuristic(record.rules)
        solver = Solver(rules, point_weight=0.177)
        values, errors, _ = sampled_values(state, record.action_ids[ply], solver, policy, 32, np.random.default_rng(1))
        start = int(state.stock_next[0])
        hidden = state.stock[0, start:].copy()
        orders = [np.array(p, np.int8) for p in __import__("itertools").permutations(hidden)]
        seat = int(state.current[0])
        game = Game(rules)
        for action, value in values.items():
            truth = []
            for order in orders:  # each order played on by the policy (one game at a time) and solved
                s = state.copy()
                s.stock[0, start:] = order
                game.step(s, np.array([action]))
                while not s.done[0] and s.to_draw[0] > 0:
                    from tute_env.engine.observation import encode_observation
                    obs = encode_observation(rules, s, s.current.astype(np.intp))
                    game.step(s, policy.act_batch(obs, game.legal_action_mask(s)))
                truth.append(solver.value(s, side=rules.side_of(seat))[0] if not s.done[0] else None)
            assert None not in truth  # the stock runs out before the hand does, here
            expected = float(np.mean(truth))
            checked += 1
            strict += errors[action] == 0
            if errors[action] == 0:
                assert value == pytest.approx(expected, abs=1e-12)  # every order alike
            misses += abs(value - expected) > errors[action]
            assert abs(value - expected) <= 2.5 * errors[action] + 1e-12
    assert checked >= 8 and misses <= max(1, checked // 10) and strict < checked


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
    assert set(first) == {"ply", "seat", "action", "values", "loss", "best", "kind", "error", "errors", "samples"}
    assert first["action"] == hands[1].actions[0] and first["action"] in first["values"]
    assert np.isclose(first["loss"], max(first["values"].values()) - first["values"][first["action"]])
    assert all(d["kind"] == "exact" and d["error"] == 0 and d["errors"] == {} for d in decisions)  # 600 s: all exact
    assert "0 estimated" in text and data["max_seconds"] == 600


@pytest.mark.slow
def test_cli_two_player_hand_estimates_the_stock_phase(tmp_path, two_hands, capsys):
    """Every decision of a two-player hand valued: the stock phase estimated (the JSON and the
    report say so, with the errors), the rest exact."""
    path = tmp_path / "two.jsonl"
    with RecordWriter(path) as writer:
        writer(two_hands[0])
    out = tmp_path / "analysis.json"
    assert main([str(path), "--json", str(out), "--max-seconds", "0.2"]) == 0
    text = capsys.readouterr().out
    decisions = json.loads(out.read_text())["hands"][0]["decisions"]
    assert all(d["values"] and d["loss"] is not None for d in decisions)
    kinds = {d["kind"] for d in decisions}
    assert kinds == {"exact", "estimate"}
    estimated = [d for d in decisions if d["kind"] == "estimate"]
    assert all(set(d["errors"]) == set(d["values"]) and d["samples"] == SAMPLES for d in estimated)
    assert f"{len(estimated)} estimated ({len(estimated)} from {SAMPLES} sampled stock orders)" in text
    assert decisions[0]["kind"] == "estimate" and decisions[-1]["kind"] == "exact"


@pytest.mark.slow
def test_same_record_and_seed_give_the_same_values(two_hands):
    record = two_hands[1]
    runs = [analyze_record(record, solver=Solver(record.rules, point_weight=0.177, max_nodes=50_000),
                           playout=heuristic(record.rules), seed=seed) for seed in (5, 5, 6)]
    assert [d.to_dict() for d in runs[0]] == [d.to_dict() for d in runs[1]]
    first, other = runs[0][0], runs[2][0]
    assert first.kind == ESTIMATE and first.values != other.values  # another seed, other orders


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
