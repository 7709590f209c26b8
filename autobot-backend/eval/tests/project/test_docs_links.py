"""Every link between the docs lands: the file is there and, for a page, so is the heading it names.

The pages are ``docs/eval/*.md`` and the README, parsed as Markdown (markdown-it-py, the CommonMark parser
rich already brings), so a ``#`` in a code block is never taken for a heading nor a link in one for a link.
A heading's anchor is GitHub's: its text lower-cased, every character but letters, digits, marks, ``-``,
``_`` and spaces dropped, spaces made ``-``, and a repeated one numbered ``-1``, ``-2``. Links off the
repository (``https:``, ``mailto:``) are not followed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from urllib.parse import unquote

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

REPO_ROOT = Path(__file__).resolve().parents[4]
PAGES = [*sorted((REPO_ROOT / "docs" / "eval").glob("*.md")), REPO_ROOT / "README.md"]
_PARSER = MarkdownIt("commonmark").enable("table")
_HTML_ID = re.compile(r"""<a\s[^>]*\b(?:id|name)=["']([^"']+)["']""")


def slug(text: str) -> str:
    """GitHub's anchor of a heading's text (github-slugger's rule)."""
    kept = "".join(c for c in text.lower() if c in " -_" or unicodedata.category(c)[0] in "LMN")
    return kept.replace(" ", "-")


def _text(inline: Token) -> str:
    return "".join(c.content for c in inline.children or () if c.type in ("text", "code_inline"))


def _walk(tokens: list[Token]) -> Iterator[Token]:
    for t in tokens:
        yield t
        yield from _walk(t.children or [])


@cache
def anchors(page: Path) -> frozenset[str]:
    """Every anchor a page has: its headings' (numbered when repeated) and its HTML ``id``/``name``s."""
    tokens = _PARSER.parse(page.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    found = set()
    for i, t in enumerate(tokens):
        if t.type == "heading_open":
            base = slug(_text(tokens[i + 1]))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        if t.type in ("html_block", "html_inline"):
            found.update(_HTML_ID.findall(t.content))
    for t in _walk(tokens):
        if t.type == "html_inline":
            found.update(_HTML_ID.findall(t.content))
    return frozenset(found)


def links(page: Path) -> list[tuple[int, str]]:
    """(line, target) of every link and image of a page."""
    out = []
    tokens = _PARSER.parse(page.read_text(encoding="utf-8"))
    for block in tokens:
        line = block.map[0] + 1 if block.map else 0
        for t in _walk(block.children or []):
            target = t.attrGet("href") if t.type == "link_open" else t.attrGet("src") if t.type == "image" else None
            if isinstance(target, str):
                out.append((line, target))
    return out


def _shown(path: Path) -> Path:
    return path.relative_to(REPO_ROOT) if path.is_relative_to(REPO_ROOT) else path


def broken(page: Path, target: str) -> str | None:
    """Why a link of ``page`` lands nowhere, or None when it lands."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
        return None  # https:, mailto: ...: off the repository
    path, _, fragment = target.partition("#")
    dest = (page.parent / unquote(path)).resolve() if path else page
    if not dest.exists():
        return f"no file {_shown(dest)}"
    if fragment and dest.suffix == ".md" and unquote(fragment) not in anchors(dest):
        return f"no heading #{fragment} on {_shown(dest)}"
    return None


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_lands_on_a_file_and_a_heading(page: Path):
    bad = [f"{page.relative_to(REPO_ROOT)}:{n}: ({t}): {why}" for n, t in links(page) if (why := broken(page, t))]
    assert not bad, "links that land nowhere; point each at the page and heading that holds it now:\n" + "\n".join(bad)


def test_anchors_are_githubs_and_a_broken_link_is_caught(tmp_path: Path):
    assert slug("Signals (Ctrl-C, SIGTERM): a run ends cleanly") == "signals-ctrl-c-sigterm-a-run-ends-cleanly"
    assert slug("Numbers at the question's precision") == "numbers-at-the-questions-precision"
    assert slug("Lints: what they are, when they fire") == "lints-what-they-are-when-they-fire"
    assert slug("snake_case and é") == "snake_case-and-é"
    other = tmp_path / "other.md"
    other.write_text("# Other\n\n## The `make docs` step\n\n## Twice\n\n## Twice\n\n```\n# not a heading\n```\n")
    assert anchors(other) == {"other", "the-make-docs-step", "twice", "twice-1"}
    page = tmp_path / "page.md"
    page.write_text(
        "[a](other.md#twice-1) [b](other.md#not-a-heading) [c](gone.md) [d](https://example.com/x#y) "
        "[e](#page) ![f](other.md)\n\n# Page\n\n```\n[g](not-a-link.md)\n```\n"
    )
    found = {t: broken(page, t) for _, t in links(page)}
    assert found == {
        "other.md#twice-1": None,
        "other.md#not-a-heading": f"no heading #not-a-heading on {other}",
        "gone.md": f"no file {tmp_path / 'gone.md'}",
        "https://example.com/x#y": None,
        "#page": None,
        "other.md": None,
    }
