"""The compiled core never runs on a state that does not fit its game: every entry point that
hands a State to compiled code (Game.step, Game.legal_sets, Game.reset_done, the observation
encoders) checks it first and raises ValueError naming the field, leaving the state unchanged.
Plus: random play of every preset with numba's bounds checking on, and a read-only install."""

from __future__ import annotations

import dataclasses
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tute_env.engine import kernel
from tute_env.engine.cards import FOLLOW
from tute_env.engine.core import Game, State, random_legal_actions
from tute_env.engine.observation import encode_observation, encode_perfect_information
from tute_env.engine.rules import PRESETS, make_rules

ROOT = Path(__file__).resolve().parent.parent
FIELDS = [f.name for f in dataclasses.fields(State)]


def mid_game(preset: str, batch: int = 8, steps: int = 5, seed: int = 0) -> tuple[Game, State]:
    """A game and a state a few steps in (tricks in progress, cards drawn)."""
    game = Game(preset)
    rng = np.random.default_rng(seed)
    state = game.random_state(rng, batch)
    for _ in range(steps):
        game.step(state, random_legal_actions(game.legal_action_mask(state), rng))
    return game, state


def snapshot(state: State) -> dict[str, np.ndarray]:
    return {name: np.array(getattr(state, name), copy=True) for name in FIELDS}


def assert_unchanged(state: State, before: dict[str, np.ndarray]) -> None:
    for name in FIELDS:
        assert np.array_equal(getattr(state, name), before[name]), f"{name} changed"


def some_actions(game: Game, state: State) -> np.ndarray:
    """A legal action per running game where there is one (else 0)."""
    return random_legal_actions(game.legal_action_mask(state), np.random.default_rng(1))


def entry_points(game: Game, state: State):
    """Every entry point that hands ``state`` to compiled code, as (name, call)."""
    actions = np.zeros(len(state.done), np.int64)
    return [
        ("step", lambda: game.step(state, actions)),
        ("legal_sets", lambda: game.legal_sets(state)),
        ("encode_observation", lambda: encode_observation(game.rules, state, 0)),
        ("encode_perfect_information", lambda: encode_perfect_information(game.rules, state, 0)),
    ]


# ------------------------------------------------------------------------------------------------
# Another variant's state
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "state_preset, game_preset, expected",
    [
        ("two_player", "partnership", "hands has shape (8, 2), expected (8, 4)"),
        ("partnership", "two_player", "hands has shape (8, 4), expected (8, 2)"),
        ("two_player", "three_player", "hands has shape (8, 2), expected (8, 3)"),
        ("two_player", "two_player_10", "stock has shape (8, 23), expected (8, 19)"),
        ("corriente", "two_player", "stock has shape (8, 27), expected (8, 23)"),
    ],
)
def test_a_state_of_another_variant_raises_naming_the_field(state_preset, game_preset, expected):
    _, state = mid_game(state_preset)
    game = Game(game_preset)
    assert_every_entry_point_refuses(game, state, expected)
    state.done[3] = True  # reset_done checks a state with finished lanes before writing them
    before = snapshot(state)
    with pytest.raises(ValueError, match="state does not fit"):
        game.reset_done(state, np.random.default_rng(0))
    assert_unchanged(state, before)


def test_messages_name_the_game_and_the_rules():
    _, state = mid_game("two_player")
    with pytest.raises(ValueError, match=r"state does not fit Game\('partnership'\): hands has shape"):
        Game("partnership").step(state, np.zeros(8, np.int64))
    with pytest.raises(ValueError, match=r"state does not fit make_rules\('partnership'\): hands has shape"):
        encode_observation(make_rules("partnership"), state, 0)
    assert repr(Game("two_player", tute="off")) == "Game('two_player', tute='off')"
    assert repr(Game(make_rules("manita"))) == "Game('manita')"


def test_not_a_state_raises():
    game = Game("partnership")
    for call in (
        lambda: game.step(None, [0]),
        lambda: game.legal_sets("state"),
        lambda: game.reset_done(object(), np.random.default_rng(0)),
        lambda: encode_observation(game.rules, {}, 0),
    ):
        with pytest.raises(ValueError, match="expected a State"):
            call()


# ------------------------------------------------------------------------------------------------
# Arrays of the wrong dtype, shape or layout, read-only arrays
# ------------------------------------------------------------------------------------------------
def strided(a: np.ndarray) -> np.ndarray:
    """The same values as a non-contiguous view."""
    wide = np.repeat(a, 2, axis=-1) if a.ndim > 1 else np.repeat(a, 2)
    return wide[..., ::2]


