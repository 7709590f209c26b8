"""One corpus file read and checked: parse with line numbers, validate every key, build the questions.

Every problem goes to a list shared by all the files of a load, so one :class:`CorpusError` names them
all (:func:`eval.sql.corpus.questions.load_corpus`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any, TypeGuard

import yaml
from rapidfuzz import fuzz, process

from eval.core.jsonl import input_limit
from eval.sql.corpus.alternatives import build_also, build_columns, check_also, check_columns
from eval.sql.corpus.corpus_types import (
    FILE_KEYS,
    MAX_DECIMALS,
    MAX_DEPTH,
    QUESTION_KEYS,
    REFUSE_FORBIDDEN,
    SQL_DIALECTS,
    SUPPORTED_VERSIONS,
    CorpusFile,
    Question,
    stamp_path,
)
from eval.sql.corpus.safe_yaml import parse_yaml
from eval.sql.corpus.skipped import Skipped, parse_skipped
from eval.sql.rows import COLUMN_ORDERS


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


class FileLoader:
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
        limit = input_limit()
        try:
            with open(self.path, "rb") as fh:
                raw = fh.read(limit + 1)
        except OSError as e:
            self.fail(None, f"cannot read the file ({e.strerror or e})")
            return None
        if len(raw) > limit:
            self.fail(None, f"larger than {limit:,} bytes, the most an input file may be; is this the corpus meant?")
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
        for key in ("database", "column_order", "exact_match", "row_cap", "ordered_from"):
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

    # Complexity (radon E or F), kept as one function: one check per corpus key, each with its own message naming the
    # line; a table of keys would lose those messages.
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
            row_cap=item.get("row_cap", defaults.get("row_cap")),
            sql=item["sql"].strip() if item.get("sql") else None,
            sql_dialects=dialects,
            also=build_also(item.get("also")),
            columns=build_columns(item.get("columns")),
            why=item.get("why", ""),
            draft=item.get("draft", False),
            exact_match=item.get("exact_match", defaults.get("exact_match")),
            ordered_from=item.get("ordered_from", defaults.get("ordered_from", "question")),
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


def _row_cap(v: Any) -> str | None:
    ok = isinstance(v, int) and not isinstance(v, bool) and v >= 1
    return None if ok else "must be a whole number of rows >= 1"


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
    "row_cap": _row_cap,
    "sql": _text,
    "also": check_also,
    "columns": check_columns,
    "why": _line,
    "draft": _flag,
    "exact_match": _one_of("official", "extended", "spider"),
    "ordered_from": _one_of("question", "sql"),
}
