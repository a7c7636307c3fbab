"""The agent registry: every player of the project by name, and a user's own by ``pkg.module:Name``
(``make_agent``).

The spec grammar is written once, here (:data:`KINDS` and :data:`OTHER_FORMS`); command lines'
help (:func:`spec_help`, :func:`spec_lines`), their errors (:class:`AgentSpecError`) and
docs/agents.md (:func:`spec_table`, kept in step by a test) read it from here. Agents are imported
on first use, so torch loads only for the trained ones.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tute_env.engine.rules import Rules

from .base import Agent


class AgentSpecError(ValueError):
    """A spec that names no agent, or a user's agent that cannot be made: one line, said as is."""


@dataclass(frozen=True)
class SpecArg:
    """The ARG of ``name:ARG``: what it is written as, what it means, the constructor keyword it sets."""

    metavar: str
    """``N``: a positive integer; anything else: that literal word (``ppo:sample``)."""
    meaning: str
    keyword: str
    value: object = None
    """The keyword's value for a literal ARG (None: the integer N)."""
    free: bool = False
    """A free-form ARG, read by the agent class's own ``from_spec(arg, rules, seed)``; ``value``
    is the ARG of the bare name (None: the bare name is refused)."""

    def parse(self, name: str, text: str):
        if self.free:
            return text
        if self.metavar != "N":
            if text != self.metavar:
                raise AgentSpecError(f"bad agent spec '{name}:{text}': {name} takes '{name}:{self.metavar}' "
                                     f"({self.meaning}) or '{name}'")
            return self.value
        try:
            number = int(text)
        except ValueError:
            number = None
        if number is None or number < 1:
            raise AgentSpecError(f"bad agent spec '{name}:{text}': N must be a whole number of at least 1, "
                                 f"the {self.meaning}, e.g. '{name}:128'")
        return number


@dataclass(frozen=True)
class AgentKind:
    """A built-in agent: its name, its class (``module:Class``, imported on first use), a one-line
    help, and the ARG of ``name:ARG`` it takes (None: none)."""

    name: str
    target: str
    help: str
    arg: SpecArg | None = None
    device: bool = False
    """Whether it takes the ``device`` its network runs on."""

    @property
    def form(self) -> str:
        if self.arg is None:
            return self.name
        return f"{self.name}:{self.arg.metavar}" if self.arg.free and self.arg.value is None else \
            f"{self.name}[:{self.arg.metavar}]"


_SAMPLES = "deals sampled per decision"
#: The built-in agents, weakest first.
KINDS: dict[str, AgentKind] = {kind.name: kind for kind in (
    AgentKind("random", "agents.base:RandomAgent", "uniform over the legal moves"),
    AgentKind("greedy", "agents.greedy:GreedyAgent", "one ply, takes a trick with points cheaply"),
    AgentKind("heuristic", "agents.heuristic:HeuristicAgent", "counts cards, scores every card by its expected points"),
    AgentKind("pimc", "agents.pimc:PIMCAgent", "Perfect Information Monte Carlo, plays out sampled deals consistent "
              "with what it knows", SpecArg("N", _SAMPLES, "num_samples")),
    AgentKind("dds", "agents.dds:DDSAgent", "pimc whose sampled deals are solved exactly once no stock is left "
              "(GIB-style)", SpecArg("N", "deals solved per late decision", "num_samples")),
    AgentKind("ppo", "agents.ppo:PPOAgent", "the shipped network of the preset, its most likely move",
              SpecArg("sample", "sample its moves instead", "greedy", False), device=True),
    AgentKind("search", "agents.search:SearchAgent", "pimc whose playouts the shipped network plays and "
              "whose leaves its critic values", SpecArg("N", _SAMPLES, "num_samples")),
    AgentKind("search+dds", "agents.search:SearchDDSAgent", "search until the hand is late, then dds's exact "
              "solutions (two players: once the stock is gone)", SpecArg("N", _SAMPLES, "num_samples")),
    AgentKind("openspiel", "agents.openspiel_bot:OpenSpielAgent", "OpenSpiel's ISMCTS bot on python_tute, from its "
              "own information set ([openspiel] extra)",
              SpecArg("ismcts[k=v,...]", "settings: simulations, uct_c, rollouts, world_samples", "spec",
                      "ismcts", free=True)),
    AgentKind("rlcard", "agents.rlcard_agent:RLCardAgent", "a network RLCard's DMCTrainer saved ([rlcard] extra)",
              SpecArg("PATH[@SEAT]", "a DMC model.tar, and the seat whose network plays", "spec", free=True),
              device=True),
)}
#: The specs that are not built-in names: (form, one-line help).
OTHER_FORMS = (
    ("PATH.pt", "a checkpoint train.py wrote (final.pt, checkpoint.pt): the PPO agent it holds"),
    ("pkg.module:Name", ("your own agent, imported from the working directory or the import path: an "
                         "agents.base.Agent subclass, a factory make(rules[, seed]) or a function "
                         "(observation, action_mask) -> action (docs/agents.md)")),
)
_USER_SPEC = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")