BAD_ARRAYS = {
    "dtype": (lambda s: setattr(s, "trick", s.trick.astype(np.int16)), "trick has dtype int16, expected int8"),
    "dtype of a set": (lambda s: setattr(s, "hands", s.hands.astype(np.int64)), "hands has dtype int64"),
    "a list": (lambda s: setattr(s, "current", list(s.current)), "current must be a 1-D array"),
    "strided": (lambda s: setattr(s, "trick", strided(s.trick)), "trick is not C-contiguous"),
    "strided 1-D": (lambda s: setattr(s, "dealer", strided(s.dealer)), "dealer is not C-contiguous"),
    "2-D scalar field": (lambda s: setattr(s, "trump", s.trump[:, None].copy()), "trump has shape (8, 1)"),
    "short field": (lambda s: setattr(s, "winner", s.winner[:7].copy()), "winner has shape (7,), expected (8,)"),
    "long field": (lambda s: setattr(s, "legal", np.zeros(9, np.uint64)), "legal has shape (9,), expected (8,)"),
    "sides": (lambda s: setattr(s, "card_points", np.zeros((8, 3), np.int16)), "card_points has shape (8, 3)"),
    "suits": (lambda s: setattr(s, "sung_by", np.full((8, 3), -1, np.int8)), "sung_by has shape (8, 3)"),
}


def assert_every_entry_point_refuses(game, state, expected: str) -> None:
    """Every entry point raises "state does not fit ..." naming ``expected``, changing nothing."""
    before = snapshot(state)
    for name, call in entry_points(game, state):
        with pytest.raises(ValueError, match="state does not fit") as err:
            call()
        assert expected in str(err.value), name
        assert_unchanged(state, before)


@pytest.mark.parametrize("case", list(BAD_ARRAYS))
@pytest.mark.parametrize("preset", ["partnership", "two_player"])
def test_arrays_that_do_not_fit_raise_and_change_nothing(preset, case):
    game, state = mid_game(preset)
    spoil, expected = BAD_ARRAYS[case]
    spoil(state)
    assert_every_entry_point_refuses(game, state, expected)


@pytest.mark.parametrize("field", ["hands", "current", "legal", "stock", "done"])
def test_read_only_arrays_raise_for_step_and_are_read_elsewhere(field):
    game, state = mid_game("two_player")
    writable = state.copy()
    getattr(state, field).flags.writeable = False
    before = snapshot(state)
    with pytest.raises(ValueError, match=f"state does not fit Game\\('two_player'\\): {field} is read-only"):
        game.step(state, some_actions(game, state))
    assert_unchanged(state, before)
    if field != "done":  # reset_done: a finished lane to deal anew, in a read-only state
        state.done[0] = writable.done[0] = True
        with pytest.raises(ValueError, match=f"{field} is read-only"):
            game.reset_done(state, np.random.default_rng(0))
    # Reading is fine: the same answers as on a writable copy.
    assert (game.legal_sets(state) == game.legal_sets(writable)).all()
    seats = np.arange(8) % 2
    assert (encode_observation(game.rules, state, seats) == encode_observation(game.rules, writable, seats)).all()
    assert (
        encode_perfect_information(game.rules, state, seats) == encode_perfect_information(game.rules, writable, seats)
    ).all()


def test_strided_actions_and_active_are_accepted():
    game, state = mid_game("partnership")
    expected = state.copy()
    actions = some_actions(game, state)
    game.step(expected, actions, active=np.ones(8, bool))
    game.step(state, strided(actions), active=strided(np.ones(8, bool)))
    assert_unchanged(state, snapshot(expected))


# ------------------------------------------------------------------------------------------------
# Values out of range
# ------------------------------------------------------------------------------------------------
def set_value(name, index, value):
    def spoil(s):
        getattr(s, name)[index] = value

    return spoil


