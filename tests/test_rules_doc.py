"""docs/rules.md against the code: every rule option with its values and default, every preset,
every rule id the code cites; the links to the page; the LICENSE pyproject.toml declares."""

from __future__ import annotations

import dataclasses
import re
import typing
from pathlib import Path

import pytest

from tute_env.engine import rules as rules_module
from tute_env.engine.rules import PRESETS, Rules

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
FIELDS = {f.name: f for f in dataclasses.fields(Rules)}
RULE_ID = re.compile(r"\bR[0-9]+b?\b")
# Integer options are probed over this window; an open range "`a`.." in the doc means a..PROBE_MAX.
PROBE_MIN, PROBE_MAX = -2, 60


# ---------------------------------------------------------------------------------------------
# Reading the page


def section(title: str) -> str:
    """Text of the ``## title`` section, up to the next ``## `` heading."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", DOC, re.M | re.S)
    assert match, f"docs/rules.md has no '## {title}' section"
    return match.group(1)


def tables(text: str) -> list[list[list[str]]]:
    """The markdown tables in ``text``, each as rows of cells (separator rows dropped)."""
    found, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                current.append(cells)
        elif current:
            found.append(current)
            current = []
    return found


def ticks(cell: str) -> list[str]:
    return re.findall(r"`([^`]*)`", cell)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


HEADINGS = re.findall(r"^#{1,6} (.+)$", DOC, re.M)
RULE_HEADINGS = {m.group(0) for h in HEADINGS if (m := re.match(r"R[0-9]+b?\b", h))}


def options_table() -> dict[str, dict[str, str]]:
    (table, *_) = tables(section("Options"))
    header, *rows = table
    assert header[:5] == ["option", "values", "default", "rule", "what it does"], header
    out = {}
    for row in rows:
        (name,) = ticks(row[0])
        assert name not in out, f"option {name} listed twice"
        out[name] = dict(zip(header, row))
    return out


# ---------------------------------------------------------------------------------------------
# Options


def test_options_table_lists_exactly_the_rules_fields():
    assert set(options_table()) == set(FIELDS)


def _accepted(name: str, value, base: Rules) -> bool:
    try:
        dataclasses.replace(base, **{name: value})
    except ValueError:
        return False
    return True


def _described_ints(text: str) -> set[int]:
    """Integers a values cell (or one ';' segment of it) names: `a`, `a`..`b`, `a`.. (open)."""
    values = set()
    for first, dots, last in re.findall(r"`(-?\d+)`(\s*\.\.\s*(?:`(-?\d+)`)?)?", text):
        if not dots:
            values.add(int(first))
        else:
            values.update(range(int(first), (int(last) if last else PROBE_MAX) + 1))
    return values


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_option_values_default_and_rule_id(name):
    row = options_table()[name]
    field = FIELDS[name]
    annotation = typing.get_type_hints(Rules)[name]
    listed = ticks(row["values"])
    if typing.get_origin(annotation) is typing.Literal:
        allowed = typing.get_args(annotation)
        assert sorted(listed) == sorted(allowed), f"{name}: the doc lists {listed}, rules.py allows {allowed}"
        assert set(allowed) == set(rules_module._CHOICES[name])
        for value in allowed:  # each one is really accepted (by a two-player game, which takes them all)
            assert _accepted(name, value, PRESETS["two_player"]), f"{name}={value!r} rejected"
        assert not _accepted(name, "no-such-value", PRESETS["two_player"])
    elif annotation is bool:
        assert sorted(listed) == ["False", "True"], f"{name}: {listed}"
        assert not _accepted(name, "yes", Rules())
    elif annotation is int:
        segments = [s for s in row["values"].split(";") if s.strip()]
        qualified = [re.search(r"\((\d+) players?\)", s) for s in segments]
        if any(qualified):  # values per number of players, e.g. hand_size
            assert all(qualified), f"{name}: qualify every segment by a number of players"
            counts = sorted(int(q.group(1)) for q in qualified)
            assert counts == sorted(_described_ints(options_table()["num_players"]["values"])), counts
            cases = [(s.split("(")[0], Rules(num_players=int(q.group(1)))) for s, q in zip(segments, qualified)]
        else:
            cases = [(row["values"], Rules())]
        for text, base in cases:
            described = _described_ints(text)
            accepted = {v for v in range(PROBE_MIN, PROBE_MAX + 1) if _accepted(name, v, base)}
            assert described == accepted, (
                f"{name} with {base.num_players} players: the doc says {sorted(described)}, "
                f"make_rules accepts {sorted(accepted)}"
            )
            if re.search(r"`\s*\.\.(?!\s*`)", text):  # an open range: large values are accepted too
                assert _accepted(name, 10**6, base)
        assert not _accepted(name, True, Rules()) and not _accepted(name, 2.0, Rules())
    else:
        pytest.fail(f"no check for option {name} of type {annotation}: teach this test about it")

    assert ticks(row["default"])[:1] == [str(field.default)], f"{name}: default {row['default']} != {field.default!r}"
    cited = RULE_ID.findall(row["rule"])
    assert cited, f"{name}: no rule id"
    assert set(cited) <= RULE_HEADINGS, f"{name}: {cited} not all defined"


# ---------------------------------------------------------------------------------------------
# Presets


def test_presets_table_matches_presets():
    options_by_preset, derived = tables(section("Presets"))[:2]
    header, *rows = options_by_preset
    assert header[0] == "preset"
    columns = [ticks(h)[0] for h in header[1:]]
    assert set(columns) <= set(FIELDS), columns
    default = Rules()
    differing = {n for n in FIELDS for r in PRESETS.values() if getattr(r, n) != getattr(default, n)}
    assert differing <= set(columns), f"options some preset changes but the table leaves out: {differing - set(columns)}"
    seen = []
    for row in rows:
        (name,) = ticks(row[0])
        seen.append(name)
        for column, cell in zip(columns, row[1:]):
            assert ticks(cell)[:1] == [str(getattr(PRESETS[name], column))], f"{name}.{column}: {cell}"
    assert sorted(seen) == sorted(PRESETS)

    header, *rows = derived
    stock, drawn, tricks = (header.index(h) for h in ("stock after the deal", "cards drawn by each player",
                                                      "tricks in a hand"))
    covered = []
    for row in rows:
        for name in ticks(row[0]):
            covered.append(name)
            r = PRESETS[name]
            number = re.match(r"\d+", row[stock])
            assert (int(number.group()) if number else 0) == r.stock_size, f"{name}: {row[stock]}"
            to_draw = r.stock_size + (1 if r.has_stock and r.turned_card_drawn else 0)
            assert int(row[drawn]) == to_draw // r.num_players, f"{name}: {row[drawn]}"
            assert int(row[tricks]) == r.num_tricks, f"{name}: {row[tricks]}"
    assert sorted(covered) == sorted(PRESETS)


def test_variants_table_names_every_preset():
    (table, *_) = tables(section("The variants"))
    assert sorted(ticks(row[0])[0] for row in table[1:]) == sorted(PRESETS)


# ---------------------------------------------------------------------------------------------
# Rule ids and links


def _code_files() -> list[Path]:
    files = [ROOT / "evaluate.py", ROOT / "train.py"]
    for folder in ("tute_env", "agents"):
        files += sorted((ROOT / folder).rglob("*.py"))
    return files


def test_every_rule_id_the_code_cites_has_a_heading():
    cited = {}
    for path in _code_files():
        for rule_id in RULE_ID.findall(path.read_text(encoding="utf-8")):
            cited.setdefault(rule_id, path.relative_to(ROOT))
    assert {"R1", "R5", "R8b", "R10"} <= set(cited)  # the scan itself works
    missing = {rid: str(path) for rid, path in cited.items() if rid not in RULE_HEADINGS}
    assert not missing, f"rule ids cited in the code without a heading in docs/rules.md: {missing}"


def test_internal_links_resolve():
    anchors = {slug(h) for h in HEADINGS}
    links = re.findall(r"\]\(#([^)]+)\)", DOC)
    assert links
    assert not sorted(set(links) - anchors), f"links to no heading: {sorted(set(links) - anchors)}"


def test_page_stands_alone_and_is_linked():
    assert "RULES.md" not in DOC and "shared/" not in DOC
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](docs/rules.md" in readme
    from tute_env import tute_v0

    assert "docs/rules.md" in tute_v0.__doc__
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *_code_files()]:
        text = path.read_text(encoding="utf-8")
        assert "RULES.md" not in text and "shared/" not in text, f"{path.relative_to(ROOT)} points at the spec"


# ---------------------------------------------------------------------------------------------
# License


def test_license_is_mit_as_pyproject_says():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^license\s*=\s*\{\s*text\s*=\s*"MIT"\s*\}', pyproject, re.M)
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License")
    assert "Permission is hereby granted, free of charge" in license_text
    assert "the tute_env contributors" in license_text
