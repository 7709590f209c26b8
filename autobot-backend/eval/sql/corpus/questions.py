"""The SQL corpus: YAML question files (spec 4.1), their loader, and their stamps (spec 4.3).

A file::

    version: 1
    fixture: retail                  # default fixture of the file's questions (or database: NAME)
    column_order: positional         # default; ``any`` accepts the reference's columns in another order
    skipped: [...]                   # questions an import left out but counts (eval.sql.corpus.skipped)
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
and a database.

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

import dataclasses
import hashlib
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeGuard

import yaml
from rapidfuzz import fuzz, process
from sqlglot.dialects.dialect import Dialects

from eval.core.errors import HarnessError
from eval.sql.corpus.alternatives import ColumnRule, build_also, build_columns, check_also, check_columns
from eval.sql.corpus.dialects import TranspileError, transpile_reference
from eval.sql.corpus.safe_yaml import parse_yaml
from eval.sql.corpus.skipped import Skipped, parse_skipped
from eval.sql.fixtures.seeded import FIXTURE_NAMES
from eval.sql.rows import COLUMN_ORDERS, ColumnOrder
from services.dialects import sqlalchemy_name

CORPUS_DIR = Path(__file__).resolve().parents[2] / "golden" / "sql"
BACKEND_ROOT = Path(__file__).resolve().parents[3]
SUPPORTED_VERSIONS = (1,)
MAX_DEPTH = 16
"""Deepest nesting a corpus file may have (it needs four: file, questions, question, value)."""
MAX_DECIMALS = 15
"""Largest ``decimals``: a double carries 15-17 significant digits, so more compares noise."""

Expect = Literal["answer", "refuse"]
Shape = Literal["scalar", "rows"]

SQL_DIALECTS = frozenset({sqlalchemy_name(d.value) for d in Dialects if d.value} | {"mariadb"})
"""Dialect names a ``sql_<dialect>`` key may use (SQLAlchemy's spelling)."""

FILE_KEYS = ("version", "fixture", "database", "column_order", "skipped", "questions")
QUESTION_KEYS = (
    "id",
    "question",
    "expect",
    "stratum",
    "shape",
    "ordered",
    "decimals",
    "static",
    "fixture",
    "database",
    "difficulty",
    "column_order",
    "sql",
    "also",
    "columns",
    "why",
    "draft",
)
REFUSE_FORBIDDEN = ("shape", "ordered", "sql", "also", "columns")


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


@dataclass(frozen=True)
class CorpusFile:
    path: str
    """Relative to ``autobot-backend/`` (POSIX) when inside it, else as given."""
    sha256: str
    """Of the file's raw bytes."""
    questions: int


@dataclass(frozen=True)
class Corpus:
    questions: tuple[Question, ...]
    files: tuple[CorpusFile, ...]
    digest: str
    """SHA-256 over the sorted ``name\\0sha256\\n`` lines of the files (see the module docstring)."""
    skipped: tuple[Skipped, ...] = ()
    """Questions the files leave out but count (``skipped:``, written by an import)."""

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


def builtin_corpus_files() -> list[Path]:
    """The built-in corpus: every ``eval/golden/sql/*.yaml``, sorted."""
    return sorted(CORPUS_DIR.glob("*.yaml"))


def stamp_path(path: Path) -> str:
    try:
        return Path(path).resolve().relative_to(BACKEND_ROOT).as_posix()
    except ValueError:
        return str(path)


def corpus_digest(files: Sequence[CorpusFile]) -> str:
    """Content, not location: each file's name (never its folder) and the SHA-256 of its bytes."""
    text = "".join(sorted(f"{Path(f.path).name}\0{f.sha256}\n" for f in files))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def load_corpus(paths: Sequence[Path] | None = None, *, fixtures: Collection[str] | None = FIXTURE_NAMES) -> Corpus:
    """Load and validate corpus files (the built-in ones when ``paths`` is None).

    Args:
        paths: YAML files, in the order their questions should appear.
        fixtures: fixture names a question may use; ``None`` for a user's own database
            (``--db-url``), where no fixture is required or checked.

    Raises:
        CorpusError: listing every problem in every file.
    """
    paths = builtin_corpus_files() if paths is None else [Path(p) for p in paths]
    problems: list[str] = []
    if not paths:
        problems.append(f"no corpus files given (the built-in corpus lives in {stamp_path(CORPUS_DIR)}/*.yaml)")
    seen_ids: dict[str, str] = {}
    seen_files: set[Path] = set()
    questions: list[Question] = []
    files: list[CorpusFile] = []
    skipped: list[Skipped] = []
    for path in paths:
        if path.resolve() in seen_files:
            problems.append(f"{stamp_path(path)}: file given more than once")
            continue
        seen_files.add(path.resolve())
        loader = _FileLoader(path, fixtures, seen_ids, problems)
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
    if problems:
        raise CorpusError(problems)
    return Corpus(tuple(questions), tuple(files), corpus_digest(files), tuple(skipped))


def _kind(value: Any) -> str:
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a mapping",
        type(None): "empty",
    }.get(type(value), type(value).__name__)