def agent_names() -> list[str]:
    return sorted(KINDS)


def spec_help() -> str:
    """The grammar in one line: every form of an agent spec."""
    return " | ".join([kind.form for kind in KINDS.values()] + [form for form, _ in OTHER_FORMS])


def spec_lines(width: int = 100) -> list[str]:
    """The grammar, a form and its help an entry, wrapped to ``width`` (a command line's epilog)."""
    entries = [(kind.form, kind.help + (f" ({kind.arg.metavar}: {kind.arg.meaning})" if kind.arg else ""))
               for kind in KINDS.values()]
    lines = []
    for form, text in [*entries, *OTHER_FORMS]:
        lines += textwrap.wrap(text, width, initial_indent=f"  {form:<16} ", subsequent_indent=" " * 19)
    return lines


def spec_table() -> str:
    """The grammar as a markdown table (docs/agents.md embeds it; a test keeps the two equal)."""
    lines = ["| spec | ARG | what it plays |", "|---|---|---|"]
    for kind in KINDS.values():
        arg = f"`{kind.arg.metavar}`: {kind.arg.meaning}" if kind.arg else ""
        lines.append(f"| `{kind.form}` | {arg} | {kind.help} |")
    lines += [f"| `{form}` | | {text} |" for form, text in OTHER_FORMS]
    return "\n".join(lines)


def kind_help(name: str) -> str:
    """The one-line help of a built-in agent."""
    return KINDS[name].help


@dataclass(frozen=True)
class Spec:
    """A parsed agent spec: a built-in agent (``kind``, its constructor keywords), a checkpoint
    (``path``) or a user's agent (``module``, ``attr``)."""

    text: str
    kind: AgentKind | None = None
    keywords: dict = field(default_factory=dict)
    label: str | None = None
    """A built-in agent's name with its ARG (``pimc:128``, ``ppo:sample``)."""
    path: str | None = None
    module: str | None = None
    attr: str | None = None


def parse_spec(spec: str) -> Spec:
    """The grammar alone (nothing imported, no file read): a :class:`Spec`, or :class:`AgentSpecError`.

    A built-in name comes first (``ppo``, ``pimc:128``); then ``pkg.module:Name``; then a
    checkpoint: a path ending in ``.pt`` or ``.pth``, or any existing file."""
    if not isinstance(spec, str) or not spec:
        raise AgentSpecError(f"bad agent spec {spec!r}: expected {spec_help()}")
    name, colon, arg = spec.partition(":")
    if name in KINDS:
        kind = KINDS[name]
        if kind.arg is not None and kind.arg.free:
            arg = arg if colon else kind.arg.value
            if not arg:
                raise AgentSpecError(f"bad agent spec {spec!r}: write '{name}:{kind.arg.metavar}' ({kind.arg.meaning})")
            return Spec(spec, kind, {"spec": arg}, f"{name}:{arg}")
        if not colon:
            return Spec(spec, kind)
        if kind.arg is None:
            raise AgentSpecError(f"bad agent spec {spec!r}: {name} takes no ARG, write '{name}'")
        value = kind.arg.parse(name, arg)
        label = f"{name}:{value if kind.arg.value is None else arg}"
        return Spec(spec, kind, {kind.arg.keyword: value}, label)
    if _USER_SPEC.fullmatch(spec):
        return Spec(spec, module=name, attr=arg)
    if Path(spec).suffix in (".pt", ".pth") or Path(spec).is_file():
        return Spec(spec, path=spec)
    raise AgentSpecError(f"unknown agent {spec!r}: expected {spec_help()}")


