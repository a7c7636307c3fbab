"""R1 card ids and strings, the action contract, rules options and presets, deal validation."""

import numpy as np
import pytest

from tute_env.engine import cards
from tute_env.engine.cards import action_id, action_str, card_id, card_str
from tute_env.engine.deal import Deal, Deals, random_deals
from tute_env.engine.rules import PRESETS, Rules, make_rules, option_names


def test_r1_card_ids_and_strings():
    assert card_id("Ao") == 0 and card_id("2o") == 1 and card_id("Ro") == 9
    assert card_id("Ac") == 10 and card_id("Rb") == 39 and card_str(39) == "Rb"
    assert [card_str(c) for c in range(40)] == [f + s for s in "oceb" for f in "A234567SCR"]
    assert all(card_id(card_str(c)) == c for c in range(40))


def test_r1_strength_and_points():
    order = "A 3 R C S 7 6 5 4 2".split()
    strengths = [cards.CARD_STRENGTH[card_id(f + "e")] for f in order]
    assert strengths == sorted(strengths, reverse=True) and len(set(strengths)) == 10
    assert cards.CARD_POINTS.sum() == 120
    assert [cards.CARD_POINTS[card_id(f + "b")] for f in "A3RCS7"] == [11, 10, 4, 3, 2, 0]


def test_card_sets():
    def cards_in(card_set):
        return {card_str(c) for c in cards.cards_of(card_set)}

    assert cards_in(cards.SUIT_SET[2]) == {f + "e" for f in "A234567SCR"}
    assert cards_in(cards.PAIR_SET[1]) == {"Rc", "Cc"}
    assert cards_in(cards.KINGS) == {"Ro", "Rc", "Re", "Rb"} and cards_in(cards.KNIGHTS) == {"Co", "Cc", "Ce", "Cb"}
    assert cards_in(cards.STRONGER[card_id("Ro")]) == {"Ao", "3o"}
    assert cards.ALL_CARDS == np.bitwise_or.reduce(cards.BIT) == np.bitwise_or.reduce(cards.SUIT_SET)
    # The cards beating a trick's best card: higher of its suit, and any trump over a plain card.
    assert cards_in(cards.beating_set(card_id("Ro"), 1)) == {"Ao", "3o"} | cards_in(cards.SUIT_SET[1])
    assert cards_in(cards.beating_set(card_id("Rc"), 1)) == {"Ac", "3c"}
    assert cards.beating_set(-1, 0) == cards.ALL_CARDS
    best, trump = np.array([[-1, 9], [19, 9]]), np.array([0, 1])
    assert (cards.beating_cards(best, trump) == [[cards.beating_set(int(c), int(t)) for c, t in zip(row, trump)]
                                                 for row in best]).all()


def test_popcount_contract():
    sets = np.array([[0, 1, 0b1011], [int(cards.ALL_CARDS), 1 << 63, 7]], dtype=np.uint64)
    counts = cards.popcount(sets)
    assert counts.dtype == np.int64 and counts.tolist() == [[0, 1, 3], [40, 1, 3]]
    assert cards.popcount([int(cards.KINGS)]).tolist() == [4]
    # A Python int or numpy scalar gives a Python int.
    for one in (int(cards.ALL_CARDS), cards.ALL_CARDS, np.int64(5)):
        assert type(cards.popcount(one)) is int
    assert cards.popcount(0b111 << 37) == 3 and cards.popcount(cards.KNIGHTS) == 4
    bits = np.random.default_rng(0).random((5, 3, 47)) < 0.5
    assert (cards.popcount(cards.pack_sets(bits)) == bits.sum(axis=-1)).all()


@pytest.mark.parametrize("bad", ["", "A", "Ax", "1o", "ao", "Aoo", 3])
def test_bad_card_strings_raise(bad):
    with pytest.raises(ValueError, match="bad card string"):
        card_id(bad)


def test_action_contract():
    assert cards.NUM_ACTIONS == 47
    names = [action_str(a) for a in range(47)]
    assert names[:40] == [card_str(c) for c in range(40)]
    assert names[40:] == ["sing-o", "sing-c", "sing-e", "sing-b", "tute", "exchange", "pass"]
    assert all(action_id(name) == a for a, name in enumerate(names))
    for bad in (-1, 47, 2.0, True):
        with pytest.raises(ValueError, match="bad action id"):
            action_str(bad)
    with pytest.raises(ValueError, match="bad action string"):
        action_id("sing-x")


