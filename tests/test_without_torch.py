"""Without the [train] extra: a plain ``pip install tute_env`` has no torch, TensorBoard, tyro or
pyyaml. The env, the rule-based bots, the solver and the commands that use only them work then, and
what needs torch (the trained agents, training) says so in one line, with exit code 2 on a command
line. The child processes here cannot import those modules (``conftest.without_train_extra``);
tests/test_install.py checks an installed wheel the same way."""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
import tomllib
from conftest import python_files, requirement_name, without_train_extra

from agents.base import TRAIN_EXTRA_HINT, TRAIN_MODULES

ROOT = Path(__file__).resolve().parent.parent


def test_the_core_dependencies_leave_the_train_extra_out():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = {requirement_name(r) for r in project["dependencies"]}
    extras = project["optional-dependencies"]
    train = {requirement_name(r) for r in extras["train"]}
    assert {"torch", "tensorboard", "tyro", "pyyaml"} <= train
    assert not core & train, core & train
    assert "tute_env[train]" in extras["dev"]  # the tests need all of it
    # agents.base.TRAIN_MODULES, the modules the messages name, are those of the extra's distributions.
    provided = {module: {requirement_name(d) for d in packages_distributions().get(module, [])}
                for module in TRAIN_MODULES}
    assert all(provided[module] & train for module in TRAIN_MODULES), provided
    assert all(any(name in dists for dists in provided.values()) for name in train), (train, provided)


#: What may import torch (and the trained agents' modules) as it is imported: training, and the
#: checkout's benchmarks and examples. agents.ppo and agents.search do, under ``with train_extra(...)``.
TRAINING = ("train", "tute_lab.training", "bench", "examples")
TRAINED_AGENTS = ("agents.ppo", "agents.search")


def import_time_imports(tree: ast.Module, package: str):
    """(line, imported module, under ``with train_extra(...)``) of every import run when the module is
    imported: function bodies are skipped, relative imports resolved against ``package``."""
    def visit(node, guarded):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if isinstance(child, ast.Import):
                yield from ((child.lineno, a.name, guarded) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parts = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join(parts + ([child.module] if child.module else []))
                yield child.lineno, base, guarded
            yield from visit(child, guarded or isinstance(child, ast.With) and any(
                isinstance(i.context_expr, ast.Call) and getattr(i.context_expr.func, "id", "") == "train_extra"
                for i in child.items))
    yield from visit(tree, False)


def test_only_training_imports_torch_as_it_is_imported():
    """The source, statically (fast; the tests below run the code): outside training, bench and
    examples, nothing imports a [train] module or a trained agent's module at import time, and those
    two import torch only under ``train_extra``."""
    bad = []
    for rel, tree in python_files():
        parts = list(rel.with_suffix("").parts)
        if parts[0] == "tests":
            continue
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if any(module == unit or module.startswith(unit + ".") for unit in TRAINING):
            continue
        package = module if rel.name == "__init__.py" else module.rpartition(".")[0]
        for line, name, guarded in import_time_imports(tree, package):
            needs_torch = name.partition(".")[0] in TRAIN_MODULES or name.startswith(TRAINED_AGENTS)
            if needs_torch and not (module in TRAINED_AGENTS and guarded):
                bad.append(f"{rel}:{line} imports {name}")
    assert not bad, bad


def test_the_static_check_sees_guards_and_relative_imports():
    tree = ast.parse("import torch\nwith train_extra('x'):\n    from .ppo import A\ndef f():\n    import tyro\n")
    assert list(import_time_imports(tree, "agents")) == [(1, "torch", False), (3, "agents.ppo", True)]


IMPORTS = """
import sys
import agents, agents.dds, agents.greedy, agents.heuristic, agents.pimc, agents.registry, evaluate, tute_env
import tute_env.search.solver, tute_lab.evaluation, tute_lab.warmup, tute_play.analyze, tute_play.cli
from agents import make_agent
from tute_env.engine.rules import make_rules
from tute_env.envs.gym_env import TuteEnv
from tute_play.web.session import BadRequest, WebGame
rules = make_rules("two_player")
for spec in ("random", "greedy", "heuristic", "pimc:4", "dds:2"):
    make_agent(spec, rules)
env = TuteEnv("two_player", opponents=make_agent("heuristic", rules))
env.reset(seed=0)
env.step(int(env.action_masks().argmax()))
WebGame("two_player", "medium", seed=1)
print("loaded", sorted({m.partition(".")[0] for m in sys.modules} & set(sys.argv[2:])))
if sys.argv[1] == "blocked":  # a network level on a server without the extra
    try:
        WebGame("two_player", "trained", seed=1)
    except BadRequest as err:
        print("web", err.status, err)
"""


@pytest.mark.slow
@pytest.mark.parametrize("blocked", [True, False], ids=["without-extra", "with-extra"])
def test_the_env_bots_solver_and_rule_based_commands_import_no_torch(tmp_path, blocked):
    """Without the extra, everything a rule-based game needs imports and runs; with it installed, none
    of it loads torch, TensorBoard or tyro (numba reads its config with pyyaml when it is there)."""
    env = without_train_extra(tmp_path) if blocked else None
    watched = [m for m in TRAIN_MODULES if m != "yaml"]
    proc = subprocess.run([sys.executable, "-c", IMPORTS, "blocked" if blocked else "-", *watched], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    refused = f"web 501 a trained agent (ppo or a checkpoint) needs torch: {TRAIN_EXTRA_HINT}"
    assert proc.stdout.splitlines() == ["loaded []"] + [refused] * blocked


@pytest.mark.slow
def test_a_rule_based_evaluation_runs_without_the_extra(tmp_path):
    proc = subprocess.run([sys.executable, "evaluate.py", "heuristic", "greedy", "--preset", "two_player",
                           "--deals", "4", "--no-progress"], cwd=ROOT, env=without_train_extra(tmp_path),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "heuristic vs greedy: win rate" in proc.stdout
    proc = subprocess.run([sys.executable, "evaluate.py", "--ladder", "--preset", "two_player"], cwd=ROOT,
                          env=without_train_extra(tmp_path), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and "two_player ladder" in proc.stdout, proc.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("argv, what", [
    (["evaluate.py", "ppo", "greedy"], "tute-evaluate: error: a trained agent (ppo or a checkpoint)"),
    (["evaluate.py", "search", "heuristic", "--preset", "two_player"], "tute-evaluate: error: the search agent"),
    (["evaluate.py", "heuristic", "greedy", "--device", "cuda"],
     "tute-evaluate: error: a trained agent (ppo or a checkpoint)"),
    (["train.py", "--config", "configs/smoke.yaml"], "train.py: error: tute-train"),
    (["-m", "tute_play", "--level", "trained"],
     "tute-play: error: cannot make the agent: a trained agent (ppo or a checkpoint)"),
    (["-m", "tute_play", "--level", "expert", "--preset", "two_player"],
     "tute-play: error: cannot make the agent: the search agent"),
], ids=["ppo", "search", "device", "train", "play-trained", "play-expert"])
def test_what_needs_torch_says_so_in_one_line_and_exits_2(tmp_path, argv, what):
    proc = subprocess.run([sys.executable, *argv], cwd=ROOT, env=without_train_extra(tmp_path), input="",
                          capture_output=True, text=True, timeout=600)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", f"{what} needs torch: {TRAIN_EXTRA_HINT}\n")
