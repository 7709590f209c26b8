"""The pages the suite keeps true, and the markers it keeps them between.

The dated accuracy record is :mod:`eval.sql.records.accuracy_page`'s. ``docs/eval/sql-methodology.md`` carries the
corpus stamps between markers;
``python -m eval.cli.docs --update-stamps`` rewrites them and a docs test fails when they drift.
"""

from __future__ import annotations

from pathlib import Path

from eval.core.errors import HarnessError
from eval.core.output import write_atomically
from eval.sql.corpus.questions import Corpus

REPO_ROOT = Path(__file__).resolve().parents[4]
ACCURACY_PAGE = REPO_ROOT / "docs" / "eval" / "sql-accuracy.md"
METHODOLOGY_PAGE = REPO_ROOT / "docs" / "eval" / "sql-methodology.md"
RECORD_START, RECORD_END = "<!-- accuracy-record:start -->", "<!-- accuracy-record:end -->"
STRATA_START, STRATA_END = "<!-- accuracy-strata:start -->", "<!-- accuracy-strata:end -->"
STAMPS_START, STAMPS_END = "<!-- corpus-stamps:start -->", "<!-- corpus-stamps:end -->"
NEAR_MISS_START, NEAR_MISS_END = "<!-- near-miss:start -->", "<!-- near-miss:end -->"
DIAGNOSIS_START, DIAGNOSIS_END = "<!-- diagnosis-agreement:start -->", "<!-- diagnosis-agreement:end -->"
REAL_DIAGNOSIS_START, REAL_DIAGNOSIS_END = (
    "<!-- diagnosis-real-answers:start -->",
    "<!-- diagnosis-real-answers:end -->",
)
SUSPECTS_START, SUSPECTS_END = "<!-- suspect-references:start -->", "<!-- suspect-references:end -->"
EXACT_MATCH_START, EXACT_MATCH_END = "<!-- exact-match-official:start -->", "<!-- exact-match-official:end -->"
DIGEST_CHARS = 16


class DocsError(HarnessError):
    """A docs page is missing its markers or its table is unreadable."""


def block(text: str, start: str, end: str, page: Path) -> tuple[int, int]:
    """Where the text between two markers starts and ends."""
    i, j = text.find(start), text.find(end)
    if i < 0 or j < i:
        raise DocsError(f"{page}: markers {start} ... {end} not found; restore them to let the suite maintain the page")
    return i + len(start), j


def render_stamps(corpus: Corpus) -> str:
    lines = ["| file | sha256 | questions |", "|---|---|---|"]
    lines += [f"| `{f.path}` | `{f.sha256}` | {f.questions} |" for f in corpus.files]
    lines += ["", f"Corpus digest `{corpus.digest}`, {corpus.size} questions."]
    return "\n".join(lines)


def stamps_on_page(page: Path = METHODOLOGY_PAGE) -> str:
    text = page.read_text(encoding="utf-8")
    a, b = block(text, STAMPS_START, STAMPS_END, page)
    return text[a:b].strip()


def update_stamps(corpus: Corpus, page: Path = METHODOLOGY_PAGE) -> bool:
    """Rewrite the stamps block; returns whether anything changed."""
    text = page.read_text(encoding="utf-8")
    a, b = block(text, STAMPS_START, STAMPS_END, page)
    new = text[:a] + "\n" + render_stamps(corpus) + "\n" + text[b:]
    if new != text:
        write_atomically(page, new)
    return new != text


def block_on_page(start: str, end: str, page: Path = METHODOLOGY_PAGE) -> str:
    """The text between two markers of a page, stripped."""
    text = page.read_text(encoding="utf-8")
    a, b = block(text, start, end, page)
    return text[a:b].strip()


def update_block(start: str, end: str, body: str, page: Path = METHODOLOGY_PAGE) -> bool:
    """Rewrite the text between two markers; returns whether anything changed."""
    text = page.read_text(encoding="utf-8")
    a, b = block(text, start, end, page)
    new = text[:a] + "\n" + body.strip() + "\n" + text[b:]
    if new != text:
        write_atomically(page, new)
    return new != text
