"""python_tute, Tute as an OpenSpiel game (tute_env.envs.openspiel), and the ISMCTS agent over it."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

import tute_env.envs.openspiel as tos
from tute_env import tute_v0
from tute_env.engine.cards import NUM_ACTIONS, PASS, action_str, card_str, popcount
from tute_env.engine.core import Game
from tute_env.engine.rules import PRESETS, make_rules
from tute_env.engine.scoring import hand_rewards
from tute_env.play.records import RecordError, check, replay

ROOT = Path(__file__).resolve().parent.parent


def load(preset="two_player", **options):
    return pyspiel.load_game("python_tute", {"preset": preset, **options})


def random_game(game, rng, until=None):
    """A state played at random from the start (``until``: stop after that many actions)."""
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal() and (until is None or steps < until):
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
        steps += 1
    return state


# ----------------------------------------------------------------------------------------------
# Registration, parameters, the game's type and info
# ----------------------------------------------------------------------------------------------
def test_parameters_are_the_preset_and_the_rule_options():
    assert load("two_player").rules == PRESETS["two_player"]
    assert load().rules == PRESETS["two_player"]
    game = load("two_player", tute="off", hand_size=6, must_beat_partner=False)
    assert game.rules == make_rules("two_player", tute="off", hand_size=6, must_beat_partner=False)
    assert pyspiel.load_game("python_tute").rules == PRESETS["partnership"]
    for preset, rules in PRESETS.items():
        assert load(preset).rules == rules
    # The game's own string loads the same rules back, an option at its partnership value included.
    odd = make_rules("two_player", double_over_100=True)
    for rules in (odd, make_rules("three_player", singers="winner"), PRESETS["manita"]):
        game = tos.load_game(rules)
        assert game.rules == rules
        assert pyspiel.load_game(str(game)).rules == rules


def test_bad_parameters_are_refused_by_the_projects_checks():
    with pytest.raises(ValueError, match="bad rules option exchange"):
        load("three_player", exchange="seven_on_lead")
    with pytest.raises(ValueError, match="unknown preset"):
        load("bridge")
    with pytest.raises(ValueError, match="bad python_tute parameter reward"):
        load(reward="money")
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter"):
        load(colour="red")


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_game_type_and_info_are_true_to_the_game(preset):
    game = load(preset)
    kind, rules = game.get_type(), game.rules
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.num_distinct_actions() == NUM_ACTIONS == 47
    assert game.max_chance_outcomes() == 40
    assert game.num_players() == rules.num_players
    assert game.max_game_length() == tos.max_game_length(rules)
    most = 2 if rules.double_over_100 or rules.tute == "two_games" else 1
    assert game.max_utility() == most
    assert game.min_utility() == (-most / 2 if rules.num_players == 3 else -most)


def test_max_game_length_counts_every_kind_of_action():
    assert tos.max_game_length(PRESETS["partnership"]) == 40 + 5 + 9  # plays, 4 cantes + Tute, passes
    assert tos.max_game_length(PRESETS["two_player"]) == 40 + 5 + 1  # the exchange
    assert tos.max_game_length(make_rules("partnership", singers="winner", tute="off")) == 44
    assert tos.max_game_length(PRESETS["three_player"]) == 39 + 5


def test_random_sim_test_two_player():
    pyspiel.random_sim_test(load("two_player"), num_sims=2, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_random_sim_test_every_preset(preset):
    pyspiel.random_sim_test(load(preset), num_sims=5, serialize=True, verbose=False)
    pyspiel.random_sim_test(load(preset, reward="points"), num_sims=2, serialize=False, verbose=False)


# ----------------------------------------------------------------------------------------------
# The same game as the env's
# ----------------------------------------------------------------------------------------------
def check_against_env(game, rng) -> int:
    """Plays one random game through python_tute and tute_v0 on the same deal and actions: at every
    step the legal actions are the env's, and so are the returns. Returns the number of steps."""
    state = game.new_initial_state()
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        state.apply_action(outcomes[rng.integers(len(outcomes))][0])
    env = tute_v0.env(preset=game.rules)
    env.reset(options={"deal": state._t.deals[0].to_dict()})
    steps = 0
    while not state.is_terminal():
        agent = env.agent_selection
        assert int(agent.rpartition("_")[2]) == state.current_player()
        legal = state.legal_actions()
        assert legal == np.flatnonzero(env.observe(agent)["action_mask"]).tolist()
        assert legal == state.legal_actions(state.current_player()) == pyspiel.State.legal_actions(state)
        action = legal[rng.integers(len(legal))]
        state.apply_action(action)
        env.step(action)
        steps += 1
    assert all(env.terminations.values())
    assert state.returns() == [env.rewards[a] for a in env.possible_agents]
    return steps