def check_spec(spec: str) -> None:
    """What can be checked before a game is played: the grammar, that a checkpoint loads, that a
    user's agent imports and is of a kind that plays. Raises ``ValueError``."""
    parsed = parse_spec(spec)
    if parsed.path is not None:
        from .ppo import load_checkpoint  # torch: checkpoints only

        load_checkpoint(parsed.path)
    elif parsed.module is not None:
        user_maker(parsed)


def make_agent(spec: str, rules: Rules, seed: int = 0, device: str = "cpu") -> Agent:
    """An agent from its spec (the grammar: :func:`spec_lines`, docs/agents.md), seeded with ``seed``.
    ``device``: where a trained agent's network runs (``auto``, ``cpu``, ``cuda``, ``cuda:N``).
    A bad spec raises :class:`AgentSpecError`; an agent that cannot play ``rules``, ``ValueError``."""
    parsed = parse_spec(spec)
    if parsed.path is not None:
        from .ppo import PPOAgent  # torch: loaded for trained agents only

        return PPOAgent.from_checkpoint(parsed.path, rules, seed=seed, device=device)
    if parsed.module is not None:
        return user_maker(parsed)(rules, seed)
    kind = parsed.kind
    module, cls = kind.target.split(":")
    device_keyword = {"device": device} if kind.device else {}
    if kind.arg is not None and kind.arg.free:
        try:
            return getattr(importlib.import_module(module), cls).from_spec(parsed.keywords["spec"], rules, seed=seed,
                                                                            **device_keyword)
        except ImportError as err:
            raise AgentSpecError(f"the {kind.name} agent needs the [{kind.name}] extra: pip install "
                                 f"'tute_env[{kind.name}]' ({_one_line(err)})") from None
    keywords = {**parsed.keywords, **device_keyword}
    agent = getattr(importlib.import_module(module), cls)(rules, seed=seed, **keywords)
    if parsed.label:
        agent.name = parsed.label
    return agent


# ----------------------------------------------------------------------------------------------
# A user's agent: pkg.module:Name
# ----------------------------------------------------------------------------------------------
class PolicyAgent(Agent):
    """A user's policy (any object with ``act_batch``) as an :class:`Agent`."""

    def __init__(self, rules: Rules, policy, name: str, seed: int = 0):
        super().__init__(rules, seed)
        self.policy, self.name = policy, name
        self.takes_keys = bool(getattr(policy, "takes_keys", False))

    def act_batch(self, observations, masks, **keys):
        return self.policy.act_batch(observations, masks, **keys)


class FunctionAgent(Agent):
    """A user's function ``(observation, action_mask) -> action`` as a batched agent: called
    once a row, with a (obs_size,) int8 observation and a (47,) bool mask."""

    def __init__(self, rules: Rules, function: Callable, name: str, seed: int = 0):
        super().__init__(rules, seed)
        self.function, self.name = function, name

    def act_batch(self, observations, masks):
        masks = np.asarray(masks, dtype=bool)
        return np.array([int(self.function(obs, mask)) for obs, mask in zip(observations, masks)], dtype=np.int64)


