"""The standing ladder (tute_lab.evaluation.ladder, tute-evaluate --ladder, python -m bench.ladder): the
rating math, placing an agent without moving the pool, determinism, the command line, the user's file,
the docs generated from the shipped data, resuming the pool's round robin."""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path

import numpy as np
import pytest

import evaluate
from agents.base import RandomAgent
from bench import ladder as bench_ladder
from tute_env.engine.rules import PRESETS, make_rules
from tute_lab.evaluation import ladder
from tute_lab.evaluation.ladder import (
    ANCHOR_AGENT,
    ANCHOR_RATING,
    LadderData,
    LadderError,
    LadderPairing,
    fit_ratings,
    load_ladder,
    place,
    play_pairing,
    pool_agents,
    pool_pairings,
    pool_ratings,
    run_ladder,
    win_probability,
)

ROOT = Path(__file__).resolve().parent.parent
TRUE = {"random": 1000.0, "greedy": 1400.0, "heuristic": 1500.0, "pimc": 1600.0}


class Coin(RandomAgent):
    """A newcomer that is not in any pool, and draws random numbers (its seed matters)."""

    name = "coin"


def synthetic(deals: int = 400, ratings: dict[str, float] = TRUE, seed: int = 0) -> LadderData:
    """Pool data whose win rates are drawn from known Elo ratings (two seatings a deal)."""
    rng = np.random.default_rng(seed)
    data = LadderData.new("partnership", deals)
    names = list(ratings)
    for i in range(len(names)):
        for j in reversed(range(i)):
            p = win_probability(ratings[names[i]], ratings[names[j]])
            wins = rng.binomial(2, p, size=deals)
            data.pairings.append(LadderPairing(names[i], names[j], 2, wins))
    return data


