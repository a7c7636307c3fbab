"""bench.oracle (issue 14's ceiling): the exact endgame is minimax, the oracle plays legally and
the same deal alike in any chunk, and its command line refuses bad input with exit code 2."""

import json

import numpy as np
import pytest

from agents.pimc import playout_scores
from bench import oracle
from tute_env.engine.core import Game, random_legal_actions
from tute_env.engine.rules import make_rules
from tute_env.search.solver import Solver


def _late_states(game: Game, tricks_left: int, games: int, seed: int):
    """Random games played at random until ``tricks_left`` tricks are left (mid-trick too)."""
    rng = np.random.default_rng(seed)
    s = game.random_state(rng, games)
    stop = game.rules.num_tricks - tricks_left
    for _ in range(rng.integers(0, game.rules.num_players)):  # some lanes stop mid-trick
        game.step(s, random_legal_actions(game.legal_action_mask(s), rng))
    while True:
        todo = ~s.done & (s.tricks_played < stop)
        if not todo.any():
            return s
        game.step(s, random_legal_actions(game.legal_action_mask(s), rng), active=todo)


def _minimax(game: Game, s, seat: int) -> float:
    """Plain recursive minimax of a one-lane state, for ``seat``'s side."""
    if s.done[0]:
        return float(playout_scores(game, s, oracle.POINT_WEIGHT, seat)[0])
    values = []
    for action in np.flatnonzero(game.legal_action_mask(s)[0]):
        child = s.copy()
        game.step(child, np.array([action]))
        values.append(_minimax(game, child, seat))
    sides = game.rules.num_sides
    return max(values) if int(s.current[0]) % sides == seat % sides else min(values)


@pytest.mark.parametrize("preset", ["partnership", "three_player", "two_player"])
def test_exact_values_are_the_minimax_of_the_rest_of_the_hand(preset):
    game = Game(make_rules(preset))
    s = _late_states(game, 2, 6, seed=11)
    before = s.copy()
    for seat in range(game.rules.num_players):
        values = oracle.exact_values(game, s, seat, cap=5)  # small slices: the chunked path runs
        expected = [_minimax(game, s.take(np.array([lane])), seat) for lane in range(s.batch_size)]
        np.testing.assert_allclose(values, expected)
    assert all(np.array_equal(getattr(s, f), getattr(before, f)) for f in ("hands", "played", "current"))


def test_the_oracle_plays_legally_and_a_deal_alike_in_any_chunk():
    rules = make_rules("partnership")
    late, first = rules.num_tricks - 2, oracle.TUNING_SEED_START
    whole, seen = oracle.run("partnership", "random", 3, seed_start=first, agent_seed=first, exact_from=late)
    part, _ = oracle.run("partnership", "random", 2, seed_start=first + 1, agent_seed=first, exact_from=late)
    assert len(seen.seconds) > 0  # it searched (the table checked every action's legality)
    np.testing.assert_array_equal(whole.deal_scores[1:], part.deal_scores)
    assert oracle.playing.Seating is oracle.Seating  # the evaluation's table is restored


@pytest.mark.parametrize("argv, message", [
    (["--exact-from", "11"], "--exact-from must be a trick from 0 to 10"),
    (["--preset", "bridge"], "unknown preset 'bridge'"),
    (["--opponent", "pimc:x", "--deals", "1"], "bad agent spec 'pimc:x'"),
    (["--deals", "0"], "--deals must be at least 1"),
    (["--deals", "1", "--json", "/no/such/dir/o.json"], "does not exist"),
    (["--opponent", "nobody", "--deals", "1"], "unknown agent 'nobody'"),
])
def test_bad_command_lines_exit_2_with_one_message(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        oracle.main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_the_oracle_plays_a_double_dummy_best_move_and_breaks_ties_by_playouts():
    rules = make_rules("partnership")
    game, solver = Game(rules), Solver(rules)
    seer = oracle.Oracle(rules)
    assert seer.exact_from == 0  # exact from the first trick
    s = _late_states(game, 4, 12, seed=5)
    ties = 0
    for lane in range(s.batch_size):
        root = s.take(np.array([lane]))
        legal = np.flatnonzero(game.legal_action_mask(root)[0])
        if root.done[0] or len(legal) < 2:
            continue
        action = seer.decide(root)
        values = solver.action_values(root)[0]
        best = legal[values[legal] == np.nanmax(values)]
        assert action in best
        if len(best) > 1:
            ties += 1
            playouts = seer.playout_values(root, best)
            assert playouts[list(best).index(action)] == playouts.max()
    assert ties > 0


def test_the_oracle_refuses_to_act_without_the_true_state():
    rules = make_rules("partnership")
    with pytest.raises(RuntimeError, match="acts only at a peek_table"):
        oracle.Oracle(rules).act_batch(np.zeros((1, 10), np.int8), np.ones((1, 47), bool))


def test_the_command_line_writes_the_pairing_with_its_deal_scores(tmp_path, capsys):
    out = tmp_path / "o.json"
    assert oracle.main(["--opponent", "random", "--deals", "2", "--exact-from", "8", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["agent_a"] == "oracle" and data["agent_b"] == "random" and data["exact_from"] == 8
    assert len(data["deal_scores"]) == 2 and np.mean(data["deal_scores"]) == pytest.approx(data["win_rate"])
    assert "oracle vs random" in capsys.readouterr().out
