"""The batched core: invariants on random games, bad input, determinism, autoreset, observations."""

import numpy as np
import pytest
from conftest import build_deal  # tests/conftest.py
from numpy_observation import numpy_observation  # tests/numpy_observation.py

from tute_env.engine.cards import (
    CARD_POINTS,
    EXCHANGE,
    FACES,
    NUM_ACTIONS,
    card_id,
    card_str,
    cards_of,
    pack_sets,
    unpack_sets,
)
from tute_env.engine.core import Game
from tute_env.engine.core import random_legal_actions as random_actions
from tute_env.engine.deal import Deal, random_deals
from tute_env.engine.observation import (
    encode_observation,
    encode_perfect_information,
    observation_layout,
    perfect_information_layout,
)
from tute_env.engine.rules import PRESETS, make_rules

PRESET_NAMES = sorted(PRESETS)




def play_out(game, state, rng, each_step=None):
    while not state.done.all():
        if each_step:
            each_step(state)
        game.step(state, random_actions(game.legal_action_mask(state), rng))
    return state


def test_pack_unpack_round_trip():
    rng = np.random.default_rng(0)
    bits = rng.random((7, 3, 47)) < 0.5
    assert (unpack_sets(pack_sets(bits), 47) == bits).all()


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_invariants_on_random_games(preset):
    game = Game(preset)
    rules = game.rules
    rng = np.random.default_rng(1)
    state = game.random_state(rng, 3000)
    dealt = state.copy()

    def check(s):
        running = ~s.done
        mask = game.legal_action_mask(s)
        assert mask[running].any(axis=1).all(), "a running game without a legal action"
        assert not mask[s.done].any()
        lanes = np.flatnonzero(running)
        seat = s.current[lanes]
        hand = s.hands[lanes, seat]
        # Card actions are always cards in the hand of the seat to act.
        assert (pack_sets(mask[lanes, :40]) & ~hand == 0).all()
        # Public knowledge is true: known cards are held, cannot_hold cards are not.
        assert ((s.known & ~s.hands) == 0).all()
        assert ((s.cannot_hold & s.hands) == 0).all()
        # Hands, played cards and the rest partition the deck.
        held = np.bitwise_or.reduce(s.hands, axis=1)
        played = np.bitwise_or.reduce(s.played, axis=1)
        assert (held & played == 0).all()

    play_out(game, state, rng, check)
    dead_points = 0
    if rules.has_stock and not rules.turned_card_drawn:
        dead_points = CARD_POINTS[dealt.turned_card].astype(int)
    card_total = state.card_points.sum(axis=1) + state.last_trick_bonus.sum(axis=1)
    played_out = state.tute_declarer < 0
    assert (card_total[played_out] == (130 - dead_points if np.ndim(dead_points) == 0 else (130 - dead_points)[played_out])).all()
    assert (state.tricks_played[played_out] == rules.num_tricks).all()
    assert (state.winner >= 0).all() and (state.games >= 1).all()
    # R9: the winner has the highest total.
    totals = state.totals
    assert (totals[np.arange(len(totals)), state.winner][played_out] == totals.max(axis=1)[played_out]).all()


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_same_seed_same_games_and_batch_of_one(preset):
    game = Game(preset)
    a = play_out(game, game.random_state(7, 64), np.random.default_rng(3))
    b = play_out(game, game.random_state(7, 64), np.random.default_rng(3))
    assert (a.totals == b.totals).all() and (a.winner == b.winner).all()
    # Lanes are independent: lane 5 alone, given the same actions, ends the same way.
    deals = random_deals(game.rules, np.random.default_rng(11), 16)
    batch, single = game.new_state(deals), game.new_state([deals[5]])
    rng = np.random.default_rng(4)
    while not batch.done.all():
        actions = random_actions(game.legal_action_mask(batch), rng)
        if not single.done[0]:
            assert single.legal[0] == batch.legal[5]
            game.step(single, actions[5:6])
        game.step(batch, actions)
    assert (single.totals[0] == batch.totals[5]).all() and single.winner[0] == batch.winner[5]


