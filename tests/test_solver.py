"""tute_env.search.solver (issue 30): exact double-dummy values, checked against exhaustive minimax.

The reference is bench.oracle.exact_values: every legal action of every seat expanded on the
batched core, no pruning, the finished hands scored by tute_env.engine.scoring.hand_rewards. The solver
must give the same floats, bit for bit, on random late positions of every preset and of mixes of
the rule options (the stock games with small hands, so that draws (R4, R6), the exchange (R7)
and cantes (R8) happen within a few tricks of the end), and on card-string scenarios of the rules
that random deals rarely reach (R8b Tute, R8 the 40, R7 the exchange, R9 the tie).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import CoreGame, build_deal, hand, play

from bench.oracle import exact_values
from tute_env.engine.cards import NUM_ACTIONS, SING_BASE, TUTE
from tute_env.engine.core import Game, random_legal_actions
from tute_env.engine.rules import make_rules
from tute_env.engine.scoring import hand_rewards
from tute_env.search.solver import Solver, SolverBudgetExceeded, _reward

# (preset, overrides, point weight, tricks left): every preset, and the options each rule
# clause reads, mixed. Stock games with small hands draw within the last tricks.
CONFIGS = [
    ("partnership", {}, 0.0, 3),
    ("partnership", {}, 1.15, 3),
    ("partnership", {"singers": "winner", "double_over_100": False}, 0.5, 3),
    ("partnership", {"forty_before_twenty": False, "tute": "wins_hand", "undertrump_when_overtrumped": True}, 0.0, 3),
    ("manita", {}, 1.15, 3),
    ("manita", {"tute": "off"}, 0.0, 3),
    ("two_player", {}, 0.0, 4),
    ("two_player", {"hand_size": 3}, 1.15, 5),
    ("two_player", {"hand_size": 3, "exchange": "after_win", "stock_duty": "trump_led"}, 0.0, 5),
    ("two_player", {"hand_size": 4, "stock_duty": "strict", "double_over_100": True}, -0.4, 5),
    ("two_player_10", {}, 0.7, 4),
    ("corriente", {"hand_size": 3}, 0.0, 5),
    ("three_player", {}, 0.0, 3),
    ("three_player", {}, 1.15, 3),
    ("three_player", {"hand_size": 3, "stock_duty": "free"}, 0.0, 4),
    ("three_player", {"hand_size": 4, "stock_duty": "trump_led", "undertrump_when_overtrumped": True}, 0.5, 4),
]
CONFIG_IDS = [f"{p}-{'-'.join(f'{k}={v}' for k, v in o.items())}-pw{w}-{t}" for p, o, w, t in CONFIGS]


def late_states(game: Game, tricks_left: int, games: int, seed: int):
    """Random unfinished games played at random until at most ``tricks_left`` tricks are left
    (some mid-trick, some at a declaration turn)."""
    rng = np.random.default_rng(seed)
    s = game.random_state(rng, games)
    stop = game.rules.num_tricks - tricks_left
    while True:
        todo = ~s.done & (s.tricks_played < stop)
        if not todo.any():
            break
        game.step(s, random_legal_actions(game.legal_action_mask(s), rng), active=todo)
    extra = rng.integers(0, game.rules.num_players + 1, games)  # into the trick
    for k in range(extra.max()):
        todo = ~s.done & (extra > k)
        game.step(s, random_legal_actions(game.legal_action_mask(s), rng), active=todo)
    return s.take(np.flatnonzero(~s.done))


def minimax_action_values(game: Game, s, point_weight: float) -> np.ndarray:
    """(B, 47) the exhaustive reference: each legal action's exact_values for the seat to act."""
    out = np.full((s.batch_size, NUM_ACTIONS), np.nan)
    mask = game.legal_action_mask(s)
    for lane in range(s.batch_size):
        legal = np.flatnonzero(mask[lane])
        kids = s.take(np.full(len(legal), lane))
        game.step(kids, legal)
        out[lane, legal] = exact_values(game, kids, int(s.current[lane]), point_weight)
    return out


