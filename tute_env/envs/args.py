"""The arguments every view takes, checked here once: the preset and rule options, ``episode``,
``reward``, ``render_mode`` (:func:`parse_env_args`), the renderer's ``show_all_hands``, ``plain``
and ``lang`` (:func:`check_render_args`) and the reset options, a given deal, a record
or a dealer (:func:`parse_reset_options`). The views call these and trust what they return.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np

from ..engine.cards import is_int
from ..engine.deal import Deal, Deals
from ..engine.observation import observation_scale, perfect_information_layout
from ..engine.rules import PRESETS, Rules, UnknownPreset, make_rules
from ..engine.scoring import EPISODES, REWARDS
from ..play.records import Record, RecordError
from .words import LANGS

__all__ = ["RENDER_MODES", "check_render_args", "observation_high", "parse_env_args", "parse_reset_options"]

RENDER_MODES = ("human", "rgb_array", "ansi")


def parse_env_args(preset, episode, reward, render_mode, rule_options, render_modes=RENDER_MODES,
                   where="tute_v0.env") -> Rules:
    """The rules of a view's arguments (``preset``: a preset name or a :class:`Rules`, with
    ``rule_options`` over it); raises ``ValueError`` naming the bad argument."""
    if episode not in EPISODES:
        raise ValueError(f"bad argument episode={episode!r} for {where}: expected one of {EPISODES}")
    if reward not in REWARDS:
        raise ValueError(f"bad argument reward={reward!r} for {where}: expected one of {REWARDS}")
    if render_mode is not None and render_mode not in render_modes:
        raise ValueError(
            f"bad argument render_mode={render_mode!r} for {where}: expected None or one of {render_modes}"
        )
    try:
        return make_rules(preset, **rule_options)
    except UnknownPreset:
        raise ValueError(f"bad argument preset={preset!r} for {where}: expected one of {sorted(PRESETS)} or a Rules") \
            from None
    except ValueError as err:
        raise ValueError(f"{err} (for {where})") from None


def check_render_args(show_all_hands, plain, lang, where: str) -> None:
    """``ValueError`` naming a bad rendering argument: ``show_all_hands`` and ``plain`` are True or
    False, ``lang`` one of :data:`tute_env.envs.words.LANGS` (the words of the rendered table)."""
    for name, value in (("show_all_hands", show_all_hands), ("plain", plain)):
        if not isinstance(value, bool):
            raise ValueError(f"bad argument {name}={value!r} for {where}: expected True or False")
    if not isinstance(lang, str) or lang not in LANGS:
        raise ValueError(f"bad argument lang={lang!r} for {where}: expected one of {LANGS}")


def parse_reset_options(options, rules: Rules) -> tuple[Deals | None, int | None]:
    """``(deals, dealer)`` from reset options: the given deal (or a record's) as a validated
    one-deal :class:`Deals` batch, or None; a seat, or None."""
    if options is None:
        return None, None
    if not isinstance(options, Mapping):
        raise ValueError(f"bad reset options {options!r}: expected a dict such as {{'deal': ...}} or {{'dealer': 0}}")
    deal, dealer, record = options.get("deal"), options.get("dealer"), options.get("record")
    if sum(x is not None for x in (deal, dealer, record)) > 1:
        raise ValueError("bad reset options: give only one of 'deal', 'record' (which name their dealer) and 'dealer'")
    if dealer is not None:
        n = rules.num_players
        if not is_int(dealer, 0, n - 1):
            raise ValueError(f"bad reset option dealer={dealer!r}: expected a seat 0..{n - 1}")
        return None, int(dealer)
    if record is not None:
        return Deals.stack([_deal_of_record(record, rules)], rules), None  # checked when the record was read
    if deal is None:
        return None, None
    if not isinstance(deal, (Deal, Mapping)):
        raise ValueError(f"malformed deal: expected a dict with dealer, hands, trump_card, stock; got {deal!r}")
    try:
        return Deals.from_deals([deal], rules), None
    except TypeError as err:
        raise ValueError(f"malformed deal: {err}") from None


def _deal_of_record(record, rules: Rules) -> Deal:
    """The deal of a game record (a :class:`Record` or its dict), whose rules must be ``rules``."""
    if isinstance(record, Mapping):
        try:
            record = Record.from_dict(record)
        except RecordError as err:
            raise ValueError(f"bad reset option record: {err}") from None
    if not isinstance(record, Record):
        raise ValueError(f"bad reset option record: expected a game record (a dict or a Record), got {record!r}")
    if record.rules != rules:
        differ = [k for k, v in dataclasses.asdict(record.rules).items() if getattr(rules, k) != v]
        raise ValueError(f"bad reset option record: its rules differ from this env's in {', '.join(differ)}")
    return record.deal


def observation_high(rules: Rules, perfect: bool = False) -> np.ndarray:
    """int8 upper bounds of the observation (or state) vector, from the layout's scale."""
    high = np.rint(1 / observation_scale(rules)).astype(np.int8)
    if perfect:
        extra = perfect_information_layout(rules).size - high.size
        high = np.concatenate([high, np.ones(extra, np.int8)])
    return high
