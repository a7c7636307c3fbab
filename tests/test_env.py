"""The PettingZoo AEC environment ``tute_v0``: PettingZoo's own test utilities for every preset,
the parallel view, seeding, snapshots, scripted deals against the core, rewards, infos, dead
steps, arguments, observations and rendering."""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # the human render mode without a display
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test
from pettingzoo.test.state_test import test_state as pz_state_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from tute_env import tute_v0
from tute_env.engine.cards import NUM_ACTIONS, action_id, card_str
from tute_env.engine.core import Game
from tute_env.engine.deal import Deal, random_deals
from tute_env.engine.observation import encode_observation, encode_perfect_information, observation_layout
from tute_env.engine.rules import PRESETS, make_rules
from tute_env.engine.scoring import MAX_HAND_POINTS, Scoring, points_rewards, win_rewards
from tute_env.envs.tute_v0 import observation_table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALL_PRESETS = sorted(PRESETS)


def random_policy(rng):
    def choose(observation):
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[rng.integers(len(legal))])

    return choose


def play(env, choose, max_steps=100_000):
    """Play ``env`` (already reset) to the end; returns the list of (agent, action, reward)."""
    log = []
    for agent in env.agent_iter(max_steps):
        obs, reward, term, trunc, info = env.last()
        action = None if term or trunc else choose(obs)
        log.append((agent, action, reward))
        env.step(action)
    return log


@pytest.fixture(autouse=True)
def fast_human_render(monkeypatch):
    # The human mode ticks a clock at render_fps; tests need no pauses.
    monkeypatch.setitem(tute_v0.raw_env.metadata, "render_fps", 10_000)


# ----------------------------------------------------------------------------------------------
# PettingZoo's test utilities
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_api_test(preset):
    api_test(tute_v0.env(preset=preset), num_cycles=200)


@pytest.mark.parametrize("kwargs", [
    dict(episode="match", target_games=2),
    dict(reward="points"),
    dict(preset="two_player", episode="match", match="target_points", reward="points"),
])
def test_api_test_other_episodes_and_rewards(kwargs):
    api_test(tute_v0.env(**kwargs), num_cycles=300)


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_seed_test(preset):
    seed_test(lambda: tute_v0.env(preset=preset), num_cycles=100)


def test_a_finished_hands_info_does_not_depend_on_the_clock(monkeypatch):
    """The info's record carries no wall-clock time: seed_test failed when two envs ended a hand
    in different seconds."""
    import tute_env.play.records

    def hand_infos(clock):
        monkeypatch.setattr(tute_env.play.records, "now_utc", lambda: clock)
        env = tute_v0.env(preset="manita")
        env.reset(seed=7)
        for agent in env.agent_iter():
            obs, _, termination, truncation, info = env.last()
            if "record" in info:
                return info
            env.step(None if termination or truncation else int(np.flatnonzero(obs["action_mask"])[0]))

    first, second = hand_infos("2026-12-03T07:50:15Z"), hand_infos("2026-12-03T07:50:16Z")
    assert first["record"]["actions"] and "time" not in first["record"]
    assert first == second


def test_a_matchs_id_comes_from_the_seed_and_leaves_the_deals_alone():
    """Two same-seed match envs give the same infos (the match id was a uuid4, not seeded), a
    new match or another seed another id, and the deals are the hand episodes' deals."""

    def match_records(seed, episode="match", matches=2):
        env = tute_v0.env(preset="two_player", episode=episode)
        records = []
        for m in range(matches):
            env.reset(seed=seed if m == 0 else None)
            for agent in env.agent_iter():
                obs, _, termination, truncation, info = env.last()
                if "record" in info and (not records or records[-1] is not info["record"]):
                    records.append(info["record"])
                    if episode == "hand":
                        break
                env.step(None if termination or truncation else int(np.flatnonzero(obs["action_mask"])[0]))
        return records

    first, again, other = match_records(3), match_records(3), match_records(4)
    assert first == again
    ids = [r["match"] for r in first]
    assert len(set(ids)) == 2 and all(len(i) == 12 for i in ids)
    assert not set(ids) & {r["match"] for r in other}
    assert first[0]["deal"] == match_records(3, episode="hand", matches=1)[0]["deal"]


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_render_test(preset):
    render_test(lambda render_mode=None: tute_v0.env(preset=preset, render_mode=render_mode))


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_parallel_api_test(preset):
    par = turn_based_aec_to_parallel(tute_v0.env(preset=preset))
    parallel_api_test(par, num_cycles=200)
    parallel_api_test(tute_v0.parallel_env(preset=preset), num_cycles=200)


