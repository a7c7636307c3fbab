"""The rule-based bots: always legal on every preset, information-set only, and the behaviours
their docstrings promise."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.greedy import declaration_actions
from agents.pimc import playout_policy
from tute_env.engine.cards import EXCHANGE, NUM_ACTIONS, PASS, SING_BASE, TUTE, action_id, action_str, card_id
from tute_env.engine.core import Game
from tute_env.engine.deal import Deal
from tute_env.engine.observation import encode_observation
from tute_env.engine.rules import PRESETS, make_rules
from tute_env.play.seating import Seating

BOTS = ["random", "greedy", "heuristic"]


class Checked:
    """A bot whose every decision is checked: shape, legality, and ``check(obs, mask, actions)``."""

    def __init__(self, bot, check=None):
        self.bot, self.check = bot, check

    def act_batch(self, obs, mask):
        acts = np.asarray(self.bot.act_batch(obs, mask))
        assert acts.shape == (len(mask),)
        assert mask[np.arange(len(mask)), acts].all(), f"{self.bot} chose an illegal action"
        if self.check is not None:
            self.check(obs, mask, acts)
        return acts


def play_batch(rules, seat_bots, games=192, seed=0, check=None):
    """Play ``games`` random deals to the end at a table, ``seat_bots[seat]`` (agents) acting;
    asserts every action is legal. ``check(obs, mask, actions)`` may look at every decision."""
    game = Game(rules)
    state = game.random_state(np.random.default_rng(seed), games)
    bots = [Checked(bot, check) for bot in seat_bots]
    decisions = Seating(game, bots, np.arange(rules.num_players)).advance(state)
    assert state.done.all()
    return state, decisions


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_bots_always_legal_on_every_preset(preset):
    rules = make_rules(preset)
    n = rules.num_players
    for k, bot in enumerate(["greedy", "heuristic"]):
        # The bot in every seat, then mixed with the others.
        same = [make_agent(bot, rules, seed=s) for s in range(n)]
        state, _ = play_batch(rules, same, games=160, seed=10 + k)
        assert state.done.all()
        mixed = [make_agent(BOTS[(s + k) % 3], rules, seed=s) for s in range(n)]
        play_batch(rules, mixed, games=160, seed=20 + k)


OPTIONS = [{"stock_duty": "trump_led"}, {"tute": "off"}, {"singers": "winner"}, {"forty_before_twenty": False}]


@pytest.mark.parametrize("preset, override", [("two_player", {"exchange": "after_win"})]
                         + [(p, o) for p in ("two_player", "three_player") for o in OPTIONS])
def test_bots_legal_under_rule_options(preset, override):
    rules = make_rules(preset, **override)
    bots = [make_agent(BOTS[(s + 1) % 3], rules, seed=s) for s in range(rules.num_players)]
    play_batch(rules, bots, games=96, seed=3)


@pytest.mark.parametrize("override", [{"singers": "winner"}, {"undertrump_when_overtrumped": True},
                                      {"must_beat_partner": False, "tute": "wins_hand"}])
def test_bots_legal_under_partnership_options(override):
    rules = make_rules("partnership", **override)
    bots = [make_agent(b, rules, seed=s) for s, b in enumerate(["heuristic", "greedy", "heuristic", "random"])]
    play_batch(rules, bots, games=96, seed=4)


@pytest.mark.parametrize("bot", ["greedy", "heuristic"])
def test_single_observation_act_matches_batch(bot):
    rules = make_rules("two_player")
    agent = make_agent(bot, rules)

    def check(obs, mask, acts):
        for i in range(min(3, len(acts))):
            assert agent.act({"observation": obs[i], "action_mask": mask[i].astype(np.int8)}) == acts[i]

    play_batch(rules, [agent, agent], games=8, seed=5, check=check)


def _deal(rules, hands, trump_card, dealer, stock=None):
    used = {card_id(c) for h in hands for c in h.split()}
    if not rules.partnerships:
        used.add(card_id(trump_card))
    rest = [c for c in range(40) if c not in used]
    spec = {"dealer": dealer, "hands": hands, "trump_card": trump_card}
    if not rules.partnerships:
        spec["stock"] = stock if stock is not None else rest
    return Deal.from_dict(spec, rules)


def _decide(rules, state, bot):
    game = Game(rules)
    seat = int(state.current[0])
    obs = encode_observation(rules, state, [seat])
    return action_str(int(make_agent(bot, rules).act_batch(obs, game.legal_action_mask(state))[0]))


def _state(rules, deal, moves=""):
    game = Game(rules)
    state = game.new_state([deal])
    for m in moves.split():
        game.step(state, np.array([action_id(m)]))
    return state


def test_heuristic_loads_points_onto_the_partners_sure_trick():
    """Manita, seat 3 last: its partner's Ro holds the trick and seat 3 need not beat it. The Ao
    is still out, so its 3o may be captured later: the heuristic gives it now (10 points for its
    side); the greedy bot throws its least valuable card."""
    rules = make_rules("manita")
    hands = [
        "4o Ao 4c 5c 6c 7c Sc 2e 4e 5e",
        "Ro 5o 7o 6e 7e Se Ce Re 3e Ae",
        "6o So Co Ac 3c Rc Cc 2c 2b 4b",
        "3o 2o 6b 5b 7b Sb Cb Rb 3b Ab",  # trump bastos (Ab shown, seat 3 deals)
    ]
    deal = _deal(rules, hands, "Ab", dealer=3)
    state = _state(rules, deal, "4o Ro 6o")
    assert state.current[0] == 3
    assert _decide(rules, state, "heuristic") == "3o"
    assert _decide(rules, state, "greedy") == "2o"


def test_heuristic_does_not_trump_its_partners_trick_in_manita():
    """Manita: void in the suit led while the partner holds the trick, it need not trump, and it
    does not waste a trump there (the strict preset forces one)."""
    hands = [
        "4o 2o 4c 5c 6c 7c Sc 2e 4e 5e",
        "Ao 5o 7o 6e 7e Se Ce Re 3e Ae",
        "6o Co Ro 3o So Ac 3c Rc Cc 2b",
        "2c 4b 6b 5b 7b Sb Cb Rb 3b Ab",  # no oros; trumps (bastos) and the 2c
    ]
    for preset, expect_trump in (("manita", False), ("partnership", True)):
        rules = make_rules(preset)
        deal = _deal(rules, hands, "Ab", dealer=3)
        state = _state(rules, deal, "4o Ao 3o")  # seat 1 (partner of 3) wins with the ace
        assert state.current[0] == 3
        move = _decide(rules, state, "heuristic")
        assert (move[1] == "b") == expect_trump, (preset, move)


TWO_HANDS = ["Ao 4o 5c 6c 2e 4e 5b 6b", "2o 6o 7c 3c 2b 5e 6e 7e"]


def test_heuristic_trumps_a_rich_trick_but_not_an_empty_one_in_the_free_phase():
    rules = make_rules("two_player")
    # Trump copas (turned Sc). Seat 0 leads (dealer 1).
    deal = _deal(rules, TWO_HANDS, "Sc", dealer=1)
    rich = _state(rules, deal, "Ao")
    assert _decide(rules, rich, "heuristic")[1] == "c"  # a trump takes the 11 points
    empty = _state(rules, deal, "4o")
    move = _decide(rules, empty, "heuristic")
    assert move[1] != "c", move  # no trump wasted on a pointless trick


def test_greedy_takes_points_cheaply_and_throws_low():
    rules = make_rules("two_player")
    deal = _deal(rules, TWO_HANDS, "Sc", dealer=1)
    assert _decide(rules, _state(rules, deal, "Ao"), "greedy") == "7c"  # cheapest trump wins the ace
    assert _decide(rules, _state(rules, deal, "4o"), "greedy") == "2o"  # nothing to take: least valuable
    assert _decide(rules, _state(rules, deal), "greedy") == "2e"  # leads its least valuable card


@pytest.mark.parametrize("bot", ["greedy", "heuristic"])
def test_declares_tute_and_sings_the_forty_first(bot):
    rules = make_rules("two_player")
    # Seat 0 holds Rc Cc (40 in copas, trump) and Ro Co (20): after winning a trick it sings the 40.
    hands = ["Ro Co Rc Cc Ae 4o 5b 6b", "2o 6o 7c 3c 2b 5e 6e 7e"]
    deal = _deal(rules, hands, "Sc", dealer=1)
    state = _state(rules, deal, "Ae 5e")
    assert state.current[0] == 0
    assert _decide(rules, state, bot) == "sing-c"
    # Four kings: Tute.
    hands = ["Ro Rc Re Rb Ae 4o 5b 6b", "2o 6o 7c 3c 2b 5e 6e 7e"]
    deal = _deal(rules, hands, "Sc", dealer=1)
    assert _decide(rules, _state(rules, deal, "Ae 5e"), bot) == "tute"


@pytest.mark.parametrize("bot", ["greedy", "heuristic"])
def test_exchanges_the_seven_for_a_better_turned_card(bot):
    rules = make_rules("two_player")
    hands = ["7c 4o 5o 2e 4e 5b 6b 2o", "Ao 6o 3c 2b 5e 6e 7e Rb"]
    assert _decide(rules, _state(rules, _deal(rules, hands, "Ac", dealer=1)), bot) == "exchange"
    # A turned 4 of trumps is weaker than the 7: keep the 7.
    assert _decide(rules, _state(rules, _deal(rules, hands, "4c", dealer=1)), bot) != "exchange"


def test_declaration_order_tute_exchange_cante_pass():
    """The one declaration policy: Tute, then a worthwhile exchange, then the best cante, then
    pass on a declaration turn."""

    def row(*actions):
        mask = np.zeros(NUM_ACTIONS, bool)
        mask[[action_id(a) for a in actions]] = True
        return mask

    rows = [  # (legal actions, turned card, choice); trumps are copas
        (("Ao", "sing-o", "exchange", "tute"), "Ac", TUTE),
        (("Ao", "sing-o", "sing-c", "exchange"), "Ac", EXCHANGE),
        (("Ao", "sing-o", "exchange"), "4c", SING_BASE),  # a turned 4 is weaker than the 7 given
        (("Ao", "sing-o", "sing-c"), "Ac", SING_BASE + 1),  # the 40 before a 20
        (("sing-e", "sing-b", "pass"), "Ac", SING_BASE + 2),
        (("pass",), "Ac", PASS),
        (("Ao", "2o"), "Ac", -1),
    ]
    masks = np.array([row(*r[0]) for r in rows])
    turned = np.array([card_id(r[1]) for r in rows])
    trump = np.ones(len(rows), np.intp)
    expected = [r[2] for r in rows]
    assert declaration_actions(masks, trump, turned, make_rules("two_player")).tolist() == expected
    # With after_win, the 2 is given for a turned 4: always worth it.
    after_win = make_rules("two_player", exchange="after_win")
    assert declaration_actions(masks[2:3], trump[:1], turned[2:3], after_win).tolist() == [EXCHANGE]


@pytest.mark.parametrize("bot", ["greedy", "heuristic", "pimc playouts"])
def test_exchange_before_singing_may_complete_a_pair(bot):
    """Seat 0 won a trick holding Ro Co (a 20), the 7 and the knight of trumps (copas), the king
    Rc turned: every bot exchanges first, then sings the 40 the exchange completed."""
    rules = make_rules("two_player")
    hands = ["7c Cc Ro Co Ae 4o 5b 6b", "2o 6o Ac 3c 2b 5e 6e 7e"]
    state = _state(rules, _deal(rules, hands, "Rc", dealer=1), "Ae 5e")
    game = Game(rules)

    def decide():
        if bot == "pimc playouts":
            return action_str(int(playout_policy(game, state)[0]))
        return _decide(rules, state, bot)

    assert decide() == "exchange"
    game.step(state, np.array([EXCHANGE]))
    assert decide() == "sing-c"


@pytest.mark.parametrize("bot", ["greedy", "heuristic"])
def test_bots_see_only_their_information_set(bot):
    """Swapping two other players' hidden hands does not change the bot's decisions."""
    rules = make_rules("partnership")
    rng = np.random.default_rng(7)
    from tute_env.engine.deal import random_deals

    deals = random_deals(rules, rng, 64, dealer=3)  # seat 3 holds the shown card
    swapped_hands = deals.hands.copy()
    swapped_hands[:, [1, 2]] = swapped_hands[:, [2, 1]]
    game = Game(rules)
    a = game.new_state(deals)
    b = game.new_state(type(deals)(deals.dealer, swapped_hands, deals.trump_card, deals.stock))
    agent = make_agent(bot, rules)
    obs_a = encode_observation(rules, a, np.zeros(64, int))
    obs_b = encode_observation(rules, b, np.zeros(64, int))
    assert (obs_a == obs_b).all()
    acts_a = agent.act_batch(obs_a, game.legal_action_mask(a))
    acts_b = agent.act_batch(obs_b, game.legal_action_mask(b))
    assert (acts_a == acts_b).all()


@pytest.mark.parametrize("bot", BOTS)
def test_rows_without_legal_actions_get_a_valid_id(bot):
    rules = make_rules("two_player")
    game = Game(rules)
    state = game.random_state(np.random.default_rng(0), 4)
    obs = encode_observation(rules, state, np.zeros(4, int))
    masks = np.zeros((4, 47), bool)
    acts = make_agent(bot, rules).act_batch(obs, masks)
    assert ((acts >= 0) & (acts < 47)).all()


def test_heuristic_decides_each_game_alone():
    """The compiled card scores read one game at a time: a batch's decisions are those of its
    rows decided one by one, in any order and mixed with other games."""
    from agents.heuristic import heuristic_actions
    from tute_env.search.infoset import decode_infoset

    rules = make_rules("partnership")
    seen = []
    play_batch(rules, [make_agent("heuristic", rules, seed=s) for s in range(4)], games=24, seed=5,
               check=lambda obs, mask, acts: seen.append((obs.copy(), mask.copy(), acts.copy())))
    obs, mask, acts = (np.concatenate(x) for x in zip(*seen))
    assert len(acts) > 400
    order = np.random.default_rng(0).permutation(len(acts))
    shuffled = heuristic_actions(rules, decode_infoset(rules, obs[order], mask[order]))
    assert (shuffled == acts[order]).all()
    for i in range(0, len(acts), 37):
        assert heuristic_actions(rules, decode_infoset(rules, obs[i:i + 1], mask[i:i + 1]))[0] == acts[i]


def test_heuristic_rejects_a_misfit_information_set():
    """A malformed information set raises, naming what is wrong, before compiled code reads it."""
    from agents.heuristic import card_values
    from tute_env.search.infoset import decode_infoset

    rules = make_rules("partnership")
    state = Game(rules).random_state(np.random.default_rng(1), 4)
    seat = state.current.astype(np.intp)
    obs = encode_observation(rules, state, seat)
    mask = np.zeros((4, NUM_ACTIONS), bool)
    mask[:, :10] = True
    info = decode_infoset(rules, obs, mask)
    assert np.isfinite(card_values(rules, info)[:, :10]).all()
    with pytest.raises(ValueError, match="InfoSet.mask has shape"):
        card_values(rules, decode_infoset(rules, obs, mask[:, :20]))
    bad = decode_infoset(rules, obs, mask)
    bad.trick_winner = np.array([0, 1, 4, -1], np.int8)  # seat 4 of 4
    with pytest.raises(ValueError, match="information set 2: .*out of range"):
        card_values(rules, bad)
    bad = decode_infoset(rules, obs, mask)
    bad.trick = bad.trick[:, :2]
    with pytest.raises(ValueError, match=r"InfoSet.trick has shape \(4, 2\), expected \(4, 4\)"):
        card_values(rules, bad)
    with pytest.raises(ValueError, match="rows must be indices"):
        card_values(rules, info, np.array([4]))