def test_illegal_and_out_of_range_actions_change_nothing():
    game = Game("partnership")
    state = game.random_state(0, 8)
    before = state.copy()
    mask = game.legal_action_mask(state)
    actions = random_actions(mask, np.random.default_rng(0))
    bad = actions.copy()
    bad[3] = np.flatnonzero(~mask[3])[0]
    with pytest.raises(ValueError, match="illegal action .* in game 3"):
        game.step(state, bad)
    bad[3] = NUM_ACTIONS
    with pytest.raises(ValueError, match="out of range"):
        game.step(state, bad)
    with pytest.raises(ValueError, match="shape"):
        game.step(state, actions[:4])
    with pytest.raises(ValueError, match="integers"):
        game.step(state, actions.astype(float))
    for name in before.__dataclass_fields__:
        assert (getattr(before, name) == getattr(state, name)).all(), name


def test_malformed_deal_in_a_batch_raises_naming_it():
    game = Game("two_player")
    deals = [d.to_dict() for d in (random_deals(game.rules, np.random.default_rng(0), 3)[i] for i in range(3))]
    deals[2]["hands"][1] = deals[2]["hands"][1][:7]
    with pytest.raises(ValueError, match="deal 2: malformed deal: hand of seat 1 has 7 cards"):
        game.new_state(deals)


def test_autoreset_deals_anew_with_the_next_dealer():
    game = Game("two_player")
    rng = np.random.default_rng(0)
    state = game.random_state(rng, 32, dealer=1)
    for _ in range(200):
        game.step(state, random_actions(game.legal_action_mask(state), rng))
        lanes = game.reset_done(state, rng)
        if lanes.size:
            assert (state.dealer[lanes] == 0).all() and not state.done[lanes].any()
            assert (state.current[lanes] == 1).all() and (state.tricks_played[lanes] == 0).all()
            break
    else:
        pytest.fail("no game finished")


# R7: the card the exchange gives for each turned trump (bastos), -1 where no exchange is legal
# (seven_on_lead: the 7 cannot be held when it is the turned card; after_win: nothing takes a 2).
EXCHANGE_GIVES = {
    "seven_on_lead": {f: ("7b" if f != "7" else None) for f in FACES},
    "after_win": {f: {"2": None, "4": "2b", "5": "2b", "6": "2b", "7": "2b"}.get(f, "7b") for f in FACES},
}


@pytest.mark.parametrize("exchange", sorted(EXCHANGE_GIVES))
def test_exchange_gives_what_an_exchange_moves(exchange):
    """Game.exchange_gives, for every turned card, is the card stepping EXCHANGE gives up."""
    game = Game("two_player", exchange=exchange)
    turned = [f + "b" for f in FACES]
    # Seat 0 leads holding the 7 and the 2 of trumps (those not turned); after_win needs a won trick.
    deals = [build_deal(game.rules, [[c for c in ("7b", "2b", "Ac") if c != t], "2c"], t, dealer=1) for t in turned]
    state = game.new_state(deals)
    if exchange == "after_win":
        assert (game.exchange_gives(state) == -1).all()  # no trick won yet
        game.step(state, np.full(len(deals), card_id("Ac")))
        assert (game.exchange_gives(state) == -1).all()  # not while following
        game.step(state, np.full(len(deals), card_id("2c")))
    assert (state.current == 0).all()
    gives = game.exchange_gives(state)
    assert gives.dtype == np.int8 and gives.shape == (len(deals),)
    expected = [EXCHANGE_GIVES[exchange][t[0]] for t in turned]
    assert [card_str(g) if g >= 0 else None for g in gives] == expected
    can = (state.legal >> np.uint64(EXCHANGE)) & np.uint64(1) == 1
    assert (can == (gives >= 0)).all()
    before = state.hands[:, 0].copy()
    game.step(state, np.full(len(deals), EXCHANGE), active=can)
    for lane in np.flatnonzero(can):
        assert cards_of(before[lane] & ~state.hands[lane, 0]) == [gives[lane]]
        assert cards_of(state.hands[lane, 0] & ~before[lane]) == [card_id(turned[lane])]
        assert state.turned_card[lane] == gives[lane]
    assert (game.exchange_gives(state) == -1).all()  # once per hand