@pytest.mark.parametrize("preset", ["partnership", "two_player", "three_player"])
def test_state_test(preset):
    pz_state_test(tute_v0.env(preset=preset), num_cycles=20)


def test_registry_makes_the_env():
    import pettingzoo

    env = pettingzoo.make("aec", "tute_env/tute_v0", preset="two_player")
    env.reset(seed=0)
    assert env.unwrapped.rules == PRESETS["two_player"]
    assert env.metadata["name"] == "tute_v0"
    par = pettingzoo.make("parallel", "tute_env/tute_v0")
    obs, infos = par.reset(seed=0)
    assert set(obs) == {"player_0", "player_1", "player_2", "player_3"}


# ----------------------------------------------------------------------------------------------
# Seeding, snapshots
# ----------------------------------------------------------------------------------------------
def test_same_instance_reseed_replays_the_episode():
    env = tute_v0.env(preset="partnership", episode="match", target_games=2)
    runs = []
    for seed in (7, 7, 8):
        env.reset(seed=seed)
        runs.append(play(env, random_policy(np.random.default_rng(0))))
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]
    # Without a seed the episodes go on from the generator: different deals.
    env.reset()
    assert play(env, random_policy(np.random.default_rng(0))) != runs[0]


@pytest.mark.parametrize("preset", ["partnership", "two_player", "three_player"])
@pytest.mark.parametrize("how", ["deepcopy", "pickle", "get_state"])
def test_snapshot_round_trip_in_mid_game(preset, how):
    env = tute_v0.env(preset=preset, episode="match", target_games=2)
    env.reset(seed=3)
    choose = random_policy(np.random.default_rng(1))
    for agent in env.agent_iter(23):  # into the game: tricks, maybe cantes and draws
        env.step(choose(env.last()[0]))
    if how == "deepcopy":
        other = copy.deepcopy(env)
    elif how == "pickle":
        other = pickle.loads(pickle.dumps(env))
    else:
        other = tute_v0.env(preset=preset, episode="match", target_games=2)
        other.reset(seed=99)
        other.unwrapped.set_state(env.unwrapped.get_state())
    assert other.agent_selection == env.agent_selection
    np.testing.assert_array_equal(other.state(), env.state())
    for agent in env.possible_agents:
        np.testing.assert_array_equal(other.observe(agent)["observation"], env.observe(agent)["observation"])
    # Both go on identically, new deals included (the random generator is part of the state).
    log_a = play(env, random_policy(np.random.default_rng(5)))
    log_b = play(other, random_policy(np.random.default_rng(5)))
    assert log_a == log_b
    assert env.unwrapped.match_score == other.unwrapped.match_score


def test_set_state_rejects_other_rules():
    a = tute_v0.raw_env(preset="two_player")
    a.reset(seed=0)
    b = tute_v0.raw_env(preset="partnership")
    b.reset(seed=0)
    with pytest.raises(ValueError, match="rules"):
        b.set_state(a.get_state())
    with pytest.raises(ValueError):
        tute_v0.raw_env().get_state()


def test_ezpickle_before_reset():
    env = pickle.loads(pickle.dumps(tute_v0.env(preset="corriente", reward="points")))
    assert env.unwrapped.rules == PRESETS["corriente"] and env.unwrapped.reward_kind == "points"