def exact(data: LadderData, ratings: dict[str, float]) -> LadderData:
    """The same data with each pairing's win rate set to the Elo probability (as near as deals allow)."""
    for p in data.pairings:
        target = win_probability(ratings[p.agent_a], ratings[p.agent_b]) * 2 * p.deals
        wins = np.zeros(p.deals, dtype=np.int64)
        total = int(round(target))
        wins[: total // 2] = 2
        if total % 2:
            wins[total // 2] = 1
        p.wins = wins
    return data


def figures(entry: dict) -> dict:
    """A saved entry without its date and times."""
    return {**{k: v for k, v in entry.items() if k != "date"},
            "pairings": [{k: v for k, v in p.items() if k not in ("seconds", "dates")} for p in entry["pairings"]]}


# ----------------------------------------------------------------------------------------------
# The rating math
# ----------------------------------------------------------------------------------------------
def test_known_win_rates_give_known_ratings_and_the_anchor_holds():
    names = list(TRUE)
    pairs = np.array([[i, j] for i in range(4) for j in range(i)])
    truth = np.array([TRUE[n] for n in names])
    rates = win_probability(truth[pairs[:, 0]], truth[pairs[:, 1]])
    got = fit_ratings(4, pairs, np.full(len(pairs), 500), rates, {names.index(ANCHOR_AGENT): ANCHOR_RATING})
    assert got == pytest.approx(truth, abs=1e-6)
    # Another anchor value shifts every rating by the same amount: only differences are measured.
    shifted = fit_ratings(4, pairs, np.full(len(pairs), 500), rates, {names.index(ANCHOR_AGENT): 0.0})
    assert shifted == pytest.approx(truth - ANCHOR_RATING, abs=1e-6)
    # Two agents: 0.75 is 400 * log10(3) = 190.8 points.
    two = fit_ratings(2, np.array([[0, 1]]), [100], [0.75], {1: 1500.0})
    assert two[0] == pytest.approx(1500 + 400 * np.log10(3))


def test_a_sweep_gives_a_finite_rating_and_even_play_gives_equal_ratings():
    swept = fit_ratings(2, np.array([[0, 1]]), [100], [1.0], {1: 1500.0})
    assert np.isfinite(swept).all() and swept[0] > 2000  # moved half a deal in: 199.5 of 200
    even = fit_ratings(3, np.array([[1, 0], [2, 0], [2, 1]]), [50, 50, 50], [0.5, 0.5, 0.5], {0: 1500.0})
    assert even == pytest.approx([1500.0] * 3)


def test_pool_ratings_recover_the_truth_with_intervals_and_the_anchor():
    standing = {r.agent: r for r in pool_ratings(exact(synthetic(), TRUE))}
    for name, r in standing.items():
        assert r.rating == pytest.approx(TRUE[name], abs=3)  # rates rounded to whole deals
        assert r.low <= r.rating <= r.high
    assert standing[ANCHOR_AGENT].rating == ANCHOR_RATING
    assert standing[ANCHOR_AGENT].low == standing[ANCHOR_AGENT].high == ANCHOR_RATING
    assert [standing[n].rank for n in ("pimc", "heuristic", "greedy", "random")] == [1, 2, 3, 4]
    assert standing["greedy"].high - standing["greedy"].low > 10  # real intervals from the bootstrap


def test_placing_an_agent_does_not_move_the_pool():
    data = synthetic()
    before = pool_ratings(data)
    rng = np.random.default_rng(5)
    newcomer = [LadderPairing("new", m, 2, rng.binomial(2, win_probability(1450, TRUE[m]), size=data.num_deals))
                for m in ("random", "greedy", "heuristic")]
    placed = place(data, newcomer, "rules")
    assert pool_ratings(data) == before  # the data are untouched
    pool_after = {r.agent: r.rating for r in placed.standing if r.pool}
    assert pool_after == {r.agent: r.rating for r in before}
    assert placed.rating.rating == pytest.approx(1450, abs=40) and placed.rating.low < 1450 < placed.rating.high
    assert placed.rating.rank == 3  # below pimc and heuristic, above greedy
    assert [r.agent for r in placed.standing] == ["pimc", "heuristic", "new", "greedy", "random"]
    # An agent that beats everyone is first.
    strong = [LadderPairing("strong", m, 2, np.full(data.num_deals, 2)) for m in ("greedy", "pimc")]
    assert place(data, strong).rating.rank == 1


def test_the_bootstrap_is_deterministic_and_a_partial_pairing_counts_its_deals():
    data = synthetic(deals=200)
    assert pool_ratings(data) == pool_ratings(synthetic(deals=200))
    partial = synthetic(deals=200)
    p = partial.get("pimc", "heuristic")
    p.wins = p.wins[:80]
    assert partial.missing("full")[:1] == [("pimc", "heuristic", 80)]
    ratings = {r.agent: r for r in pool_ratings(partial)}
    assert ratings["pimc"].low <= ratings["pimc"].rating <= ratings["pimc"].high
    # Fewer than 30 deals say too little: such a pairing does not rate its agent yet.
    for q in partial.pairings:
        if "pimc" in (q.agent_a, q.agent_b):
            q.wins = q.wins[:29]
    assert "pimc" not in {r.agent for r in pool_ratings(partial)} and "pimc" not in partial.members()


def test_pairings_are_saved_and_loaded(tmp_path):
    data = synthetic(deals=40)
    data.save(tmp_path / "partnership.json")
    back = load_ladder("partnership", tmp_path / "partnership.json")
    assert back.to_json() == data.to_json() and pool_ratings(back) == pool_ratings(data)
    text = (tmp_path / "partnership.json").read_text()
    assert '"wins": "' in text and not (tmp_path / "partnership.json.tmp").exists()
    with pytest.raises(LadderError, match="holds preset partnership"):
        load_ladder("two_player", tmp_path / "partnership.json")


def test_the_pool_of_each_preset(monkeypatch):
    assert pool_agents("corriente", "rules") == ["random", "greedy", "heuristic"]
    assert pool_agents("corriente") == ["random", "greedy", "heuristic", "pimc", "dds", "ppo", "search"]
    assert pool_agents("two_player") == ["random", "greedy", "heuristic", "pimc", "dds", "ppo", "search", "search+dds"]
    assert pool_pairings("corriente", "rules") == [("greedy", "random"), ("heuristic", "greedy"),
                                                   ("heuristic", "random")]
    assert len(pool_pairings("partnership")) == 21
    monkeypatch.setattr(ladder, "shipped_presets", lambda: ["two_player"])  # corriente without its network
    assert pool_agents("corriente") == ["random", "greedy", "heuristic", "pimc", "dds"]


# ----------------------------------------------------------------------------------------------
# Playing: determinism, batches, a newcomer
# ----------------------------------------------------------------------------------------------
@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """A rule-based ladder of two_player on 30 deals, as the shipped data (in a temporary folder)."""
    monkeypatch.setattr(ladder, "DATA_DIR", tmp_path / "ladder_data")
    monkeypatch.setattr(evaluate, "DATA_DIR", tmp_path / "ladder_data")
    (tmp_path / "ladder_data").mkdir()
    data = LadderData.new("two_player", 30)
    for a, b in pool_pairings("two_player", "rules"):
        data.add(play_pairing(data, a, b))
    data.save(ladder.shipped_path("two_player"))
    return data


def test_the_same_agent_and_seed_give_the_same_figures_also_in_batches(tiny):
    rules = make_rules("two_player")
    first = run_ladder(tiny, Coin(rules, seed=3))
    again = run_ladder(tiny, Coin(rules, seed=3))
    assert figures(first.to_json()) == figures(again.to_json())
    assert first.rating.rating < 1500 and [p.agent_b for p in first.pairings] == ["random", "greedy", "heuristic"]
    other_seed = run_ladder(tiny, Coin(rules), agent_seed=tiny.agent_seed + 10)
    assert [p.wins.tolist() for p in other_seed.pairings] != [p.wins.tolist() for p in first.pairings]
    # A pairing played in two chunks is the pairing played at once.
    whole = play_pairing(tiny, "random", "greedy")
    head = play_pairing(tiny, "random", "greedy", first=0, count=3)
    tail = play_pairing(tiny, "random", "greedy", first=3)
    split = LadderPairing.of(head)
    split.extend(tail.deal_scores)
    assert split.wins.tolist() == LadderPairing.of(whole).wins.tolist()


def test_a_pool_member_is_not_placed(tiny):
    with pytest.raises(LadderError, match="is in the two_player pool"):
        run_ladder(tiny, "heuristic")


# ----------------------------------------------------------------------------------------------
# The command line
# ----------------------------------------------------------------------------------------------
def one_error_line(capsys, argv, message):
    code = evaluate.main([*argv, "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 2 and message in err and err.count("\n") == 1 and not out, (code, out, err)


def test_ladder_alone_prints_the_shipped_standing_table(capsys):
    assert evaluate.main(["--ladder", "--preset", "two_player"]) == 0
    out = capsys.readouterr().out
    for r in pool_ratings(load_ladder("two_player")):
        assert f"{r.agent:<24} {r.rating:>6.0f}" in out
    assert "heuristic = 1500" in out and "(anchor)" in out


@pytest.fixture
def user_agent(tmp_path, monkeypatch):
    """``lowcard:first_legal``, a user's agent by ``pkg.module:Name`` from the working directory."""
    (tmp_path / "lowcard.py").write_text(
        "import numpy as np\n\ndef first_legal(observation, action_mask):\n"
        "    return int(np.flatnonzero(action_mask)[0])\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "lowcard:first_legal"


def test_save_writes_the_users_file_and_never_the_shipped_data(tiny, user_agent, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home"))
    shipped = ladder.shipped_path("two_player")
    before = shipped.read_bytes()
    assert evaluate.main(["--ladder", user_agent, "--preset", "two_player", "--save", "--json",
                          str(tmp_path / "placed.json"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    users = tmp_path / "home" / "tute_env" / "ladder.json"
    assert f"saved to {users}" in out and "lowcard:first_legal on the two_player ladder" in out
    entries = json.loads(users.read_text())["entries"]
    placed = json.loads((tmp_path / "placed.json").read_text())
    assert len(entries) == 1 and entries[0]["agent"] == user_agent and entries[0]["rating"] == placed["rating"]
    assert [p["opponent"] for p in entries[0]["pairings"]] == ["random", "greedy", "heuristic"]
    assert shipped.read_bytes() == before and sorted(p.name for p in shipped.parent.iterdir()) == ["two_player.json"]
    # Again: the same figures, one entry (replaced); --ladder alone lists it after the table.
    assert evaluate.main(["--ladder", user_agent, "--preset", "two_player", "--save", "--no-progress"]) == 0
    again = json.loads(users.read_text())["entries"]
    assert len(again) == 1 and figures(again[0]) == figures(entries[0])
    capsys.readouterr()
    assert evaluate.main(["--ladder", "--preset", "two_player"]) == 0
    assert f"{user_agent:<24} {placed['rating']:>6.0f}" in capsys.readouterr().out
    # A path of one's own.
    mine = tmp_path / "mine.json"
    assert evaluate.main(["--ladder", user_agent, "--preset", "two_player", "--save", str(mine), "--no-progress"]) == 0
    assert json.loads(mine.read_text())["entries"][0]["agent"] == user_agent
    assert shipped.read_bytes() == before


def test_bad_ladder_input_is_one_line_and_exit_2(tiny, tmp_path, capsys, monkeypatch):
    one_error_line(capsys, ["--ladder", "--save", "--preset", "two_player"], "go with --ladder AGENT")
    one_error_line(capsys, ["--ladder", "heuristic", "--preset", "two_player"], "heuristic is in the two_player pool")
    one_error_line(capsys, ["--ladder", "pimc:4", "--preset", "two_player", "--deals", "5"], "--deals does not go")
    one_error_line(capsys, ["--ladder", "grandmaster", "--preset", "two_player"], "unknown agent 'grandmaster'")
    one_error_line(capsys, ["--ladder", "--preset", "corriente"], "no ladder data for preset corriente")
    one_error_line(capsys, ["--ladder", "pimc:4", "--preset", "two_player", "--save",
                            str(ladder.shipped_path("x"))], "not yours to write")
    (tmp_path / "not_a_ladder.json").write_text("[1, 2]")
    one_error_line(capsys, ["--ladder", "pimc:4", "--preset", "two_player", "--save",
                            str(tmp_path / "not_a_ladder.json")], "not a tute-ladder-user/1 file")
    (ladder.shipped_path("manita")).write_text("{}")
    one_error_line(capsys, ["--ladder", "--preset", "manita"], "not tute-ladder/1 data")
    with pytest.raises(SystemExit):  # argparse: usage and the error
        evaluate.main(["greedy", "random", "--pool", "full"])


# ----------------------------------------------------------------------------------------------
# The shipped data and the docs generated from them
# ----------------------------------------------------------------------------------------------
def test_the_shipped_data_cover_every_preset_and_are_package_data():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for preset in PRESETS:
        data = load_ladder(preset)
        assert data.num_deals == ladder.LADDER_DEALS[preset] and data.seed_start == ladder.HELD_OUT_SEED_START
        assert not data.missing("rules"), f"{preset}: the rule-based pool is not complete"
        rel = ladder.shipped_path(preset).relative_to(ROOT / "tute_lab" / "evaluation").as_posix()
        assert any(fnmatch.fnmatch(rel, g) for g in patterns["tute_lab.evaluation"])


def test_the_page_and_the_readme_table_are_what_the_data_make():
    ladders = bench_ladder.shipped()
    assert list(ladders) == list(bench_ladder.PRESET_ORDER)
    assert (ROOT / "docs" / "ladder.md").read_text() == bench_ladder.page(ladders), \
        "docs/ladder.md is stale: python -m bench.ladder --docs-only"
    readme = (ROOT / "README.md").read_text()
    assert bench_ladder.readme_with_table(readme, ladders) == readme, \
        "README.md's ladder table is stale: python -m bench.ladder --docs-only"
    assert bench_ladder.readme_table(ladders) in (ROOT / "docs" / "ladder.md").read_text()
    for preset in ladders:
        assert (ROOT / "docs" / "img" / f"ladder_{preset}.png").stat().st_size > 1000


def test_the_page_estimates_what_the_round_robin_still_needs():
    # partnership's pool: random, greedy, heuristic and pimc have played each other; dds, ppo and
    # search nothing yet. Each deal left costs both members' seconds a deal.
    data = synthetic(deals=200)
    costs = {"random": 0.0, "greedy": 0.0, "heuristic": 0.0, "pimc": 2.0, "dds": 3.0, "ppo": 0.0, "search": 1.0}
    dds, ppo, search = 3 * 3 + (3 + 2), 0 + (0 + 2) + (0 + 3), 3 * 1 + (1 + 2) + (1 + 3) + (1 + 0)
    assert bench_ladder.missing_cost(data, costs) == ((dds + ppo + search) * 200, [])
    data.get("pimc", "heuristic").wins = data.get("pimc", "heuristic").wins[:50]  # 150 deals left
    assert bench_ladder.missing_cost(data, costs) == ((dds + ppo + search) * 200 + 150 * 2.0, [])
    unknown = {m: t for m, t in costs.items() if m != "dds"}  # dds's share left out, and named
    assert bench_ladder.missing_cost(data, unknown) == ((dds - 3 * 4 + ppo - 3 + search - 3) * 200 + 150 * 2.0, ["dds"])


def test_the_data_name_each_machine_that_played_them(monkeypatch):
    data = synthetic(deals=40)
    data.machine = "AMD EPYC, 2 cores"
    monkeypatch.setattr(bench_ladder, "machine", lambda: "Intel Xeon, 2 cores")
    bench_ladder.name_machine(data, "2026-12-07")
    bench_ladder.name_machine(data, "2026-12-08")  # named once, with the first date
    assert data.machine == "AMD EPYC, 2 cores; Intel Xeon, 2 cores from 2026-12-07"
    other = synthetic(deals=40)
    other.preset, other.machine = "two_player", "AMD EPYC, 2 cores"
    page = bench_ladder.page({"partnership": data, "two_player": other})
    assert "Times: seconds on AMD EPYC, 2 cores; Intel Xeon, 2 cores from 2026-12-07." in page


def test_the_regeneration_resumes_and_skips_what_is_done(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(ladder, "DATA_DIR", tmp_path)
    bench_ladder.play_missing(["corriente"], "rules", deals=6, chunk=4, workers=None, progress=False)
    first = capsys.readouterr().out
    assert "skip" not in first
    whole = load_ladder("corriente", tmp_path / "corriente.json")
    assert not whole.missing("rules") and all(p.deals == 6 for p in whole.pairings)
    assert all(p.cpu_deals == 6 and p.cpu_seconds > 0 and p.seconds > 0 for p in whole.pairings)
    # A run killed after one chunk of a pairing: the next resumes at its first missing deal.
    cut = load_ladder("corriente", tmp_path / "corriente.json")
    cut.get("heuristic", "random").wins = cut.get("heuristic", "random").wins[:4]
    cut.save(tmp_path / "corriente.json")
    bench_ladder.play_missing(["corriente"], "rules", deals=None, chunk=4, workers=None, progress=False)
    out = capsys.readouterr().out
    assert "[corriente] skip greedy vs random: done" in out and "skip heuristic vs greedy: done" in out
    assert "[corriente] heuristic vs random: 4 of 6 deals done, resuming at deal 4" in out
    resumed = load_ladder("corriente", tmp_path / "corriente.json")
    assert [p.wins.tolist() for p in resumed.pairings] == [p.wins.tolist() for p in whole.pairings]
    with pytest.raises(LadderError, match="on 6 deals a pairing, not 9"):
        bench_ladder.play_missing(["corriente"], "rules", deals=9, chunk=4, workers=None, progress=False)


def test_earlier_per_deal_scores_are_reused_only_when_they_replay_equal(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(ladder, "DATA_DIR", tmp_path)
    monkeypatch.setattr(bench_ladder, "ROOT", tmp_path)
    (tmp_path / "docs" / "data").mkdir(parents=True)
    monkeypatch.setattr(bench_ladder, "REUSE", {("corriente", "heuristic", "random"): "earlier.json",
                                                ("corriente", "heuristic", "greedy"): "altered.json"})
    code = evaluate.main(["heuristic", "random", "--preset", "corriente", "--deals", "12", "--deal-scores",
                          "--json", str(tmp_path / "docs" / "data" / "earlier.json"), "--no-progress"])
    assert code == 0
    earlier = json.loads((tmp_path / "docs" / "data" / "earlier.json").read_text())["pairings"][0]["deal_scores"]
    assert evaluate.main(["heuristic", "greedy", "--preset", "corriente", "--deals", "12", "--deal-scores",
                          "--json", str(tmp_path / "docs" / "data" / "altered.json"), "--no-progress"]) == 0
    altered = json.loads((tmp_path / "docs" / "data" / "altered.json").read_text())
    altered["pairings"][0]["deal_scores"][1] = 1 - altered["pairings"][0]["deal_scores"][1] + 0.5  # one deal off
    (tmp_path / "docs" / "data" / "altered.json").write_text(json.dumps(altered))
    capsys.readouterr()
    bench_ladder.play_missing(["corriente"], "rules", deals=10, chunk=4, workers=None, progress=False)
    out = capsys.readouterr().out
    assert "heuristic vs random: reused deals 0-9 of docs/data/earlier.json (deals 0-2 played again: equal)" in out
    assert "heuristic vs greedy: docs/data/altered.json does not replay equal now (deals 0-2)" in out
    data = load_ladder("corriente", tmp_path / "corriente.json")
    assert data.get("heuristic", "random").scores.tolist() == earlier[:10]
    assert "(docs/data/earlier.json)" in data.get("heuristic", "random").dates[0]
    # The altered file is not used: its pairing is played, from the three deals played again on.
    assert "heuristic vs greedy: 3 of 10 deals done, resuming at deal 3" in out
    assert data.get("heuristic", "greedy").scores.tolist() != altered["pairings"][0]["deal_scores"][:10]


def test_the_regeneration_may_play_chosen_pairings_only(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(ladder, "DATA_DIR", tmp_path)
    assert bench_ladder.main(["--preset", "corriente", "--pool", "rules", "--deals", "4", "--no-docs",
                              "--no-progress", "--pairing", "random", "heuristic"]) == 0
    data = load_ladder("corriente", tmp_path / "corriente.json")
    assert [(p.agent_a, p.agent_b, p.deals) for p in data.pairings] == [("heuristic", "random", 4)]
    assert bench_ladder.main(["--preset", "corriente", "--pairing", "heuristic", "oracle"]) == 2
    assert "unknown pool member(s) ['oracle']" in capsys.readouterr().err



def test_each_presets_expert_level_is_the_top_of_its_ladder():
    """tute-play's and the web table's expert level plays the top-rated member of the preset's
    shipped ladder (issue 37): what the ladder names the strongest is what the strongest level plays."""
    from agents.base import shipped_presets
    from tute_play.levels import level_spec

    for preset in shipped_presets():
        top = pool_ratings(load_ladder(preset))[0]
        assert level_spec("expert", preset) == top.agent, (preset, top)
