"""The pages the suite keeps true, and the markers it keeps them between.

The dated accuracy record is :mod:`eval.sql.records.accuracy_page`'s. Every other block a command writes is a
:class:`Block`, a name and the page it lives on: the corpus stamps and the worked example on the methodology
(``python -m eval.cli.docs --update-stamps``, ``--update-example``), the near-miss study and the diagnosis's
figures on the diagnosis page (``python -m eval.sql.near_miss``, ``python -m eval.sql.spider_study diagnosis``),
the shared Spider sets' suspect references, exact match and counterexample search on the benchmarks page (``python -m
eval.sql.spider_study``), the report's sections and where each format shows them on the architecture page
(``python -m eval.cli.docs --update-sections``). Each command's ``--check-docs`` (a test runs it) fails when its
block drifts from what it prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from eval.core.errors import HarnessError
from eval.core.output import write_atomically
from eval.sql.corpus.questions import Corpus

REPO_ROOT = Path(__file__).resolve().parents[4]
DOCS = REPO_ROOT / "docs" / "eval"
ACCURACY_PAGE = DOCS / "sql-accuracy.md"
METHODOLOGY_PAGE = DOCS / "sql-methodology.md"
DIAGNOSIS_PAGE = DOCS / "diagnosis.md"
BENCHMARKS_PAGE = DOCS / "benchmarks.md"
ARCHITECTURE_PAGE = DOCS / "architecture.md"
RECORD_START, RECORD_END = "<!-- accuracy-record:start -->", "<!-- accuracy-record:end -->"
STRATA_START, STRATA_END = "<!-- accuracy-strata:start -->", "<!-- accuracy-strata:end -->"
DIGEST_CHARS = 16


class DocsError(HarnessError):
    """A docs page is missing its markers or its table is unreadable."""


@dataclass(frozen=True)
class Block:
    """A block a command writes on a docs page, between ``<!-- name:start -->`` and ``<!-- name:end -->``."""

    name: str
    page: Path

    @property
    def start(self) -> str:
        return f"<!-- {self.name}:start -->"

    @property
    def end(self) -> str:
        return f"<!-- {self.name}:end -->"

    def on_page(self) -> str:
        """The block's text as the page holds it, stripped."""
        return block_on_page(self.start, self.end, self.page)

    def update(self, body: str) -> bool:
        """Rewrite the block; whether anything changed."""
        return update_block(self.start, self.end, body, self.page)

    def where(self) -> str:
        """The page, from the repository's root, for a message."""
        return self.page.relative_to(REPO_ROOT).as_posix() if self.page.is_relative_to(REPO_ROOT) else str(self.page)


STAMPS = Block("corpus-stamps", METHODOLOGY_PAGE)
WORKED_EXAMPLE = Block("worked-example", METHODOLOGY_PAGE)
NEAR_MISS = Block("near-miss", DIAGNOSIS_PAGE)
DIAGNOSIS_AGREEMENT = Block("diagnosis-agreement", DIAGNOSIS_PAGE)
NEAR_MISS_COUNTEREXAMPLES = Block("near-miss-counterexamples", DIAGNOSIS_PAGE)
REAL_DIAGNOSIS = Block("diagnosis-real-answers", DIAGNOSIS_PAGE)
SUSPECTS = Block("suspect-references", BENCHMARKS_PAGE)
EXACT_MATCH = Block("exact-match-official", BENCHMARKS_PAGE)
SPIDER_COUNTEREXAMPLES = Block("spider-counterexamples", BENCHMARKS_PAGE)
SPIDER_REFUTATIONS = Block("spider-refutations-checked", BENCHMARKS_PAGE)
SECTIONS = Block("report-sections", ARCHITECTURE_PAGE)


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
    return block_on_page(STAMPS.start, STAMPS.end, page)


def update_stamps(corpus: Corpus, page: Path = METHODOLOGY_PAGE) -> bool:
    """Rewrite the stamps block; returns whether anything changed."""
    return update_block(STAMPS.start, STAMPS.end, render_stamps(corpus), page)


def block_on_page(start: str, end: str, page: Path) -> str:
    """The text between two markers of a page, stripped."""
    text = page.read_text(encoding="utf-8")
    a, b = block(text, start, end, page)
    return text[a:b].strip()


def update_block(start: str, end: str, body: str, page: Path) -> bool:
    """Rewrite the text between two markers; returns whether anything changed."""
    text = page.read_text(encoding="utf-8")
    a, b = block(text, start, end, page)
    new = text[:a] + "\n" + body.strip() + "\n" + text[b:]
    if new != text:
        write_atomically(page, new)
    return new != text