# ----------------------------------------------------------------------------------------------
# A scripted deal through the env equals the core
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_scripted_deal_equals_the_core(preset):
    rules = PRESETS[preset]
    rng = np.random.default_rng(11)
    deal = random_deals(rules, rng, 1, dealer=1)[0]
    # The core alone, with actions chosen at random.
    game = Game(rules)
    state = game.new_state([deal])
    actions = []
    while not state.done[0]:
        legal = np.flatnonzero(game.legal_action_mask(state)[0])
        a = int(legal[rng.integers(len(legal))])
        actions.append((int(state.current[0]), a))
        game.step(state, np.array([a]))
    # The same actions through the env, the deal given as card strings.
    env = tute_v0.env(preset=preset)
    env.reset(options={"deal": deal.to_dict()})
    raw = env.unwrapped
    for seat, a in actions:
        assert env.agent_selection == f"player_{seat}"
        obs = env.observe(env.agent_selection)
        np.testing.assert_array_equal(obs["action_mask"], raw.game.legal_action_mask(raw.core_state)[0])
        np.testing.assert_array_equal(obs["observation"], encode_observation(rules, raw.core_state, seat)[0])
        env.step(a)
    assert all(env.terminations.values())
    info = env.infos["player_0"]
    assert info["points"] == state.totals[0].tolist()
    assert info["winner"] == int(state.winner[0])
    assert info["games"] == int(state.games[0])
    for field in ("hands", "played", "card_points", "cante_points", "last_trick_bonus", "winner", "games"):
        np.testing.assert_array_equal(getattr(raw.core_state, field), getattr(state, field))
    g = int(state.games[0])
    for agent in env.agents:
        side = rules.side_of(int(agent.split("_")[1]))
        won = side == info["winner"]
        expected = g if won else -g / (2 if rules.num_players == 3 else 1)
        assert env._cumulative_rewards[agent] == pytest.approx(expected)


def test_reset_with_a_deal_of_card_strings_and_a_dealer():
    rules = PRESETS["two_player"]
    deal = random_deals(rules, np.random.default_rng(0), 1, dealer=0)[0].to_dict()
    env = tute_v0.env(preset="two_player")
    env.reset(options={"deal": deal})
    raw = env.unwrapped
    assert env.agent_selection == "player_1"  # the seat after the dealer leads (R2)
    assert int(raw.core_state.turned_card[0]) == action_id(deal["trump_card"])
    hand = {card_str(c) for c in range(40) if int(raw.core_state.hands[0, 0]) >> c & 1}
    assert hand == set(deal["hands"][0])
    assert raw.core_state.stock[0].tolist() == [action_id(c) for c in deal["stock"]]
    env.reset(options={"deal": Deal.from_dict(deal, rules)})  # a Deal object works too
    for d in range(2):
        env.reset(seed=1, options={"dealer": d})
        assert int(raw.core_state.dealer[0]) == d


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(dealer=7), "dealer"),
        (lambda d: d["hands"][0].pop(), "hand of seat 0"),
        (lambda d: d.update(trump_card="Xx"), "bad card string"),
        (lambda d: d["hands"][1].__setitem__(0, d["hands"][0][0]), "duplicate"),
        (lambda d: d.update(stock=["Ao"]), "stock"),
        (lambda d: d.pop("hands"), "missing 'hands'"),
        (lambda d: d.update(trump_card=d["hands"][2][0]), "trump card"),
    ],
)
def test_malformed_deal_raises_value_error(change, message):
    rules = PRESETS["partnership"]
    deal = random_deals(rules, np.random.default_rng(0), 1, dealer=3)[0].to_dict()
    change(deal)
    env = tute_v0.env()
    with pytest.raises(ValueError, match=message):
        env.reset(options={"deal": deal})


def test_bad_reset_options():
    env = tute_v0.env()
    with pytest.raises(ValueError, match="dealer"):
        env.reset(options={"dealer": 4})
    with pytest.raises(ValueError, match="malformed deal"):
        env.reset(options={"deal": "Ao 2o"})
    with pytest.raises(ValueError, match="give only one of"):
        env.reset(options={"deal": {}, "dealer": 0})
    with pytest.raises(ValueError):
        env.reset(options=[1, 2])
    env.reset(options={"something": 1})  # other keys are ignored (PettingZoo's api_test sends one)