class _FileLoader:
    """One file: parse with line numbers, validate, build questions; problems go to a shared list."""

    def __init__(self, path: Path, fixtures: Collection[str] | None, seen_ids: dict[str, str], problems: list[str]):
        self.path, self.source = path, stamp_path(path)
        self.fixtures, self.seen_ids, self.problems = fixtures, seen_ids, problems
        self.skipped: list[Skipped] = []

    def fail(self, line: int | None, message: str, qid: str | None = None) -> None:
        where = f"{self.source}:{line}" if line else self.source
        who = f"question {qid!r}: " if qid else ""
        self.problems.append(f"{where}: {who}{message}")

    def load(self) -> tuple[list[Question], CorpusFile] | None:
        try:
            raw = self.path.read_bytes()
        except OSError as e:
            self.fail(None, f"cannot read the file ({e.strerror or e})")
            return None
        before = len(self.problems)
        node, data = parse_yaml(raw, self.fail, MAX_DEPTH)
        if node is None:
            return None
        questions = self._file(node, data)
        if len(self.problems) > before:
            return None
        return questions, CorpusFile(self.source, hashlib.sha256(raw).hexdigest(), len(questions))

    def _file(self, node: yaml.Node, data: Any) -> list[Question]:
        if not isinstance(data, dict):
            self.fail(
                node.start_mark.line + 1, f"the file must be a mapping with {', '.join(FILE_KEYS)}; found {_kind(data)}"
            )
            return []
        lines = {k.value: k.start_mark.line + 1 for k, _ in node.value}
        for key in data:
            if key not in FILE_KEYS:
                self.fail(lines.get(key), f"unknown file key {key!r}{_hint(key, FILE_KEYS)}")
        version = data.get("version")
        if "version" not in data:
            self.fail(1, f"missing 'version' (supported: {', '.join(map(str, SUPPORTED_VERSIONS))})")
        elif type(version) is not int or version not in SUPPORTED_VERSIONS:
            self.fail(
                lines["version"],
                f"unsupported version {version!r} (supported: {', '.join(map(str, SUPPORTED_VERSIONS))})",
            )
        default_fixture = data.get("fixture")
        if "fixture" in data and not _nonempty_str(default_fixture):
            self.fail(lines["fixture"], f"'fixture' must be a fixture name, found {_kind(default_fixture)}")
            default_fixture = None
        defaults = {"fixture": default_fixture}
        for key in ("database", "column_order"):
            if key in data:
                error = _VALIDATORS[key](data[key])
                if error:
                    self.fail(lines[key], f"'{key}' {error}, found {_kind(data[key])} {data[key]!r}")
                else:
                    defaults[key] = data[key]
        if "fixture" in data and "database" in data:
            self.fail(lines["database"], "a file names either a fixture or a database for its questions, not both")
        if "skipped" in data:
            self.skipped, problems = parse_skipped(data["skipped"])
            for problem in problems:
                self.fail(lines["skipped"], problem)
        items = data.get("questions")
        if not isinstance(items, list) or not items:
            self.fail(lines.get("questions", 1), "'questions' must be a non-empty list of questions")
            return []
        qlist = [v for k, v in node.value if k.value == "questions"][-1]  # YAML keeps the last duplicate too
        return [
            q for item, qnode in zip(items, qlist.value) if (q := self._question(item, qnode, defaults)) is not None
        ]

    def _question(self, item: Any, node: yaml.Node, defaults: dict[str, Any]) -> Question | None:
        line = node.start_mark.line + 1
        if not isinstance(item, dict):
            self.fail(line, f"a question must be a mapping, found {_kind(item)}")
            return None
        keys = {k.value: k.start_mark.line + 1 for k, _ in node.value}
        qid = item.get("id")
        before = len(self.problems)
        if not _nonempty_str(qid) or any(ch.isspace() for ch in qid):
            self.fail(
                keys.get("id", line),
                "missing id" if qid is None else f"'id' must be a non-empty string without spaces, found {qid!r}",
            )
            qid = None
        elif qid in self.seen_ids:
            self.fail(keys["id"], f"duplicate id (first used at {self.seen_ids[qid]})", qid)
        else:
            self.seen_ids[qid] = f"{self.source}:{line}"
        label = qid or f"#{line} (no id)"

        dialects: dict[str, str] = {}
        for key, value in item.items():
            kline = keys.get(key, line)
            if isinstance(key, str) and key.startswith("sql_") and key[4:] in SQL_DIALECTS:
                if not _nonempty_str(value):
                    self.fail(kline, f"'{key}' must be a non-empty SQL string, found {_kind(value)}", label)
                else:
                    dialects[key[4:]] = value.strip()
            elif key not in QUESTION_KEYS:
                allowed = QUESTION_KEYS + tuple(f"sql_{d}" for d in sorted(SQL_DIALECTS))
                self.fail(kline, f"unknown key {key!r}{_hint(str(key), allowed)}", label)
            elif key != "id":
                error = _VALIDATORS[key](value)
                if error:
                    self.fail(kline, f"'{key}' {error}, found {_kind(value)} {value!r}", label)

        if "question" not in item:
            self.fail(line, "missing 'question' (the text an analyst would ask)", label)
        expect = item.get("expect", "answer")
        if expect == "answer" and not item.get("sql"):
            self.fail(line, "expect: answer needs a reference query in 'sql'", label)
        if expect == "refuse":
            for key in [k for k in item if k in REFUSE_FORBIDDEN or (isinstance(k, str) and k.startswith("sql_"))]:
                self.fail(
                    keys.get(key, line), f"expect: refuse takes no '{key}' (a refusal has no reference rows)", label
                )
        if "fixture" in item and "database" in item:
            self.fail(keys["database"], "a question runs on either a fixture or a database, not both", label)
        database = item.get("database", None if "fixture" in item else defaults.get("database"))
        fixture = None if database is not None else item.get("fixture", defaults.get("fixture"))
        if self.fixtures is not None and database is None:
            if fixture is None:
                self.fail(line, "no fixture: set 'fixture' (or 'database') on the file or on the question", label)
            elif isinstance(fixture, str) and fixture not in self.fixtures:
                self.fail(
                    keys.get("fixture", line),
                    f"fixture {fixture!r} does not exist"
                    f"{_hint(fixture, tuple(self.fixtures))} (fixtures: {', '.join(self.fixtures)})",
                    label,
                )
        if len(self.problems) > before:
            return None
        assert qid is not None  # a missing id is a problem above, and problems return before here
        return Question(
            id=qid,
            question=" ".join(item["question"].split()),
            expect=expect,
            stratum=item.get("stratum", "general"),
            shape=item.get("shape", "rows"),
            ordered=item.get("ordered", False),
            decimals=item.get("decimals", 2),
            static=item.get("static", False),
            fixture=fixture,
            database=database,
            difficulty=item.get("difficulty"),
            column_order=item.get("column_order", defaults.get("column_order", "positional")),
            sql=item["sql"].strip() if item.get("sql") else None,
            sql_dialects=dialects,
            also=build_also(item.get("also")),
            columns=build_columns(item.get("columns")),
            why=item.get("why", ""),
            draft=item.get("draft", False),
            source=self.source,
            line=line,
        )


