"""The project's layers, checked on its import graph (read from the source, imports inside
functions included): no import cycle between modules, nothing importing upward or sideways, no torch
in tute_env, and the wheel's package list matching the tree. docs/architecture.md draws the same
layers; its table is checked against LAYERS here, so the page cannot go stale."""

from __future__ import annotations

import ast
import functools
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
from conftest import python_files

ROOT = Path(__file__).resolve().parent.parent

# Bottom to top. A unit is a module of tute_env, a whole package or folder (its modules import each
# other freely, cycles apart), or a script. A module may import the units of the layers below its
# own and nothing else: not upward, and not a peer in its own layer.
LAYERS = [
    {"tute_env", "tute_env.engine", "tute_env.engine.cards"},
    {"tute_env.engine.rules"},
    {"tute_env.engine.deal", "tute_env.engine.state"},
    {"tute_env.engine.kernel"},
    {"tute_env.engine.checks"},
    {"tute_env.engine.core", "tute_env.engine.reference"},
    {"tute_env.engine.scoring", "tute_env.engine.observation"},
    {"tute_env.play"},
    {"tute_env.envs", "tute_env.search"},
    {"tute_env.envs.openspiel"},
    {"agents"},
    {"tute_lab", "tute_play"},
    {"train", "evaluate"},
    {"bench", "examples"},
]
# The folders and scripts walked (tests/ is not: it may import anything).
WALKED = ("tute_env", "agents", "tute_lab", "tute_play", "bench", "examples", "train.py", "evaluate.py")
CHECKOUT_ONLY = {"bench", "examples", "tests"}  # not in the wheel


@functools.cache
def module_files() -> dict[str, tuple[Path, ast.Module]]:
    """Every walked module by dotted name: its path (relative to the checkout) and syntax tree."""
    modules = {}
    for rel, tree in python_files():
        if rel.parts[0] not in WALKED:
            continue
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = (rel, tree)
    return modules


@functools.cache
def import_graph() -> dict[str, dict[str, int]]:
    """module -> {imported project module: line of the first such import}."""
    modules = module_files()

    def resolve(name: str) -> str | None:  # the project module a dotted name lies in, if any
        name = name.removeprefix("tute_scripts.")  # the scripts' installed names
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for mod, (rel, tree) in modules.items():
        package = mod if rel.name == "__init__.py" else mod.rpartition(".")[0]
        edges: dict[str, int] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the package, up level - 1
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                names = [f"{base}.{a.name}" for a in node.names]  # a submodule, or a name in base
            else:
                continue
            for name in names:
                target = resolve(name)
                if target and target != mod:
                    edges.setdefault(target, node.lineno)
        graph[mod] = edges
    return graph


def unit_of(module: str) -> str:
    units = [u for layer in LAYERS for u in layer if module == u or module.startswith(u + ".")]
    assert units, f"{module} is in no layer: add it to LAYERS here and to docs/architecture.md"
    return max(units, key=len)


def layer_of(unit: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if unit in layer)


def find_cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    cycles = []
    for component in components:  # a path from its first module back to it, inside the component
        start = min(component)
        path, seen = [start], {start}
        while True:
            nxt = sorted(w for w in graph[path[-1]] if w in component)
            if start in nxt:
                cycles.append(path + [start])
                break
            step = next((w for w in nxt if w not in seen), None) or nxt[0]
            if step in seen:  # walked into a loop not through start: report that loop
                cycles.append(path[path.index(step):] + [step])
                break
            path.append(step)
            seen.add(step)
    return cycles


def test_the_cycle_finder_finds_cycles():
    graph = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1, "d": 1}, "d": {}, "e": {"e2": 1}, "e2": {"e": 1}}
    assert sorted(find_cycles(graph)) == [["a", "b", "c", "a"], ["e", "e2", "e"]]
    assert find_cycles({"a": {"b": 1}, "b": {}}) == []


def test_the_graph_sees_relative_imports_and_imports_inside_functions():
    graph = import_graph()
    assert "tute_play.web.session" in graph["tute_play.web"]  # from .session import ... in __init__
    assert "tute_env.envs.args" in graph["tute_env.envs.gym_env"]  # from .args import ... (module level)
    assert "tute_env.engine.core" in graph["tute_play.narrate"]


