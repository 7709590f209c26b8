"""The SQL corpus: YAML question files (spec 4.1), their loader, and their stamps (spec 4.3).

A file::

    version: 1
    fixture: retail                  # default fixture of the file's questions (or database: NAME)
    column_order: positional         # default; ``any`` accepts the reference's columns in another order
    skipped: [...]                   # questions an import left out but counts (eval.sql.corpus.skipped)
    gate: {pass_rate: {tolerance: 2}}  # the gate's tolerances, opt-in absolute floors (corpus.gate_settings)
    sample_values: false             # the model path sends no stored value (schema, question and rules only)
    questions:
      - id: rtl-scalar-001
        question: How many customers signed up in 2024?
        stratum: scalar
        shape: scalar
        sql: SELECT COUNT(*) FROM customers WHERE ...

Loading is all-or-nothing: every problem of every file is collected, each naming the file, the
YAML line and the question id, and one :class:`CorpusError` lists them all; nothing is returned
half-loaded. Rejected: YAML that does not parse, duplicate keys in a mapping (YAML itself keeps
the last silently), YAML aliases and nesting past :data:`MAX_DEPTH` (an alias bomb or a deep
file would make loading itself the attack), ``decimals`` outside 0-15, an unsupported
``version``, unknown keys (with the closest known key as a hint), missing or duplicate ids (also
across files), values of the wrong type, ``expect: answer`` without ``sql``, ``expect: refuse``
with ``shape``/``ordered``/``sql``/``sql_<dialect>``, a fixture that does not exist (unless
loaded for ``--db-url``, ``fixtures=None``), and a question (or file) that names both a fixture
and a database. ``gate`` and ``sample_values`` are the whole corpus's: files that give them must agree.

A question runs on a seeded fixture (``fixture``) or on a database of the user's own
(``database: NAME``, a standard benchmark's layout: ``<--db-dir>/NAME/NAME.sqlite``, checked when
the run starts). The question's own key wins over the file's.

Stamps: each file is stamped with the SHA-256 of its raw bytes, its question count and its path
(relative to ``autobot-backend/`` in POSIX form when inside it, else as given; shown, not hashed). The
corpus digest is the SHA-256 of the UTF-8 text made of one line ``<file name>\\0<sha256>\\n`` per
file, lines sorted: it changes when any byte of any file changes, or a file is added, removed or
renamed, and does not depend on the order files were passed in nor on the folder they sit in (a corpus
moved with its ``baselines/`` keeps its identity and its gate).

Dialect overrides are keyed by SQLAlchemy dialect name (``sql_sqlite``, ``sql_postgresql``,
``sql_duckdb``, ``sql_mysql``, ``sql_mssql``, ...); :meth:`Question.reference_sql` accepts either
that name or sqlglot's (``postgres``, ``tsql``). A question without an override for an engine gets
its SQLite reference transpiled there by sqlglot; an override is for where that would not give the
same answer (the cross-engine self-check, ``python -m eval.cli.selfcheck --engines ...``, finds them).
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from eval.sql.corpus.corpus_types import (
    BACKEND_ROOT,
    CORPUS_DIR,
    FILE_KEYS,
    MAX_DECIMALS,
    MAX_DEPTH,
    QUESTION_KEYS,
    REFUSE_FORBIDDEN,
    SQL_DIALECTS,
    SUPPORTED_VERSIONS,
    Corpus,
    CorpusError,
    CorpusFile,
    Expect,
    Question,
    Shape,
    stamp_path,
)
from eval.sql.corpus.file_loader import FileLoader
from eval.sql.corpus.gate_settings import GateSettings
from eval.sql.corpus.skipped import Skipped

__all__ = [
    "BACKEND_ROOT",
    "CORPUS_DIR",
    "FILE_KEYS",
    "MAX_DECIMALS",
    "MAX_DEPTH",
    "QUESTION_KEYS",
    "REFUSE_FORBIDDEN",
    "SQL_DIALECTS",
    "SUPPORTED_VERSIONS",
    "Corpus",
    "CorpusError",
    "CorpusFile",
    "Expect",
    "Question",
    "Shape",
    "builtin_corpus_files",
    "corpus_digest",
    "load_corpus",
    "stamp_path",
]


def builtin_corpus_files() -> list[Path]:
    """The built-in corpus: every ``eval/golden/sql/*.yaml``, sorted."""
    return sorted(CORPUS_DIR.glob("*.yaml"))


class BuiltIn(enum.Enum):
    """The default of :func:`load_corpus`'s ``fixtures``: the built-in fixtures' names."""

    FIXTURES = "built-in"


BUILT_IN = BuiltIn.FIXTURES


def corpus_digest(files: Sequence[CorpusFile]) -> str:
    """Content, not location: each file's name (never its folder) and the SHA-256 of its bytes."""
    text = "".join(sorted(f"{Path(f.path).name}\0{f.sha256}\n" for f in files))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def load_corpus(
    paths: Sequence[Path] | None = None, *, fixtures: Collection[str] | BuiltIn | None = BUILT_IN
) -> Corpus:
    """Load and validate corpus files (the built-in ones when ``paths`` is None).

    Args:
        paths: YAML files, in the order their questions should appear.
        fixtures: fixture names a question may use (by default the built-in fixtures'); ``None`` for a user's own
            database (``--db-url``, a benchmark's ``--db-dir``), where no fixture is required or checked.

    Raises:
        CorpusError: listing every problem in every file.
    """
    if isinstance(fixtures, BuiltIn):  # their names come with their builder (SQLAlchemy), loaded only when asked
        from eval.sql.fixtures.seeded import FIXTURE_NAMES

        fixtures = FIXTURE_NAMES
    paths = builtin_corpus_files() if paths is None else [Path(p) for p in paths]
    problems: list[str] = []
    if not paths:
        problems.append(f"no corpus files given (the built-in corpus lives in {stamp_path(CORPUS_DIR)}/*.yaml)")
    seen_ids: dict[str, str] = {}
    seen_files: set[Path] = set()
    questions: list[Question] = []
    files: list[CorpusFile] = []
    skipped: list[Skipped] = []
    loaders: list[FileLoader] = []
    for path in paths:
        if path.resolve() in seen_files:
            problems.append(f"{stamp_path(path)}: file given more than once")
            continue
        seen_files.add(path.resolve())
        loader = FileLoader(path, fixtures, seen_ids, problems)
        loaders.append(loader)
        loaded = loader.load()
        if loaded is not None:
            questions += loaded[0]
            files.append(loaded[1])
            skipped += loader.skipped
    for s in skipped:  # a skipped question is not in the corpus, and is counted once
        if s.id in seen_ids:
            where = seen_ids[s.id]
            problems.append(
                f"skipped question {s.id!r} is " + ("listed twice" if where == "" else f"a question at {where}")
            )
        seen_ids[s.id] = ""
    gate = _one_setting(loaders, "gate", problems)
    sample_values = _one_setting(loaders, "sample_values", problems)
    if problems:
        raise CorpusError(problems)
    return Corpus(
        tuple(questions),
        tuple(files),
        corpus_digest(files),
        tuple(skipped),
        gate=gate if gate is not None else GateSettings(),
        sample_values=sample_values,
    )


def _setting_value(loader: FileLoader, key: str) -> Any:
    value = getattr(loader, key)
    if isinstance(value, GateSettings):  # where it was set is not what it says
        return (value.pass_rate, value.refusal_recall, value.over_refusals, value.composition)
    return value


def _one_setting(loaders: Sequence[FileLoader], key: str, problems: list[str]) -> Any:
    """A corpus-wide key (``gate``, ``sample_values``): the one value the files that set it agree on, else None;
    files that disagree are a problem naming both (one corpus is gated, and asked, one way)."""
    setting = [loader for loader in loaders if getattr(loader, key) is not None]
    for other in setting[1:]:
        if _setting_value(other, key) != _setting_value(setting[0], key):
            problems.append(
                f"{other.source}: '{key}' differs from {setting[0].source}'s; it is the whole corpus's setting: "
                "give it in one file, or the same in each"
            )
    return getattr(setting[0], key) if setting else None
