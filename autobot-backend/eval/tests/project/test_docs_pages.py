"""Each reader's page keeps to its reader: the methodology opens with its contents (every section in it) and a
glossary; measured times live on the performance page only, so a figure that holds for one machine on one day
is never read as a property of the method."""

from __future__ import annotations

import re
from pathlib import Path

from markdown_it import MarkdownIt

from eval.tests.project.test_docs_links import PAGES, REPO_ROOT, anchors, links, slug

DOCS = REPO_ROOT / "docs" / "eval"
METHODOLOGY = DOCS / "sql-methodology.md"
PERFORMANCE = DOCS / "performance.md"
GLOSSARY_TERMS = 15
TIME_OF_DAY = re.compile(r"\b\d{1,2}:\d{2}(?:-\d{1,2}:\d{2})? UTC\b")
BENCH_COMMAND = re.compile(r"^\$ .*(?:make bench|BENCH_)")
_PARSER = MarkdownIt("commonmark").enable("table")


def section(page: Path, title: str) -> str:
    """The text under a ``## title`` heading, to the next ``## ``."""
    text = page.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def h2_anchors(page: Path) -> list[str]:
    tokens = _PARSER.parse(page.read_text(encoding="utf-8"))
    return [
        slug("".join(c.content for c in tokens[i + 1].children or () if c.type in ("text", "code_inline")))
        for i, t in enumerate(tokens)
        if t.type == "heading_open" and t.tag == "h2"
    ]


def test_the_methodologys_contents_names_every_section():
    listed = set(re.findall(r"\]\(#([^)]+)\)", section(METHODOLOGY, "Contents")))
    missing = [a for a in h2_anchors(METHODOLOGY) if a != "contents" and a not in listed]
    assert not missing, f"sections of {METHODOLOGY.name} missing from its Contents: add a line for each: {missing}"
    assert listed <= anchors(METHODOLOGY)


def test_the_methodology_has_a_glossary_whose_every_term_points_at_its_section():
    rows = [r for r in section(METHODOLOGY, "Glossary").splitlines() if r.startswith("| ") and "---" not in r]
    terms = rows[1:]  # the header row first
    assert len(terms) >= GLOSSARY_TERMS, f"the glossary defines {len(terms)} terms, fewer than {GLOSSARY_TERMS}"
    assert all(re.search(r"\]\([^)]*#[^)]+\)", r) for r in terms), "every glossary term links to where it is defined"


def test_measured_times_live_on_the_performance_page_only():
    """A time of day a measurement was made at, or a ``$ make bench`` quote, is a measurement: it belongs on
    the performance page, which every other page links to instead."""
    found = []
    for page in PAGES:
        if page == PERFORMANCE:
            continue
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if TIME_OF_DAY.search(line) or BENCH_COMMAND.search(line):
                found.append(f"{page.relative_to(REPO_ROOT)}:{n}: {line.strip()[:100]}")
    assert not found, "measurements outside docs/eval/performance.md; move each there and link to it:\n" + "\n".join(
        found
    )
    assert any(TIME_OF_DAY.search(line) for line in PERFORMANCE.read_text(encoding="utf-8").splitlines())
    assert any(BENCH_COMMAND.search(line) for line in PERFORMANCE.read_text(encoding="utf-8").splitlines())


def test_every_page_the_methodology_sends_a_reader_to_exists():
    targets = {t.partition("#")[0] for _, t in links(METHODOLOGY) if not t.startswith(("#", "http"))}
    assert {"performance.md", "limits.md", "safety.md", "diagnosis.md", "benchmarks.md"} <= targets
    assert all((DOCS / t).exists() for t in targets)


def test_the_readmes_first_line_says_what_make_eval_measures():
    first = (REPO_ROOT / "README.md").read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# ") and "`make eval` measures" in first, first