# ----------------------------------------------------------------------------------------------
# End of a hand: infos, rewards, dead steps
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset", ["partnership", "two_player", "three_player"])
def test_dead_steps_at_the_end_of_a_hand(preset):
    env = tute_v0.env(preset=preset)
    env.reset(seed=4)
    choose = random_policy(np.random.default_rng(4))
    n = env.unwrapped.rules.num_players
    while not any(env.terminations.values()):
        env.step(choose(env.last()[0]))
    assert all(env.terminations.values()) and not any(env.truncations.values())
    rewards = dict(env._cumulative_rewards)
    assert sum(rewards.values()) == pytest.approx(0)
    info = env.infos["player_0"]
    assert set(info) >= {"points", "winner", "games"} and len(info["points"]) == env.unwrapped.rules.num_sides
    assert all(env.infos[a] == info for a in env.agents)
    with pytest.raises(ValueError, match="only valid action is None"):
        env.unwrapped.step(0)
    seen = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        assert term and reward == rewards[agent]
        assert not obs["action_mask"].any()
        seen.append(agent)
        env.step(None)
    assert sorted(seen) == sorted(env.possible_agents) and len(seen) == n
    assert env.agents == []


def test_illegal_action_ends_the_episode_with_the_penalty():
    env = tute_v0.env()
    env.reset(seed=0)
    agent = env.agent_selection
    mask = env.last()[0]["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(illegal)
    assert all(env.terminations.values())
    assert env._cumulative_rewards[agent] == -1
    assert all(env._cumulative_rewards[a] == 0 for a in env.agents if a != agent)
    for _ in env.agent_iter():
        env.step(None)
    assert env.agents == []


def test_raw_env_raises_on_illegal_and_bad_actions():
    env = tute_v0.raw_env()
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    with pytest.raises(ValueError, match="illegal action"):
        env.step(int(np.flatnonzero(mask == 0)[0]))
    with pytest.raises(ValueError, match="illegal action"):
        env.step(NUM_ACTIONS)
    with pytest.raises(ValueError, match="bad action"):
        env.step(None)
    with pytest.raises(AssertionError):  # the wrapped env: outside the action space
        wrapped = tute_v0.env()
        wrapped.reset(seed=0)
        wrapped.step(99)


def test_match_episode_deals_hands_until_the_target():
    env = tute_v0.env(preset="two_player", episode="match", target_games=3)
    env.reset(seed=2)
    raw = env.unwrapped
    choose = random_policy(np.random.default_rng(2))
    dealers = [int(raw.core_state.dealer[0])]
    while not any(env.terminations.values()):
        hands = int(raw._scoring.hands[0])
        env.step(choose(env.last()[0]))
        if raw._scoring.hands[0] > hands and not any(env.terminations.values()):
            dealers.append(int(raw.core_state.dealer[0]))
            assert all(r == 0 for r in raw.rewards.values())  # no reward before the match ends
    info = raw.infos["player_0"]
    assert info["hand"] + 1 == len(dealers) >= 3
    assert all((b - a) % 2 == 1 for a, b in zip(dealers, dealers[1:]))  # the next seat deals (R2)
    winner = info["match_winner"]
    assert info["match_games"][winner] >= 3 > info["match_games"][1 - winner]
    assert env._cumulative_rewards[f"player_{winner}"] == 1
    assert env._cumulative_rewards[f"player_{1 - winner}"] == -1


def test_hand_result_stays_in_an_agents_info_until_it_acts():
    env = tute_v0.env(preset="partnership", episode="match", target_games=3)
    env.reset(seed=0)
    raw = env.unwrapped
    choose = random_policy(np.random.default_rng(0))
    while raw._scoring.hands[0] == 0:
        env.step(choose(env.last()[0]))
    acted = set()
    for agent in env.agent_iter(4):
        if agent not in acted:
            assert env.last()[4]["hand"] == 0  # each agent sees the result at its next turn
        acted.add(agent)
        env.step(choose(env.last()[0]))
        assert raw.infos[agent] == {}


# ----------------------------------------------------------------------------------------------
# Rewards and the match bookkeeping
# ----------------------------------------------------------------------------------------------
def test_win_rewards_are_zero_sum():
    four, two, three = PRESETS["partnership"], PRESETS["two_player"], PRESETS["three_player"]
    np.testing.assert_allclose(win_rewards(four, np.array([1]), [2]), [[-2, 2, -2, 2]])
    np.testing.assert_allclose(win_rewards(two, np.array([0]), [1]), [[1, -1]])
    np.testing.assert_allclose(win_rewards(three, np.array([2]), [1]), [[-0.5, -0.5, 1]])
    np.testing.assert_allclose(win_rewards(three, np.array([-1]), [1]), [[0, 0, 0]])


def test_points_rewards():
    four, three = PRESETS["partnership"], PRESETS["three_player"]
    r = points_rewards(four, np.array([[100, 30]]))
    np.testing.assert_allclose(r, [[70 / 230, -70 / 230, 70 / 230, -70 / 230]])
    r = points_rewards(three, np.array([[60, 40, 30]]))
    np.testing.assert_allclose(r[0], np.array([60 - 35, 40 - 45, 30 - 50]) / MAX_HAND_POINTS)
    assert r.sum() == pytest.approx(0)
    assert abs(points_rewards(four, np.array([[230, 0]]))).max() == pytest.approx(1)


def _finished_state(rules, winner, games, totals, tute=-1, b=1):
    game = Game(rules)
    s = game.random_state(0, b)
    s.done[:] = True
    s.winner[:] = winner
    s.games[:] = games
    s.card_points[:] = np.asarray(totals)
    s.tute_declarer[:] = tute
    return s


def test_scoring_target_points_and_tute_in_points_mode():
    rules = make_rules("three_player", match="target_points", target_points=101)
    sc = Scoring(rules, "match", "win", 1)
    lane = np.zeros(1, np.intp)
    res = sc.hand_over(_finished_state(rules, 0, 1, [[60, 40, 30]]), lane)
    assert not res["episode_over"][0] and res["match_winner"][0] == -1 and not res["rewards"].any()
    # Two sides reach 101 in the same hand: the most points wins.
    res = sc.hand_over(_finished_state(rules, 2, 1, [[45, 70, 15]]), lane)
    assert res["episode_over"][0] and res["match_winner"][0] == 1
    np.testing.assert_allclose(res["rewards"][0], [-0.5, 1, -0.5])
    # A tie at the top goes to the hand's winner.
    sc.reset()
    sc.hand_over(_finished_state(rules, 0, 1, [[50, 50, 30]]), lane)
    res = sc.hand_over(_finished_state(rules, 1, 1, [[60, 60, 10]]), lane)
    assert res["match_winner"][0] == 1
    # A Tute wins the match outright, whatever the points.
    sc.reset()
    res = sc.hand_over(_finished_state(rules, 2, 1, [[30, 20, 5]], tute=2), lane)
    assert res["episode_over"][0] and res["match_winner"][0] == 2
    # Points reward: a Tute gives the declarer's side the full win.
    sc = Scoring(make_rules("partnership"), "hand", "points", 1)
    res = sc.hand_over(_finished_state(make_rules("partnership"), 1, 2, [[50, 20]], tute=3), lane)
    np.testing.assert_allclose(res["rewards"][0], [-1, 1, -1, 1])


def test_scoring_target_games_counts_doubles():
    rules = make_rules("partnership", target_games=3)
    sc = Scoring(rules, "match", "win", 2)
    lanes = np.arange(2)
    res = sc.hand_over(_finished_state(rules, [0, 1], [2, 1], [[110, 20], [40, 90]], b=2), lanes)
    assert not res["episode_over"].any()
    res = sc.hand_over(_finished_state(rules, [0, 1], [1, 1], [[80, 50], [40, 90]], b=2), lanes)
    assert res["episode_over"].tolist() == [True, False]
    assert res["match_games"].tolist() == [[3, 0], [0, 2]]
    np.testing.assert_allclose(res["rewards"][0], [1, -1, 1, -1])
    np.testing.assert_allclose(res["rewards"][1], 0)


@pytest.mark.parametrize("preset", ["partnership", "three_player"])
def test_points_reward_episode(preset):
    env = tute_v0.env(preset=preset, reward="points")
    env.reset(seed=1)
    log = play(env, random_policy(np.random.default_rng(1)))
    final = {agent: reward for agent, action, reward in log if action is None}
    assert sum(final.values()) == pytest.approx(0)
    assert max(abs(r) for r in final.values()) <= 1
    assert any(r != 0 for r in final.values())


# ----------------------------------------------------------------------------------------------
# Arguments
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(preset="bridge"), "preset"),
        (dict(episode="season"), "episode"),
        (dict(reward="money"), "reward"),
        (dict(render_mode="svg"), "render_mode"),
        (dict(colour="red"), "colour"),
        (dict(tute="maybe"), "tute"),
        (dict(hand_size=8), "hand_size"),
        (dict(show_all_hands="yes"), "show_all_hands"),
        (dict(lang="fr"), "lang"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=name):
        tute_v0.env(**kwargs)


