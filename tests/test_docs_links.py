"""Every relative Markdown link in README.md and docs/**/*.md points to a file that exists, and a link
with an anchor (``page.md#heading``, ``#heading``) to a heading of that page (GitHub's slugs)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

# Pages linked before they land (written on another branch at the same time): a pending page is
# checked like any other once it exists; drop it from here when it is merged.
PENDING: set[str] = set()

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
# [text](target) and ![alt](target), the target up to a space (a title may follow) or the closing parenthesis.
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def prose(text: str) -> str:
    """The text without fenced code blocks and code spans, where a bracket is no link."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped (hyphens and underscores
    kept), spaces to hyphens; inline markup (code, emphasis, links) reduced to its text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").replace("*", "")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading's anchor in ``page``, a repeated heading numbered as GitHub numbers it."""
    seen: dict[str, int] = {}
    out = set()
    for heading in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        base = slug(heading)
        n = seen.get(base, 0)
        out.add(base if n == 0 else f"{base}-{n}")
        seen[base] = n + 1
    return out


def broken_links(page: Path, root: Path = ROOT, pending: set[str] = frozenset()) -> list[str]:
    """The relative links of ``page`` that lead nowhere, each as ``target: why``."""
    problems = []
    for target in LINK.findall(prose(page.read_text(encoding="utf-8"))):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):  # http:, https:, mailto: ...
            continue
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        try:
            rel = dest.relative_to(root).as_posix()
        except ValueError:
            problems.append(f"{target}: outside the repository")
            continue
        if not dest.exists():
            if rel not in pending:
                problems.append(f"{target}: no such file ({rel})")
            continue
        if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            problems.append(f"{target}: no heading '#{anchor}' in {rel}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(page):
    assert not broken_links(page, pending=PENDING), f"{page.relative_to(ROOT)}: broken links"


def test_the_pages_are_found_and_linked_from_the_index():
    names = {p.relative_to(ROOT).as_posix() for p in PAGES}
    assert {"README.md", "docs/index.md", "docs/rules.md", "docs/strength.md"} <= names
    index = ROOT / "docs" / "index.md"
    linked = {(index.parent / t.partition("#")[0]).resolve() for t in LINK.findall(prose(index.read_text()))}
    unlisted = [p.relative_to(ROOT).as_posix() for p in PAGES
                if p.parent != ROOT and p != index and p.resolve() not in linked]
    assert not unlisted, f"pages under docs/ that docs/index.md does not list: {unlisted}"


def test_a_broken_link_is_caught(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "there.md").write_text("# A heading, with `code`\n\ntext\n")
    page = tmp_path / "docs" / "page.md"
    page.write_text(
        "[ok](there.md) [ok anchor](there.md#a-heading-with-code) ![pic](there.md) [web](https://example.org/x)\n"
        "[missing](gone.md) [bad anchor](there.md#nope) ![missing picture](img/none.png) [self](#top)\n"
        "`[in code](nowhere.md)`\n\n```\n[in a block](nowhere.md)\n```\n"
        "[pending](later.md) [escape](../../outside.md)\n# Top\n")
    assert broken_links(page, root=tmp_path, pending={"docs/later.md"}) == [
        "gone.md: no such file (docs/gone.md)",
        "there.md#nope: no heading '#nope' in docs/there.md",
        "img/none.png: no such file (docs/img/none.png)",
        "../../outside.md: outside the repository",
    ]