def _nonempty_str(value: Any) -> TypeGuard[str]:
    return isinstance(value, str) and bool(value.strip())


def _hint(key: str, allowed: Sequence[str]) -> str:
    close = process.extractOne(key, allowed, scorer=fuzz.ratio, score_cutoff=75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _one_of(*options: str) -> Callable[[Any], str | None]:
    return lambda v: None if v in options else f"must be one of {', '.join(options)}"


def _text(v: Any) -> str | None:
    return None if _nonempty_str(v) else "must be a non-empty string"


def _line(v: Any) -> str | None:
    return None if isinstance(v, str) and "\n" not in v.strip() else "must be one line of text"


def _label(v: Any) -> str | None:
    return None if _nonempty_str(v) and "\n" not in v.strip() else "must be a non-empty line of text"


def _name(v: Any) -> str | None:
    ok = _nonempty_str(v) and v == v.strip() and not any(c in v for c in "/\\\0") and v not in (".", "..")
    return None if ok else "must be a database name (a folder name, no slashes)"


def _flag(v: Any) -> str | None:
    return None if isinstance(v, bool) else "must be true or false"


def _decimals(v: Any) -> str | None:
    ok = isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_DECIMALS
    return None if ok else f"must be a whole number from 0 to {MAX_DECIMALS} (a double holds about 15 digits)"


_VALIDATORS = {
    "question": _text,
    "expect": _one_of("answer", "refuse"),
    "stratum": _text,
    "shape": _one_of("scalar", "rows"),
    "ordered": _flag,
    "decimals": _decimals,
    "static": _flag,
    "fixture": _text,
    "database": _name,
    "difficulty": _label,
    "column_order": _one_of(*COLUMN_ORDERS),
    "sql": _text,
    "also": check_also,
    "columns": check_columns,
    "why": _line,
    "draft": _flag,
}