def assert_solved(rules, s, point_weight: float) -> None:
    game = Game(rules)
    before = s.copy()
    solver = Solver(rules, point_weight=point_weight)
    values = solver.action_values(s)
    np.testing.assert_array_equal(values, minimax_action_values(game, s, point_weight))
    np.testing.assert_array_equal(solver.value(s), np.nanmax(values, axis=1))
    for name in ("hands", "trick", "current", "legal", "card_points", "stock_next"):
        np.testing.assert_array_equal(getattr(s, name), getattr(before, name))


@pytest.mark.parametrize(("preset", "overrides", "weight", "left"), CONFIGS, ids=CONFIG_IDS)
def test_action_values_are_exhaustive_minimax_on_late_positions(preset, overrides, weight, left):
    rules = make_rules(preset, **overrides)
    assert_solved(rules, late_states(Game(rules), left - 1, 24, seed=len(preset) + left), weight)


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "overrides", "weight", "left"), CONFIGS, ids=CONFIG_IDS)
def test_action_values_are_exhaustive_minimax_on_many_late_positions(preset, overrides, weight, left):
    """16 configurations x 250 positions: 4,000 positions, 1 to ``left`` tricks left."""
    rules = make_rules(preset, **overrides)
    for k, tricks in enumerate(range(1, left + 1)):
        s = late_states(Game(rules), tricks, 250 // left, seed=1000 + 17 * k + len(overrides))
        assert_solved(rules, s, weight)


def test_rewards_are_scorings_hand_rewards():
    """The compiled reward of a finished hand is tute_env.engine.scoring.hand_rewards("win"), float for
    float, for every number of sides and point weights of either sign."""
    rng = np.random.default_rng(3)
    for preset in ("partnership", "two_player", "three_player"):
        rules = make_rules(preset)
        sides, n = rules.num_sides, rules.num_players
        cfg = Game(rules)._config
        b = 500
        winner = rng.integers(0, sides, b)
        games = rng.integers(1, 3, b)
        totals = rng.integers(0, 231, (b, sides))
        for weight in (0.0, 1.15, -0.37, 3.0):
            expected = hand_rewards(rules, "win", winner, games, totals, np.full(b, -1), weight)
            for lane in range(b):
                for seat in range(n):
                    own = rules.side_of(seat)
                    got = _reward(cfg, sides, winner[lane] == own, float(games[lane]), float(totals[lane, own]),
                                  float(totals[lane].sum() - totals[lane, own]), weight)
                    assert got == expected[lane, seat]


# ---------------------------------------------------------------------------------------------
# Card-string scenarios: rules that random late positions rarely reach.
PARTNERSHIP = make_rules("partnership")


def test_R8b_declaring_tute_is_worth_two_games():
    game = CoreGame(PARTNERSHIP, build_deal(PARTNERSHIP, ["Ab Ro Rc Re Rb Co"], "7b"))
    play(game, "Ab ? ? ?")
    values = Solver(PARTNERSHIP).action_values(game.state)[0]
    assert values[TUTE] == 2.0  # R8b: the hand won at once, two games (tute="two_games")
    assert Solver(PARTNERSHIP).value(game.state)[0] == 2.0
    weighted = Solver(PARTNERSHIP, point_weight=1.15).action_values(game.state)[0]
    assert weighted[TUTE] == hand_rewards(PARTNERSHIP, "win", [0], [2], game.state.totals, [0], 1.15)[0, 0]


@pytest.mark.parametrize("tute", ["wins_hand", "off"])
def test_R8b_tute_options(tute):
    rules = make_rules("partnership", tute=tute)
    game = CoreGame(rules, build_deal(rules, ["Ab Ro Rc Re Rb Co"], "7b"))
    play(game, "Ab ? ? ?")
    values = Solver(rules).action_values(game.state)[0]
    if tute == "off":
        assert np.isnan(values[TUTE])
    else:
        assert values[TUTE] == 1.0


@pytest.mark.parametrize(("preset", "overrides", "left"), [
    ("partnership", {}, 4),
    ("partnership", {"forty_before_twenty": False, "singers": "winner"}, 4),
    ("two_player", {"hand_size": 3}, 5),
    ("two_player", {"hand_size": 3, "exchange": "after_win"}, 5),
    ("three_player", {"hand_size": 3}, 4),
])
def test_R7_R8_declarations_and_exchanges_against_minimax(preset, overrides, left):
    """Late positions where a cante (R8; the 40 among them), Tute (R8b), a pass or the exchange
    (R7) is legal: the declaration turns and the exchange valued as minimax values them."""
    rules = make_rules(preset, **overrides)
    s = late_states(Game(rules), left - 1, 3000, seed=77)
    special = np.uint64(sum(1 << a for a in range(SING_BASE, NUM_ACTIONS)))
    lanes = np.flatnonzero(s.legal & special)[:10]
    assert len(lanes) >= 5
    assert_solved(rules, s.take(lanes), 1.15)


def test_R7_an_exchange_at_the_first_lead_then_draws_against_minimax():
    rules = make_rules("two_player", hand_size=3)
    # Seat 1 leads first holding the 7 of trumps (bastos); the turned card is the ace.
    game = CoreGame(rules, build_deal(rules, [None, "7b Rc Cc"], "Ab", dealer=0))
    assert int(game.state.current[0]) == 1
    play(game, "exchange")
    assert {"Ab", "Rc", "Cc"} <= hand(game, 1)  # the turned ace taken for the 7
    g, s, rng = Game(rules), game.state, np.random.default_rng(4)
    while int(s.tricks_played[0]) < rules.num_tricks - 5:
        g.step(s, random_legal_actions(g.legal_action_mask(s), rng))
    assert int(s.to_draw[0]) > 0  # the stock still draws
    assert_solved(rules, s, 0.0)
    assert_solved(rules, s, 1.15)


def outcomes(game: Game, s) -> list:
    """The hand totals of every way one lane can be played to the end."""
    if s.done[0]:
        return [tuple(s.totals[0])]
    out = []
    for action in np.flatnonzero(game.legal_action_mask(s)[0]):
        child = s.copy()
        game.step(child, np.array([action]))
        out += outcomes(game, child)
    return out


def test_R9_a_tie_of_the_totals_goes_to_the_side_that_won_a_trick_last():
    rules = make_rules("two_player_10")
    game = Game(rules)
    s = late_states(game, 1, 1500, seed=9)
    ties = [lane for lane in range(s.batch_size) if any(a == b for a, b in outcomes(game, s.take([lane])))]
    assert len(ties) >= 3
    assert_solved(rules, s.take(np.array(ties[:30])), 0.0)


# ---------------------------------------------------------------------------------------------
# Equivalent cards, determinism, several lanes


@pytest.mark.parametrize("preset", ["partnership", "manita", "two_player", "three_player", "corriente"])
def test_merging_equivalent_cards_never_changes_a_value(preset):
    rules = make_rules(preset)
    s = late_states(Game(rules), 4, 40, seed=5)
    merged, plain = Solver(rules, point_weight=1.15), Solver(rules, point_weight=1.15, merge_equivalent=False)
    np.testing.assert_array_equal(merged.action_values(s), plain.action_values(s))
    assert merged.nodes < plain.nodes  # and it merges something


def test_same_input_same_output_and_lanes_solved_alone():
    rules = make_rules("partnership")
    s = late_states(Game(rules), 4, 6, seed=21)
    solver = Solver(rules, point_weight=1.15)
    first = solver.action_values(s)
    again = Solver(rules, point_weight=1.15).action_values(s)
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(first, solver.action_values(s))
    for lane in range(s.batch_size):
        np.testing.assert_array_equal(first[lane], solver.action_values(s.take([lane]))[0])


# ---------------------------------------------------------------------------------------------
# What it refuses


def test_refuses_what_is_not_a_state_of_its_rules():
    solver = Solver("partnership")
    with pytest.raises(ValueError, match="expected a State"):
        solver.action_values("state")
    other = Game("two_player").random_state(0, 1)
    with pytest.raises(ValueError, match="shape"):
        solver.value(other)
    s = Game("partnership").random_state(0, 2)
    bad = s.copy()
    bad.current[1] = 7
    with pytest.raises(ValueError, match=r"current\[1\] is 7"):
        solver.action_values(bad)
    bad = s.copy()
    bad.hands[0, 1] |= bad.hands[0, 0]
    with pytest.raises(ValueError, match="a card is in two hands"):
        solver.action_values(bad)
    bad = s.copy()
    bad.card_points[0, 0] = 300
    with pytest.raises(ValueError, match="card_points"):
        solver.value(bad)


def test_refuses_a_finished_game():
    rules = make_rules("partnership")
    game = Game(rules)
    s = game.random_state(np.random.default_rng(1), 2)
    rng = np.random.default_rng(2)
    while not s.done[0]:
        game.step(s, random_legal_actions(game.legal_action_mask(s), rng), active=np.array([True, False]))
    with pytest.raises(ValueError, match="game 0 is over"):
        Solver(rules).action_values(s)


def test_refuses_bad_settings():
    with pytest.raises(ValueError, match="table_mb"):
        Solver("partnership", table_mb=0)
    with pytest.raises(ValueError, match="max_nodes"):
        Solver("partnership", max_nodes=0)
    with pytest.raises(ValueError, match="max_seconds"):
        Solver("partnership", max_seconds=0)
    with pytest.raises(ValueError, match="point_weight"):
        Solver("partnership", point_weight=float("nan"))


def test_a_budget_exceeded_is_said_not_run_on():
    s = Game("partnership").random_state(0, 1)  # a whole deal
    with pytest.raises(SolverBudgetExceeded, match="budget exceeded.*max_nodes=50"):
        Solver("partnership", max_nodes=50).action_values(s)
    with pytest.raises(SolverBudgetExceeded, match="max_seconds"):
        Solver("partnership", max_seconds=1e-6).value(s)
    assert issubclass(SolverBudgetExceeded, ValueError)
    solver = Solver("partnership", max_nodes=50)
    with pytest.raises(SolverBudgetExceeded):
        solver.value(s)
    late = late_states(Game("partnership"), 1, 3, seed=0)
    solver.max_nodes = None
    assert np.isfinite(solver.value(late)).all()  # usable again after a budget exceeded


# ---------------------------------------------------------------------------------------------
# Whole partnership deals


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_whole_partnership_deals_are_consistent_to_the_end(seed):
    """From the first lead: along the solver's best line every action value is the value of the
    position it leads to (for the other side, its negation: two sides, zero-sum), the line keeps
    the root's value to the end, where it is the hand's reward; from 4 tricks left the values are
    exhaustive minimax's; merging equivalent cards changes nothing."""
    rules = PARTNERSHIP
    game = Game(rules)
    s = game.random_state(np.random.default_rng(seed), 1)
    solver = Solver(rules, point_weight=1.15)
    root_seat = int(s.current[0])
    root_value = solver.value(s)[0]
    np.testing.assert_array_equal(Solver(rules, point_weight=1.15, merge_equivalent=False).value(s), [root_value])
    while not s.done[0]:
        values = solver.action_values(s)[0]
        seat = int(s.current[0])
        sign = 1.0 if seat % 2 == root_seat % 2 else -1.0
        assert sign * np.nanmax(values) == root_value
        if int(s.tricks_played[0]) >= rules.num_tricks - 4 and int(s.tricks_played[0]) % 2 == 0:
            np.testing.assert_array_equal(values[None], minimax_action_values(game, s, 1.15))
        for action in np.flatnonzero(~np.isnan(values))[:3]:
            child = s.copy()
            game.step(child, np.array([action]))
            if not child.done[0]:
                flip = 1.0 if int(child.current[0]) % 2 == seat % 2 else -1.0
                assert flip * solver.value(child)[0] == values[action]
        game.step(s, np.array([int(np.nanargmax(values))]))
    final = hand_rewards(rules, "win", s.winner, s.games, s.totals, s.tute_declarer, 1.15)[0, root_seat]
    assert final == root_value


# ---------------------------------------------------------------------------------------------
# Keys by relative rank


def _relative_key(game: Game, s) -> np.ndarray:
    from tute_env.search.solver import _key

    out = np.zeros(5, np.uint64)
    _key(game._config, s.arrays(), 0, out, np.zeros(40, np.int64), np.zeros(40, np.int64))
    return out


def _swapped_for_a_gone_card(game: Game, s, suit: int):
    """A copy of one-lane ``s`` where a held pointless card of ``suit`` is swapped for the
    pointless card just above it that is out of play (no card in play between them), or None.
    (Not the turned card: its name is part of the position.)"""
    from tute_env.search.solver import _SUIT_ORDER, _in_play

    live = int(np.uint64(_in_play(s.arrays(), 0)))
    order = [int(c) for c in _SUIT_ORDER[suit, 5:]]  # 7 6 5 4 2
    for above, below in zip(order, order[1:]):
        holder = [seat for seat in range(game.rules.num_players) if int(s.hands[0, seat]) >> below & 1]
        if not live >> above & 1 and holder and int(s.turned_card[0]) not in (above, below):
            t = s.copy()
            t.hands[0, holder[0]] ^= np.uint64((1 << above) | (1 << below))
            t.played[0, :] = np.where(t.played[0, :] >> np.uint64(above) & np.uint64(1),
                                      t.played[0, :] ^ np.uint64((1 << above) | (1 << below)), t.played[0, :])
            t.legal[:] = game.legal_sets(t)
            return t
    return None


def test_positions_alike_but_for_which_pointless_cards_are_gone_share_a_key_and_a_value():
    rules = make_rules("partnership")
    game, solver = Game(rules), Solver(rules, point_weight=1.15)
    s = late_states(game, 4, 60, seed=8)
    pairs = 0
    for lane in range(s.batch_size):
        one = s.take(np.array([lane]))
        for suit in range(4):
            other = _swapped_for_a_gone_card(game, one, suit)
            if other is None:
                continue
            assert not np.array_equal(one.hands, other.hands)
            np.testing.assert_array_equal(_relative_key(game, one), _relative_key(game, other))
            assert solver.value(one)[0] == solver.value(other)[0]
            pairs += 1
    assert pairs >= 10


def test_while_the_exchange_may_take_a_trump_the_trumps_keep_their_names():
    rules = make_rules("two_player", hand_size=4, exchange="after_win", stock_duty="strict")
    game = Game(rules)
    s = late_states(game, 5, 200, seed=3)
    pending = (s.exchanged == 0) & (s.turned_card >= 0)
    checked = {True: 0, False: 0}
    for lane in range(s.batch_size):
        one = s.take(np.array([lane]))
        other = _swapped_for_a_gone_card(game, one, int(one.trump[0]))
        if other is None:
            continue
        same = np.array_equal(_relative_key(game, one), _relative_key(game, other))
        assert same != bool(pending[lane])
        checked[bool(pending[lane])] += 1
    assert checked[True] > 0 and checked[False] > 0


# ---------------------------------------------------------------------------------------------
# The analysis's uses: one deal's positions sharing the table, another side's values, bounds.
def line_of_play(rules, tricks_left: int, seed: int):
    """The positions (one-lane states) of one random deal played at random, from ``tricks_left``
    tricks before the end to the end."""
    game = Game(rules)
    rng = np.random.default_rng(seed)
    s = game.random_state(rng, 1)
    out = []
    while not s.done[0]:
        if s.tricks_played[0] >= rules.num_tricks - tricks_left:
            out.append(s.copy())
        game.step(s, random_legal_actions(game.legal_action_mask(s), rng))
    return out


@pytest.mark.parametrize(("preset", "weight", "left"), [("partnership", 0.177, 4), ("two_player", 0.177, 5),
                                                         ("three_player", 0.5, 4), ("two_player", -0.4, 4)])
def test_same_deal_keeps_the_table_and_the_values_bit_for_bit(preset, weight, left):
    """The decisions of one deal from the last to the first, the table kept (same_deal, as the
    analysis calls it): the values of a fresh solve each, whoever is to act."""
    rules = make_rules(preset)
    positions = line_of_play(rules, left, seed=7)
    kept, fresh = Solver(rules, point_weight=weight), Solver(rules, point_weight=weight)
    for k, s in enumerate(reversed(positions)):
        np.testing.assert_array_equal(kept.action_values(s, same_deal=k > 0), fresh.action_values(s))


@pytest.mark.parametrize("preset", ["two_player", "three_player", "partnership"])
def test_value_for_a_side_is_the_minimax_value_for_its_seats(preset):
    rules = make_rules(preset)
    game = Game(rules)
    s = late_states(game, 2, 12, seed=5)
    solver = Solver(rules, point_weight=0.5)
    for seat in range(rules.num_players):
        side = rules.side_of(seat)
        np.testing.assert_array_equal(solver.value(s, side=side), exact_values(game, s, seat, 0.5))
        np.testing.assert_array_equal(solver.value(s, side=np.full(s.batch_size, side), same_deal=False),
                                      exact_values(game, s, seat, 0.5))
    with pytest.raises(ValueError, match="side must be"):
        solver.value(s, side=rules.num_sides)


def test_action_bounds_hold_the_values_and_close_on_them():
    rules = make_rules("partnership")
    s = late_states(Game(rules), 5, 6, seed=11)
    exact = Solver(rules, point_weight=0.177).action_values(s)
    low, high = Solver(rules, point_weight=0.177).action_bounds(s)
    np.testing.assert_array_equal(low, exact)
    np.testing.assert_array_equal(high, exact)
    low, high = Solver(rules, point_weight=0.177, max_nodes=300).action_bounds(s)  # cut short: no exception
    legal = ~np.isnan(exact)
    assert np.array_equal(np.isnan(low), ~legal) and np.array_equal(np.isnan(high), ~legal)
    assert (low[legal] <= exact[legal]).all() and (exact[legal] <= high[legal]).all()
    assert (low[legal] < high[legal]).any() and (low[legal] == high[legal]).any()


@pytest.mark.parametrize(("preset", "overrides", "weight", "left"), CONFIGS[:8] + CONFIGS[12:], ids=CONFIG_IDS[:8] + CONFIG_IDS[12:])
def test_reachable_value_bounds_hold_the_exhaustive_values(preset, overrides, weight, left):
    """The bounds that cut the search (the totals each side can still reach, less the sure
    trump points) hold the exhaustive minimax value of every position, for every side."""
    from tute_env.engine.kernel import side_of
    from tute_env.search.solver import _in_play, _reachable_value_bounds, _sure_trump_points

    rules = make_rules(preset, **overrides)
    game = Game(rules)
    s = late_states(game, left, 40, seed=77 + left)
    cfg, arrays = game._config, s.arrays()
    sure = [_sure_trump_points(cfg, arrays, lane, _in_play(arrays, lane))[1] for lane in range(s.batch_size)]
    assert max(sure) > 0  # the sure points play a part in these positions
    for seat in range(rules.num_players):
        exact = exact_values(game, s, seat, weight)
        side = side_of(cfg, seat)
        for lane in range(s.batch_size):
            low, high = _reachable_value_bounds(cfg, arrays, lane, side, weight)
            assert low <= exact[lane] <= high, (lane, seat, low, exact[lane], high)
