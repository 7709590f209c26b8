"""How a run was taken, as the JSON report holds it: the corpus stamps, the set-up, the cohort and the baseline
compared with. Typed values read by attribute; the report keeps its keys (:mod:`eval.sql.model.codec`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from eval.sql.model.codec import key


@dataclass(frozen=True)
class FileStamp:
    """One corpus file as loaded (``eval.sql.corpus``) and as the run stamps it: the same record."""

    path: str
    """Relative to ``autobot-backend/`` (POSIX) when inside it, else as given (``corpus_types.stamp_path``)."""
    sha256: str
    """Of the file's raw bytes."""
    questions: int


@dataclass(frozen=True)
class SkippedStamp:
    """A question the corpus leaves out but counts (``skipped:`` in a file, written by an import)."""

    id: str
    database: str | None
    reason: str


@dataclass(frozen=True)
class CorpusStamps:
    digest: str = ""
    """One digest over every file's content: numbers compare only on the same digest."""
    size: int = 0
    files: list[FileStamp] = field(default_factory=list)
    skipped: list[SkippedStamp] = field(default_factory=list, metadata=key(omit="empty"))
    """Only when the files leave questions out: each one's id, database and why; every output counts them."""


@dataclass(frozen=True)
class DatabaseStamp:
    schema: str
    """SHA-256 of the schema (tables, columns, types, keys, comments)."""
    sha256: str | None = None
    """SHA-256 of a SQLite file's bytes; None for another engine."""


@dataclass
class RunSetup:
    """How the run was taken (the settings that change a verdict are also in the cohort). A report that predates
    a key reads it as its default."""

    engine: str | None = None
    rotations: int | None = None
    seed: int | None = None
    fixtures: list[str] = field(default_factory=list)
    db_dir: str | None = field(default=None, metadata=key(omit="none"))
    """Where questions that name a database find it (``--db-dir``); written only then."""
    db_url: str | None = None
    """Redacted: never a password."""
    databases: dict[str, list[DatabaseStamp]] = field(default_factory=dict)
    """Per fixture (or database), each rotation's stamp."""
    concurrency: int | None = None
    repeats: int | None = None
    column_order: str | None = field(default=None, metadata=key(omit="none"))
    """Only when ``--column-order`` overrode the corpus."""
    counterexamples: str | None = field(default=None, metadata=key(omit="none"))
    """Only with ``--counterexamples``: the search's budget per pass (``200 neighbours``, ``2s``)."""


@dataclass(frozen=True)
class BaselineRef:
    """The baseline a run was compared with."""

    path: str
    recorded_at: str
    model: str
    corpus_digest: str | None


@dataclass(frozen=True)
class Cohort:
    """The run's identity (``eval.sql.grading.identity``): its keys' fingerprint, the model beside it."""

    fingerprint: str
    keys: dict[str, Any]
    """The settings that change a verdict, an open set compared key by key (``eval.sql.model.cohort``)."""
    model: str
    provider: str | None
