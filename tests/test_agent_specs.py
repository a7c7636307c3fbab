"""Agent specs: one grammar (agents.registry), a user's agent by ``pkg.module:Name``, and every
command line that takes a spec turning a bad one into one line on stderr and exit code 2."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

import evaluate
import train
from agents import AgentSpecError, make_agent
from agents.dds import DDSAgent
from agents.greedy import GreedyAgent
from agents.heuristic import HeuristicAgent
from agents.pimc import PIMCAgent
from agents.ppo import PPOAgent
from agents.registry import (
    KINDS,
    FunctionAgent,
    PolicyAgent,
    check_spec,
    parse_spec,
    spec_help,
    spec_lines,
    spec_table,
)
from tute_env.engine.rules import make_rules
from tute_env.envs.tute_v0 import action_table, observation_table
from tute_lab.evaluation import evaluate_pairing
from tute_play.cli import main as play_main

ROOT = Path(__file__).resolve().parent.parent

# A user's module of agents, of every kind the registry takes, and of kinds it refuses.
USER_AGENTS = '''
import numpy as np

from agents.base import Agent


class RandomLegal(Agent):
    """An Agent subclass: made as the built-ins are, with its seat's seed."""

    def act_batch(self, observations, masks):
        return np.array([self.rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64)


class Policy:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def act_batch(self, observations, masks):
        return np.array([self.rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64)


def make_policy(rules, seed=0):
    """A factory taking the seed, returning a policy."""
    return Policy(seed)


def make_bot(rules):
    """A factory returning an Agent."""
    return RandomLegal(rules, seed=5)


def last_legal(observation, action_mask):
    """A plain function."""
    assert observation.dtype == np.int8 and action_mask.shape == (47,)
    return int(np.flatnonzero(action_mask)[-1])


def bad_factory(rules):
    return "no policy"


class NotAnAgent:
    pass


NOT_AN_AGENT = 42
'''
USER_MODULES = {"specbots.py": USER_AGENTS, "specbots_boom.py": "raise RuntimeError('boom on import')\n",
                "specbots_syntax.py": "def (:\n"}


@pytest.fixture
def user_dir(tmp_path, monkeypatch):
    """The user's modules and a text file named like a checkpoint, in the working directory."""
    for name, text in USER_MODULES.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "notes.pt").write_text("not a checkpoint\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ----------------------------------------------------------------------------------------------
# The grammar
# ----------------------------------------------------------------------------------------------
def test_existing_specs_make_the_same_agents():
    rules = make_rules("two_player")
    assert type(make_agent("greedy", rules)) is GreedyAgent and type(make_agent("heuristic", rules)) is HeuristicAgent
    pimc = make_agent("pimc:128", rules, seed=3)
    assert type(pimc) is PIMCAgent and pimc.num_samples == 128 and pimc.seed == 3 and pimc.name == "pimc:128"
    assert make_agent("pimc", rules).num_samples == PIMCAgent.DEFAULT_SAMPLES
    dds = make_agent("dds:4", rules)
    assert type(dds) is DDSAgent and dds.dds_samples == 4 and dds.name == "dds:4"
    sample = make_agent("ppo:sample", rules, seed=2)
    assert type(sample) is PPOAgent and not sample.greedy and sample.name == "ppo:sample"
    assert make_agent("ppo", rules).greedy and make_agent("search:8", rules).num_samples == 8
    checkpoint = make_agent(str(ROOT / "agents" / "checkpoints" / "two_player.pt"), rules)
    assert type(checkpoint) is PPOAgent and checkpoint.name == "ppo:two_player.pt"


def test_the_grammar_is_written_once_and_read_by_the_help(capsys):
    forms = spec_help().split(" | ")
    assert forms[:len(KINDS)] == [k.form for k in KINDS.values()]
    assert {"greedy", "pimc[:N]", "ppo[:sample]"} <= set(forms)
    words = " ".join(evaluate.build_parser().format_help().split())
    assert all(" ".join(line.split()) in words for line in spec_lines())
    with pytest.raises(SystemExit):
        play_main(["--help"])
    assert spec_help() in " ".join(capsys.readouterr().out.split())


# (spec, what its one line says): every kind of bad spec.
BAD_SPECS = [
    ("greedy:2", "bad agent spec 'greedy:2': greedy takes no ARG"),
    ("heuristic:x", "heuristic takes no ARG"),
    ("random:x", "random takes no ARG"),
    ("pimc:0", "bad agent spec 'pimc:0': N must be a whole number of at least 1"),
    ("pimc:-3", "N must be a whole number of at least 1"),
    ("pimc:", "N must be a whole number of at least 1"),
    ("dds:abc", "bad agent spec 'dds:abc'"),
    ("search:many", "bad agent spec 'search:many'"),
    ("ppo:nope", "ppo takes 'ppo:sample'"),
    ("grandmaster", "unknown agent 'grandmaster': expected random | greedy"),
    ("no/such/agent.pt", "checkpoint no/such/agent.pt does not exist"),
    ("notes.pt", "notes.pt is not a checkpoint torch can load"),
    ("no_such_module:Agent", "no module named 'no_such_module'"),
    ("specbots:Missing", "module 'specbots' has no 'Missing'"),
    ("specbots:NOT_AN_AGENT", "is an int: expected an agents.base.Agent subclass"),
    ("specbots:NotAnAgent", "a callable of 0 required arguments"),
    ("specbots_boom:Agent", "importing 'specbots_boom' failed: RuntimeError: boom on import"),
    ("specbots_syntax:Agent", "importing 'specbots_syntax' failed: SyntaxError"),
    ("specbots:bad_factory", "the factory returned a str, not an Agent"),
    ("openspiel:bogus", "bad openspiel spec 'bogus'"),
    ("openspiel:ismcts[simulations=0]", "simulations and rollouts must be at least 1"),
    ("rlcard", "write 'rlcard:PATH[@SEAT]'"),
    ("rlcard:no_such_model.tar", "no DMC checkpoint at no_such_model.tar"),
]


@pytest.mark.parametrize("spec, message", BAD_SPECS)
def test_a_bad_spec_is_a_value_error_naming_it(user_dir, spec, message):
    with pytest.raises(ValueError) as err:
        make_agent(spec, make_rules("two_player"))
    assert message in str(err.value) and "\n" not in str(err.value)
    # a factory's result, and the framework bots' settings (read by their own from_spec), are seen
    # only when the agent is made
    if spec not in ("specbots:bad_factory", "openspiel:bogus", "openspiel:ismcts[simulations=0]",
                    "rlcard:no_such_model.tar"):
        with pytest.raises(ValueError, match=re.escape(message)):
            check_spec(spec)


def test_the_grammar_alone_raises_agent_spec_errors_and_reads_no_file():
    for spec in ("greedy:2", "pimc:0", "ppo:nope", "grandmaster"):
        with pytest.raises(AgentSpecError):
            parse_spec(spec)
    assert parse_spec("no/such/agent.pt").path == "no/such/agent.pt"
    assert (parse_spec("pkg.mod:Name").module, parse_spec("pkg.mod:Name").attr) == ("pkg.mod", "Name")
    assert parse_spec("pimc:128").kind is KINDS["pimc"]


# ----------------------------------------------------------------------------------------------
# Every command line: one line on stderr, exit code 2
# ----------------------------------------------------------------------------------------------
def run_evaluate(spec, tmp_path):
    return evaluate.main([spec, "random", "--preset", "two_player", "--deals", "2", "--no-progress"])


def run_round_robin(spec, tmp_path):
    return evaluate.main(["--round-robin", "random", "greedy", spec, "--preset", "two_player", "--deals", "2",
                          "--no-progress"])


def run_teams(spec, tmp_path):
    return evaluate.main(["--teams", "random", spec, "greedy", "greedy", "--deals", "2", "--no-progress"])


def run_opponent(spec, tmp_path):
    return play_main(["--preset", "two_player", "--opponent", spec, "--hands", "1", "--no-history"],
                     input_fn=lambda prompt="": "1", out=io.StringIO())


def run_partner(spec, tmp_path):
    return play_main(["--partner", spec, "--hands", "1", "--no-history"], input_fn=lambda prompt="": "1",
                     out=io.StringIO())


SMOKE = ROOT / "configs" / "smoke.yaml"


def run_exploit(spec, tmp_path):
    return train.cli(["--config", str(SMOKE), "--exploit", spec, "--bots", "--snapshot-every", "0", "--partner-mix",
                      "0", "--run-dir", str(tmp_path / "run")])


def run_config_bots(spec, tmp_path):
    config = yaml.safe_load(SMOKE.read_text())
    config["bots"] = ["random", spec]
    path = tmp_path / "bots.yaml"
    path.write_text(yaml.safe_dump(config))
    return train.cli(["--config", str(path), "--run-dir", str(tmp_path / "run")])


COMMAND_LINES = [run_evaluate, run_round_robin, run_teams, run_opponent, run_partner, run_exploit, run_config_bots]


@pytest.mark.parametrize("spec, message", BAD_SPECS)
@pytest.mark.parametrize("command", COMMAND_LINES, ids=lambda f: f.__name__.removeprefix("run_"))
def test_every_command_line_says_a_bad_spec_in_one_line_and_exits_2(user_dir, capsys, command, spec, message):
    assert command(spec, user_dir) == 2
    captured = capsys.readouterr()
    assert message in captured.err and "Traceback" not in captured.err, captured.err
    assert len(captured.err.strip().splitlines()) == 1, captured.err
    assert not (user_dir / "run").exists()  # nothing trained


@pytest.mark.parametrize("argv", [
    [sys.executable, str(ROOT / "evaluate.py"), "greedy:2", "random"],
    [sys.executable, str(ROOT / "evaluate.py"), "--round-robin", "random", "greedy", "specbots:Missing"],
    [sys.executable, "-m", "tute_play", "--opponent", "heuristic:x", "--no-history"],
])
def test_a_bad_spec_in_a_real_process_is_one_line_and_exit_2(user_dir, argv):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout's packages, run from the user's directory
    proc = subprocess.run(argv, cwd=user_dir, env=env, capture_output=True, text=True, input="", timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "error:" in proc.stderr, proc.stderr


# ----------------------------------------------------------------------------------------------
# A user's agent by name
# ----------------------------------------------------------------------------------------------
def test_every_kind_of_user_agent_is_made_and_plays(user_dir):
    rules = make_rules("two_player")
    subclass = make_agent("specbots:RandomLegal", rules, seed=4)
    assert type(subclass).__name__ == "RandomLegal" and subclass.seed == 4 and subclass.name == "specbots:RandomLegal"
    assert isinstance(make_agent("specbots:make_policy", rules), PolicyAgent)
    assert make_agent("specbots:make_bot", rules).seed == 5
    assert isinstance(make_agent("specbots:last_legal", rules), FunctionAgent)
    for spec in ("specbots:RandomLegal", "specbots:make_policy", "specbots:make_bot", "specbots:last_legal"):
        result = evaluate_pairing(rules, spec, "random", num_deals=3, progress=False)
        assert result.agent_a == spec and result.hands == 6


def test_a_user_agent_plays_the_same_on_the_same_seeds(user_dir):
    rules = make_rules("two_player")
    runs = [evaluate_pairing(rules, "specbots:RandomLegal", "specbots:make_policy", num_deals=12, progress=False,
                             agent_seed=seed).deal_scores for seed in (1, 1, 2)]
    np.testing.assert_array_equal(runs[0], runs[1])
    assert not np.array_equal(runs[0], runs[2])  # the seed reaches the agent (and the factory)


def test_user_agents_on_every_evaluation_command_line(user_dir, capsys):
    common = ["--deals", "2", "--no-progress"]
    assert evaluate.main(["specbots:RandomLegal", "specbots:last_legal", "--preset", "two_player", *common]) == 0
    assert "specbots:RandomLegal vs specbots:last_legal: win rate" in capsys.readouterr().out
    assert evaluate.main(["--round-robin", "specbots:make_policy", "specbots:make_bot", "greedy", "--preset",
                          "two_player", *common]) == 0
    assert "specbots:make_policy vs specbots:make_bot: win rate" in capsys.readouterr().out
    assert evaluate.main(["--teams", "specbots:RandomLegal", "specbots:last_legal", "greedy", "specbots:make_bot",
                          *common]) == 0
    assert "specbots:RandomLegal+specbots:last_legal vs greedy+specbots:make_bot" in capsys.readouterr().out


def test_user_agents_at_the_terminal_table(user_dir):
    out = io.StringIO()
    assert play_main(["--preset", "two_player", "--opponent", "specbots:last_legal", "--hands", "1", "--no-history",
                      "--seed", "3", "--plain"], input_fn=lambda prompt="": "1", out=out) == 0
    assert "Hand over" in out.getvalue()
    out = io.StringIO()
    assert play_main(["--partner", "specbots:RandomLegal", "--opponent", "specbots:make_policy", "--hands", "1",
                      "--no-history", "--plain"], input_fn=lambda prompt="": "1", out=out) == 0
    assert "Hand over" in out.getvalue()


def test_a_user_agent_is_found_on_the_import_path_too(tmp_path):
    (tmp_path / "specbots.py").write_text(USER_AGENTS)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    proc = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "specbots:last_legal", "random", "--preset",
                           "two_player", "--deals", "2", "--no-progress"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0 and "specbots:last_legal vs random: win rate" in proc.stdout, proc.stderr


# ----------------------------------------------------------------------------------------------
# docs/agents.md: its tables are the code's, its example runs
# ----------------------------------------------------------------------------------------------
PAGE = ROOT / "docs" / "agents.md"


def test_the_framework_bots_are_made_by_name():
    rules = make_rules("two_player")
    bot = make_agent("openspiel:ismcts[simulations=5]", rules, seed=3)
    assert bot.simulations == 5 and bot.name == "openspiel:ismcts[simulations=5,uct_c=2]"
    assert make_agent("openspiel", rules).simulations == 200  # the bare name: ismcts's defaults


def test_the_page_has_the_generated_tables():
    text = PAGE.read_text()
    for name, table in (("spec_table", spec_table()), ("observation_table", observation_table()),
                        ("action_table", action_table())):
        assert table in text, f"docs/agents.md is stale: paste {name}()'s table in again"


def python_blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", PAGE.read_text(), re.MULTILINE | re.DOTALL)


def test_the_information_set_example_runs(capsys):
    exec(python_blocks()[0], {})
    assert "consistent deals; the first gives the opponent 0x" in capsys.readouterr().out


def test_the_example_agent_runs_by_name_through_evaluate(tmp_path):
    (tmp_path / "lowcard.py").write_text(python_blocks()[1])
    out = tmp_path / "out.json"
    proc = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--round-robin", "lowcard:LowCard",
                           "lowcard:first_legal", "random", "--preset", "two_player", "--deals", "4", "--no-progress",
                           "--json", str(out)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    pairings = {(p["agent_a"], p["agent_b"]): p for p in json.loads(out.read_text())["pairings"]}
    assert set(pairings) == {("lowcard:LowCard", "lowcard:first_legal"), ("lowcard:LowCard", "random"),
                             ("lowcard:first_legal", "random")}
    assert all(p["hands"] == 8 for p in pairings.values())
