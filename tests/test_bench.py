"""python -m bench: the --quick smoke run writes a report with every row, and a peer that cannot be
imported is reported as missing, never dropped."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agents.base import shipped_presets
from bench import peers
from bench.__main__ import BATCHES, PRESETS

ROOT = Path(__file__).resolve().parent.parent
PEER_GAMES = [*peers.OPENSPIEL_GAMES, *peers.RLCARD_GAMES, *peers.PETTINGZOO_GAMES]


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


@pytest.mark.slow
def test_quick_run_has_every_row_and_reports_a_missing_peer(tmp_path):
    # OpenSpiel made unimportable for this run: a module of the same name, first on the path, that refuses.
    blocker = tmp_path / "blocked"
    blocker.mkdir()
    (blocker / "pyspiel.py").write_text("raise ImportError('pyspiel blocked by the test')\n")
    out = tmp_path / "report" / "benchmarks.md"
    env = {**os.environ, "PYTHONPATH": f"{blocker}{os.pathsep}{ROOT}"}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "bench", "--quick", "--out", str(out)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    seconds = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr[-3000:]
    print(f"bench --quick took {seconds:.0f} s")
    md = out.read_text()
    assert (out.parent / "img" / "benchmarks.png").stat().st_size > 10_000
    assert "](img/benchmarks.png)" in md
    results = json.loads((out.parent / "data" / "benchmarks.json").read_text())
    assert results["mode"] == "quick" and "--quick" in md

    rows = [_cells(line) for line in md.splitlines() if line.startswith("| ") and not line.startswith("|---")]
    # The core: every preset and batch size, with all four figures, and the reference engine.
    for preset in PRESETS:
        for batch in BATCHES:
            row = next((r for r in rows if r[:2] == [preset, str(batch)]), None)
            assert row is not None, (preset, batch)
            assert all(c.replace(",", "").replace("x", "").replace(".", "").isdigit() for c in row[2:7]), row
        assert any(r[0] == preset and r[1].startswith("reference engine") for r in rows), preset
    # Every peer has its row, with a figure or the reason it has none.
    for game in PEER_GAMES:
        row = next((r for r in rows if r[1].startswith(f"`{game}`")), None)
        assert row is not None, f"peer {game} dropped from the report"
        assert row[5].replace(",", "").isdigit() or row[5].startswith(("**missing:", "**failed:")), row
    for game in peers.OPENSPIEL_GAMES:
        row = next(r for r in rows if r[1].startswith(f"`{game}`"))
        assert row[5].startswith("**missing:") and "blocked by the test" in row[5], row
        assert f"OpenSpiel `{game}`: missing:" in md  # in the headline too
    # The rest of the rows.
    for preset in PRESETS:
        assert any(r[0] == preset and len(r) == 3 and r[1].replace(",", "").isdigit() for r in rows), preset  # envs
        assert any(r[0] == preset and len(r) == 4 and r[1].replace(",", "").isdigit() for r in rows), preset  # eval
    ppo = next(r for r in rows if r[0] == "`configs/partnership.yaml`")
    assert ppo[2].replace(",", "").isdigit() or ppo[1].startswith("**"), ppo
    for heading in ("## Headline ratios", "## Rules core", "## Peers", "## Environments", "## Evaluation and search",
                    "## PPO training end to end"):
        assert heading in md
    assert results["date"] in md and results["machine"] in md


def test_missing_library_reports_every_peer_of_it(monkeypatch):
    """rlcard absent: RLCard's games and PettingZoo's poker games (built on rlcard) say missing."""
    for name in list(sys.modules):
        if name == "rlcard" or name.startswith(("rlcard.", "pettingzoo.classic.")):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "rlcard", None)  # import rlcard -> ImportError
    monkeypatch.setattr(peers, "OPENSPIEL_GAMES", {})
    results = peers.measure_peers(seconds=0.001, runs=1, count_games=1, log=lambda msg: None)
    assert [r.game for r in results] == [*peers.RLCARD_GAMES, *peers.PETTINGZOO_GAMES]
    for r in results:
        assert r.rate is None and r.missing.startswith("missing:"), r


@pytest.mark.slow
def test_installed_peers_measure(monkeypatch):
    """Every peer whose library imports gives a figure (tiny runs), not a failure."""
    results = peers.measure_peers(seconds=0.001, runs=1, count_games=2, log=lambda msg: None)
    assert len(results) == len(PEER_GAMES)
    for r in results:
        if r.rate is None:
            assert r.missing.startswith("missing:"), r
        else:
            assert r.rate > 0 and (r.decisions_per_game is None or r.decisions_per_game > 1)
    # scripts/setup.sh installs the [bench] extra, so the peers are there to be measured.
    assert any(r.rate for r in results), "no peer measured: pip install -e '.[bench]'"


@pytest.mark.parametrize("argv, message", [(["--runs", "0"], "--runs must be at least 1"),
                                           (["--seconds", "-1"], "--seconds must be positive"),
                                           (["--core", "999"], "--core must be -1")])
def test_bad_arguments_are_one_message_and_exit_2(argv, message):
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, "-m", "bench", *argv], cwd=root, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.slow
def test_startup_quick_measures_cold_and_warm_and_keeps_the_notes(tmp_path):
    out = tmp_path / "startup.md"
    out.write_text("# old figures\n\n## Notes\n\nWritten by hand.\n")
    proc = subprocess.run([sys.executable, "-m", "bench.startup", "--quick", "--write", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    md = out.read_text()
    assert "# old figures" not in md and md.endswith("## Notes\n\nWritten by hand.\n")
    row = next(_cells(line) for line in md.splitlines() if line.startswith("| partnership |"))
    cold, cold_wall, warm, warm_wall = (float(c) for c in row[1:])
    assert warm < cold <= cold_wall and warm <= warm_wall
    for phase in ("import numba", "first step", "first observation"):
        assert f"| {phase} |" in md
    assert "| `kernel.rules_kernel` | 1 |" in md  # compiled once: one signature


@pytest.mark.slow
def test_after_setup_nothing_is_compiled_at_first_use_and_the_section_is_rewritten(tmp_path):
    """scripts/setup.sh's warm-up (python -m tute_lab.warmup) compiles everything a first tute_v0.env()
    hand and a first hand against the heuristic bot compile: after it, a fresh process compiles nothing."""
    out = tmp_path / "startup.md"
    out.write_text("# figures\n\n## After setup\n\nSTALE FIGURES\n\n## Notes\n\nWritten by hand.\n")
    proc = subprocess.run([sys.executable, "-m", "bench.startup", "--after-setup", "--quick", "--presets", "two_player",
                           "--write", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    md = out.read_text()
    assert md.startswith("# figures\n\n## After setup\n") and "STALE FIGURES" not in md
    assert md.endswith("## Notes\n\nWritten by hand.\n")
    rows = {tuple(_cells(line)[1:3]): _cells(line) for line in md.splitlines() if line.startswith("| two_player |")}
    assert rows[("after setup", "`tute_v0.env()`")][7] == "nothing"
    assert "`tute_env.engine.kernel.rules_kernel`" in rows[("cold", "`tute_v0.env()`")][7]
    assert "`agents.heuristic._card_values`" in rows[("cold", "`tute_v0.env()`")][7]


def test_the_warm_up_takes_no_arguments():
    proc = subprocess.run([sys.executable, "-m", "tute_lab.warmup", "--fast"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 2 and proc.stderr.startswith("usage:") and "Traceback" not in proc.stderr


@pytest.mark.slow
def test_compare_times_two_checkouts_and_refuses_a_non_checkout(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "bench.compare", str(ROOT), str(ROOT), "--rounds", "1",
                           "--workloads", "core"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    row = proc.stdout.splitlines()[-1].split(" | ")
    assert row[0] == "core" and float(row[1]) > 0 and 0.3 < float(row[3].split()[0]) < 3  # the same code
    bad = subprocess.run([sys.executable, "-m", "bench.compare", str(tmp_path), str(ROOT)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "not a checkout" in bad.stderr


def _quick_page(module: str, out, timeout: int) -> list[str]:
    """The lines of the page ``python -m module --quick --write out`` writes (it must exit 0)."""
    proc = subprocess.run([sys.executable, "-m", module, "--quick", "--write", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return out.read_text().splitlines()


@pytest.mark.slow
def test_search_speed_quick_writes_p50_p99_max_per_shipped_preset(tmp_path):
    out = tmp_path / "search_speed.md"
    lines = _quick_page("bench.search_speed", out, timeout=600)
    header = _cells(next(line for line in lines if line.startswith("| preset")))
    assert header[:6] == ["preset", "moves", "mean s", "p50 s", "p99 s", "max s"]
    rows = {_cells(line)[0]: _cells(line) for line in lines if line.startswith("| ") and not line.startswith("| preset")}
    assert set(rows) == set(shipped_presets())
    for cells in rows.values():
        _, p50, p99, top = map(float, cells[2:6])
        assert int(cells[1]) > 0 and 0 < p50 <= p99 <= top


@pytest.mark.slow
def test_dds_speed_quick_writes_each_preset_with_its_exact_share(tmp_path):
    out = tmp_path / "dds_speed.md"
    lines = _quick_page("bench.dds_speed", out, timeout=900)
    rows = {_cells(line)[0]: _cells(line) for line in lines if line.startswith("| ") and not line.startswith("| preset")}
    assert set(rows) == {"partnership", "two_player"}
    for cells in rows.values():
        median, p95, p99, top = map(float, cells[2:6])
        assert int(cells[1]) > 0 and 0 < median <= p95 <= p99 <= top
        assert 0 < float(cells[6].rstrip("%")) <= 100  # some decisions were solved exactly
        assert cells[9] in ("yes", "**no**")


@pytest.mark.slow
def test_analysis_speed_quick_writes_the_goals_and_each_preset(tmp_path):
    out = tmp_path / "analysis_speed.md"
    lines = _quick_page("bench.analysis_speed", out, timeout=900)
    goals = [_cells(line) for line in lines if line.startswith("| ") and line.rstrip().endswith(("yes |", "**no** |"))]
    assert len(goals) == 5 and all(cells[3] in ("yes", "**no**") for cells in goals)
    rows = {_cells(line)[0]: _cells(line) for line in lines if line.startswith(("| two_player", "| partnership"))}
    assert set(rows) == {"two_player", "partnership"}
    for cells in rows.values():
        median, p90, worst = map(float, cells[2:5])
        decisions, exact, estimated = map(int, cells[8:11])
        assert int(cells[1]) == 1 and 0 < median <= p90 <= worst and decisions == exact + estimated > 30
    assert int(rows["two_player"][10]) > 0  # the stock phase: estimated