# Every State field's dtype and shape for one game: n seats, s sides, k face-down stock cards.
STATE_FIELDS = {
    "uint64": {"hands": "n", "played": "n", "known": "n", "cannot_hold": "n", "legal": ""},
    "int8": {
        "trick": "n", "trick_leader": "", "trick_size": "", "best_card": "", "best_seat": "",
        "current": "", "decision": "", "dealer": "", "trump": "", "turned_card": "", "stock": "k",
        "stock_next": "", "to_draw": "", "tricks_played": "", "last_winner": "", "last_won": "s",
        "sung_by": "4", "tute_declarer": "", "winner": "", "games": "",
    },
    "int16": {"card_points": "s", "last_trick_bonus": "s", "cante_points": "s"},
    "bool": {"sang_twenty": "n", "declared": "n", "exchanged": "", "done": ""},
}
# Bytes per game docs/index.md, docs/benchmarks.md and docs/core_speed.md state.
CLAIMED_BYTES = {"partnership": 184, "two_player": 137}


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_state_size_is_exactly_its_fields(preset):
    game = Game(preset)
    r = game.rules
    dims = {"n": r.num_players, "s": r.num_sides, "k": r.stock_size, "4": 4}
    batch = 50
    state = game.random_state(0, batch)
    expected = 0
    for dtype, fields in STATE_FIELDS.items():
        for name, dim in fields.items():
            shape = (dims[dim],) if dim else ()
            array = getattr(state, name)
            assert array.dtype == np.dtype(dtype) and array.shape == (batch, *shape), name
            expected += np.dtype(dtype).itemsize * int(np.prod(shape))
    assert sorted(f for fields in STATE_FIELDS.values() for f in fields) == sorted(state.arrays()._fields)
    assert state.nbytes == expected * batch
    assert expected == CLAIMED_BYTES.get(preset, expected)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_observation_layout_and_decoding(preset):
    game = Game(preset)
    rules = game.rules
    rng = np.random.default_rng(2)
    state = game.random_state(rng, 256)
    layout, full = observation_layout(rules), perfect_information_layout(rules)
    for _ in range(9):
        players = np.maximum(state.current, 0)
        obs = encode_observation(rules, state, players)
        assert obs.dtype == np.int8 and obs.shape == (256, layout.size)
        pieces = layout.decode(obs)
        lanes = np.arange(256)
        assert (pack_sets(pieces["hand"].astype(bool)) == state.hands[lanes, players]).all()
        assert (pieces["trump_suit"].argmax(1) == state.trump).all()
        running = ~state.done
        assert (pieces["decision"][running].argmax(1) == state.decision[running]).all()
        assert (pieces["tricks_played"][:, 0] == state.tricks_played).all()
        perfect = encode_perfect_information(rules, state, players)
        assert (perfect[:, : layout.size] == obs).all()
        hands = full.decode(perfect)["hands"].reshape(256, rules.num_players, 40)
        assert (pack_sets(hands[:, 0].astype(bool)) == state.hands[lanes, players]).all()
        game.step(state, random_actions(game.legal_action_mask(state), rng))