@pytest.mark.parametrize("preset", ["two_player", "partnership", "three_player"])
def test_legal_actions_and_returns_are_the_envs(preset):
    rng = np.random.default_rng(1)
    game = load(preset)
    for _ in range(5):
        check_against_env(game, rng)


@pytest.mark.slow
def test_legal_actions_and_returns_are_the_envs_over_a_thousand_games():
    rng = np.random.default_rng(2)
    presets = sorted(PRESETS)
    games = {p: load(p) for p in presets}
    steps = sum(check_against_env(games[presets[k % len(presets)]], rng) for k in range(1002))
    assert steps > 1002 * 30


def test_returns_are_the_scoring_modules_for_both_rewards():
    rng = np.random.default_rng(3)
    for reward, weight in (("win", 0.0), ("win", 0.5), ("points", 0.0)):
        game = load("partnership", reward=reward, point_weight=weight)
        for _ in range(3):
            state = random_game(game, rng)
            core = state.core
            expected = hand_rewards(game.rules, reward, core.winner, core.games, core.totals, core.tute_declarer,
                                    weight)
            assert state.returns() == pytest.approx(expected[0].tolist())
            assert state.returns()[0] == state.returns()[2]  # shared within a partnership
            assert sum(state.returns()) == pytest.approx(0.0)


def test_action_strings_are_the_projects():
    state = random_game(load("two_player"), np.random.default_rng(4), until=45)
    assert state.action_to_string(state.current_player(), 0) == "Ao"
    assert state.action_to_string(state.current_player(), 40) == "sing-o"
    assert state.action_to_string(state.current_player(), 45) == "exchange"
    first = load("two_player").new_initial_state()
    assert first.action_to_string(pyspiel.PlayerId.CHANCE, 1) == "dealer:1"
    first.apply_action(1)
    assert first.action_to_string(pyspiel.PlayerId.CHANCE, 39) == "deal:Rb"


# ----------------------------------------------------------------------------------------------
# Clone, serialization, records
# ----------------------------------------------------------------------------------------------
def test_clone_pickle_and_deserialize_round_trip():
    game = load("two_player")
    rng = np.random.default_rng(5)
    for until in (0, 10, 41, 45, 60, 200):
        state = random_game(game, rng, until=until)
        for copy in (state.clone(), pickle.loads(pickle.dumps(state)), game.deserialize_state(state.serialize())):
            assert str(copy) == str(state) and copy.history() == state.history()
            assert copy.legal_actions() == state.legal_actions()
            if not state.is_chance_node():
                for p in range(game.num_players()):
                    assert copy.information_state_string(p) == state.information_state_string(p)
                    assert copy.information_state_tensor(p) == state.information_state_tensor(p)
        clone = state.clone()
        if not clone.is_terminal():  # a clone is independent of its original
            clone.apply_action(clone.legal_actions()[0])
            assert clone.history() != state.history()


def test_finished_games_are_records_that_replay():
    rng = np.random.default_rng(6)
    for preset in ("partnership", "two_player", "three_player"):
        state = random_game(load(preset), rng)
        record = tos.to_record(state, players=["a", "b", "c", "d"][: state.num_players()])
        final = check(record)
        assert final.totals[0].tolist() == state.core.totals[0].tolist()
        assert len(replay(record)) == len(record.actions) + 1
        assert len(record.actions) == len(state.history()) - 41  # the dealer and 40 cards are chance nodes
    with pytest.raises(ValueError, match="not terminal"):
        tos.to_record(random_game(load(), rng, until=50))
    assert not isinstance(ValueError(), RecordError)


# ----------------------------------------------------------------------------------------------
# Observations and information states
# ----------------------------------------------------------------------------------------------
def test_observation_tensor_is_the_envs_observation():
    game = load("partnership")
    state = random_game(game, np.random.default_rng(7), until=60)
    for p in range(4):
        env_obs = tos.encode_observation(game.rules, state.core, [p])[0]
        assert np.array_equal(np.array(state.observation_tensor(p)), env_obs.astype(np.float32))
        info = np.array(state.information_state_tensor(p))
        assert np.array_equal(info[: env_obs.size], env_obs.astype(np.float32))
    assert state.observation_string(0) != state.observation_string(1)


