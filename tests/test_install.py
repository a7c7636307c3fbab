"""A non-editable install into a fresh venv: the wheel alone (no checkout on the path) runs the three
commands, loads the shipped agents, serves the web table's files, and installs no top-level `train` or
`evaluate` module. Its metadata leaves the [train] extra (torch, ...) out of the plain install, and with
that extra's modules unimportable the installed commands play the rule-based bots and refuse the rest
in one line: a plain install, checked without building a second venv.

The fresh venv gets the heavy dependencies (torch, numba, ...) and the build tools from this test's
own environment through a .pth file naming its site-packages; a .pth-added folder's own .pth files are
not processed, so the editable install of the checkout there is not seen: the project itself can only
come from the wheel."""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from conftest import requirement_name, without_train_extra

from agents.base import TRAIN_EXTRA_HINT

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow

SKIP = shutil.ignore_patterns(".git", ".venv", "build", "dist", "runs", "__pycache__", "*.egg-info", ".pytest_cache")


def run(args, cwd, env, timeout=900):
    proc = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{args} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def test_a_wheel_in_a_fresh_venv_runs_the_commands(tmp_path):
    source = tmp_path / "source"  # a copy: the build writes build/ and *.egg-info into its tree
    shutil.copytree(ROOT, source, ignore=SKIP)
    fresh = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(fresh)], check=True, timeout=300)
    python = fresh / "bin" / "python"
    fresh_site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                     capture_output=True, text=True, check=True).stdout.strip())
    ours = [p for p in {*site.getsitepackages(), sysconfig.get_paths()["purelib"]} if Path(p).is_dir()]
    (fresh_site / "dev_venv.pth").write_text("\n".join(sorted(ours)) + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME") and not k.startswith("NUMBA_")}
    env["PATH"] = f"{fresh / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    work = tmp_path / "work"
    work.mkdir()

    # Before the install, the project is not importable in the fresh venv (the editable finder is not seen).
    before = subprocess.run([python, "-c", "import tute_env"], cwd=work, env=env, capture_output=True, text=True)
    assert before.returncode != 0 and "No module named 'tute_env'" in before.stderr

    run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index", source], work, env)

    out = run([python, "-c", """
import importlib.resources, importlib.util
import tute_env, agents, tute_lab, tute_play, tute_scripts.train, tute_scripts.evaluate
from agents import make_agent
from tute_env.engine.rules import make_rules
for module in (tute_env, agents, tute_lab, tute_play, tute_scripts.train, tute_scripts.evaluate):
    print(module.__file__)
for preset in ("two_player", "partnership"):
    agent = make_agent("ppo", make_rules(preset))
    print("agent", preset, type(agent).__name__)
static = importlib.resources.files("tute_play.web") / "static"
print("static", *sorted(p.name for p in static.iterdir()))
print("top-level", importlib.util.find_spec("train"), importlib.util.find_spec("evaluate"))
"""], work, env)
    lines = out.splitlines()
    files = lines[:6]
    assert all(Path(f).is_relative_to(fresh_site) for f in files), files
    assert lines[6:8] == ["agent two_player PPOAgent", "agent partnership PPOAgent"]
    assert lines[8].split()[1:] == sorted(p.name for p in (ROOT / "tute_play" / "web" / "static").iterdir())
    assert lines[9] == "top-level None None"

    # The three commands, from outside the checkout.
    run_dir = work / "tmp"
    run(["tute-train", "--config", ROOT / "configs" / "smoke.yaml", "--total-steps", "512", "--eval-every", "0",
         "--final-eval-deals", "2", "--run-dir", run_dir], work, env)
    assert (run_dir / "final.pt").is_file() and (run_dir / "log.csv").is_file()
    out = run(["tute-evaluate", "random", "greedy", "--preset", "two_player", "--deals", "4"], work, env)
    assert "greedy" in out and "random" in out
    out = run(["tute-play", "--help"], work, env, timeout=300)
    assert out.startswith("usage: tute-play")
    for command in ("tute-train", "tute-evaluate", "tute-play"):
        assert (fresh / "bin" / command).read_text().startswith(f"#!{python}")

    # The plain install: no [train] extra in the requirements; without its modules, what needs them is one line.
    requires = run([python, "-c", "import importlib.metadata as m; print(*m.requires('tute_env'), sep=chr(10))"],
                   work, env).splitlines()
    core = {requirement_name(r) for r in requires if "extra ==" not in r}
    train = {requirement_name(r) for r in requires if 'extra == "train"' in r}
    assert {"torch", "tensorboard", "tyro", "pyyaml"} <= train and not core & train, requires
    (tmp_path / "plain").mkdir()
    plain = without_train_extra(tmp_path / "plain", env)
    out = run(["tute-evaluate", "heuristic", "greedy", "--preset", "two_player", "--deals", "4"], work, plain)
    assert "heuristic vs greedy: win rate" in out
    out = run(["tute-evaluate", "--ladder", "--preset", "two_player"], work, plain)  # the ladder's package data
    assert "two_player ladder" in out and "(anchor)" in out
    for command in (["tute-train", "--config", ROOT / "configs" / "smoke.yaml"], ["tute-evaluate", "ppo", "greedy"],
                    ["tute-play", "--level", "expert", "--preset", "two_player"]):
        proc = subprocess.run([str(a) for a in command], cwd=work, env=plain, capture_output=True, text=True,
                              input="", timeout=300)
        assert proc.returncode == 2 and proc.stderr.endswith(f"needs torch: {TRAIN_EXTRA_HINT}\n"), proc.stderr
        assert proc.stderr.count("\n") == 1, proc.stderr
