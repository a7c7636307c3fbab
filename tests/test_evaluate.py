"""Duplicate-deal evaluation: the method, the reports, the command line."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import evaluate
from agents import make_agent
from tute_env.engine.rules import make_rules
from tute_lab.evaluation import (
    HELD_OUT_SEED_START,
    TRAINING_SEED_LIMIT,
    deal_set,
    evaluate_pairing,
    evaluate_teams,
    pairing_seatings,
    plot_table,
    round_robin,
)


def test_held_out_seed_range():
    assert HELD_OUT_SEED_START >= TRAINING_SEED_LIMIT
    with pytest.warns(UserWarning, match="not held out"):
        evaluate_pairing("two_player", "greedy", "greedy", num_deals=4, seed_start=0)


def test_deal_sets_are_reproducible_prefixes():
    rules = make_rules("two_player")
    a = deal_set(rules, 10, 123)
    b = deal_set(rules, 4, 123)
    c = deal_set(rules, 6, 127)
    assert (a.hands[:4] == b.hands).all() and (a.hands[4:] == c.hands).all()
    assert (a.dealer[4:] == c.dealer).all() and (a.stock[:4] == b.stock).all()
    assert not (deal_set(rules, 4, 200).hands == b.hands).all()


def test_seatings():
    assert pairing_seatings(make_rules("partnership")).tolist() == [[0, 1, 0, 1], [1, 0, 1, 0]]
    assert pairing_seatings(make_rules("two_player")).tolist() == [[0, 1], [1, 0]]
    three = pairing_seatings(make_rules("three_player"))
    assert len(three) == 6 and sorted(map(tuple, three)) == sorted(map(tuple, 1 - three))


@pytest.mark.parametrize("preset", ["partnership", "two_player", "three_player", "corriente"])
def test_deterministic_self_play_is_exactly_even(preset):
    # Same bot on both sides: each deal's seatings mirror each other.
    result = evaluate_pairing(preset, "greedy", "greedy", num_deals=60)
    assert result.win_rate == 0.5
    assert result.mean_point_diff == pytest.approx(0.0)
    assert result.games_a == pytest.approx(result.games_b)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["partnership", "two_player", "three_player"])
def test_random_self_play_near_half_and_inside_ci(preset):
    # A 95% CI misses now and then: of twenty independent runs, at least sixteen must contain 0.5
    # (measured with keyed draws: 93 of 100 such runs on partnership contained it).
    results = [evaluate_pairing(preset, "random", "random", num_deals=200, agent_seed=7 + 2 * k,
                                seed_start=HELD_OUT_SEED_START + 200 * k) for k in range(20)]
    inside = sum(r.ci_low <= 0.5 <= r.ci_high for r in results)
    assert inside >= 16
    assert abs(np.mean([r.win_rate for r in results]) - 0.5) < 0.03
    assert all(r.hands == 200 * r.seatings for r in results)


def _same(a, b) -> bool:
    """Equal results, all but the timing."""
    da, db = a.to_dict(with_deals=True), b.to_dict(with_deals=True)
    for d in (da, db):
        del d["seconds"], d["hands_per_second"]
    return da == db


@pytest.mark.parametrize("agent", ["random", pytest.param("pimc:16", marks=pytest.mark.slow),
                                   pytest.param("ppo:sample", marks=pytest.mark.slow)])
def test_batching_does_not_change_results(agent):
    # Keyed draws: an agent's random choices on a deal depend on its seed and the deal only.
    n = 6 if agent == "pimc:16" else 30
    small = evaluate_pairing("two_player", agent, "heuristic", num_deals=n, batch_deals=3)
    whole = evaluate_pairing("two_player", agent, "heuristic", num_deals=n, batch_deals=50)
    assert _same(small, whole)
    later = evaluate_pairing("two_player", agent, "heuristic", num_deals=n - 2, seed_start=HELD_OUT_SEED_START + 2,
                             agent_seed=HELD_OUT_SEED_START)
    assert (later.deal_scores == whole.deal_scores[2:]).all()


def test_heuristic_self_play_inside_ci():
    result = evaluate_pairing("two_player", "heuristic", make_agent("heuristic", make_rules("two_player")),
                              num_deals=100)
    assert result.win_rate == 0.5


def test_swapping_the_agents_mirrors_the_result():
    ab = evaluate_pairing("three_player", "greedy", "heuristic", num_deals=40)
    ba = evaluate_pairing("three_player", "heuristic", "greedy", num_deals=40)
    assert ab.win_rate + ba.win_rate == pytest.approx(1.0)
    assert ab.mean_point_diff == pytest.approx(-ba.mean_point_diff)
    assert ab.games_a == pytest.approx(ba.games_b)


def test_batches_do_not_change_results():
    whole = evaluate_pairing("partnership", "greedy", "heuristic", num_deals=30)
    split = evaluate_pairing("partnership", "greedy", "heuristic", num_deals=30, batch_deals=7)
    assert (whole.deal_scores == split.deal_scores).all()
    assert whole.win_rate == split.win_rate


def test_ci_is_computed_on_deals():
    r = evaluate_pairing("two_player", "greedy", "random", num_deals=200)
    scores = r.deal_scores
    assert set(np.unique(scores)) <= {0.0, 0.5, 1.0}
    half = 1.96 * scores.std(ddof=1) / np.sqrt(len(scores))
    assert r.win_rate == pytest.approx(scores.mean())
    assert r.ci_high - r.win_rate == pytest.approx(half, rel=1e-3)
    assert r.significant() and r.win_rate > 0.8


def test_too_few_deals_give_no_interval_and_say_so(tmp_path, capsys):
    """Two deals whose seatings each split: sd 0, but no zero-width interval (MIN_DEALS_FOR_CI)."""
    from tute_lab.evaluation import MIN_DEALS_FOR_CI

    few = evaluate_pairing("two_player", "heuristic", "greedy", num_deals=2)
    assert few.ci_low is few.ci_high is few.point_diff_ci is few.ci_half_width is None and not few.significant()
    assert "win rate 0.500 (no interval from 2 deals: 30 give one), point diff " in few.summary()
    assert "[0.500, 0.500]" not in few.summary() and "+-" not in few.summary()
    enough = evaluate_pairing("two_player", "heuristic", "greedy", num_deals=MIN_DEALS_FOR_CI)
    assert enough.ci_low <= enough.win_rate <= enough.ci_high and enough.point_diff_ci >= 0
    assert f"win rate {enough.win_rate:.3f} [{enough.ci_low:.3f}, {enough.ci_high:.3f}]" in enough.summary()
    out_json, out_csv = tmp_path / "r.json", tmp_path / "r.csv"
    assert evaluate.main(["heuristic", "greedy", "--preset", "two_player", "--deals", "2", "--json", str(out_json),
                          "--csv", str(out_csv), "--plot", str(tmp_path / "r.png"), "--no-progress"]) == 0
    assert "no interval from 2 deals" in capsys.readouterr().out
    pairing = json.loads(out_json.read_text())["pairings"][0]
    assert pairing["ci_low"] is None and pairing["ci_high"] is None and pairing["point_diff_ci"] is None
    row = next(csv.DictReader(out_csv.open()))
    assert row["ci_low"] == row["ci_high"] == row["point_diff_ci"] == ""
    rr = round_robin("two_player", ["random", "greedy"], num_deals=3)
    assert rr.to_dict()["ci_half_width_table"] == [[0.0, None], [None, 0.0]] and "no CI" in rr.summary()
    json.dumps(rr.to_dict(), allow_nan=False)


def test_ladder_greedy_beats_random():
    r = evaluate_pairing("partnership", "greedy", "random", num_deals=300)
    assert r.ci_low > 0.5
    assert r.mean_point_diff > 0


def test_mixed_teams():
    even = evaluate_teams("partnership", ("greedy", "greedy"), ("greedy", "greedy"), num_deals=30)
    assert even.win_rate == 0.5
    mixed = evaluate_teams("partnership", ("heuristic", "random"), ("greedy", "greedy"), num_deals=60)
    assert mixed.agent_a == "heuristic+random" and mixed.agent_b == "greedy+greedy"
    assert 0 <= mixed.win_rate <= 1
    with pytest.raises(ValueError, match="partnership"):
        evaluate_teams("two_player", ("greedy", "greedy"), ("greedy", "greedy"), num_deals=2)


def test_round_robin_table_and_ratings(tmp_path):
    rr = round_robin("two_player", ["random", "greedy", "heuristic"], num_deals=120)
    table = rr.win_rate_table()
    assert table.shape == (3, 3)
    assert np.allclose(table + table.T, 1.0)
    assert table[1, 0] > 0.7  # greedy beats random
    assert rr.ratings["greedy"]["mu"] > rr.ratings["random"]["mu"]
    assert rr.ratings["heuristic"]["mu"] > rr.ratings["random"]["mu"]
    json.dumps(rr.to_dict())
    plot_table(rr, tmp_path / "table.png")
    assert (tmp_path / "table.png").stat().st_size > 1000


def test_command_line_pairing(tmp_path, capsys):
    out_json, out_csv, out_png = tmp_path / "r.json", tmp_path / "r.csv", tmp_path / "r.png"
    code = evaluate.main(["greedy", "random", "--preset", "partnership", "--deals", "40",
                          "--set", "must_beat_partner=false", "--set", "target_games=3",
                          "--json", str(out_json), "--csv", str(out_csv), "--plot", str(out_png), "--no-progress"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "greedy vs random: win rate" in printed
    data = json.loads(out_json.read_text())
    assert data["rules"]["must_beat_partner"] is False and data["rules"]["target_games"] == 3
    pairing = data["pairings"][0]
    for key in ("win_rate", "ci_low", "ci_high", "mean_point_diff", "games_a", "games_b", "num_deals", "hands"):
        assert key in pairing
    assert pairing["num_deals"] == 40 and pairing["hands"] == 80
    assert "deal_scores" not in pairing  # only with --deal-scores
    rows = list(csv.DictReader(out_csv.open()))
    assert rows[0]["agent_a"] == "greedy" and float(rows[0]["win_rate"]) == pytest.approx(pairing["win_rate"])
    assert out_png.stat().st_size > 1000


def test_command_line_writes_per_deal_scores_when_asked(tmp_path):
    out = tmp_path / "r.json"
    assert evaluate.main(["greedy", "random", "--deals", "12", "--json", str(out), "--deal-scores", "--no-progress"]) == 0
    pairing = json.loads(out.read_text())["pairings"][0]
    scores, diffs = np.array(pairing["deal_scores"]), np.array(pairing["deal_point_diffs"])
    assert scores.shape == diffs.shape == (12,)
    assert scores.mean() == pytest.approx(pairing["win_rate"])
    assert diffs.mean() == pytest.approx(pairing["mean_point_diff"])
    rr = tmp_path / "rr.json"
    assert evaluate.main(["--round-robin", "random", "greedy", "heuristic", "--deals", "5", "--json", str(rr),
                          "--deal-scores", "--no-progress"]) == 0
    assert [len(p["deal_scores"]) for p in json.loads(rr.read_text())["pairings"]] == [5, 5, 5]


@pytest.mark.slow
def test_command_line_chunks_with_one_agent_seed_are_one_run(tmp_path):
    def scores(*argv):
        out = tmp_path / "r.json"
        assert evaluate.main(["pimc:8", "random", "--preset", "two_player", "--json", str(out), "--deal-scores",
                              "--no-progress", *argv]) == 0
        pairing = json.loads(out.read_text())["pairings"][0]
        return pairing["deal_scores"], pairing["deal_point_diffs"]

    whole = scores("--deals", "5", "--seed-start", "3000000000")
    tail = scores("--deals", "3", "--seed-start", "3000000002", "--agent-seed", "3000000000")
    assert tail == (whole[0][2:], whole[1][2:])
    assert scores("--deals", "3", "--seed-start", "3000000002")[1] != whole[1][2:]  # other agent seeds: other play
    rr = round_robin("two_player", ["pimc:8", "random", "greedy"], num_deals=3, seed_start=3000000002,
                              agent_seed=3000000000)
    whole_rr = round_robin("two_player", ["pimc:8", "random", "greedy"], num_deals=5, seed_start=3000000000)
    for part, full in zip(rr.pairings, whole_rr.pairings):
        assert (part.deal_point_diffs == full.deal_point_diffs[2:]).all()


def test_command_line_round_robin_and_teams(tmp_path, capsys):
    assert evaluate.main(["--round-robin", "random", "greedy", "--preset", "corriente", "--deals", "30",
                          "--json", str(tmp_path / "rr.json"), "--no-progress"]) == 0
    assert "ratings" in json.loads((tmp_path / "rr.json").read_text())
    assert evaluate.main(["--teams", "greedy", "random", "greedy", "greedy", "--deals", "20", "--no-progress"]) == 0
    assert "greedy+random vs greedy+greedy" in capsys.readouterr().out


def test_command_line_errors():
    with pytest.raises(SystemExit):
        evaluate.main(["greedy"])
    with pytest.raises(SystemExit):
        evaluate.main(["greedy", "random", "--set", "no_such_option=1"])
    with pytest.raises(SystemExit):
        evaluate.main(["greedy", "random", "--set", "stock_duty=sometimes", "--preset", "two_player"])


@pytest.mark.parametrize("argv, message", [
    (["grandmaster", "random"], "unknown agent 'grandmaster'"),
    (["greedy", "random", "--deals", "0"], "--deals must be at least 1"),
    (["greedy", "random", "--deals", "-5"], "--deals must be at least 1"),
    (["pimc:abc", "random"], "bad agent spec 'pimc:abc'"),
    (["pimc:0", "random"], "N must be a whole number of at least 1"),
    (["greedy", "random", "--json", "/no/such/dir/out.json"], "does not exist"),
    (["greedy", "random", "--deal-scores"], "--deal-scores adds to the --json file"),
    (["--teams", "greedy", "greedy", "random", "random", "--preset", "two_player"], "partnership"),
    pytest.param(["README.md", "random"], "not a checkpoint torch can load", marks=pytest.mark.slow),
])
def test_command_line_bad_input_is_one_message_and_exit_2(argv, message):
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, str(root / "evaluate.py"), *argv, "--no-progress"], cwd=root,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and not proc.stdout


def test_progress_bar_runs():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate_pairing("corriente", "greedy", "random", num_deals=10, progress=True)
    assert r.num_deals == 10


@pytest.mark.slow
def test_no_progress_bar_off_a_terminal():
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, str(root / "evaluate.py"), "greedy", "random", "--preset", "two_player",
                           "--deals", "50"], cwd=root, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "win rate" in proc.stdout
    assert "\r" not in proc.stderr + proc.stdout  # a log file gets lines, not carriage returns