def test_information_state_string_is_the_players_view_of_the_history():
    game = load("partnership")
    state = random_game(game, np.random.default_rng(8), until=70)
    start = [card_str(c) for c in range(40) if state._t.start[1] >> c & 1]
    head, events, now = state.information_state_string(1).split(" | ")
    assert head.startswith(f"p1 start:{' '.join(start)} dealer:{state.history()[0]} card:")
    seen = [f"{pa.player}:{action_str(pa.action)}" for pa in state.full_history()[41:]
            if pa.action != PASS or pa.player == 1]
    assert events.split() == seen  # every public action, its own passes, not the others'
    assert now == "hand:" + " ".join(card_str(c) for c in range(40) if int(state.core.hands[0, 1]) >> c & 1)


def test_information_state_strings_merge_deals_the_player_cannot_tell_apart():
    """Swapping two cards between seats 0 and 2 changes nothing for seat 1 (before any play)."""
    game = load("partnership")
    base = [0] + list(range(40))  # dealer 0: seat 0 gets 0..9, seat 1 10..19, ...; the shown card 9
    swapped = [0] + [20] + list(range(1, 20)) + [0] + list(range(21, 40))
    states = []
    for outcomes in (base, swapped):
        state = game.new_initial_state()
        for a in outcomes:
            state.apply_action(a)
        states.append(state)
    assert states[0].information_state_string(1) == states[1].information_state_string(1)
    assert states[0].information_state_tensor(1) == states[1].information_state_tensor(1)
    assert states[0].information_state_string(0) != states[1].information_state_string(0)


# ----------------------------------------------------------------------------------------------
# Resampling
# ----------------------------------------------------------------------------------------------
PUBLIC_FIELDS = ("played", "known", "cannot_hold", "trick", "trick_leader", "best_card", "current", "decision",
                 "dealer", "trump", "turned_card", "to_draw", "tricks_played", "card_points", "cante_points",
                 "sung_by", "exchanged", "last_won")


@pytest.mark.parametrize("preset", ["two_player", "partnership", "three_player"])
def test_resampled_states_agree_with_the_information_set(preset):
    game = load(preset)
    rng = np.random.default_rng(9)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    checked = 0
    for until in (41, 50, 60, 70):
        state = random_game(game, rng, until=until)
        if state.is_terminal():
            continue
        core, n = state.core, game.num_players()
        for p in range(n):
            seen_stock = set()
            for _ in range(40):
                new = state.resample_from_infostate(p, sampler)
                c = new.core
                assert new.information_state_string(p) == state.information_state_string(p)
                assert new.information_state_tensor(p) == state.information_state_tensor(p)
                assert new.observation_tensor(p) == state.observation_tensor(p)
                assert new.current_player() == state.current_player()
                assert int(c.hands[0, p]) == int(core.hands[0, p])
                for name in PUBLIC_FIELDS:
                    assert np.array_equal(getattr(c, name), getattr(core, name)), name
                hidden = 0
                for seat in range(n):
                    held = int(c.hands[0, seat])
                    assert held & int(core.cannot_hold[0, seat]) == 0  # never a card it cannot hold
                    assert held & int(core.known[0, seat]) == int(core.known[0, seat])  # known cards in place
                    assert popcount(held) == popcount(int(core.hands[0, seat]))
                    hidden |= held if seat != p else 0
                stock = c.stock[0, int(core.stock_next[0]):].tolist()
                seen_stock.add(tuple(stock))
                true_hidden = sum(int(core.hands[0, s]) for s in range(n) if s != p)
                true_stock = set(core.stock[0, int(core.stock_next[0]):].tolist())
                assert hidden | sum(1 << x for x in stock) == true_hidden | sum(1 << x for x in true_stock)
                if new.current_player() >= 0:
                    assert new.legal_actions() == tos.TuteState._legal_actions(new, new.current_player())
                checked += 1
            if core.stock_next[0] < game.rules.stock_size - 1:
                assert len(seen_stock) > 1  # the stock is drawn anew
    assert checked > 0