BAD_VALUES = {
    "current 7": (set_value("current", 2, 7), "current[2] is 7, expected -1..1"),
    "trick card 55": (set_value("trick", (3, 1), 55), "trick[3, 1] is 55, expected -1..39"),
    "hand with bit 45": (set_value("hands", (4, 0), np.uint64(1 << 45 | 1)), "hands[4, 0] has bit(s) [45] set"),
    "stock entry 99": (set_value("stock", (5, 7), 99), "stock[5, 7] is 99, expected -1..39"),
    "stock_next past the stock": (set_value("stock_next", 1, 24), "stock_next[1] is 24, expected 0..23"),
    "negative stock_next": (set_value("stock_next", 1, -3), "stock_next[1] is -3, expected 0..23"),
    "trump 4": (set_value("trump", 6, 4), "trump[6] is 4, expected 0..3"),
    "turned card 40": (set_value("turned_card", 0, 40), "turned_card[0] is 40, expected -1..39"),
    "best card -2": (set_value("best_card", 7, -2), "best_card[7] is -2, expected -1..39"),
    "best seat 2": (set_value("best_seat", 7, 2), "best_seat[7] is 2, expected -1..1"),
    "trick leader -1": (set_value("trick_leader", 0, -1), "trick_leader[0] is -1, expected 0..1"),
    "dealer 5": (set_value("dealer", 0, 5), "dealer[0] is 5, expected 0..1"),
    "last winner 2": (set_value("last_winner", 3, 2), "last_winner[3] is 2, expected -1..1"),
    "sung by seat 3": (set_value("sung_by", (3, 2), 3), "sung_by[3, 2] is 3, expected -1..1"),
    "decision 3": (set_value("decision", 3, 3), "decision[3] is 3, expected -1..2"),
    "to_draw 30": (set_value("to_draw", 3, 30), "to_draw[3] is 30, expected 0..24"),
    "tricks_played 21": (set_value("tricks_played", 3, 21), "tricks_played[3] is 21, expected 0..20"),
    "trick_size 2": (set_value("trick_size", 3, 2), "trick_size[3] is 2, expected 0..1"),
    "last_won 20": (set_value("last_won", (3, 1), 20), "last_won[3, 1] is 20, expected -1..19"),
    "tute_declarer 2": (set_value("tute_declarer", 3, 2), "tute_declarer[3] is 2, expected -1..1"),
    "winner 2": (set_value("winner", 3, 2), "winner[3] is 2, expected -1..1"),
    "legal bit 50": (set_value("legal", 3, np.uint64(1 << 50)), "legal[3] has bit(s) [50] set"),
    # Checks across the fields of a lane.
    "no seat to act": (set_value("current", 2, -1), "a game not over has a seat to act"),
    "a follow without a trick": (
        lambda s: (s.trick_size.__setitem__(2, 0), s.decision.__setitem__(2, FOLLOW)),
        "a follow decision needs a trick in progress",
    ),
    "a trick without a winner": (
        lambda s: (s.trick_size.__setitem__(2, 1), s.best_seat.__setitem__(2, -1), s.decision.__setitem__(2, FOLLOW)),
        "a trick in progress has a winning card and seat",
    ),
    "drawing more than the stock holds": (
        lambda s: (s.stock_next.__setitem__(2, 23), s.to_draw.__setitem__(2, 4)),
        "to_draw cannot exceed the cards left",
    ),
}


@pytest.mark.parametrize("case", list(BAD_VALUES))
def test_values_out_of_range_raise_and_change_nothing(case):
    game, state = mid_game("two_player", steps=3)
    spoil, expected = BAD_VALUES[case]
    spoil(state)
    assert_every_entry_point_refuses(game, state, expected)


@pytest.mark.parametrize("field", ["played", "known", "cannot_hold"])
def test_sets_the_observation_reads_are_checked_there(field):
    """The rules only write played, known and cannot_hold; the encoders read them as sets."""
    game, state = mid_game("partnership")
    getattr(state, field)[1, 2] |= np.uint64(1 << 40)
    for encode in (encode_observation, encode_perfect_information):
        with pytest.raises(ValueError, match=rf"{field}\[1, 2\] has bit\(s\) \[40\] set"):
            encode(game.rules, state, 0)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_range_check_names_its_field(preset):
    """Each field the compiled code indexes with, one past its range: the message names it (the
    compiled check and the Python table agree on the order of the checks)."""
    game, state = mid_game(preset, steps=3)
    bounds = kernel.state_value_bounds(game.rules)
    for name, (lo, hi) in bounds.items():
        array = getattr(state, name)
        if array.size == 0:
            continue  # no stock in the partnership game
        for value in (lo - 1, hi + 1):
            spoiled = state.copy()
            getattr(spoiled, name).flat[-1] = value
            lane = len(array) - 1
            with pytest.raises(ValueError, match=rf"{name}\[{lane}(, \d+)?\] is {value}, expected {lo}\.\.{hi}"):
                game.legal_sets(spoiled)
            with pytest.raises(ValueError, match=rf"{name}\[{lane}(, \d+)?\] is {value}, expected {lo}\.\.{hi}"):
                encode_observation(game.rules, spoiled, 0)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_states_reached_by_play_always_fit(preset):
    """No false alarm: every state of random games (finished lanes dealt anew) passes the check,
    and an empty batch too."""
    game = Game(preset)
    rng = np.random.default_rng(3)
    state = game.random_state(rng, 64)
    for _ in range(120):
        game.step(state, random_legal_actions(game.legal_action_mask(state), rng))
        assert (game.legal_sets(state) == state.legal).all()
        game.reset_done(state, rng)
    empty = game.empty_state(0)
    assert game.legal_sets(empty).shape == (0,)
    assert encode_observation(game.rules, empty, np.zeros(0, np.int64)).shape[0] == 0