def test_rule_options_override_the_preset():
    env = tute_v0.env(preset="two_player", stock_duty="strict", exchange="off", target_games=3)
    assert env.unwrapped.rules == make_rules("two_player", stock_duty="strict", exchange="off", target_games=3)
    assert tute_v0.env(preset=make_rules("manita")).unwrapped.rules == PRESETS["manita"]


# ----------------------------------------------------------------------------------------------
# Observations, state
# ----------------------------------------------------------------------------------------------
def test_observations_are_fresh_arrays_and_masks_only_for_the_agent_to_act():
    env = tute_v0.env()
    env.reset(seed=0)
    agent = env.agent_selection
    a, b = env.observe(agent), env.observe(agent)
    assert a["observation"] is not b["observation"] and a["action_mask"] is not b["action_mask"]
    assert not np.shares_memory(a["observation"], b["observation"])
    a["observation"][:] = 0
    a["action_mask"][:] = 0
    c = env.observe(agent)
    np.testing.assert_array_equal(c["observation"], b["observation"])
    np.testing.assert_array_equal(c["action_mask"], b["action_mask"])
    assert c["observation"].dtype == np.int8 and c["action_mask"].dtype == np.int8
    assert c["action_mask"].shape == (47,) and c["action_mask"].any()
    for other in env.agents:
        if other != agent:
            assert not env.observe(other)["action_mask"].any()