def _swap_hidden(rules, deal, observer, rng):
    """A deal that differs from ``deal`` only in two cards hidden from ``observer``."""
    spec = deal.to_dict()
    places = []  # (list, index) of every card hidden from the observer
    for seat, hand in enumerate(spec["hands"]):
        if seat != observer:
            places += [(hand, k) for k, c in enumerate(hand) if not (rules.partnerships and c == spec["trump_card"])]
    places += [(spec["stock"], k) for k in range(len(spec.get("stock", [])))]
    while True:
        (la, ka), (lb, kb) = (places[i] for i in rng.choice(len(places), 2, replace=False))
        if la is not lb:
            break
    la[ka], lb[kb] = lb[kb], la[ka]
    return Deal.from_dict(spec, rules)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_observations_do_not_leak_hidden_cards(preset):
    game = Game(preset)
    rules = game.rules
    rng = np.random.default_rng(5)
    compared = 0
    for trial in range(60):
        deal = random_deals(rules, rng, 1)[0]
        observer = int(rng.integers(rules.num_players))
        a, b = game.new_state([deal]), game.new_state([_swap_hidden(rules, deal, observer, rng)])
        while not a.done[0]:
            if a.hands[0, observer] != b.hands[0, observer]:
                break  # the observer drew a swapped card: it is no longer hidden from them
            if a.current[0] != b.current[0]:
                # Whose turn it is is public; R8 gives the partner a declaration turn only when
                # holding a declaration, so the swap may show there (documented in the env).
                break
            obs_a = encode_observation(rules, a, [observer])
            obs_b = encode_observation(rules, b, [observer])
            assert (obs_a == obs_b).all(), f"trial {trial}: observation depends on hidden cards"
            compared += 1
            action = random_actions(game.legal_action_mask(a), rng)
            if not game.legal_action_mask(b)[0, action[0]]:
                break  # the swap became visible through play
            game.step(a, action)
            game.step(b, action)
    assert compared > 300


def test_scripted_scenario_partnership_first_trick():
    """R2, R5: the seat after the dealer leads; the follower must beat within the suit."""
    rules = make_rules("partnership")
    hands = [
        "Ao 5o 3c 4c 5c 6c 7c Sc Cc Rc",
        "3o 4o Ac 2c Ae 2e 3e 4e 5e 6e",
        "2o 6o 7o So Co Ro 7e Se Ce Re",
        "Ab 2b 3b 4b 5b 6b 7b Sb Cb Rb",
    ]
    deal = Deal.from_dict({"dealer": 3, "hands": [h.split() for h in hands], "trump_card": "Rb"}, rules)
    game = Game(rules)
    state = game.new_state([deal])
    assert state.current[0] == 0 and state.trump[0] == 3
    game.step(state, [card_id("5o")])
    legal = np.flatnonzero(game.legal_action_mask(state)[0])
    assert sorted(legal) == [card_id("3o")]  # holds 3o and 4o; only 3o beats 5o


def test_inactive_lanes_do_not_step():
    game = Game("two_player")
    state = game.random_state(0, 6)
    before = state.copy()
    actions = random_actions(game.legal_action_mask(state), np.random.default_rng(0))
    active = np.array([True, False, True, False, False, True])
    game.step(state, actions, active=active)
    for name in before.__dataclass_fields__:
        same = getattr(before, name) == getattr(state, name)
        same = same.reshape(len(active), -1).all(axis=1)
        assert same[~active].all(), name
    # A card play or an exchange changes the acting seat's hand in every lane that stepped.
    assert (state.hands[active] != before.hands[active]).any(axis=1).all()


def test_every_observation_piece_is_documented_in_layout_order():
    from tute_env.engine.observation import PIECE_DOC

    for preset in PRESET_NAMES:
        assert [name for name, _ in observation_layout(make_rules(preset)).pieces] == list(PIECE_DOC)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_observation_matches_the_numpy_encoder_piece_by_piece(preset):
    """The compiled encoder against tests/numpy_observation.py, for the player to act and for
    random observers, with and without perfect information, over whole random games."""
    game = Game(preset)
    rules = game.rules
    rng = np.random.default_rng(11)
    state = game.random_state(rng, 128)
    for _ in range(3 * rules.num_tricks * rules.num_players):
        for players in (np.maximum(state.current, 0), rng.integers(0, rules.num_players, 128)):
            for perfect in (False, True):
                layout = (perfect_information_layout if perfect else observation_layout)(rules)
                encode = encode_perfect_information if perfect else encode_observation
                got = layout.decode(encode(rules, state, players))
                want = layout.decode(numpy_observation(rules, state, players, perfect))
                for name in got:
                    assert (got[name] == want[name]).all(), f"piece {name} differs"
        game.step(state, random_actions(game.legal_action_mask(state), rng))
        game.reset_done(state, rng)


def test_observer_seat_out_of_range_is_an_error():
    game = Game("two_player")
    state = game.random_state(0, 2)
    with pytest.raises(ValueError, match="observer seats"):
        encode_observation(game.rules, state, [0, 2])
