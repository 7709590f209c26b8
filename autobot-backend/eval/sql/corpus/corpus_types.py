"""The corpus as typed values: a question, a corpus file's stamp, the corpus, and the keys a file may hold.

The format and how it is loaded are described in :mod:`eval.sql.corpus.questions`, which re-exports
everything here; this module holds no loading, so the values can be imported without the YAML reader.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from rapidfuzz import process
from sqlglot.dialects.dialect import Dialects

from eval.core.errors import HarnessError
from eval.core.output import shown_path
from eval.sql.corpus.alternatives import ColumnRule
from eval.sql.corpus.dialects import TranspileError, transpile_reference
from eval.sql.corpus.gate_settings import GateSettings
from eval.sql.corpus.skipped import Skipped
from eval.sql.model.setup import FileStamp
from eval.sql.rows import ColumnOrder
from services.dialects import sqlalchemy_name

CORPUS_DIR = Path(__file__).resolve().parents[2] / "golden" / "sql"
BACKEND_ROOT = Path(__file__).resolve().parents[3]
SUPPORTED_VERSIONS = (1,)
MAX_DEPTH = 16
"""Deepest nesting a corpus file may have (it needs four: file, questions, question, value)."""
MAX_DECIMALS = 15
"""Largest ``decimals``: a double carries 15-17 significant digits, so more compares noise."""

Expect = Literal["answer", "refuse"]
OrderedFrom = Literal["question", "sql"]
Shape = Literal["scalar", "rows"]

SQL_DIALECTS = frozenset({sqlalchemy_name(d.value) for d in Dialects if d.value} | {"mariadb"})
"""Dialect names a ``sql_<dialect>`` key may use (SQLAlchemy's spelling)."""

FILE_KEYS = (
    "version",
    "fixture",
    "database",
    "column_order",
    "exact_match",
    "row_cap",
    "ordered_from",
    "skipped",
    "gate",
    "sample_values",
    "questions",
)
QUESTION_KEYS = (
    "id",
    "question",
    "expect",
    "stratum",
    "shape",
    "ordered",
    "ordered_from",
    "decimals",
    "static",
    "fixture",
    "database",
    "difficulty",
    "column_order",
    "row_cap",
    "sql",
    "also",
    "columns",
    "why",
    "draft",
    "exact_match",
)
REFUSE_FORBIDDEN = ("shape", "ordered", "ordered_from", "sql", "also", "columns")


class CorpusError(HarnessError):
    """A corpus that cannot be used; ``problems`` holds one line per problem found."""

    def __init__(self, problems: Sequence[str]):
        self.problems = list(problems)
        noun = "problem" if len(self.problems) == 1 else "problems"
        super().__init__(f"the SQL corpus has {len(self.problems)} {noun}:\n  " + "\n  ".join(self.problems))


@dataclass(frozen=True)
class Question:
    id: str
    """Unique across the whole corpus, never reused (``rtl-<stratum>-NNN`` in the built-in corpus)."""
    question: str
    """The question as an analyst would ask it."""
    expect: Expect = "answer"
    """``answer``: graded on its rows against the reference; ``refuse``: answering is fabrication."""
    stratum: str = "general"
    """Free-form grouping used by the report."""
    shape: Shape = "rows"
    """``scalar``: exactly one row and one column; ``rows``: any result set."""
    ordered: bool = False
    """Row order is part of the answer (rankings, sorted lists)."""
    decimals: int = 2
    """Numeric precision the answer is compared at."""
    static: bool = False
    """The answer is the same on every rotation by design (exempt from the rotation lint)."""
    fixture: str | None = None
    """The fixture the question runs on (the question's own, else the file's); None with --db-url."""
    database: str | None = None
    """A database of the user's own the question runs on instead (``<--db-dir>/NAME/NAME.sqlite``)."""
    difficulty: str | None = None
    """A benchmark's own difficulty label (BIRD's ``simple``/``moderate``/``challenging``); reported apart."""
    column_order: ColumnOrder = "positional"
    """``any``: the reference's columns in another order pass (the Spider convention)."""
    row_cap: int | None = None
    """Most rows an answer may return (more is an ``error``, reason ``row_cap``); unset: the run's
    ``--row-cap``, else ``NL_SQL_ROW_CAP``, else 10,000. The reference is bounded by the byte budget alone."""
    sql: str | None = None
    """Reference query, SQLite (the default engine); transpiled by sqlglot for another engine."""
    sql_dialects: dict[str, str] = field(default_factory=dict)
    """Per-engine overrides of ``sql``, keyed by SQLAlchemy dialect name."""
    also: tuple[str, ...] = ()
    """Alternative references, each a right answer too (written like ``sql``, self-checked like it; at most 8)."""
    columns: ColumnRule | None = None
    """Reference columns an answer must return (``required``) and may (``optional``, at most 6), by name or position."""
    why: str = ""
    """For refusal cases, why answering would be fabrication; free text otherwise."""
    draft: bool = False
    """Written by ``python -m eval.sql.init``, not yet checked by a person: never asked, always ``unmeasured``."""
    exact_match: Literal["official", "extended", "spider"] | None = None
    """The answer also gets Spider's exact-set-match against ``sql`` (a second figure beside the verdict, never
    changing it), its figures in this mode: ``official`` (as Spider's script counts it; ``spider`` is the same,
    its first spelling) or ``extended`` (the project's own reading); written ``official`` by ``bench_import
    spider``."""
    ordered_from: OrderedFrom = "question"
    """Where ``ordered`` comes from: ``question``, its words ask for an order (an ordered question that states none
    is a lint); ``sql``, the reference's outermost ORDER BY, a benchmark's convention (written by ``bench_import``:
    the lint does not apply)."""
    source: str = ""
    """The file it came from, as stamped."""
    line: int = 0
    """Line of the question in that file (1-based)."""

    @property
    def target(self) -> str | None:
        """The key of the databases the question runs on: its fixture, ``db:NAME``, or None (``--db-url``)."""
        return f"db:{self.database}" if self.database else self.fixture

    def reference_sql(self, dialect: str) -> str | None:
        """The reference for ``dialect`` (SQLAlchemy or sqlglot name): its override, else ``sql``
        transpiled from SQLite by sqlglot.

        Raises:
            TranspileError: sqlglot cannot carry ``sql`` into ``dialect``; the message names the
                question and its file, and says to add a ``sql_<dialect>`` override.
        """
        name = sqlalchemy_name(dialect)
        for candidate in (name, "mysql" if name == "mariadb" else None):
            if candidate and candidate in self.sql_dialects:
                return self.sql_dialects[candidate]
        if self.sql is None:
            return None
        try:
            return transpile_reference(self.sql, name)
        except TranspileError as exc:
            raise TranspileError(
                f"{self.source}:{self.line}: {self.id}: sqlglot cannot transpile the SQLite reference to "
                f"{name} ({exc}); add a 'sql_{name}' override to the question"
            ) from None

    def written_for(self, dialect: str) -> Question:
        """This question with its ``sql`` taken as written in ``dialect``, not transpiled from SQLite (a
        corpus of a user's own, on their own database, is written for that database)."""
        name = sqlalchemy_name(dialect)
        if self.sql is None or name in self.sql_dialects:
            return self
        return dataclasses.replace(self, sql_dialects={**self.sql_dialects, name: self.sql})


CorpusFile = FileStamp
"""A corpus file as loaded: the record the run stamps, so it is declared once (in the run model)."""


@dataclass(frozen=True)
class Corpus:
    questions: tuple[Question, ...]
    files: tuple[CorpusFile, ...]
    digest: str
    """SHA-256 over the sorted ``name\\0sha256\\n`` lines of the files (see the module docstring)."""
    skipped: tuple[Skipped, ...] = ()
    """Questions the files leave out but count (``skipped:``, written by an import)."""
    gate: GateSettings = field(default_factory=GateSettings)
    """The gate's tolerances and opt-in absolute floors (the files' ``gate:`` key), else the defaults."""
    sample_values: bool | None = None
    """The files' ``sample_values``: false keeps stored values out of what the model path sends; None: not said."""

    @property
    def size(self) -> int:
        return len(self.questions)

    def with_column_order(self, column_order: ColumnOrder) -> Corpus:
        """Every question graded under ``column_order`` (``--column-order`` overrides the files')."""
        return dataclasses.replace(
            self, questions=tuple(dataclasses.replace(q, column_order=column_order) for q in self.questions)
        )

    def by_id(self, question_id: str) -> Question:
        """The question with ``question_id``; a :class:`CorpusError` suggesting the closest id otherwise."""
        for q in self.questions:
            if q.id == question_id:
                return q
        close = process.extractOne(question_id, [q.id for q in self.questions], score_cutoff=70)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise CorpusError([f"no question {question_id!r} in the corpus{hint}"])


def stamp_path(path: Path) -> str:
    """How a corpus file is named in stamps, messages and reports: relative to ``autobot-backend/`` when inside it
    (the built-in corpus), else relative to where the user stands (:func:`eval.core.output.shown_path`)."""
    try:
        return Path(path).resolve().relative_to(BACKEND_ROOT).as_posix()
    except ValueError:
        return shown_path(path)