def test_no_import_cycles():
    cycles = find_cycles(import_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_nothing_imports_upward_or_sideways():
    bad = []
    for mod, edges in sorted(import_graph().items()):
        unit = unit_of(mod)
        for target, line in sorted(edges.items()):
            other = unit_of(target)
            if other != unit and layer_of(other) >= layer_of(unit):
                where = "a peer" if layer_of(other) == layer_of(unit) else "upward"
                bad.append(f"{mod}:{line} imports {target} ({where}: {unit} in layer {layer_of(unit) + 1}, "
                           f"{other} in layer {layer_of(other) + 1})")
    assert not bad, "imports against the layers (tests/test_layout.py LAYERS):\n" + "\n".join(bad)


def test_every_module_is_in_a_layer_and_every_unit_exists():
    modules = module_files()
    for mod in modules:
        unit_of(mod)
    missing = sorted(u for layer in LAYERS for u in layer if not any(m == u or m.startswith(u + ".") for m in modules))
    assert not missing, f"LAYERS names modules that do not exist: {missing}"


def private_reach_ins() -> list[str]:
    """``from module import _name`` of another project module, or ``module._name`` through a project
    module imported by name: each a use of another module's underscore name (dunders aside)."""
    modules, bad = module_files(), []
    for mod, (rel, tree) in modules.items():
        package = mod if rel.name == "__init__.py" else mod.rpartition(".")[0]
        aliases = {}  # local name -> project module it names
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                base = base.removeprefix("tute_scripts.")
                for a in node.names:
                    if f"{base}.{a.name}" in modules:
                        aliases[a.asname or a.name] = f"{base}.{a.name}"
                    elif base in modules and base != mod and a.name.startswith("_") and not a.name.startswith("__"):
                        bad.append(f"{rel}:{node.lineno} imports {a.name} from {base}")
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in modules and a.asname:
                        aliases[a.asname] = a.name
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and aliases[node.value.id] != mod and node.attr.startswith("_") and not node.attr.startswith("__")):
                bad.append(f"{rel}:{node.lineno} uses {aliases[node.value.id]}.{node.attr}")
    return bad


def test_no_module_uses_another_modules_underscore_names():
    bad = private_reach_ins()
    assert not bad, "underscore names used across modules (give them a public name):\n" + "\n".join(bad)


def test_the_reach_in_check_sees_both_forms(tmp_path, monkeypatch):
    fake = {"pkg.a": (Path("pkg/a.py"), ast.parse("from .b import _hidden, shown\nfrom . import b\nb._secret()\n")),
            "pkg.b": (Path("pkg/b.py"), ast.parse("_hidden = shown = 1\ndef _secret(): pass\n"))}
    monkeypatch.setattr(sys.modules[__name__], "module_files", lambda: fake)
    assert private_reach_ins() == ["pkg/a.py:1 imports _hidden from pkg.b", "pkg/a.py:3 uses pkg.b._secret"]


def test_tute_env_does_not_import_torch():
    bad = []
    for mod, (rel, tree) in module_files().items():
        if unit_of(mod).split(".")[0] != "tute_env":
            continue
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            bad += [f"{rel}:{node.lineno} imports {n}" for n in names if n.split(".")[0] == "torch"]
    assert not bad, bad


@pytest.mark.slow
def test_tute_env_imports_neither_agents_nor_torch_when_run():
    """At run time too (a third-party module could pull torch in): the env and its views in a fresh process."""
    code = ("import sys, tute_env, tute_env.envs.tute_v0, tute_env.envs.gym_env, tute_env.play.seating, tute_env.engine.scoring; "
            "env = tute_env.envs.gym_env.TuteEnv('two_player'); env.reset(seed=0); "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('agents', 'torch', 'train', 'evaluate')); "
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def documented_layers(text: str) -> list[set[str]]:
    """The layer table of docs/architecture.md (rows ``| N | `unit`, `unit` | what |``), bottom first."""
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].isdigit():
            rows[int(cells[0])] = set(re.findall(r"`([\w.]+)`", cells[1]))
    return [rows[n] for n in sorted(rows)]


def test_the_architecture_page_draws_the_layers_enforced_here():
    documented = documented_layers((ROOT / "docs" / "architecture.md").read_text())
    assert documented == LAYERS, (
        "docs/architecture.md's layer table and tests/test_layout.py's LAYERS differ (bottom first):\n"
        f"page: {[sorted(layer) for layer in documented]}\ntest: {[sorted(layer) for layer in LAYERS]}")


def test_the_wheel_lists_every_package_of_the_tree():
    """pyproject's explicit `packages` is every folder with an __init__.py outside the checkout-only
    ones, plus tute_scripts (the checkout's top folder, whose only modules are train.py and evaluate.py)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    tree = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in ROOT.rglob("__init__.py")
        if not p.relative_to(ROOT).parts[0].startswith(".")
        and p.relative_to(ROOT).parts[0] not in CHECKOUT_ONLY | {"build"}
    }
    assert sorted(config["packages"]) == sorted(tree | {"tute_scripts"})
    assert config["package-dir"] == {"tute_scripts": "."}
    assert sorted(p.name for p in ROOT.glob("*.py")) == ["evaluate.py", "train.py"]