KINDS_OF_USER_AGENT = ("an agents.base.Agent subclass, a factory make(rules[, seed]) returning an Agent or a "
                       "policy with act_batch, or a function (observation, action_mask) -> action")


def user_maker(spec: Spec) -> Callable[[Rules, int], Agent]:
    """``(rules, seed) -> Agent`` for a user's ``pkg.module:Name``: the module imported (from the
    working directory or the import path), the object's kind told. Raises :class:`AgentSpecError`."""
    module = _import_user_module(spec)
    try:
        obj = getattr(module, spec.attr)
    except AttributeError:
        raise AgentSpecError(f"agent {spec.text!r}: module {spec.module!r} has no {spec.attr!r}") from None
    if isinstance(obj, type) and issubclass(obj, Agent):
        return _guarded(spec, lambda rules, seed: obj(rules, seed=seed))
    try:
        params = inspect.signature(obj).parameters if callable(obj) else None
    except (TypeError, ValueError):
        params = None
    if params is None:
        raise AgentSpecError(f"agent {spec.text!r} is {_kind_of(obj)}: expected {KINDS_OF_USER_AGENT}")
    positional = [p for p in params.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    takes_seed = "seed" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())
    if "rules" in params or len(required) == 1:
        def make(rules: Rules, seed: int) -> Agent:
            made = obj(rules, seed=seed) if takes_seed else obj(rules)
            if isinstance(made, Agent):
                return made
            if callable(getattr(made, "act_batch", None)):
                return PolicyAgent(rules, made, spec.text, seed)
            raise AgentSpecError(f"agent {spec.text!r}: the factory returned {_kind_of(made)}, not an Agent "
                                 "or a policy with act_batch")
        return _guarded(spec, make)
    if len(required) == 2 or (len(required) < 2 <= len(positional)):
        return lambda rules, seed: FunctionAgent(rules, obj, spec.text, seed)
    raise AgentSpecError(f"agent {spec.text!r} is a callable of {len(required)} required arguments: "
                         f"expected {KINDS_OF_USER_AGENT}")


def _kind_of(obj) -> str:
    if isinstance(obj, type):
        return f"a class ({obj.__name__}, not an Agent subclass)"
    name = type(obj).__name__
    return f"{'an' if name[0] in 'aeiouAEIOU' else 'a'} {name}"


def _guarded(spec: Spec, make: Callable[[Rules, int], Agent]) -> Callable[[Rules, int], Agent]:
    """``make`` whose exceptions (a user's constructor or factory failing) are one-line errors."""
    def guarded(rules: Rules, seed: int) -> Agent:
        try:
            agent = make(rules, seed)
        except AgentSpecError:
            raise
        except Exception as err:
            raise AgentSpecError(f"agent {spec.text!r} could not be made: {_one_line(err)}") from None
        if agent.name == Agent.name:
            agent.name = spec.text
        return agent
    return guarded


def _import_user_module(spec: Spec):
    """``spec.module``, the working directory searched first (as ``python -m`` does) while it is imported."""
    cwd = os.getcwd()
    added = cwd not in sys.path and "" not in sys.path
    if added:
        sys.path.insert(0, cwd)
    try:
        importlib.invalidate_caches()  # a module written since the last import is found
        return importlib.import_module(spec.module)
    except ModuleNotFoundError as err:
        if err.name and spec.module.startswith(err.name) and spec.module[len(err.name):][:1] in ("", "."):
            raise AgentSpecError(f"agent {spec.text!r}: no module named {err.name!r} in the working directory "
                                 "or on the import path") from None
        raise AgentSpecError(f"agent {spec.text!r}: importing {spec.module!r} failed: {_one_line(err)}") from None
    except Exception as err:  # the module's own code failed (a SyntaxError is an Exception too)
        raise AgentSpecError(f"agent {spec.text!r}: importing {spec.module!r} failed: {_one_line(err)}") from None
    finally:
        if added:
            sys.path.remove(cwd)


def _one_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0]}" if text else type(err).__name__