# ------------------------------------------------------------------------------------------------
# Random play with numba's bounds checking on (a fresh process: it must be set before numba is
# imported, and the compiled code is compiled anew into an empty cache)
# ------------------------------------------------------------------------------------------------
BOUNDSCHECK_SCRIPT = textwrap.dedent(
    """
    import numba, numpy as np, tute_env
    assert numba.config.BOUNDSCHECK, "NUMBA_BOUNDSCHECK is not on"
    assert tute_env.__file__.startswith(ROOT), tute_env.__file__
    from tute_env.engine.core import Game, PackedGame, random_legal_actions
    from tute_env.engine.deal import random_deals
    from tute_env.engine.observation import encode_observation, encode_perfect_information
    from tute_env.engine.rules import PRESETS

    states = {}
    for preset in sorted(PRESETS):
        game = Game(preset)
        rng = np.random.default_rng(0)
        state = game.random_state(rng, 300)  # 300 games, played to the end
        steps = 0
        while not state.done.all():
            for seat in range(game.num_players):  # every seat's view, every step
                encode_observation(game.rules, state, seat)
                encode_perfect_information(game.rules, state, seat)
            game.step(state, random_legal_actions(game.legal_action_mask(state), rng))
            steps += 1
        game.reset_done(state, rng)
        states[preset] = state
        print(preset, steps, "steps")
        for lane in range(30):  # one game at a time, packed in one array (PackedGame)
            packed = game.new_packed(random_deals(game.rules, rng, 1), validate=False)
            while not packed.done:
                legal = [a for a in range(47) if packed.legal >> a & 1]
                packed.step(legal[rng.integers(len(legal))])
            PackedGame.from_state(game, state.take([lane])).copy().refresh()

    # Each preset's state a few steps into its games (tricks in progress, cards drawn), under
    # every preset's game, stepped with its own legal actions: a state of other shapes must raise
    # "does not fit" before any compiled code indexes with it (else IndexError, from numba).
    mismatched = 0
    for preset in sorted(PRESETS):
        own = Game(preset)
        rng = np.random.default_rng(1)
        state = own.random_state(rng, 300)
        for _ in range(2 * own.num_players + 1):
            own.step(state, random_legal_actions(own.legal_action_mask(state), rng))
        actions = random_legal_actions(own.legal_action_mask(state), rng)
        for other in sorted(PRESETS):
            game = Game(other)
            fits = all(a.shape[1:] == b.shape[1:] for a, b in zip(own.empty_state(0).arrays(),
                                                                 game.empty_state(0).arrays()))
            calls = (lambda: game.step(state.copy(), actions), lambda: game.legal_sets(state),
                     lambda: encode_observation(game.rules, state, 0),
                     lambda: encode_perfect_information(game.rules, state, 0),
                     lambda: PackedGame.from_state(game, state.take([0])))
            for call in calls:
                try:
                    call()
                    error = ""
                except ValueError as err:
                    error = str(err)
                if fits:
                    assert "does not fit" not in error, (preset, other, error)
                else:
                    assert "does not fit" in error, (preset, other, error)
                    mismatched += 1
    bad = states["two_player"].copy()
    bad.trick[0, 0], bad.current[1] = 55, 7
    for call in (lambda: Game("two_player").step(bad, np.zeros(300, np.int64)),
                 lambda: encode_observation(Game("two_player").rules, bad, 0)):
        try:
            call()
            raise AssertionError("no error")
        except ValueError:
            pass
    print("mismatched calls raising ValueError:", mismatched)
    """
)


@pytest.mark.slow
def test_random_play_of_every_preset_with_numba_bounds_checking(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path / "numba_cache"), PYTHONPATH=str(ROOT))
    script = f"ROOT = {str(ROOT)!r}\n" + BOUNDSCHECK_SCRIPT
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "mismatched calls raising ValueError" in result.stdout


