"""What the self-check found of a reference, kept on disk by content, so the import and the runs share it.

A reference's defects and suspect findings are a function of the reference (its question's SQL, its
alternatives and the keys the checks read), of the database it runs on (the file's bytes) and of the
harness's code and libraries. The import of a benchmark checks every gold query to count the suspect ones
(:mod:`eval.sql.bench.suspects`), and every run of it checks them again; importing another model's
predictions of the same benchmark checks the same golds on the same files once more. So each question's
findings are kept under a key made of exactly those (:func:`question_key`), one JSON file per database
(``checks-<digest of its files>.json``): the import reads them instead of checking a question again, and a run
still runs and lints every reference (it needs the rows to grade) but takes the suspect findings, the costly
part, from what was kept. A question without an entry is checked as before, and its findings kept.

The code's part of the key is the SHA-256 of the bytes of every module the checks run (the oracle, the
comparison, the corpus, the read-only executor, guard and inspection, the transpiler, the fixtures and the
shared core) and the versions
of sqlglot, SQLAlchemy, SQLite and DuckDB: any change to them is a new key, never a stale finding. Only SQLite
files are kept (a server's data can change under the same URL). Each file is written to a temporary name and
renamed into place; a file that does not read is ignored; a cache that cannot be written costs speed, never
correctness. The folder is ``autobot-backend/.eval-cache/checks`` (beside the fixture cache, ignored by git);
``EVAL_CHECK_CACHE`` names another, or ``off`` turns it off.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from eval.sql.corpus.questions import Question
from eval.sql.fixtures.cache import file_sha256, source_digest

CACHE_ENV = "EVAL_CHECK_CACHE"
BACKEND = Path(__file__).resolve().parents[3]
DEFAULT_CACHE = BACKEND / ".eval-cache" / "checks"
FORMAT = 1
_CODE = (
    *("eval/sql/oracle", "eval/sql/rows", "eval/sql/corpus", "eval/sql/fixtures", "eval/core", "services/readonly"),
    *("services/generation/transpile.py", "services/dialects.py", "services/schema_context.py"),
)
_NOT_READ = frozenset({"id", "stratum", "difficulty", "why", "draft", "source", "line"})
"""Question fields no check reads: two questions differing only in them share their findings. The words are
read (the suspect checks compare the reference with its question), so a benchmark's paraphrases of one gold
query are kept apart."""


def cache_dir() -> Path | None:
    raw = os.environ.get(CACHE_ENV, "").strip()
    if raw.lower() in ("off", "0", "no", "false"):
        return None
    return Path(raw) if raw else DEFAULT_CACHE


@cache
def code_key() -> str:
    """The harness's part of every key: its checking code's bytes and the libraries' versions."""
    files = [p for part in _CODE for p in ((BACKEND / part).rglob("*.py") if "." not in part else [BACKEND / part])]
    versions = [f"{name}={_version(name)}" for name in ("sqlglot", "SQLAlchemy", "duckdb")]
    versions.append(f"sqlite={sqlite3.sqlite_version}")
    return hashlib.sha256(f"{FORMAT}\n{source_digest(files)}\n{' '.join(versions)}".encode()).hexdigest()


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "-"


def database_digest(url: str) -> str | None:
    """SHA-256 of a SQLite database file's bytes (kept per path, size and modification time in this process);
    None for any other database (a server's data can change under one URL)."""
    try:
        parsed = sa.engine.make_url(url)
    except (sa.exc.ArgumentError, ValueError):
        return None
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    try:
        return file_sha256(Path(parsed.database))
    except OSError:
        return None


def question_key(q: Question, databases: Sequence[str], dialect: str, lint_rotations: bool) -> str:
    """What the checks of ``q`` read, as one digest: its fields but those no check reads, the databases' digests
    in rotation order, the dialect, whether rotations are linted, and the code's key."""
    fields = {k: v for k, v in dataclasses.asdict(q).items() if k not in _NOT_READ}
    text = json.dumps([code_key(), dialect, lint_rotations, list(databases), fields], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class Kept:
    """One question's findings as kept: (kind, detail) of each defect and each suspect finding."""

    defects: tuple[tuple[str, str], ...]
    suspects: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Where:
    file: str
    """The file's name: a digest of the question's databases."""
    key: str


class KeptChecks:
    """The kept findings of one self-check: each database's file read once, written once at the end."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else cache_dir()
        self._files: dict[str, dict[str, Any]] = {}
        self._new: dict[str, dict[str, Any]] = {}

    def places(
        self,
        questions: Iterable[Question],
        urls_of: Callable[[Question], Sequence[str]],
        dialect_of: Callable[[str], str | Exception],
        lint_rotations: bool,
    ) -> dict[str, Where]:
        """Question id -> where its findings are kept, for each question whose can be (not without a cache, on a
        server, on a database that did not open)."""
        out: dict[str, Where] = {}
        known: dict[str, str | None] = {}  # each database's digest, once: a corpus asks many questions of one
        for q in questions if self.root is not None else ():
            urls = urls_of(q)
            dialect = dialect_of(urls[0]) if urls else None
            for u in urls:
                if u not in known:
                    known[u] = database_digest(u)
            digests = [d for d in (known[u] for u in urls) if d is not None]
            if isinstance(dialect, str) and urls and len(digests) == len(urls):
                file = hashlib.sha256(" ".join(digests).encode()).hexdigest()[:32]
                # one database has no rotations to lint, whatever the caller asked (the import and a run agree)
                out[q.id] = Where(file, question_key(q, digests, dialect, lint_rotations and len(urls) > 1))
        return out

    def found(self, places: Mapping[str, Where]) -> dict[str, Kept]:
        """Question id -> its kept findings, for the questions that have some."""
        out = {}
        for qid, where in places.items():
            entry: Any = self._file(where.file).get(where.key)
            try:
                out[qid] = Kept(*(tuple((str(k), str(d)) for k, d in entry[part]) for part in ("defects", "suspects")))
            except (KeyError, TypeError, ValueError):
                continue
        return out

    def put(self, where: Where, defects: Iterable[tuple[str, str]], suspects: Iterable[tuple[str, str]]) -> None:
        self._new.setdefault(where.file, {})[where.key] = {"defects": list(defects), "suspects": list(suspects)}

    def save(self) -> None:
        """Write what was found into its files (merged with what they hold now); a failure is ignored."""
        if self.root is None:
            return
        for file, entries in self._new.items():
            try:
                self.root.mkdir(parents=True, exist_ok=True)
                merged = {**self._read(file), **entries}
                _write_atomically(self._path(file), json.dumps(merged, separators=(",", ":")))
                self._files[file] = merged
            except OSError:
                pass
        self._new.clear()

    def _path(self, file: str) -> Path:
        assert self.root is not None
        return self.root / f"checks-{file}.json"

    def _file(self, file: str) -> Mapping[str, Any]:
        if file not in self._files:
            self._files[file] = self._read(file)
        return self._files[file]

    def _read(self, file: str) -> dict[str, Any]:
        try:
            data = json.loads(self._path(file).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}


def _write_atomically(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)
