"""docs/frameworks.md: every framework's snippet runs as written (each in a fresh process, from the
checkout), and the page has a section for each framework of its table."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "frameworks.md"
FAST = {"PettingZoo", "Gymnasium"}  # the others start a framework (seconds): slow


def snippets() -> dict[str, str]:
    """Section title -> its first python code block."""
    out = {}
    for section in PAGE.read_text().split("\n## ")[1:]:
        title, _, body = section.partition("\n")
        block = re.search(r"```python\n(.*?)```", body, re.S)
        if block:
            out[title.strip()] = block.group(1)
    return out


def run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_every_framework_in_the_table_has_a_snippet():
    table = re.findall(r"^\| (\S[^|]*?) \| `", PAGE.read_text(), re.M)
    assert set(snippets()) == {"Stable-Baselines3" if name == "SB3 (sb3-contrib)" else name for name in table}


@pytest.mark.parametrize("name", sorted(FAST))
def test_the_fast_snippets_run(name):
    proc = run(snippets()[name])
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "reward" in proc.stdout


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(snippets()) - FAST))
def test_the_other_snippets_run(name):
    proc = run(snippets()[name])
    assert proc.returncode == 0, proc.stderr[-3000:]