def test_resampling_during_the_deal_keeps_the_cards_seen():
    game = load("two_player")
    state = random_game(game, np.random.default_rng(10), until=20)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    new = state.resample_from_infostate(1, sampler)
    assert new.information_state_string(1) == state.information_state_string(1)
    old, now = state.history(), new.history()
    assert now[0] == old[0] and now[9:18] == old[9:18]  # the dealer, seat 1's 8 cards, the turned card
    hidden = [1, 2, 3, 4, 5, 6, 7, 8, 18, 19]  # seat 0's cards and the stock so far: dealt anew
    assert sorted(now[i] for i in hidden) == sorted(old[i] for i in hidden)


# ----------------------------------------------------------------------------------------------
# OpenSpiel's bots
# ----------------------------------------------------------------------------------------------
def play_bots(game, bots, rng):
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
        else:
            bot = bots[state.current_player()]
            legal = state.legal_actions()
            action = bot.step(state) if bot is not None else legal[rng.integers(len(legal))]
            assert action in legal
            state.apply_action(action)
    return state


def test_ismcts_and_mcts_finish_games():
    game = load("two_player")
    rs = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(1, rs)
    bot = ismcts.ISMCTSBot(game, evaluator, 2.0, 10, random_state=rs)
    assert play_bots(game, [bot, None], np.random.default_rng(11)).is_terminal()
    bot = ismcts.ISMCTSBot(game, evaluator, 2.0, 10, random_state=rs, use_observation_string=True)
    assert play_bots(game, [None, bot], np.random.default_rng(12)).is_terminal()
    cheat = mcts.MCTSBot(game, 2.0, 10, evaluator, random_state=rs)
    assert play_bots(game, [cheat, cheat], np.random.default_rng(13)).is_terminal()
    bot = ismcts.ISMCTSBot(load("partnership"), evaluator, 2.0, 5, random_state=rs)
    assert play_bots(load("partnership"), [bot, None, None, None], np.random.default_rng(14)).is_terminal()


@pytest.mark.slow
def test_ismcts_beats_random_in_two_player():
    game = load("two_player")
    rs = np.random.RandomState(1)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, 40, random_state=rs)
    rng = np.random.default_rng(15)
    wins = games = 0
    for k in range(60):
        seat = k % 2
        bots = [bot, None] if seat == 0 else [None, bot]
        state = play_bots(game, bots, rng)
        wins += state.returns()[seat] > 0
        games += 1
    # Against a coin (p = 0.5), 40 of 60 or more has probability 0.007.
    assert wins >= 40, f"ISMCTS won {wins} of {games}"


# ----------------------------------------------------------------------------------------------
# The agent, and the docs page
# ----------------------------------------------------------------------------------------------
def test_the_ismcts_agent_plays_legal_games_at_a_table():
    from agents.base import RandomAgent
    from agents.openspiel_bot import OpenSpielAgent, parse_spec
    from tute_env.play.records import Recorder
    from tute_env.play.seating import Seating

    rules = make_rules("two_player")
    game = Game(rules)
    agent = OpenSpielAgent.from_spec("ismcts[simulations=8,uct_c=1.5]", rules, seed=3)
    assert (agent.simulations, agent.uct_c) == (8, 1.5)
    state = game.random_state(0, 2)
    recorder = Recorder(rules)
    Seating(game, [agent, RandomAgent(rules, 0)], np.array([[0, 1], [1, 0]]), hooks=[recorder]).advance(state)
    recorder.end(state)
    assert state.done.all() and len(recorder.records) == 2
    for record in recorder.records:
        check(record)
    # The same seed and observations, the same actions.
    env = tute_v0.env(preset="two_player")
    env.reset(seed=4)
    obs = env.observe(env.agent_selection)
    twins = [OpenSpielAgent.from_spec("ismcts[simulations=8]", rules, seed=5) for _ in range(2)]
    assert twins[0].act(obs) == twins[1].act(obs)
    for bad in ("mcts", "ismcts[simulations]", "ismcts[sims=3]", "ismcts[simulations=x]", "ismcts[simulations=3"):
        with pytest.raises(ValueError, match="bad openspiel"):
            parse_spec(bad)


def test_the_docs_page_snippet_runs():
    text = (ROOT / "docs" / "openspiel.md").read_text()
    snippet = re.search(r"```python\n(.*?)```", text, re.DOTALL).group(1)
    namespace = {}
    exec(compile(snippet, "docs/openspiel.md", "exec"), namespace)  # noqa: S102 - the page's own example
    assert namespace["state"].is_terminal()