def test_state_is_the_perfect_information_encoding():
    env = tute_v0.env(preset="two_player")
    env.reset(seed=0)
    raw = env.unwrapped
    choose = random_policy(np.random.default_rng(0))
    for _ in range(10):
        seat = int(raw.core_state.current[0])
        st = env.state()
        assert raw.state_space.contains(st)
        np.testing.assert_array_equal(st, encode_perfect_information(raw.rules, raw.core_state, seat)[0])
        env.step(choose(env.last()[0]))


def test_observation_spaces_contain_observations_everywhere():
    for preset in ("partnership", "corriente", "three_player"):
        env = tute_v0.env(preset=preset)
        env.reset(seed=1)
        choose = random_policy(np.random.default_rng(1))
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            for other in env.agents:
                assert env.observation_space(other).contains(env.observe(other))
            env.step(None if term or trunc else choose(obs))


# ----------------------------------------------------------------------------------------------
# Docs and packaging
# ----------------------------------------------------------------------------------------------
def test_module_doc_has_the_generated_observation_table():
    assert observation_table() in tute_v0.__doc__
    names = [name for name, _ in observation_layout(PRESETS["partnership"]).pieces]
    assert set(tute_v0.PIECE_DOC) == set(names), "describe every observation piece in PIECE_DOC"
    for name, _ in observation_layout(PRESETS["partnership"]).pieces:
        assert f"`{name}`" in tute_v0.__doc__
    for heading in ("### Observation Space", "### Action Space", "### Rewards", "### Version History"):
        assert heading in tute_v0.__doc__
    assert tute_v0.env().metadata["name"] == "tute_v0"


def test_doc_page_file_is_up_to_date():
    with open(os.path.join(ROOT, "docs", "tute_v0.md")) as f:
        assert f.read().strip() == (tute_v0.DOC_HEADER + tute_v0.__doc__.strip()).strip(), (
            "docs/tute_v0.md is stale: python -m tute_env.envs.tute_v0 > docs/tute_v0.md"
        )


