"""The table layer (tute_env.play.seating) and the layers around it: one way to run seats, one scoring
module, and tute_env standing on its own."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import python_files

from agents import make_agent
from agents.ppo import PolicyNet, PolicyStack, PPOAgent
from tute_env.engine.core import Game
from tute_env.engine.observation import encode_observation
from tute_env.engine.rules import PRESETS, make_rules
from tute_env.engine.scoring import MAX_HAND_POINTS, Scoring
from tute_env.play.seating import LEARNER, RandomPolicy, Seating

ROOT = Path(__file__).resolve().parent.parent
PRESET_NAMES = sorted(PRESETS)


class Recorder:
    """An action hook keeping every (lane, seat, action) in order."""

    def __init__(self):
        self.log = []

    def __call__(self, state, lanes, actions):
        for lane, action in zip(lanes, actions):
            self.log.append((int(lane), int(state.current[lane]), int(action)))


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_hooks_see_every_action_and_replay_the_games(preset):
    rules = make_rules(preset)
    game = Game(rules)
    start = game.random_state(np.random.default_rng(1), 24)
    state = start.copy()
    recorder = Recorder()
    bots = [make_agent("greedy", rules), RandomPolicy(3)]
    seats = np.random.default_rng(2).integers(0, 2, size=(24, rules.num_players))
    decisions = Seating(game, bots, seats, hooks=[recorder]).advance(state)
    assert state.done.all() and decisions == len(recorder.log)
    replay = start.copy()
    for lane, seat, action in recorder.log:  # the hook's record alone plays every game again
        assert replay.current[lane] == seat
        actions = np.zeros(replay.batch_size, np.int64)
        actions[lane] = action
        game.step(replay, actions, active=np.arange(replay.batch_size) == lane)
    for name in ("winner", "games", "card_points", "cante_points", "played"):
        np.testing.assert_array_equal(getattr(replay, name), getattr(state, name))


def test_learner_seats_stop_the_table_and_their_actions_are_hooked():
    rules = make_rules("partnership")
    game = Game(rules)
    state = game.random_state(np.random.default_rng(0), 16)
    recorder = Recorder()
    seating = Seating(game, [make_agent("heuristic", rules)], [LEARNER, 0, 0, 0], hooks=[recorder])
    learner = RandomPolicy(7)
    while True:
        seating.advance(state)
        assert (seating.learner_to_act(state) | state.done).all()
        assert (state.current[~state.done] == 0).all()
        if state.done.all():
            break
        mask = game.legal_action_mask(state)
        seating.step(state, learner.act_batch(None, mask))
    seats = {seat for _, seat, _ in recorder.log}
    assert seats == {0, 1, 2, 3}  # the learner's own actions went through the hooks too


def test_policies_are_grouped_and_called_once_per_round():
    rules = make_rules("two_player")
    game = Game(rules)
    calls = []

    class Counting(RandomPolicy):
        def act_batch(self, observations, masks):
            calls.append(len(masks))
            return super().act_batch(observations, masks)

    state = game.random_state(np.random.default_rng(0), 50)
    seats = np.zeros((50, 2), np.int64)
    seats[25:] = 1
    Seating(game, [Counting(0), Counting(1)], seats).advance(state)
    assert state.done.all() and max(calls) == 25


def test_finished_games_are_reported_in_the_round_they_end_and_dealt_anew():
    rules = make_rules("three_player")
    game = Game(rules)
    state = game.random_state(np.random.default_rng(0), 8)
    dealers = state.dealer.copy()
    done_before_step = []  # state.done as each round's actions are about to be applied

    def hook(s, lanes, actions):
        done_before_step.append(s.done.copy())

    seating = Seating(game, [RandomPolicy(1)], [0, 0, 0], hooks=[hook])
    reports, dealt = [], set()

    def on_done(lanes):
        assert state.done[lanes].all()
        assert not done_before_step[-1][lanes].any()  # ended by the round just played, reported before the next
        reports.extend(lanes.tolist())
        redeal = [lane for lane in lanes.tolist() if lane % 2 == 0 and lane not in dealt]  # the even ones, once
        dealt.update(redeal)
        return np.array(redeal, np.intp)

    seating.advance(state, on_done, np.random.default_rng(5))
    assert sorted(reports) == sorted([*range(8), 0, 2, 4, 6])  # each hand reported once, the second ones played on
    assert state.done.all()
    assert (state.dealer[0::2] == (dealers[0::2] + 1) % 3).all()  # the next seat dealt (R2)
    assert (state.dealer[1::2] == dealers[1::2]).all()
    with pytest.raises(ValueError, match="rng"):
        Seating(game, [RandomPolicy(1)], [0, 0, 0]).advance(game.random_state(0, 2), lambda lanes: None)


def test_illegal_policy_actions_and_bad_seats_are_named():
    rules = make_rules("two_player")
    game = Game(rules)

    class Bad:
        def act_batch(self, observations, masks):
            return np.argmin(masks, axis=1)

        def __repr__(self):
            return "bad-bot"

    state = game.random_state(np.random.default_rng(0), 4)
    before = state.copy()
    with pytest.raises(ValueError, match="bad-bot at seat .* illegal action"):
        Seating(game, [Bad()], [0, 0]).advance(state)
    np.testing.assert_array_equal(state.hands, before.hands)  # nothing applied
    with pytest.raises(ValueError, match="seats"):
        Seating(game, [Bad()], [0, 0, 0])
    with pytest.raises(ValueError, match="policy indices"):
        Seating(game, [Bad()], [0, 1])


# ----------------------------------------------------------------------------------------------
# Stacks: several networks in one forward pass, each choosing as it would alone
# ----------------------------------------------------------------------------------------------
def _nets(rules, count, hidden=(64, 32)):
    nets = []
    for k in range(count):
        torch.manual_seed(k)
        nets.append(PolicyNet(rules, hidden).eval())
    return nets


def _play(rules, agents, seed, streams=None, autocast=False):
    """Every game of a 40-game batch played out by ``agents`` on random seats; the actions."""
    game = Game(rules)
    state = game.random_state(np.random.default_rng(seed), 40)
    seats = np.random.default_rng(seed + 1).integers(0, len(agents), size=(40, rules.num_players))
    recorder = Recorder()
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
        Seating(game, agents, seats, hooks=[recorder], streams=streams).advance(state)
    return recorder.log


@pytest.mark.parametrize("preset", ["partnership", "two_player"])
@pytest.mark.parametrize("mode", ["greedy", "sampled", "keyed"])
def test_a_stack_of_networks_plays_as_its_networks_alone(preset, mode):
    rules = make_rules(preset)

    def agents(stacked):
        out = [PPOAgent(rules, seed=10 + k, net=net, greedy=mode == "greedy") for k, net in enumerate(_nets(rules, 3))]
        if stacked:
            PolicyStack(out[:2])  # two stacked, one alone: both kinds at one table
        return [*out, make_agent("heuristic", rules), out[0]]  # out[0] seated twice: the second acts alone

    streams = np.arange(40) * 7 if mode == "keyed" else None
    alone, together = _play(rules, agents(False), 3, streams), _play(rules, agents(True), 3, streams)
    assert len(alone) > 40 * 20 and together == alone


class Recording(PPOAgent):
    """A PPO agent that keeps the logits it chose from."""

    logits = None

    def choose(self, logits, keys=None):
        self.logits = logits
        return super().choose(logits, keys)


def test_a_stack_computes_its_members_logits_in_float32_and_bfloat16():
    rules = make_rules("partnership")
    members = [Recording(rules, seed=k, net=net) for k, net in enumerate(_nets(rules, 3, hidden=(256, 256)))]
    stack = PolicyStack(members)
    game = Game(rules)
    state = game.random_state(np.random.default_rng(0), 30)
    obs = encode_observation(rules, state, state.current.astype(np.intp))
    masks = game.legal_action_mask(state)
    for autocast, tolerance in ((False, 1e-4), (True, 0.1)):
        for member in members:
            member.logits = None
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            stack.act_many([(members[2], obs[:7], masks[:7], None), (members[0], obs[7:], masks[7:], None)])
            for member, rows in ((members[2], slice(0, 7)), (members[0], slice(7, None))):
                want = member.net.logits(torch.from_numpy(obs[rows]), torch.from_numpy(masks[rows]))
                legal = torch.from_numpy(masks[rows])
                assert torch.allclose(member.logits[legal], want[legal], atol=tolerance, rtol=0.02)
                assert (member.logits[~legal] < -1e8).all()
        assert members[1].logits is None  # a member not called chooses nothing


def test_a_stack_needs_one_architecture_and_names_an_illegal_choice():
    rules = make_rules("two_player")
    small, wide = _nets(rules, 1)[0], PolicyNet(rules, (32, 32))
    with pytest.raises(ValueError, match="one architecture"):
        PolicyStack([PPOAgent(rules, net=small), PPOAgent(rules, net=wide)])

    class Contrary(PPOAgent):
        def choose(self, logits, keys=None):
            return logits.argmin(dim=1).numpy()  # a masked-out action

        def __repr__(self):
            return "contrary-net"

    agents = [Contrary(rules, net=net) for net in _nets(rules, 2)]
    PolicyStack(agents)
    game = Game(rules)
    state = game.random_state(np.random.default_rng(0), 4)
    before = state.copy()
    with pytest.raises(ValueError, match="contrary-net at seat .* illegal action"):
        Seating(game, agents, [0, 1]).advance(state)
    np.testing.assert_array_equal(state.hands, before.hands)


# ----------------------------------------------------------------------------------------------
# One scoring module: training's reward is the env's
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset", ["partnership", "two_player", "three_player"])
def test_training_reward_equals_the_env_reward_for_the_same_hands(preset):
    from tute_lab.training.selfplay import Pool, SelfPlayGames
    from tute_lab.training.settings import Args

    args = Args(preset=preset, num_envs=64, bots=("random", "greedy"), point_weight=0.177)
    rules = make_rules(preset)
    rng = np.random.default_rng(0)
    pool = Pool(rules, args.bots, 0, 2, (16,), False)
    games = SelfPlayGames(rules, args.num_envs, rng, pool, args)
    finished = []
    assign = games.assign

    def snapshot(lanes):  # called as each finished hand is scored, before the new seating
        for lane in lanes:  # hands end at different rounds of a step: kept by (step, lane)
            finished.append(((len(rewards), lane), games.state.take([lane]), games.learner_seat(np.array([lane]))))
        assign(lanes)

    games.assign = snapshot
    rewards, learner = [], RandomPolicy(1)
    games.advance()
    for _ in range(40):
        reward, ended, _ = games.step(learner.act_batch(None, games.game.legal_action_mask(games.state)))
        rewards.append(reward[ended])
    rewards = np.concatenate(rewards)
    finished.sort(key=lambda entry: entry[0])
    states, seats = finished[0][1], finished[0][2]
    for _, s, x in finished[1:]:
        states = _concat(states, s)
        seats = np.concatenate([seats, x])
    assert len(rewards) == states.batch_size > 20
    env_rewards = Scoring(rules, "hand", "win", states.batch_size, point_weight=0.177).hand_over(
        states, np.arange(states.batch_size))["rewards"][np.arange(states.batch_size), seats]
    np.testing.assert_allclose(rewards, env_rewards)
    # and what that reward is: the win (games credited, shared by losers) plus 0.177 x points / 230
    own = states.totals[np.arange(states.batch_size), [rules.side_of(x) for x in seats]].astype(float)
    others = (states.totals.sum(axis=1) - own) / (rules.num_sides - 1)
    won = states.winner == np.array([rules.side_of(x) for x in seats])
    win = np.where(won, states.games, -states.games * (1.0 if rules.num_sides == 2 else 0.5))
    np.testing.assert_allclose(rewards, win + 0.177 * (own - others) / MAX_HAND_POINTS)


def _concat(a, b):
    from tute_env.engine.core import State

    return State(**{k: np.concatenate([getattr(a, k), getattr(b, k)]) for k in a.__dataclass_fields__})


# ----------------------------------------------------------------------------------------------
# Layers (the import graph: tests/test_layout.py)
# ----------------------------------------------------------------------------------------------
def test_only_the_table_agents_and_tests_call_act_batch():
    calls = []
    for rel, tree in python_files():
        # bench/common.py's Timed is a policy that times the policy it wraps, seated like any other.
        if rel.parts[0] in ("agents", "tests") or rel in (Path("tute_env/play/seating.py"), Path("bench/common.py")):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "act_batch":
                calls.append(f"{rel}:{node.lineno}")
    assert not calls, f"seats run outside the table layer: {calls}"


@pytest.mark.slow
def test_the_scripts_import_from_anywhere_under_their_installed_names_only(tmp_path):
    """train.py and evaluate.py are installed as tute_scripts.train and tute_scripts.evaluate (the
    tute-train and tute-evaluate commands): no top-level `train` or `evaluate` module, which would
    shadow PyPI's `evaluate`."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = ("import importlib.util as u, tute_scripts.train as t, tute_scripts.evaluate as e; "
            "print(t.__file__, e.__file__, u.find_spec('train'), u.find_spec('evaluate'))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [str(ROOT / "train.py"), str(ROOT / "evaluate.py"), "None", "None"]