def test_presets_match_the_table():
    p = PRESETS
    assert p["partnership"] == Rules() and p["partnership"].num_players == 4
    assert (p["two_player"].hand_size, p["two_player"].stock_size, p["two_player"].stock_duty) == (8, 23, "free")
    assert p["two_player"].exchange == "seven_on_lead" and p["two_player"].tute == "wins_hand"
    assert not p["two_player"].double_over_100 and p["two_player"].target_games == 5
    assert (p["two_player_10"].stock_size, p["two_player_10"].stock_duty, p["two_player_10"].exchange) == (19, "strict", "off")
    assert (p["three_player"].stock_size, p["three_player"].num_tricks) == (9, 13)
    assert (p["corriente"].hand_size, p["corriente"].stock_size, p["corriente"].stock_duty) == (6, 27, "free")
    assert p["manita"] == Rules(must_beat_partner=False)


@pytest.mark.parametrize(
    "options, field",
    [
        (dict(num_players=5), "num_players"),
        (dict(num_players=4, hand_size=8), "hand_size"),
        (dict(num_players=2, hand_size=20), "hand_size"),
        (dict(exchange="seven_on_lead"), "exchange"),
        (dict(num_players=3, hand_size=10, exchange="after_win"), "exchange"),
        (dict(stock_duty="lenient"), "stock_duty"),
        (dict(tute="yes"), "tute"),
        (dict(singers="all"), "singers"),
        (dict(match="first_to_3"), "match"),
        (dict(target_games=0), "target_games"),
        (dict(double_over_100="yes"), "double_over_100"),
        (dict(hand_size=10.0), "hand_size"),
    ],
)
def test_impossible_rules_name_the_field(options, field):
    with pytest.raises(ValueError, match=field):
        Rules(**options)


def test_overrides_and_unknown_options():
    rules = make_rules("two_player", stock_duty="strict", exchange="off")
    assert rules.stock_duty == "strict" and rules.hand_size == 8
    with pytest.raises(ValueError, match="colour"):
        make_rules("two_player", colour="red")
    with pytest.raises(ValueError, match="unknown preset"):
        make_rules("bridge")
    with pytest.raises(ValueError, match="exchange"):
        make_rules("partnership", exchange="after_win")
    assert "must_beat_partner" in option_names()


def full_deal(rules, seed=0):
    return random_deals(rules, np.random.default_rng(seed), 1)[0]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_random_deals_are_valid_and_round_trip(preset):
    rules = make_rules(preset)
    deals = random_deals(rules, np.random.default_rng(1), 50)
    for lane in range(50):
        deal = deals[lane]
        deal.validate(rules)
        assert Deal.from_dict(deal.to_dict(), rules) == deal
        if rules.partnerships:
            assert deal.trump_card == deal.hands[deal.dealer][-1]


def test_malformed_deals_say_what_is_wrong():
    rules = make_rules("partnership")
    spec = full_deal(rules).to_dict()
    dup = {**spec, "hands": [spec["hands"][0][:-1] + [spec["hands"][1][0]]] + spec["hands"][1:]}
    with pytest.raises(ValueError, match="duplicate card"):
        Deal.from_dict(dup, rules)
    short = {**spec, "hands": [spec["hands"][0][:-1]] + spec["hands"][1:]}
    with pytest.raises(ValueError, match="seat 0 has 9 cards"):
        Deal.from_dict(short, rules)
    other = spec["hands"][(spec["dealer"] + 1) % 4][0]
    with pytest.raises(ValueError, match="must be in the dealer"):
        Deal.from_dict({**spec, "trump_card": other}, rules)
    with pytest.raises(ValueError, match="dealer"):
        Deal.from_dict({**spec, "dealer": 4}, rules)
    with pytest.raises(ValueError, match="bad card string"):
        Deal.from_dict({**spec, "trump_card": "Zz"}, rules)
    with pytest.raises(ValueError, match="missing 'hands'"):
        Deal.from_dict({"dealer": 0, "trump_card": "Ao"}, rules)

    two = make_rules("two_player")
    spec2 = full_deal(two).to_dict()
    with pytest.raises(ValueError, match="stock has 22 cards"):
        Deal.from_dict({**spec2, "stock": spec2["stock"][1:]}, two)
    with pytest.raises(ValueError, match="also in seat 0"):
        Deal.from_dict({**spec2, "trump_card": spec2["hands"][0][0]}, two)
    missing = {**spec2, "stock": spec2["stock"][:-1] + [spec2["stock"][0]]}
    with pytest.raises(ValueError, match="duplicate card"):
        Deal.from_dict(missing, two)
    with pytest.raises(ValueError, match="deal 1: "):
        Deals.from_deals([spec2, {**spec2, "dealer": 2}], two)