@pytest.mark.slow
def test_imports_stay_lazy():
    code = (
        "import sys, tute_env.engine.core, tute_env.engine.observation\n"
        "assert 'pettingzoo' not in sys.modules and 'gymnasium' not in sys.modules\n"
        "from tute_env import tute_v0\n"
        "e = tute_v0.env(render_mode='ansi'); e.reset(seed=0); assert 'Tute' in e.render()\n"
        "assert 'pygame' not in sys.modules\n"
        "e = tute_v0.env(render_mode='rgb_array'); e.reset(seed=0); e.render()\n"
        "assert 'pygame' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT,
                   env={**os.environ, "PYTHONPATH": ROOT, "SDL_VIDEODRIVER": "dummy"})


# ----------------------------------------------------------------------------------------------
# Rendering
# ----------------------------------------------------------------------------------------------
def test_ansi_render_shows_the_table():
    env = tute_v0.env(render_mode="ansi")
    env.reset(seed=0)
    for _ in range(5):
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    text = env.render()
    assert "trump" in text and "score" in text and "hand:" in text
    assert text.count("hand:") == 1  # the acting player's hand only
    assert any(symbol in text for symbol in ("\N{COIN}", "\N{TROPHY}", "\N{DAGGER KNIFE}", "\N{WOOD}"))
    debug = tute_v0.env(render_mode="ansi", show_all_hands=True)
    debug.reset(seed=0)
    assert debug.render().count("hand:") == 4
    match = tute_v0.env(render_mode="ansi", episode="match")
    match.reset(seed=0)
    assert "match:" in match.render()


@pytest.mark.slow
def test_rgb_render_and_close():
    env = tute_v0.env(render_mode="rgb_array", preset="two_player")
    env.reset(seed=0)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 20  # a picture, not a blank
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    assert not np.array_equal(env.render(), img)
    env.close()
    env.close()
    assert env.render().shape == img.shape  # rendering again after close reopens
    env.close()


def test_human_render_and_close():
    env = tute_v0.env(render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    env.close()


def test_render_without_mode_warns_and_returns_none():
    env = tute_v0.env()
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert env.render() is None


@pytest.mark.slow
def test_ansi_plain_text_is_ascii_and_drawn_modes_without_pygame_name_the_extra():
    env = tute_v0.env(preset="two_player", render_mode="ansi", plain=True)
    env.reset(seed=0)
    text = env.render()
    assert text.isascii() and "trump" in text
    fancy = tute_v0.env(preset="two_player", render_mode="ansi")
    fancy.reset(seed=0)
    assert not fancy.render().isascii()  # suit symbols by default
    code = ("import sys; sys.modules['pygame'] = None\n"
            "from tute_env import tute_v0\n"
            "env = tute_v0.env(preset='two_player', render_mode='rgb_array'); env.reset(seed=0)\n"
            "try:\n    env.render()\nexcept ImportError as err:\n    print(err)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert "pip install 'tute_env[render]'" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.parametrize("action", [1.5, float("inf"), "5", True, np.float64(3.0), None])
def test_only_integer_actions_are_actions(action):
    from tute_env.envs.gym_env import TuteEnv

    env = tute_v0.raw_env(preset="two_player")
    env.reset(seed=0)
    before = env.core_state.copy()
    with pytest.raises(ValueError, match="integer action id"):
        env.step(action)
    np.testing.assert_array_equal(env.core_state.hands, before.hands)  # nothing played
    single = TuteEnv("two_player")
    single.reset(seed=0)
    _, reward, terminated, _, info = single.step(action)  # the documented penalty
    assert (reward, terminated, info.get("illegal_action")) == (-1.0, True, True)
    strict = TuteEnv("two_player", illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="integer action id"):
        strict.step(action)


@pytest.mark.parametrize("change, field", [
    ({"dealer": 256}, "dealer"), ({"dealer": None}, "dealer"), ({"dealer": 1.5}, "dealer"),
    ({"trump_card": None}, "trump_card"), ({"stock": None}, "stock"), ({"hands": None}, "hands"),
    ({"hands": "Ao 2o"}, "hands"),
])
def test_malformed_deals_name_the_field(change, field):
    rules = make_rules("two_player")
    deal = random_deals(rules, np.random.default_rng(0), 1)[0].to_dict()
    env = tute_v0.raw_env(preset="two_player")
    with pytest.raises(ValueError, match=field):
        env.reset(options={"deal": {**deal, **change}})