# ------------------------------------------------------------------------------------------------
# A read-only install: the package directory not writable, no writable home, NUMBA_CACHE_DIR
# unset, an unprivileged user. Root ignores write permissions, so as root the check runs as
# `nobody`.
# ------------------------------------------------------------------------------------------------
READ_ONLY_SCRIPT = textwrap.dedent(
    """
    import os, sys
    import tute_env
    assert tute_env.__file__ == os.path.join(PACKAGE, "tute_env", "__init__.py"), tute_env.__file__
    assert not os.access(os.path.dirname(tute_env.__file__), os.W_OK), "the package directory is writable"
    assert not os.access(os.environ["HOME"], os.W_OK), "HOME is writable"
    import numba, numpy as np
    from tute_env.engine.core import Game, random_legal_actions
    from tute_env.engine.observation import encode_observation
    game = Game("partnership")
    rng = np.random.default_rng(0)
    state = game.random_state(rng, 4)
    game.step(state, random_legal_actions(game.legal_action_mask(state), rng))
    obs = encode_observation(game.rules, state, state.current)
    assert obs.shape == (4, 850), obs.shape
    print("cache:", numba.config.CACHE_DIR)
    """
)


def _unprivileged_prefixes() -> list[tuple[list[str], int]]:
    """As root: command prefixes that run a program without root's power to ignore file
    permissions, with the uid it runs as: as `nobody`, else as root without the capabilities
    that bypass permissions (where `nobody` cannot read the Python environment)."""
    prefixes = []
    if shutil.which("setpriv"):
        prefixes.append((["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"], 65534))
    elif shutil.which("runuser"):
        prefixes.append((["runuser", "-u", "nobody", "--"], 65534))
    if shutil.which("setpriv"):
        prefixes.append((["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"], 0))
    return prefixes


def _read_only(path: Path) -> None:
    for root, dirs, files in os.walk(path):
        for name in files:
            os.chmod(os.path.join(root, name), 0o444)
        os.chmod(root, 0o555)


@pytest.mark.slow
def test_a_read_only_install_imports_and_runs():
    # Not pytest's tmp_path: its parents are private to the user running the tests.
    tmp_path = Path(tempfile.mkdtemp(prefix="tute_env-read-only-"))
    try:
        tmp_path.chmod(0o755)  # traversable by the unprivileged user
        package = tmp_path / "site"
        shutil.copytree(ROOT / "tute_env", package / "tute_env", ignore=shutil.ignore_patterns("__pycache__"))
        _read_only(package)
        home = tmp_path / "home"
        home.mkdir()
        home.chmod(0o555)
        temp = tmp_path / "tmp"  # TMPDIR, where the fallback cache goes (kept out of the real /tmp)
        temp.mkdir(mode=0o700)
        prefix, reasons = [], []
        if os.geteuid() == 0:  # root ignores write permissions: run without that power
            for candidate, uid in _unprivileged_prefixes():
                probe = subprocess.run(
                    [*candidate, sys.executable, "-c", "import numba, numpy"],
                    capture_output=True, text=True, check=False,
                )
                if probe.returncode == 0:
                    prefix = candidate
                    os.chown(temp, uid, uid)
                    break
                reasons.append(f"{' '.join(candidate)}: {probe.stderr.strip()[-300:]}")
            else:
                pytest.skip(f"running as root with no way to run {sys.executable} unprivileged: {reasons}")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "XDG_", "PYTHON"))}
        env.update(HOME=str(home), TMPDIR=str(temp), PYTHONPATH=str(package))
        script = f"PACKAGE = {str(package)!r}\n" + READ_ONLY_SCRIPT
        result = subprocess.run(
            [*prefix, sys.executable, "-c", script], cwd=str(home), env=env, capture_output=True, text=True,
            timeout=600, check=False,
        )
        assert result.returncode == 0, " ".join(prefix) + "\n" + result.stdout + result.stderr
        # It cached where it could: a private directory in the temp dir.
        cache = next(line for line in result.stdout.splitlines() if line.startswith("cache:")).split(": ", 1)[1]
        assert cache.startswith(str(temp)), cache
        assert stat.S_IMODE(os.stat(cache).st_mode) == 0o700
        assert any(name.endswith(".nbi") for _, _, files in os.walk(cache) for name in files)
    finally:
        for root, _, _ in os.walk(tmp_path):
            os.chmod(root, 0o755)
        shutil.rmtree(tmp_path, ignore_errors=True)
